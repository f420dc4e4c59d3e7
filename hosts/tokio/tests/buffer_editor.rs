//! The `buffer_editor` example treats tool arguments as untrusted: a FIFO the model names does
//! not freeze its engine (a second client initializes within a second), a diff for a path
//! outside the workspace gets no buffer, a diff is rejected unless `--diff accept` is given,
//! and a path shown on its console is escaped. Real processes and sockets; the example is built
//! by `cargo test -p idelink-tokio`.
#![expect(
    clippy::unwrap_used,
    clippy::expect_used,
    reason = "a test: any failure must stop it loudly"
)]

mod common;
#[path = "real_claude/buffer_editor.rs"]
mod program;

use common::{DEADLINE, TempDir};
use idelink_test_client::Client;
use serde_json::{Value, json};
use std::io::{BufRead, BufReader};
use std::process::{Child, Command, Stdio};
use std::sync::{Arc, Mutex, PoisonError};
use std::time::{Duration, Instant};

/// A second client must be initialized within this while the first one's call reads a FIFO.
const SERVED_WITHIN: Duration = Duration::from_secs(1);

/// The example running on a fresh workspace, its console collected line by line.
struct Editor {
    child: Child,
    lines: Arc<Mutex<Vec<String>>>,
    port: u16,
    token: String,
    workspace: String,
}

impl Editor {
    /// Starts the example on `<dir>/w` with `args`; waits for its banner and reads its lock.
    fn start(dir: &TempDir, args: &[&str]) -> Editor {
        let workspace = dir.path().join("w");
        std::fs::create_dir_all(&workspace).unwrap();
        let workspace = workspace.canonicalize().unwrap();
        let locks = dir.path().join("ide");
        let mut child = Command::new(program::buffer_editor().program)
            .args(args)
            .arg("--lock-dir")
            .arg(&locks)
            .arg(&workspace)
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .spawn()
            .unwrap();
        let lines = Arc::new(Mutex::new(Vec::new()));
        let stdout = child.stdout.take().unwrap();
        let collected = Arc::clone(&lines);
        std::thread::spawn(move || {
            for line in BufReader::new(stdout).lines().map_while(Result::ok) {
                println!("buffer_editor| {line}");
                collected
                    .lock()
                    .unwrap_or_else(PoisonError::into_inner)
                    .push(line);
            }
        });
        let mut editor = Editor {
            child,
            lines,
            port: 0,
            token: String::new(),
            workspace: workspace.to_str().unwrap().to_owned(),
        };
        let banner = editor.wait_line("on 127.0.0.1:");
        editor.port = banner.rsplit(':').next().unwrap().parse().unwrap();
        let lock = std::fs::read_to_string(locks.join(format!("{}.lock", editor.port))).unwrap();
        let lock: Value = serde_json::from_str(&lock).unwrap();
        editor.token = lock["authToken"].as_str().unwrap().to_owned();
        editor
    }

    /// A client through the CLI's opening.
    fn client(&self) -> Client {
        Client::connect_initialized(self.port, &self.token).unwrap()
    }

    /// `<workspace>/<name>`.
    fn path(&self, name: &str) -> String {
        format!("{}/{name}", self.workspace)
    }

    /// The first console line containing `needle`; fails at the deadline.
    fn wait_line(&mut self, needle: &str) -> String {
        let deadline = Instant::now() + DEADLINE;
        loop {
            let lines = self.lines.lock().unwrap_or_else(PoisonError::into_inner);
            if let Some(line) = lines.iter().find(|line| line.contains(needle)) {
                return line.clone();
            }
            drop(lines);
            if let Ok(Some(status)) = self.child.try_wait() {
                panic!("buffer_editor exited ({status}) before printing {needle:?}");
            }
            assert!(Instant::now() < deadline, "no {needle:?} on the console");
            std::thread::sleep(Duration::from_millis(10));
        }
    }
}

