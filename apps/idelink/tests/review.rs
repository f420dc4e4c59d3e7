//! `idelink serve`'s terminal review against a hostile model and hostile local input: a real
//! process, its stdout as the exact bytes a terminal would get, its stdin a pipe or a
//! pseudo-terminal.
//!
//! On Windows only the editor test runs (pseudo-terminals, FIFOs, devices, signals and file
//! names with control characters are Unix's; scripts/wine/unix-only.tsv lists the others).
#![cfg_attr(
    windows,
    allow(
        dead_code,
        unused_imports,
        reason = "the helpers of the Unix-only tests"
    )
)]
#![expect(
    clippy::unwrap_used,
    reason = "a test: any failure must stop it loudly"
)]

use idelink_test_client::Client;
use serde_json::{Value, json};
use std::fs::File;
use std::io::{Read, Write};
use std::path::{Path, PathBuf};
use std::process::{Child, Stdio};
use std::sync::mpsc::{self, Receiver};
use std::time::{Duration, Instant};

mod support;

use support::{DEADLINE, idelink, temp_dir, wait_exit};

/// The question the review asks, up to the file name.
const ASK: &str = "Apply this change to ";
/// The end of the question.
const ASK_END: &str = "? [a]ccept / [r]eject / [e]dit: ";
/// The end of the question about a proposal shown only in summary.
const SUMMARY_ASK_END: &str =
    ", shown only in summary? [e]dit to see it all / [r]eject / \"accept unseen\": ";

/// A process's output bytes as they come, searched with deadlines.
struct Bytes {
    chunks: Receiver<Vec<u8>>,
    seen: Vec<u8>,
    /// Where the next search starts.
    cursor: usize,
}

impl Bytes {
    fn new(mut source: impl Read + Send + 'static) -> Bytes {
        let (send, chunks) = mpsc::channel();
        std::thread::spawn(move || {
            let mut buf = [0u8; 65536];
            while let Ok(n) = source.read(&mut buf) {
                if n == 0 || send.send(buf[..n].to_vec()).is_err() {
                    return;
                }
            }
        });
        Bytes {
            chunks,
            seen: Vec::new(),
            cursor: 0,
        }
    }

    /// Waits for `needle` after the cursor; moves the cursor past it and returns where it
    /// starts.
    fn wait_for(&mut self, needle: &str) -> usize {
        let until = Instant::now() + DEADLINE;
        loop {
            if let Some(at) = find(&self.seen[self.cursor..], needle.as_bytes()) {
                let start = self.cursor + at;
                self.cursor = start + needle.len();
                return start;
            }
            let left = until.saturating_duration_since(Instant::now());
            match self.chunks.recv_timeout(left) {
                Ok(chunk) => self.seen.extend_from_slice(&chunk),
                Err(e) => panic!(
                    "no {needle:?} in the output ({e}); so far:\n{}",
                    String::from_utf8_lossy(&self.seen)
                ),
            }
        }
    }

    /// Waits for `from`, then for `to`; returns what came after `from`, up to and with `to`.
    fn after_until(&mut self, from: &str, to: &str) -> String {
        self.wait_for(from);
        let start = self.cursor;
        self.wait_for(to);
        String::from_utf8_lossy(&self.seen[start..self.cursor]).into_owned()
    }
}

fn find(haystack: &[u8], needle: &[u8]) -> Option<usize> {
    haystack.windows(needle.len()).position(|w| w == needle)
}

/// A running `idelink serve` in ask mode, killed if the test fails.
struct Serve {
    child: Child,
    out: Bytes,
    port: u16,
    token: String,
    lock: PathBuf,
    work: PathBuf,
}

impl Serve {
    /// Starts `idelink serve <args> --lock-dir <dir>/ide <dir>/work` with `stdin`.
    fn start(name: &str, args: &[&str], stdin: Stdio) -> Serve {
        Serve::start_with_env(name, args, &[], stdin)
    }

