//! What the CLI's process tests share: a fresh workspace, the `idelink` binary, its stdout as
//! lines with deadlines, and waiting for it to exit.
#![allow(
    dead_code,
    reason = "each test binary uses the part it needs of this shared module"
)]

pub mod frames;
pub mod served;
pub mod sshd;

use std::io::{BufRead, BufReader};
use std::path::PathBuf;
use std::process::{Child, ChildStdout, Command, ExitStatus};
use std::sync::mpsc::{self, Receiver};
use std::time::{Duration, Instant};

/// How long any wait on the process may take.
pub const DEADLINE: Duration = Duration::from_secs(20);

/// A fresh folder for test `name`, with an empty `work/` workspace inside.
pub fn temp_dir(name: &str) -> PathBuf {
    let dir = std::env::temp_dir().join(format!("idelink-cli-{name}-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(dir.join("work")).expect("create the test workspace");
    dir
}

/// `path` as idelink and claude spell it: as is on Unix; on Windows with forward slashes, an
/// upper-case drive and no `\\?\` prefix (which `canonicalize` adds there).
pub fn claude_path(path: &std::path::Path) -> String {
    let text = path.to_str().expect("a UTF-8 test path");
    if cfg!(windows) {
        idelink_core::ide::normalize_path(text, idelink_core::ide::PathStyle::Windows).into_owned()
    } else {
        text.to_owned()
    }
}

/// The `idelink` binary with `args`, without the caller's log settings.
pub fn idelink(args: &[&str]) -> Command {
    let mut command = Command::new(env!("CARGO_BIN_EXE_idelink"));
    command.args(args).env_remove("RUST_LOG");
    command
}

/// Stdout lines on a channel, so every wait has a deadline.
pub fn lines(stdout: ChildStdout) -> Receiver<String> {
    let (send, receive) = mpsc::channel();
    std::thread::spawn(move || {
        for line in BufReader::new(stdout).lines() {
            let Ok(line) = line else { return };
            if send.send(line).is_err() {
                return;
            }
        }
    });
    receive
}

/// The next line containing `needle` (earlier lines are skipped, and shown if it never comes).
pub fn wait_for_line(lines: &Receiver<String>, needle: &str) -> String {
    let mut skipped = Vec::new();
    loop {
        let line = lines.recv_timeout(DEADLINE).unwrap_or_else(|e| {
            let last = &skipped[skipped.len().saturating_sub(20)..];
            panic!("no line containing {needle:?}: {e}; the last lines before:\n{last:#?}")
        });
        if line.contains(needle) {
            return line;
        }
        skipped.push(line);
    }
}

/// Every line until the stream ends (its writers all exited), waiting at most [`DEADLINE`]
/// for each.
pub fn all_lines(lines: &Receiver<String>) -> Vec<String> {
    let mut all = Vec::new();
    loop {
        match lines.recv_timeout(DEADLINE) {
            Ok(line) => all.push(line),
            Err(mpsc::RecvTimeoutError::Disconnected) => return all,
            Err(mpsc::RecvTimeoutError::Timeout) => panic!("the stream did not end: {all:?}"),
        }
    }
}

/// The pid written (as text) in the file `path`.
pub fn pid_in(path: &std::path::Path) -> u32 {
    let text = std::fs::read_to_string(path).expect("read the pid file");
    text.trim().parse().expect("a pid")
}

/// Whether process `pid` is alive (a zombie counts: it is not reaped).
#[cfg(unix)]
pub fn alive(pid: u32) -> bool {
    let pid = i32::try_from(pid)
        .ok()
        .and_then(rustix::process::Pid::from_raw)
        .expect("a pid");
    rustix::process::test_kill_process(pid).is_ok()
}

/// Ends `child` the way a user's stop request does: SIGTERM, after which idelink removes its
/// lock and exits 0.
#[cfg(unix)]
pub fn stop(child: &mut Child) {
    let pid = rustix::process::Pid::from_child(child);
    rustix::process::kill_process(pid, rustix::process::Signal::TERM).expect("send SIGTERM");
    let status = wait_exit(child);
    assert!(status.success(), "{status}");
}

/// Ends `child` abruptly (TerminateProcess), as Windows does once a closed console's grace time
/// is over: the lock stays behind for the next start to sweep. (Sending it Ctrl-Break instead
/// takes GenerateConsoleCtrlEvent, an FFI call these tests, free of `unsafe`, do not make.)
#[cfg(windows)]
pub fn terminate(child: &mut Child) {
    child.kill().expect("terminate idelink");
    wait_exit(child);
}

/// `command` started in a process group of its own, so that [`ctrl_break`] reaches it alone.
#[cfg(windows)]
pub fn own_process_group(command: &mut Command) -> &mut Command {
    use std::os::windows::process::CommandExt;
    command.creation_flags(windows_sys::Win32::System::Threading::CREATE_NEW_PROCESS_GROUP)
}

/// Sends Ctrl-Break to `child` (started by [`own_process_group`]), as a user pressing it in the
/// console does, then waits for it to exit 0. Under Wine, whose console events reach no
/// process here (GenerateConsoleCtrlEvent fails), it prints a `wine-skip:` line for `test`,
/// ends the child and returns false.
#[cfg(windows)]
#[allow(
    unsafe_code,
    reason = "Windows API calls; their arguments are numbers and C strings"
)]
pub fn ctrl_break(child: &mut Child, test: &str) -> bool {
    use windows_sys::Win32::System::Console::{CTRL_BREAK_EVENT, GenerateConsoleCtrlEvent};
    // SAFETY: no pointers; the group id is the child's pid (CREATE_NEW_PROCESS_GROUP).
    let sent = unsafe { GenerateConsoleCtrlEvent(CTRL_BREAK_EVENT, child.id()) };
    if sent == 0 {
        let error = std::io::Error::last_os_error();
        assert!(under_wine(), "Ctrl-Break: {error}");
        println!("wine-skip: {test}: Wine delivers no console control event here ({error})");
        child.kill().expect("end idelink");
        wait_exit(child);
        return false;
    }
    let status = wait_exit(child);
    assert!(status.success(), "{status}");
    true
}

