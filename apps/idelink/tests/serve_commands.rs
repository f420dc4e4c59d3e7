//! The serve terminal's command set and colours, driven through its stdin with a test client
//! as claude: `?`, `@FILE:A-B` (an `at_mentioned` notification), `s`, `d` during a review,
//! and colour only when wanted (`CLICOLOR_FORCE`, `NO_COLOR`, a pipe).
#![expect(
    clippy::unwrap_used,
    reason = "a test: any failure must stop it loudly"
)]

use idelink_test_client::Client;
use serde_json::{Value, json};
use std::io::Write;
use std::process::{Child, ChildStdin, Stdio};
use std::sync::mpsc::Receiver;

mod support;

use support::{claude_path, idelink, lines, temp_dir, wait_for_line};

/// `idelink serve` (diffs asked in the terminal) with its stdin, stdout lines and a client.
struct Served {
    child: Child,
    stdin: ChildStdin,
    out: Receiver<String>,
    client: Client,
    file: String,
}

impl Drop for Served {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

impl Served {
    fn start(name: &str, env: &[(&str, &str)]) -> Served {
        let dir = temp_dir(name);
        let work = dir.join("work").canonicalize().unwrap();
        std::fs::write(work.join("main.rs"), "a\nb\nc\n").unwrap();
        let mut child = idelink(&["serve", "--lock-dir"])
            .arg(dir.join("ide"))
            .arg(&work)
            .env_remove("NO_COLOR")
            .env_remove("CLICOLOR_FORCE")
            .envs(env.iter().copied())
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .spawn()
            .unwrap();
        let out = lines(child.stdout.take().unwrap());
        let banner = wait_for_line(&out, "on 127.0.0.1:");
        let port: u16 = banner.rsplit(':').next().unwrap().parse().unwrap();
        let lock = std::fs::read_to_string(dir.join("ide").join(format!("{port}.lock"))).unwrap();
        let lock: Value = serde_json::from_str(&lock).unwrap();
        let client =
            Client::connect_initialized(port, lock["authToken"].as_str().unwrap()).unwrap();
        wait_for_line(&out, "session ready");
        let stdin = child.stdin.take().unwrap();
        let file = work.join("main.rs").to_str().unwrap().to_owned();
        Served {
            child,
            stdin,
            out,
            client,
            file,
        }
    }

    fn type_line(&mut self, line: &str) {
        writeln!(self.stdin, "{line}").unwrap();
        self.stdin.flush().unwrap();
    }

    /// Sends an openDiff adding a line; returns its request id.
    fn open_diff(&mut self) -> u64 {
        let args = json!({"old_file_path": self.file, "new_file_path": self.file,
            "new_file_contents": "a\nb\nc\nd\n", "tab_name": "t"});
        self.client
            .send_request("tools/call", json!({"name": "openDiff", "arguments": args}))
            .unwrap()
    }
}

#[test]
fn a_mention_typed_in_the_terminal_reaches_claude_and_commands_keep_the_review() {
    let mut served = Served::start("serve-commands", &[]);
    served.type_line("?");
    wait_for_line(&served.out, "commands: @FILE");
    served.type_line("@main.rs:2-3");
    wait_for_line(&served.out, "mentioned main.rs:2-3 to claude");
    let mention = served.client.notification("at_mentioned").unwrap();
    assert_eq!(
        mention["params"],
        json!({"filePath": claude_path(served.file.as_ref()), "lineStart": 1, "lineEnd": 2})
    );
    served.type_line("@nope.rs");
    wait_for_line(&served.out, "no file nope.rs");

    let id = served.open_diff();
    wait_for_line(&served.out, "+++ b/main.rs");
    served.type_line("s");
    wait_for_line(&served.out, "conn#1: claude-code test");
    served.type_line("d");
    let again = wait_for_line(&served.out, "+++ b/main.rs");
    assert!(!again.contains('\x1b'), "no colour into a pipe: {again:?}");
    served.type_line("a");
    let answer = served.client.response(id).unwrap();
    assert_eq!(
        answer["result"]["content"][0]["text"], "FILE_SAVED",
        "{answer}"
    );
}

#[test]
fn colour_follows_clicolor_force_and_no_color() {
    let mut forced = Served::start("serve-colour", &[("CLICOLOR_FORCE", "1")]);
    forced.open_diff();
    wait_for_line(&forced.out, "\x1b[32m+d\x1b[0m");

    let mut refused = Served::start(
        "serve-no-colour",
        &[("CLICOLOR_FORCE", "1"), ("NO_COLOR", "1")],
    );
    refused.open_diff();
    let added = wait_for_line(&refused.out, "+d");
    assert_eq!(added, "+d", "NO_COLOR wins over CLICOLOR_FORCE");
}
