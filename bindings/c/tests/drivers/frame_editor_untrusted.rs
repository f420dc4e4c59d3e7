//! frame_editor (the C++ example) against tool arguments a hostile model could send, with the
//! real-socket test client: a FIFO (and `/dev/zero`) named as a file does not stall its frame
//! loop, an escape sequence in a path or a proposal reaches its console as visible markers, and
//! two pending diffs are each answered by their own call id.
//!
//! ctest runs each case: `frame_editor_untrusted <path to frame_editor> fifo|escape|two-diffs`;
//! exits non-zero on a failure.
#![expect(
    clippy::unwrap_used,
    clippy::expect_used,
    reason = "a test driver: anything unexpected must fail it loudly"
)]

mod editor_process;

use editor_process::EditorProcess;
use idelink_test_client::Client;
use serde_json::{Value, json};
use std::path::{Path, PathBuf};
use std::time::Duration;

/// A second client must be initialized within this after the FIFO was named: the frame loop
/// polls 60 times a second when nothing stalls it.
const SERVED_WITHIN: Duration = Duration::from_secs(1);

/// frame_editor on a fresh workspace, with a client through the CLI's opening.
struct Session {
    editor: EditorProcess,
    client: Client,
    port: u16,
    token: String,
    workspace: String,
    lock_path: PathBuf,
    root: PathBuf,
}