    /// [`start`](Self::start) with environment variables set.
    fn start_with_env(name: &str, args: &[&str], env: &[(&str, &str)], stdin: Stdio) -> Serve {
        let dir = temp_dir(name);
        let work = dir.join("work").canonicalize().unwrap();
        let lock_dir = dir.join("ide");
        let mut child = idelink(&["serve"])
            .args(args)
            .arg("--lock-dir")
            .arg(&lock_dir)
            .arg(&work)
            .envs(env.iter().copied())
            .env_remove("EDITOR")
            .stdin(stdin)
            .stdout(Stdio::piped())
            .stderr(File::create(dir.join("stderr")).unwrap())
            .spawn()
            .unwrap();
        let mut out = Bytes::new(child.stdout.take().unwrap());
        out.wait_for("on 127.0.0.1:");
        let at = out.cursor;
        out.wait_for("\n");
        let port: u16 = String::from_utf8_lossy(&out.seen[at..out.cursor - 1])
            .parse()
            .unwrap();
        let lock = lock_dir.join(format!("{port}.lock"));
        let lock_json: Value =
            serde_json::from_str(&std::fs::read_to_string(&lock).unwrap()).unwrap();
        out.wait_for("Ctrl-C stops\n");
        Serve {
            child,
            out,
            port,
            token: lock_json["authToken"].as_str().unwrap().to_owned(),
            lock,
            work,
        }
    }

    fn path(&self, name: &str) -> String {
        format!("{}/{name}", self.work.to_str().unwrap())
    }

    fn stderr(&self) -> Vec<u8> {
        std::fs::read(self.work.parent().unwrap().join("stderr")).unwrap()
    }

    /// SIGTERM, then the lock must be gone.
    #[cfg(unix)]
    fn terminate(mut self) {
        let pid = rustix::process::Pid::from_child(&self.child);
        rustix::process::kill_process(pid, rustix::process::Signal::TERM).unwrap();
        assert!(wait_exit(&mut self.child).success());
        assert!(
            !self.lock.exists(),
            "the lock file must be removed on SIGTERM"
        );
    }

    /// Ends the process (tests/serve.rs checks Ctrl-Break on Windows).
    #[cfg(windows)]
    fn terminate(mut self) {
        support::terminate(&mut self.child);
    }
}

impl Drop for Serve {
    fn drop(&mut self) {
        if matches!(self.child.try_wait(), Ok(None)) {
            let _ = self.child.kill();
            let _ = self.child.wait();
        }
    }
}

fn open_diff(path: &str, contents: &str, tab: &str) -> Value {
    json!({"name": "openDiff", "arguments": {"old_file_path": path, "new_file_path": path,
        "new_file_contents": contents, "tab_name": tab}})
}

/// The first text item of a tool result (an error result too).
fn first_text(response: &Value) -> String {
    texts(response).swap_remove(0)
}

/// The text items of a tool result (an error result too).
fn texts(response: &Value) -> Vec<String> {
    response["result"]["content"]
        .as_array()
        .unwrap_or_else(|| panic!("not a tool result: {response}"))
        .iter()
        .map(|item| item["text"].as_str().unwrap().to_owned())
        .collect()
}

/// Every ESC in `bytes` starts an SGR colour code (`ESC [ digits/; m`): the only sequences
/// idelink's own output (or its log formatter) writes.
fn only_colour_codes(bytes: &[u8]) -> bool {
    bytes.iter().enumerate().all(|(i, &b)| {
        if b != 0x1b {
            return true;
        }
        let rest = &bytes[i + 1..];
        rest.first() == Some(&b'[')
            && rest[1..]
                .iter()
                .position(|&c| c == b'm')
                .is_some_and(|end| {
                    rest[1..1 + end]
                        .iter()
                        .all(|c| c.is_ascii_digit() || *c == b';')
                })
    })
}

