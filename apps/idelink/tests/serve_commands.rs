//! The serve terminal's command set and colours, driven through its stdin with a test client
//! as claude: `?`, `@FILE:A-B` (an `at_mentioned` notification), `s`, `d` during a review,
//! and colour only when wanted (`CLICOLOR_FORCE`, `NO_COLOR`, a pipe).
#![expect(
    clippy::unwrap_used,
    reason = "a test: any failure must stop it loudly"
)]

use serde_json::json;

mod support;

use support::served::Served;
use support::{claude_path, wait_for_line};

/// `idelink serve` (diffs asked in the terminal) on a workspace holding `main.rs`.
fn start(name: &str, env: &[(&str, &str)]) -> Served {
    Served::start(name, &[("main.rs", "a\nb\nc\n")], &[], env)
}

/// The workspace's `main.rs` as claude names it.
fn main_rs(served: &Served) -> String {
    claude_path(&served.work.join("main.rs"))
}

/// Sends an openDiff adding a line to `main.rs`; returns its request id.
fn open_diff(served: &mut Served) -> u64 {
    let file = main_rs(served);
    let args = json!({"old_file_path": file, "new_file_path": file,
        "new_file_contents": "a\nb\nc\nd\n", "tab_name": "t"});
    served
        .client
        .send_request("tools/call", json!({"name": "openDiff", "arguments": args}))
        .unwrap()
}

#[test]
fn a_mention_typed_in_the_terminal_reaches_claude_and_commands_keep_the_review() {
    let mut served = start("serve-commands", &[]);
    served.type_line("?");
    wait_for_line(&served.out, "commands: @FILE");
    served.type_line("@main.rs:2-3");
    wait_for_line(&served.out, "mentioned main.rs:2-3 to claude");
    let mention = served.client.notification("at_mentioned").unwrap();
    assert_eq!(
        mention["params"],
        json!({"filePath": main_rs(&served), "lineStart": 1, "lineEnd": 2})
    );
    served.type_line("@nope.rs");
    wait_for_line(&served.out, "no file nope.rs");

    let id = open_diff(&mut served);
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
    let mut forced = start("serve-colour", &[("CLICOLOR_FORCE", "1")]);
    open_diff(&mut forced);
    wait_for_line(&forced.out, "\x1b[32m+d\x1b[0m");

    let mut refused = start(
        "serve-no-colour",
        &[("CLICOLOR_FORCE", "1"), ("NO_COLOR", "1")],
    );
    open_diff(&mut refused);
    let added = wait_for_line(&refused.out, "+d");
    assert_eq!(added, "+d", "NO_COLOR wins over CLICOLOR_FORCE");
}