impl Session {
    fn start(program: &Path, case: &str) -> Session {
        let root =
            std::env::temp_dir().join(format!("idelink-c-untrusted-{case}-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&root);
        let (workspace, locks) = (root.join("work"), root.join("locks"));
        std::fs::create_dir_all(&workspace).unwrap();
        let workspace = workspace
            .canonicalize()
            .unwrap()
            .to_str()
            .unwrap()
            .to_owned();
        let serving = editor_process::serve(program, &["--diff", "ask"], &locks, &workspace);
        let token = serving.token().to_owned();
        let client = Client::connect_initialized(serving.port, &token).unwrap();
        let mut editor = serving.editor;
        editor.wait_line(0, "session ready");
        Session {
            editor,
            client,
            port: serving.port,
            token,
            workspace,
            lock_path: serving.lock_path,
            root,
        }
    }

    fn path(&self, name: &str) -> String {
        format!("{}/{name}", self.workspace)
    }

    /// Sends `openDiff` for `path`; returns the request id.
    fn open_diff(&mut self, path: &str, contents: &str, tab: &str) -> u64 {
        let arguments = json!({"old_file_path": path, "new_file_path": path,
            "new_file_contents": contents, "tab_name": tab});
        self.client
            .send_request(
                "tools/call",
                json!({"name": "openDiff", "arguments": arguments}),
            )
            .unwrap()
    }

    /// Waits for the question about a diff (at console line `from` or later); returns its
    /// call id, what `accept` and `reject` take.
    fn asked(&mut self, from: usize) -> String {
        let (_, asked) = self.editor.wait_line(from, "accept or reject call#");
        let call = asked
            .split("call#")
            .nth(1)
            .and_then(|rest| rest.split('?').next());
        call.expect("the question names its call").to_owned()
    }

    /// Ends the editor with `quit` and checks it exits 0 and removes its lock.
    fn quit(mut self) {
        self.editor.type_line("quit");
        assert!(
            self.editor.wait_exit(),
            "frame_editor should exit 0 on quit"
        );
        assert!(!self.lock_path.exists(), "frame_editor left its lock file");
        let _ = std::fs::remove_dir_all(&self.root);
    }
}

fn texts(answer: &Value) -> Vec<&str> {
    answer["result"]["content"]
        .as_array()
        .into_iter()
        .flatten()
        .filter_map(|item| item["text"].as_str())
        .collect()
}

fn main() {
    let mut args = std::env::args().skip(1);
    let usage = "usage: frame_editor_untrusted <frame_editor> fifo|escape|two-diffs";
    let program = PathBuf::from(args.next().expect(usage));
    match args.next().as_deref() {
        Some("fifo") => fifo(&program),
        Some("escape") => escape(&program),
        Some("two-diffs") => two_diffs(&program),
        _ => panic!("{usage}"),
    }
}

/// `openFile` and `openDiff` naming a FIFO, and `openFile` naming /dev/zero: each is answered
/// at once, and a second client is served meanwhile.
fn fifo(program: &Path) {
    let mut session = Session::start(program, "fifo");
    let pipe = session.path("pipe");
    // mkfifo(1) (POSIX), as in the command's own FIFO tests.
    let made = std::process::Command::new("mkfifo")
        .arg(&pipe)
        .status()
        .unwrap();
    assert!(made.success(), "mkfifo {pipe}");
    let opened = session
        .client
        .send_request(
            "tools/call",
            json!({"name": "openFile", "arguments": {"filePath": pipe}}),
        )
        .unwrap();

    let Some(took) = Client::initialized_within(session.port, &session.token, SERVED_WITHIN) else {
        panic!(
            "a second client was not initialized within {SERVED_WITHIN:?} after openFile \
             named the FIFO {pipe}: the frame loop is stalled"
        )
    };
    println!(
        "frame_editor_untrusted: a second client initialized {took:?} after openFile named a FIFO"
    );
    let answer = session.client.response(opened).unwrap();
    assert!(
        answer["result"]["isError"] == true || answer.get("error").is_some(),
        "openFile of a FIFO must fail: {answer}"
    );
    let zero = session
        .client
        .call_tool("openFile", json!({"filePath": "/dev/zero"}))
        .unwrap();
    assert!(
        zero["result"]["isError"] == true || zero.get("error").is_some(),
        "openFile of /dev/zero must fail: {zero}"
    );

    // A diff against the FIFO is shown (the current text refused) and still answerable.
    let before = session.editor.lines().len();
    let id = session.open_diff(&pipe, "proposed\n", "pipe");
    session.editor.wait_line(
        before,
        "! the current text is not shown: it is not a regular file",
    );
    let call = session.asked(before);
    session.editor.type_line(&format!("reject {call}"));
    let answer = session.client.response(id).unwrap();
    assert_eq!(texts(&answer)[0], "DIFF_REJECTED", "{answer}");
    session.quit();
    println!("frame_editor_untrusted: FIFO and /dev/zero refused without stalling the frame");
}

/// A path and a proposal holding OSC 52, an erase-line, a carriage return and a bidi override:
/// the console shows markers, never the raw characters, and warns.
fn escape(program: &Path) {
    let mut session = Session::start(program, "escape");
    let file = session.path("a\u{1b}[31mb.txt");
    let proposal = "\u{1b}]52;c;aGk=\u{7}clipboard\n\u{1b}[2Kerased\rhidden\nabc\u{202e}def\n";
    let before = session.editor.lines().len();
    let id = session.open_diff(&file, proposal, "escape");
    // The proposal's last line is on the console: the whole diff is.
    session.editor.wait_line(before, "def");
    let console = session.editor.lines()[before..].join("\n");
    for raw in ['\u{1b}', '\u{7}', '\r', '\u{202e}'] {
        assert!(
            !console.contains(raw),
            "frame_editor printed {raw:?} raw:\n{console:?}"
        );
    }
    for shown in [
        "a<ESC>[31mb.txt",
        "+<ESC>]52;c;aGk=<BEL>clipboard",
        "+<ESC>[2Kerased<CR>hidden",
        "+abc<U+202E>def",
        "! warning: this diff holds control characters and bidi controls",
    ] {
        assert!(
            console.contains(shown),
            "the console does not show {shown:?}:\n{console}"
        );
    }
    let call = session.asked(before);
    session.editor.type_line(&format!("reject {call}"));
    let answer = session.client.response(id).unwrap();
    assert_eq!(texts(&answer)[0], "DIFF_REJECTED", "{answer}");
    session.quit();
    println!("frame_editor_untrusted: escape sequences and bidi controls shown as markers");
}

/// Two diffs pending at once: the second does not replace the first, and each `accept ID` /
/// `reject ID` answers its own call.
fn two_diffs(program: &Path) {
    let mut session = Session::start(program, "two-diffs");
    let (first, second) = (session.path("first.txt"), session.path("second.txt"));
    let before = session.editor.lines().len();
    let first_request = session.open_diff(&first, "one\n", "first");
    session
        .editor
        .wait_line(before, "openDiff first.txt (call#1)");
    let second_request = session.open_diff(&second, "two\n", "second");
    session
        .editor
        .wait_line(before, "openDiff second.txt (call#2)");
    session.editor.type_line("reject 2");
    let answer = session.client.response(second_request).unwrap();
    assert_eq!(texts(&answer), ["DIFF_REJECTED", "second"], "{answer}");
    session.editor.type_line("accept 1 kept");
    let answer = session
        .client
        .response(first_request)
        .unwrap_or_else(|e| panic!("the first diff (call#1) was never answered: {e}"));
    assert_eq!(texts(&answer), ["FILE_SAVED", "one\nkept\n"], "{answer}");
    session
        .editor
        .wait_line(before, "accepted call#1 first.txt");
    session.quit();
    println!("frame_editor_untrusted: two pending diffs, each answered by its own call id");
}