/// No control character but LF and tab (and the colour codes `only_colour_codes` allows), no
/// C1 control, no bidi control, no invisible format character.
fn assert_inert(what: &str, bytes: &[u8]) {
    let text = String::from_utf8_lossy(bytes);
    assert!(
        only_colour_codes(bytes),
        "{what}: a raw escape sequence: {text:?}"
    );
    let bad = text.chars().find(|&c| {
        let code = u32::from(c);
        (c.is_control() && !matches!(c, '\n' | '\t' | '\x1b'))
            || (0x202A..=0x202E).contains(&code)
            || (0x2066..=0x2069).contains(&code)
            || matches!(code, 0x200B..=0x200F | 0xFEFF | 0x00AD | 0x2028 | 0x2029)
    });
    assert_eq!(
        bad, None,
        "{what}: a hidden character reached the terminal: {text:?}"
    );
}

#[cfg(unix)]
#[test]
fn model_text_reaches_the_terminal_inert_and_visible() {
    let mut serve = Serve::start("review-inert", &["-vv", "--trace-contents"], Stdio::piped());
    let mut stdin = serve.child.stdin.take().unwrap();
    let mut client = Client::connect(serve.port, &serve.token).unwrap();
    let init = client
        .call(
            "initialize",
            json!({"protocolVersion": "2025-11-25", "capabilities": {},
                   "clientInfo": {"name": "claude\u{1b}]52;c;ZXZpbA==\u{7}", "version": "1\r\u{202E}2"}}),
        )
        .unwrap();
    assert!(init.get("result").is_some(), "{init}");
    client
        .notify("notifications/initialized", json!({}))
        .unwrap();
    client.notify("ide_connected", json!({"pid": 1})).unwrap();
    serve
        .out
        .wait_for("session ready: claude<ESC>]52;c;ZXZpbA==<BEL> 1<CR><U+202E>2");

    let path = serve.path("ev\u{1b}[2Kil.rs");
    let proposal = "fn main() {}\r\u{1b}[2K\u{1b}[1Afn main() { evil() }\n\
                    \u{1b}]52;c;ZXZpbA==\u{7}\u{1b}]8;;http://x/\u{1b}\\link\u{1b}]8;;\u{1b}\\\n\
                    \u{9b}31m\u{85}\0\u{8}\u{7f}\tend\n\
                    \u{202E}\u{2066}bidi\u{2069}\u{200B}\u{FEFF}\n";
    let call = client
        .send_request("tools/call", open_diff(&path, proposal, "t\u{1b}[1A"))
        .unwrap();
    let start = serve.out.wait_for("--- /dev/null\n");
    let end = serve.out.wait_for(ASK_END) + ASK_END.len();
    let shown = String::from_utf8(serve.out.seen[start..end].to_vec()).unwrap();
    assert_eq!(
        shown,
        "--- /dev/null\n\
         +++ b/ev<ESC>[2Kil.rs\n\
         @@ -0,0 +1,4 @@\n\
         ! warning: this hunk holds control characters and bidi controls (text may read \
         reordered) and invisible characters, shown as <NAME> or <U+XXXX>\n\
         +fn main() {}<CR><ESC>[2K<ESC>[1Afn main() { evil() }\n\
         +<ESC>]52;c;ZXZpbA==<BEL><ESC>]8;;http://x/<ESC>\\link<ESC>]8;;<ESC>\\\n\
         +<U+009B>31m<U+0085><NUL><BS><DEL>\tend\n\
         +<U+202E><U+2066>bidi<U+2069><U+200B><U+FEFF>\n\
         Apply this change to ev<ESC>[2Kil.rs? [a]ccept / [r]eject / [e]dit: "
    );
    stdin.write_all(b"r\n").unwrap();
    assert_eq!(first_text(&client.response(call).unwrap()), "DIFF_REJECTED");
    serve.out.wait_for("rejected: ev<ESC>[2Kil.rs");
    assert_inert("stdout", &serve.out.seen);
    let stderr = serve.stderr();
    assert!(
        String::from_utf8_lossy(&stderr).contains("evil()"),
        "--trace-contents logs the request"
    );
    assert_inert("the --trace-contents log", &stderr);
    serve.terminate();
}