impl Drop for Editor {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

/// Proposes `contents` for `path`; returns the answer's texts.
fn open_diff(client: &mut Client, path: &str, contents: &str) -> Vec<String> {
    let arguments = json!({"old_file_path": path, "new_file_path": path,
        "new_file_contents": contents, "tab_name": path});
    texts(&client.call_tool("openDiff", arguments).unwrap())
}

fn texts(answer: &Value) -> Vec<String> {
    answer["result"]["content"]
        .as_array()
        .into_iter()
        .flatten()
        .filter_map(|item| item["text"].as_str().map(str::to_owned))
        .collect()
}

/// The paths `getOpenEditors` lists.
fn open_editors(client: &mut Client) -> Vec<String> {
    let answer = client.call_tool("getOpenEditors", json!({})).unwrap();
    let text = texts(&answer).concat();
    let tabs: Value = serde_json::from_str(&text).unwrap_or_else(|_| panic!("{answer}"));
    tabs["tabs"]
        .as_array()
        .into_iter()
        .flatten()
        .filter_map(|tab| tab["fileName"].as_str().map(str::to_owned))
        .collect()
}

#[cfg(unix)]
#[test]
fn a_fifo_named_by_the_model_does_not_freeze_the_engine() {
    let dir = TempDir::new("editor-fifo");
    let editor = Editor::start(&dir, &["--diff", "accept"]);
    let pipe = editor.path("pipe");
    // mkfifo(1) (POSIX), as in the command's own FIFO tests.
    let made = Command::new("mkfifo").arg(&pipe).status().unwrap();
    assert!(made.success());
    let mut first = editor.client();
    assert_eq!(open_diff(&mut first, &pipe, "x\n")[0], "FILE_SAVED");

    // checkDocumentDirty compares the buffer with the file: the editor must not block on it.
    let dirty = first
        .send_request(
            "tools/call",
            json!({"name": "checkDocumentDirty", "arguments": {"filePath": pipe}}),
        )
        .unwrap();
    let Some(took) = Client::initialized_within(editor.port, &editor.token, SERVED_WITHIN) else {
        panic!(
            "a second client was not initialized within {SERVED_WITHIN:?} while the editor \
             checked the FIFO {pipe}: the engine is frozen"
        )
    };
    eprintln!("second client initialized in {took:?} during the FIFO's check");
    let answer = first.response(dirty).unwrap();
    let answered: Value = serde_json::from_str(&texts(&answer).concat()).unwrap();
    assert_eq!(
        answered["isDirty"], true,
        "a FIFO is not the buffer: {answer}"
    );

    // Saving it (a write open blocks until a reader comes) is refused at once.
    let saved = first
        .call_tool("saveDocument", json!({"filePath": pipe}))
        .unwrap();
    assert!(
        !texts(&saved).concat().contains("\"success\":true"),
        "saving into a FIFO must fail: {saved}"
    );
    // /dev/zero (never ends) is refused the same way.
    let zero = first
        .call_tool("checkDocumentDirty", json!({"filePath": "/dev/zero"}))
        .unwrap();
    assert!(zero.get("result").is_some(), "{zero}");
}

#[test]
fn a_diff_outside_the_workspace_gets_no_buffer() {
    let dir = TempDir::new("editor-outside");
    let editor = Editor::start(&dir, &["--diff", "accept"]);
    let mut client = editor.client();
    let outside = dir.path().join("far.txt").to_str().unwrap().to_owned();
    let dotted = editor.path("../dotted.txt");
    let inside = editor.path("inside.txt");
    assert_eq!(open_diff(&mut client, &outside, "x\n")[0], "DIFF_REJECTED");
    assert_eq!(open_diff(&mut client, &dotted, "x\n")[0], "DIFF_REJECTED");
    assert_eq!(open_diff(&mut client, &inside, "x\n")[0], "FILE_SAVED");
    let tabs = open_editors(&mut client);
    assert!(tabs.contains(&inside), "{tabs:?}");
    assert!(
        !tabs
            .iter()
            .any(|tab| tab.ends_with("/far.txt") || tab.ends_with("/dotted.txt")),
        "a path outside the workspace got a buffer: {tabs:?}"
    );
}

#[test]
fn a_diff_is_rejected_by_default_and_its_path_is_shown_escaped() {
    let dir = TempDir::new("editor-default");
    let mut editor = Editor::start(&dir, &[]);
    let mut client = editor.client();
    let file = editor.path("a\u{1b}[2K\u{202e}b.txt");
    assert_eq!(
        open_diff(&mut client, &file, "x\n"),
        ["DIFF_REJECTED", file.as_str()]
    );
    let line = editor.wait_line("openDiff ");
    assert_eq!(line, r"conn#1 openDiff a\u{1b}[2K\u{202e}b.txt", "{line:?}");
    assert!(open_editors(&mut client).is_empty());
}
