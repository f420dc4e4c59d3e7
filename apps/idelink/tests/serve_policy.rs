//! `idelink serve`'s context policy, with a test client as claude: `p` pauses and resumes
//! sharing, `.idelink.toml` denies a file and sets the mode, `--context-mode` overrides it, and
//! a bad policy file stops serve with what is wrong and how to fix it.
#![expect(
    clippy::unwrap_used,
    reason = "a test: any failure must stop it loudly"
)]

use idelink_test_client::Client;
use serde_json::{Value, json};
use std::path::Path;
use std::process::Stdio;

mod support;

use support::frames::{frames, wait_for_frame};
use support::served::Served;
use support::{claude_path, idelink, temp_dir, wait_exit, wait_for_line};

/// serve on a workspace with `main.rs`, `secret.txt` and `policy` as `.idelink.toml`; with the
/// workspace as claude names it.
fn start(name: &str, policy: Option<&str>, args: &[&str]) -> (Served, String) {
    let mut files = vec![("main.rs", "a\nb\nc\n"), ("secret.txt", "hunter2\n")];
    files.extend(policy.map(|policy| (".idelink.toml", policy)));
    let served = Served::start(name, &files, args, &[]);
    let work = claude_path(&served.work);
    (served, work)
}

#[test]
fn p_pauses_and_resumes_sharing() {
    let (mut served, work) = start("serve-pause", None, &[]);
    served.type_line("p");
    wait_for_line(&served.out, "sharing paused");
    served.type_line("@main.rs");
    wait_for_line(&served.out, "withheld by the context policy: main.rs");
    served.type_line("p");
    wait_for_line(&served.out, "sharing resumed (everything)");
    served.type_line("@main.rs:2");
    // The first mention claude receives is the one made after resuming.
    let mention = served.client.notification("at_mentioned").unwrap();
    assert_eq!(
        mention["params"],
        json!({"filePath": format!("{work}/main.rs"), "lineStart": 1, "lineEnd": 1})
    );
}

#[test]
fn the_policy_file_denies_and_the_flag_sets_the_mode() {
    let policy = "[context]\nmode = \"everything\"\ndeny = [\"secret.txt\"]\n";
    let (mut served, work) = start(
        "serve-policy-file",
        Some(policy),
        &["--context-mode", "mentionsOnly"],
    );
    served.type_line("@secret.txt");
    wait_for_line(&served.out, "withheld by the context policy: secret.txt");
    served.type_line("@main.rs:3");
    let mention = served.client.notification("at_mentioned").unwrap();
    assert_eq!(
        mention["params"],
        json!({"filePath": format!("{work}/main.rs"), "lineStart": 2, "lineEnd": 2})
    );
    // mentionsOnly: the selection tools answer no selection, whatever the workspace editor has.
    let answer = served
        .client
        .call_tool("getCurrentSelection", json!({}))
        .unwrap();
    let text = answer["result"]["content"][0]["text"]
        .as_str()
        .unwrap_or("");
    assert!(text.contains("\"success\":false"), "{answer}");
}

#[test]
fn a_bad_policy_file_says_what_is_wrong_and_how_to_fix_it() {
    let dir = temp_dir("serve-bad-policy");
    let work = dir.join("work");
    for (policy, says) in [
        (
            "[context]\nmode = \"sometimes\"\n",
            "is not a mode: write \"everything\"",
        ),
        (
            "[context]\ndeny = \"secrets/\"\n",
            "is not a valid context policy",
        ),
        ("[contxt]\n", "unknown field `contxt`"),
    ] {
        std::fs::write(work.join(".idelink.toml"), policy).unwrap();
        let mut child = idelink(&["serve", "--lock-dir"])
            .arg(dir.join("ide"))
            .arg(&work)
            .stdin(Stdio::null())
            .stdout(Stdio::null())
            .stderr(Stdio::piped())
            .spawn()
            .unwrap();
        let status = wait_exit(&mut child);
        let mut err = String::new();
        std::io::Read::read_to_string(&mut child.stderr.take().unwrap(), &mut err).unwrap();
        assert!(!status.success(), "{policy}");
        assert!(err.contains(says), "{policy}: {err}");
        assert!(
            err.contains(&Path::new(".idelink.toml").display().to_string()),
            "{err}"
        );
    }
}

#[test]
fn the_sidecar_flags_a_tool_call_on_a_denied_file() {
    let dir = temp_dir("serve-policy-sidecar");
    let work = dir.join("work").canonicalize().unwrap();
    let mut child = idelink(&["serve", "--stdio", "--lock-dir"])
        .arg(dir.join("ide"))
        .arg(&work)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .spawn()
        .unwrap();
    let stdin = child.stdin.take().unwrap();
    let from_sidecar = frames(child.stdout.take().unwrap());
    let ready = wait_for_frame(&from_sidecar, |m| m["method"] == "idelink/ready");
    let port = u16::try_from(ready["params"]["port"].as_u64().unwrap()).unwrap();
    let lock = std::fs::read_to_string(ready["params"]["lockFile"].as_str().unwrap()).unwrap();
    let lock: Value = serde_json::from_str(&lock).unwrap();
    let mut client =
        Client::connect_initialized(port, lock["authToken"].as_str().unwrap()).unwrap();
    let root = claude_path(&work);
    for (file, denied) in [(".env", true), ("lib.rs", false)] {
        let path = format!("{root}/{file}");
        client
            .send_request(
                "tools/call",
                json!({"name": "openFile", "arguments": {"filePath": path}}),
            )
            .unwrap();
        let call = wait_for_frame(&from_sidecar, |m| {
            m["method"] == "tool/call" && m["params"]["request"]["path"] == path.as_str()
        });
        let flag = call["params"].get("contextDenied");
        assert_eq!(flag, denied.then_some(&json!(true)), "{call}");
    }
    drop(stdin);
    assert!(wait_exit(&mut child).success());
}