#[cfg(unix)]
#[test]
fn nothing_a_client_sends_freezes_the_serve_loop() {
    let serve = Serve::start("review-freeze", &[], Stdio::piped());
    let mut serve = serve;
    let mut stdin = serve.child.stdin.take().unwrap();
    let lines = 300_000;
    let old: String = (0..lines).map(|i| format!("old line {i}\n")).collect();
    let new: String = (0..lines).map(|i| format!("new line {i}\n")).collect();
    let big = serve.path("big.txt");
    std::fs::write(&big, &old).unwrap();
    let fifo = serve.path("pipe");
    // mkfifo(1) (POSIX), as rustix has no mkfifoat on every Unix.
    let made = std::process::Command::new("mkfifo")
        .arg(fifo.as_str())
        .status()
        .unwrap();
    assert!(made.success());
    let mut client = Client::connect_initialized(serve.port, &serve.token).unwrap();

    let opened = client
        .call_tool("openFile", json!({"filePath": fifo, "makeFrontmost": true}))
        .unwrap();
    assert_eq!(opened["result"]["isError"], true, "{opened}");
    assert!(
        texts(&opened)[0].ends_with("it is a FIFO, not a regular file"),
        "{opened}"
    );
    let zero = client
        .call_tool(
            "openFile",
            json!({"filePath": "/dev/zero", "makeFrontmost": true}),
        )
        .unwrap();
    assert!(
        texts(&zero)[0].ends_with("it is a device, not a regular file"),
        "{zero}"
    );

    let big_call = client
        .send_request("tools/call", open_diff(&big, &new, "big"))
        .unwrap();
    let fifo_call = client
        .send_request("tools/call", open_diff(&fifo, "text\n", "fifo"))
        .unwrap();
    serve.out.wait_for("openDiff big.txt");

    // While the big proposal is read, diffed and shown, a second client gets in.
    let (port, token) = (serve.port, serve.token.clone());
    let (done, second) = mpsc::channel();
    std::thread::spawn(move || {
        let _ = done.send(Client::connect_initialized(port, &token).map(|_| ()));
    });
    second
        .recv_timeout(Duration::from_secs(1))
        .expect("a second client connects and initializes within 1 s")
        .unwrap();

    let summary = serve.out.after_until("+++ b/big.txt\n", SUMMARY_ASK_END);
    assert_eq!(
        summary,
        "! not shown as a diff: too large to diff here (a side over 20000 lines or 2097152 \
         bytes)\n\
         !   on disk:  4688890 bytes, 300000 lines\n\
         !   proposed: 4688890 bytes, 300000 lines\n\
         !   differing lines: lines 1-300000 in the proposal, lines 1-300000 on disk; 300000 \
         added, 300000 removed\n\
         !   added (proposal's line numbers): 1-300000\n\
         !   removed (line numbers on disk): 1-300000\n\
         !   first difference at line 1:\n\
         -old line 0\n-old line 1\n-old line 2\n+new line 0\n+new line 1\n+new line 2\n\
         !   last difference, up to line 300000:\n\
         -old line 299997\n-old line 299998\n-old line 299999\n\
         +new line 299997\n+new line 299998\n+new line 299999\n\
         ! [e]dit opens the whole proposal in your editor\n\
         Apply this change to big.txt, shown only in summary? [e]dit to see it all / [r]eject / \
         \"accept unseen\": "
    );
    stdin.write_all(b"r\n").unwrap();
    assert_eq!(
        first_text(&client.response(big_call).unwrap()),
        "DIFF_REJECTED"
    );
    let failed = client.response(fifo_call).unwrap();
    assert_eq!(failed["result"]["isError"], true, "{failed}");
    assert!(
        texts(&failed)[0].ends_with("it is a FIFO, not a regular file"),
        "{failed}"
    );
    serve.terminate();
}

