//! frame_editor as a child process: its console lines collected as they come, commands typed
//! on its stdin, ended by pid when dropped.

use serde_json::Value;
use std::io::{BufRead, BufReader, Write};
use std::path::{Path, PathBuf};
use std::process::{Child, ChildStdin, Command, Stdio};
use std::sync::{Arc, Mutex, PoisonError};
use std::time::{Duration, Instant};

/// How long one expected line may take.
const LINE_DEADLINE: Duration = Duration::from_secs(20);

/// The program that runs frame_editor when it is not a program of this machine: ctest of a
/// Windows build sets it to wine64 (tests/CMakeLists.txt).
pub const EMULATOR_VAR: &str = "IDELINK_EDITOR_EMULATOR";

/// A serving frame_editor: the process, its port and its lock file.
pub struct Serving {
    /// The process.
    pub editor: EditorProcess,
    /// The port from its banner.
    pub port: u16,
    /// `<locks>/<port>.lock`.
    pub lock_path: PathBuf,
    /// The lock file's contents.
    pub lock: Value,
}

impl Serving {
    /// The token from the lock file.
    pub fn token(&self) -> &str {
        self.lock["authToken"]
            .as_str()
            .expect("the lock file holds the token")
    }
}

/// Starts `program <args…> --lock-dir <locks> <workspace>`, waits for its banner (`… on
/// 127.0.0.1:<port>`) and reads its lock file.
pub fn serve(program: &Path, args: &[&str], locks: &Path, workspace: &str) -> Serving {
    let locks_arg = locks.to_str().expect("a UTF-8 lock folder");
    let all: Vec<&str> = args
        .iter()
        .copied()
        .chain(["--lock-dir", locks_arg, workspace])
        .collect();
    let mut editor = EditorProcess::start(program, &all);
    let (_, banner) = editor.wait_line(0, "on 127.0.0.1:");
    let port = banner.rsplit(':').next().and_then(|p| p.parse().ok());
    let port: u16 = port.unwrap_or_else(|| panic!("no port in the banner {banner:?}"));
    let lock_path = locks.join(format!("{port}.lock"));
    let text = std::fs::read_to_string(&lock_path)
        .unwrap_or_else(|e| panic!("cannot read {}: {e}", lock_path.display()));
    let lock = serde_json::from_str(&text).unwrap_or_else(|e| panic!("lock file {text:?}: {e}"));
    Serving {
        editor,
        port,
        lock_path,
        lock,
    }
}

/// A running frame_editor.
pub struct EditorProcess {
    child: Child,
    stdin: Option<ChildStdin>,
    lines: Arc<Mutex<Vec<String>>>,
}

impl EditorProcess {
    /// Starts `program <args…>` with piped stdin and stdout; stderr is inherited. With
    /// [`EMULATOR_VAR`] set (a Windows build's ctest: wine64), `program` runs under it.
    pub fn start(program: &Path, args: &[&str]) -> EditorProcess {
        Self::start_with_env(program, args, &[])
    }

    /// [`start`](Self::start) with `env` added to the editor's environment.
    pub fn start_with_env(program: &Path, args: &[&str], env: &[(&str, &str)]) -> EditorProcess {
        let mut command = match std::env::var_os(EMULATOR_VAR) {
            Some(emulator) => {
                let mut command = Command::new(emulator);
                command.arg(program);
                command
            }
            None => Command::new(program),
        };
        let mut child = command
            .args(args)
            .envs(env.iter().copied())
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .spawn()
            .unwrap_or_else(|e| panic!("cannot start {}: {e}", program.display()));
        let lines = Arc::new(Mutex::new(Vec::new()));
        if let Some(stdout) = child.stdout.take() {
            let lines = lines.clone();
            std::thread::spawn(move || {
                for line in BufReader::new(stdout).lines() {
                    let Ok(line) = line else { return };
                    println!("frame_editor| {line}");
                    lines
                        .lock()
                        .unwrap_or_else(PoisonError::into_inner)
                        .push(line);
                }
            });
        }
        let stdin = child.stdin.take();
        EditorProcess {
            child,
            stdin,
            lines,
        }
    }

    /// Every console line so far.
    pub fn lines(&self) -> Vec<String> {
        self.lines
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .clone()
    }

    /// Waits for the first line at index `from` or later containing `needle`; returns its
    /// index and text. Fails when the editor exits first or the deadline passes.
    pub fn wait_line(&mut self, from: usize, needle: &str) -> (usize, String) {
        let deadline = Instant::now() + LINE_DEADLINE;
        loop {
            let found = self
                .lines()
                .into_iter()
                .enumerate()
                .skip(from)
                .find(|(_, line)| line.contains(needle));
            if let Some(found) = found {
                return found;
            }
            if let Ok(Some(status)) = self.child.try_wait() {
                panic!("frame_editor exited ({status}) before printing {needle:?}");
            }
            assert!(
                Instant::now() < deadline,
                "frame_editor did not print {needle:?} within {LINE_DEADLINE:?}; it printed:\n{}",
                self.lines().join("\n")
            );
            std::thread::sleep(Duration::from_millis(10));
        }
    }

    /// Types one console command.
    pub fn type_line(&mut self, line: &str) {
        let stdin = self
            .stdin
            .as_mut()
            .expect("stdin is open until the editor stops");
        writeln!(stdin, "{line}")
            .and_then(|()| stdin.flush())
            .unwrap_or_else(|e| panic!("cannot type {line:?} into frame_editor: {e}"));
    }

    /// Waits (up to the line deadline) for the editor to exit; returns whether it exited 0.
    pub fn wait_exit(&mut self) -> bool {
        let deadline = Instant::now() + LINE_DEADLINE;
        while Instant::now() < deadline {
            if let Ok(Some(status)) = self.child.try_wait() {
                return status.success();
            }
            std::thread::sleep(Duration::from_millis(10));
        }
        panic!("frame_editor did not exit within {LINE_DEADLINE:?}")
    }
}

impl Drop for EditorProcess {
    fn drop(&mut self) {
        use rustix::process::{Pid, Signal, kill_process};
        drop(self.stdin.take());
        if matches!(self.child.try_wait(), Ok(None)) {
            let _ = kill_process(Pid::from_child(&self.child), Signal::TERM);
            let stop = Instant::now() + Duration::from_secs(5);
            while Instant::now() < stop && matches!(self.child.try_wait(), Ok(None)) {
                std::thread::sleep(Duration::from_millis(10));
            }
            let _ = self.child.kill();
            let _ = self.child.wait();
        }
    }
}