/// Whether this Windows process runs under Wine (its ntdll exports `wine_get_version`).
#[cfg(windows)]
#[allow(
    unsafe_code,
    reason = "Windows API calls; their arguments are C strings"
)]
pub fn under_wine() -> bool {
    use windows_sys::Win32::System::LibraryLoader::{GetModuleHandleA, GetProcAddress};
    // SAFETY: NUL-terminated names; ntdll is loaded in every process.
    unsafe {
        let ntdll = GetModuleHandleA(c"ntdll.dll".as_ptr().cast());
        !ntdll.is_null() && GetProcAddress(ntdll, c"wine_get_version".as_ptr().cast()).is_some()
    }
}

/// The process's exit status, waiting at most [`DEADLINE`].
pub fn wait_exit(child: &mut Child) -> ExitStatus {
    let until = Instant::now() + DEADLINE;
    loop {
        if let Some(status) = child.try_wait().expect("query the child") {
            return status;
        }
        assert!(Instant::now() < until, "idelink did not exit");
        std::thread::park_timeout(Duration::from_millis(20));
    }
}

/// The texts of a `tools/call` result's content (a failure names the response).
pub fn texts(response: &serde_json::Value) -> Vec<String> {
    response["result"]["content"]
        .as_array()
        .unwrap_or_else(|| panic!("not a tool result: {response}"))
        .iter()
        .map(|item| item["text"].as_str().unwrap_or_default().to_owned())
        .collect()
}

/// A child process killed and reaped when dropped, so a failed assertion leaves nothing
/// running.
pub struct Running(pub Child);

impl Drop for Running {
    fn drop(&mut self) {
        let _ = self.0.kill();
        let _ = self.0.wait();
    }
}

/// Spawns `command` with its stdout and stderr each read as lines.
#[cfg(unix)]
pub fn spawn_piped(command: &mut Command) -> (Running, Receiver<String>, Receiver<String>) {
    let mut child = command
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::piped())
        .spawn()
        .expect("start idelink");
    let out = lines(child.stdout.take().expect("piped stdout"));
    let err = lines(ChildStdout::from(std::os::fd::OwnedFd::from(
        child.stderr.take().expect("piped stderr"),
    )));
    (Running(child), out, err)
}

/// The far lock an `idelink bridge` announced on `stderr` (`listening on …, lock PATH`): its
/// path, its body and its port.
pub fn bridge_lock(stderr: &Receiver<String>) -> (PathBuf, serde_json::Value, u16) {
    let up = wait_for_line(stderr, "idelink bridge: listening on 127.0.0.1:");
    let lock = PathBuf::from(up.rsplit("lock ").next().unwrap_or_default());
    let text = std::fs::read_to_string(&lock).expect("read the far lock");
    let body = serde_json::from_str(&text).expect("the far lock is JSON");
    let port = lock
        .file_stem()
        .and_then(|s| s.to_str())
        .and_then(|s| s.parse().ok())
        .expect("the far lock is <port>.lock");
    (lock, body, port)
}

/// Says loudly that `test` did not run and why; with `CI=true` that is a failure.
pub fn skip(test: &str, why: &str) {
    let in_ci = std::env::var("CI").is_ok_and(|v| v == "true" || v == "1");
    assert!(!in_ci, "CI=true and {why}");
    eprintln!("\n!! SKIPPED {test}: {why}");
}