/// A pseudo-terminal for idelink's stdin: the master end to type on (and read the echo
/// from), the slave end to hand to the child.
#[cfg(unix)]
fn pty() -> (File, File) {
    use rustix::fs::{Mode, OFlags};
    use rustix::pty::{OpenptFlags, grantpt, openpt, ptsname, unlockpt};
    let master = openpt(OpenptFlags::RDWR | OpenptFlags::NOCTTY).unwrap();
    grantpt(&master).unwrap();
    unlockpt(&master).unwrap();
    let name = ptsname(&master, Vec::new()).unwrap();
    let slave = rustix::fs::open(
        Path::new(name.to_str().unwrap()),
        OFlags::RDWR | OFlags::NOCTTY,
        Mode::empty(),
    )
    .unwrap();
    (File::from(master), File::from(slave))
}

#[cfg(unix)]
#[test]
fn an_answer_belongs_to_the_diff_it_was_typed_for() {
    let (master, slave) = pty();
    let mut keys = master.try_clone().unwrap();
    let mut echo = Bytes::new(master);
    let mut serve = Serve::start("review-answer", &[], Stdio::from(slave));
    let mut client = Client::connect_initialized(serve.port, &serve.token).unwrap();

    // Before: a line typed while no diff is shown answers nothing.
    keys.write_all(b"a\n").unwrap();
    echo.wait_for("a\r\n");
    serve
        .out
        .wait_for("ignored \"a\": no diff is waiting for an answer");
    let first = client
        .send_request("tools/call", open_diff(&serve.path("a.txt"), "A\n", "tab"))
        .unwrap();
    serve.out.wait_for(&format!("{ASK}a.txt{ASK_END}"));

    // During: a half-typed answer when the diff is replaced answers neither.
    // The echo shows the terminal's line discipline holds the half-typed line.
    keys.write_all(b"a").unwrap();
    echo.wait_for("a");
    let second = client
        .send_request("tools/call", open_diff(&serve.path("b.txt"), "B\n", "tab"))
        .unwrap();
    assert_eq!(
        first_text(&client.response(first).unwrap()),
        "DIFF_REJECTED",
        "the replaced diff is rejected by the engine, not accepted by a keystroke"
    );
    serve.out.wait_for(&format!("{ASK}b.txt{ASK_END}"));
    keys.write_all(b"\n").unwrap();

    // After: the next line typed for the new diff answers it.
    keys.write_all(b"r\n").unwrap();
    assert_eq!(
        first_text(&client.response(second).unwrap()),
        "DIFF_REJECTED",
        "the half-typed 'a' must not accept the replacement"
    );
    serve.out.wait_for("rejected: b.txt");
    serve.terminate();
}

#[cfg(unix)]
#[test]
fn a_summary_is_accepted_only_by_a_distinct_confirmation() {
    let (master, slave) = pty();
    let mut keys = master.try_clone().unwrap();
    let mut echo = Bytes::new(master);
    let mut serve = Serve::start("review-unseen", &[], Stdio::from(slave));
    let mut client = Client::connect_initialized(serve.port, &serve.token).unwrap();
    // Past the 20,000-line review limit: a harmless change on line 1 is the one a summary's
    // first lines show; the real one is on line 15,001.
    let old: String = (1..=30_000).map(|i| format!("let x{i} = {i};\n")).collect();
    let new = old
        .replacen("let x1 = 1;\n", "let x1 = 1; // tidy\n", 1)
        .replacen("let x15001 = 15001;\n", "let x15001 = evil();\n", 1);
    let path = serve.path("big.rs");
    std::fs::write(&path, &old).unwrap();
    let call = client
        .send_request("tools/call", open_diff(&path, &new, "big"))
        .unwrap();
    let summary = serve.out.after_until("+++ b/big.rs\n", SUMMARY_ASK_END);
    for shown in [
        "!   differing lines: lines 1-15001 in the proposal, lines 1-15001 on disk; 2 added, 2 \
         removed\n",
        "!   added (proposal's line numbers): 1, 15001\n",
        "!   first difference at line 1:\n-let x1 = 1;\n",
        "+let x1 = 1; // tidy\n",
        "!   last difference, up to line 15001:\n",
        "-let x15001 = 15001;\n",
        "+let x15001 = evil();\n",
    ] {
        assert!(summary.contains(shown), "no {shown:?} in:\n{summary}");
    }

    // `a` alone accepts nothing: the question stays, and nothing went to claude.
    keys.write_all(b"a\n").unwrap();
    echo.wait_for("a\r\n");
    serve
        .out
        .wait_for("not accepted: the summary does not show every line this would accept");
    serve.out.wait_for(SUMMARY_ASK_END);
    let list = client.send_request("tools/list", json!({})).unwrap();
    let next = client.next_json().unwrap();
    assert_eq!(
        next["id"],
        json!(list),
        "the diff must not be answered by `a`: {next}"
    );

    // The distinct confirmation accepts the whole proposal.
    keys.write_all(b"accept unseen\n").unwrap();
    let saved = client.response(call).unwrap();
    assert_eq!(texts(&saved), ["FILE_SAVED", new.as_str()]);
    serve.out.wait_for("accepted: big.rs");
    serve.terminate();
}

#[test]
fn closes_before_authentication_are_counted_and_the_question_stays_last() {
    const HANG_UPS: usize = 3000;
    const AGGREGATE: &str = " closed before authenticating in the last 5 s";
    let mut serve = Serve::start("review-flood", &[], Stdio::piped());
    let mut stdin = serve.child.stdin.take().unwrap();
    let mut client = Client::connect_initialized(serve.port, &serve.token).unwrap();
    serve.out.wait_for(" session ready: ");
    let call = client
        .send_request("tools/call", open_diff(&serve.path("a.txt"), "A\n", "tab"))
        .unwrap();
    let question = format!("{ASK}a.txt{ASK_END}");
    serve.out.wait_for(&question);
    let asked = serve.out.cursor;

    // Any local process can connect and hang up before the upgrade, as fast as it likes.
    let started = Instant::now();
    for _ in 0..HANG_UPS {
        drop(std::net::TcpStream::connect(("127.0.0.1", serve.port)).unwrap());
    }
    // Every one is reported, in aggregate lines (one per 5 s).
    let mut counted = 0;
    while counted < HANG_UPS {
        let at = serve.out.wait_for(AGGREGATE);
        let head = String::from_utf8_lossy(&serve.out.seen[..at]).into_owned();
        let count = head.rsplit("] ").next().unwrap();
        let count: usize = count.split(' ').next().unwrap().parse().unwrap();
        counted += count;
        serve.out.wait_for(&question);
    }
    assert_eq!(counted, HANG_UPS);
    let seconds = started.elapsed().as_secs();

    // The question was the last thing shown when the answer came.
    stdin.write_all(b"r\n").unwrap();
    assert_eq!(first_text(&client.response(call).unwrap()), "DIFF_REJECTED");
    let rejected = serve.out.wait_for("rejected: a.txt");
    let seen = String::from_utf8_lossy(&serve.out.seen[asked..rejected]).into_owned();
    let last_question = seen.rfind(&question).unwrap() + question.len();
    assert!(
        !seen[last_question..].contains('\n'),
        "something was printed after the question: {:?}",
        &seen[last_question..]
    );
    let shown = &seen[..last_question];
    let printed = shown.lines().count();
    let others: Vec<&str> = shown
        .lines()
        .filter(|line| !line.is_empty() && *line != question && !line.contains(AGGREGATE))
        .collect();
    assert_eq!(
        others,
        Vec::<&str>::new(),
        "only aggregates between questions"
    );
    let aggregates = shown.matches(AGGREGATE).count();
    eprintln!(
        "{HANG_UPS} hang-ups reported in {seconds} s: {printed} lines printed under the \
         question, {aggregates} aggregates:\n{shown}"
    );
    // One aggregate per 5 s at most (plus the one under way), each a blank line, itself and
    // the question again.
    let most = usize::try_from(seconds / 5 + 1).unwrap();
    assert!(
        aggregates <= most && printed <= 3 * aggregates,
        "{printed} lines for {HANG_UPS} hang-ups in {seconds} s"
    );
    serve.terminate();
}

#[test]
fn the_loop_keeps_serving_while_the_editor_runs() {
    // The "editor" announces itself, reads one line from the terminal and saves it: it gets
    // the input (nothing else reads it meanwhile: on Windows idelink's reader waits), and
    // starts without a shell of idelink's (its words are split by idelink; the path is
    // appended, as $0 for sh, after the command for cmd, whose echo ends lines with CRLF).
    #[cfg(unix)]
    let (editor, saved) = (
        r#"sh -c 'echo editor-started; read line; printf "%s\n" "$line" > "$0"'"#,
        "typed in the editor\n",
    );
    #[cfg(windows)]
    let (editor, saved) = (
        r#"cmd /d /v:on /c "echo editor-started&set /p line=&echo !line!>""#,
        "typed in the editor\r\n",
    );
    let mut serve =
        Serve::start_with_env("review-edit", &[], &[("VISUAL", editor)], Stdio::piped());
    let mut stdin = serve.child.stdin.take().unwrap();
    let mut client = Client::connect_initialized(serve.port, &serve.token).unwrap();
    let call = client
        .send_request(
            "tools/call",
            open_diff(&serve.path("e.txt"), "proposed\n", "e"),
        )
        .unwrap();
    serve.out.wait_for(&format!("{ASK}e.txt{ASK_END}"));
    stdin.write_all(b"e\n").unwrap();
    serve.out.wait_for("editor-started");

    let (port, token) = (serve.port, serve.token.clone());
    let (done, second) = mpsc::channel();
    std::thread::spawn(move || {
        let _ = done.send(Client::connect_initialized(port, &token).map(|_| ()));
    });
    second
        .recv_timeout(Duration::from_secs(1))
        .expect("a second client connects and initializes within 1 s while the editor runs")
        .unwrap();

    stdin.write_all(b"typed in the editor\n").unwrap();
    assert_eq!(
        texts(&client.response(call).unwrap()),
        ["FILE_SAVED", saved]
    );
    serve.out.wait_for("accepted (edited): e.txt");
    serve.terminate();
}

#[cfg(unix)]
#[test]
fn a_signal_while_the_editor_runs_removes_the_lock_and_waits_for_the_editor() {
    let editor = r#"sh -c 'echo editor-started; read line; printf "%s\n" "$line" > "$0"'"#;
    let mut serve =
        Serve::start_with_env("review-stop", &[], &[("VISUAL", editor)], Stdio::piped());
    let mut stdin = serve.child.stdin.take().unwrap();
    let mut client = Client::connect_initialized(serve.port, &serve.token).unwrap();
    client
        .send_request("tools/call", open_diff(&serve.path("s.txt"), "x\n", "s"))
        .unwrap();
    serve.out.wait_for(&format!("{ASK}s.txt{ASK_END}"));
    stdin.write_all(b"e\n").unwrap();
    serve.out.wait_for("editor-started\n");

    let pid = rustix::process::Pid::from_child(&serve.child);
    rustix::process::kill_process(pid, rustix::process::Signal::TERM).unwrap();
    let until = Instant::now() + DEADLINE;
    while serve.lock.exists() {
        assert!(
            Instant::now() < until,
            "the lock must go while the editor runs"
        );
        std::thread::park_timeout(Duration::from_millis(20));
    }
    assert_eq!(
        serve.child.try_wait().unwrap(),
        None,
        "idelink waits for the editor instead of leaving it behind"
    );
    stdin.write_all(b"done\n").unwrap();
    assert!(wait_exit(&mut serve.child).success());
    serve
        .out
        .wait_for("waited for the editor to exit; its text was not sent");
}
