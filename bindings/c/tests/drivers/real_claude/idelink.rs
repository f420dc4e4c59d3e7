//! The process under test for the reused drift-alarm harness: frame_editor, with the same
//! interface as the harness's `idelink serve` wrapper (`hosts/cli/tests/real_claude/idelink.rs`)
//! so `scene.rs` drives it unchanged.

use serde_json::Value;
use std::io::{BufRead, BufReader, Write};
use std::path::{Path, PathBuf};
use std::process::{Child, ChildStdin, Command, Stdio};
use std::sync::{Arc, Mutex, OnceLock, PoisonError};
use std::time::Duration;

use crate::wait;

/// The name frame_editor serves as (what `/status` shows).
pub const IDE_NAME: &str = "frame_editor";

static PROGRAM: OnceLock<PathBuf> = OnceLock::new();

/// Sets the frame_editor executable (once, before the first scene).
pub fn set_program(program: PathBuf) {
    let _ = PROGRAM.set(program);
}

/// A running frame_editor.
pub struct Idelink {
    child: Child,
    stdin: Option<ChildStdin>,
    lines: Arc<Mutex<Vec<String>>>,
    log: PathBuf,
}

impl Idelink {
    /// Starts `frame_editor <args> --name frame_editor --lock-dir <lock_dir> <workspace>`
    /// (`args` is the harness's `--diff <policy>`), stderr to `log`.
    pub fn start(args: &[&str], lock_dir: &Path, workspace: &Path, log: PathBuf) -> Idelink {
        let program = PROGRAM.get().expect("set_program first");
        let stderr = std::fs::File::create(&log)
            .unwrap_or_else(|e| panic!("cannot create {}: {e}", log.display()));
        let mut child = Command::new(program)
            .args(args)
            .args(["--name", IDE_NAME, "--lock-dir"])
            .arg(lock_dir)
            .arg(workspace)
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(stderr)
            .spawn()
            .unwrap_or_else(|e| panic!("cannot start {}: {e}", program.display()));
        let lines = Arc::new(Mutex::new(Vec::new()));
        if let Some(stdout) = child.stdout.take() {
            let lines = lines.clone();
            std::thread::spawn(move || {
                for line in BufReader::new(stdout).lines() {
                    let Ok(line) = line else { return };
                    lines
                        .lock()
                        .unwrap_or_else(PoisonError::into_inner)
                        .push(line);
                }
            });
        }
        let stdin = child.stdin.take();
        Idelink {
            child,
            stdin,
            lines,
            log,
        }
    }

    /// Every console line so far.
    pub fn lines(&self) -> Vec<String> {
        self.lines
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .clone()
    }

    /// Waits for the first line at index `from` or later that contains `needle`.
    pub fn wait_line(&self, from: usize, needle: &str) -> (usize, String) {
        wait::until(
            &format!("frame_editor to print a line containing {needle:?}"),
            || {
                self.lines()
                    .into_iter()
                    .enumerate()
                    .skip(from)
                    .find(|(_, line)| line.contains(needle))
            },
        )
    }

    /// Waits for a console line that is JSON matching `matches` (the sidecar's form; unused by
    /// frame_editor's runs, kept for the harness's interface).
    pub fn wait_message(&self, what: &str, matches: impl Fn(&Value) -> bool) -> Value {
        wait::until(&format!("frame_editor to print {what}"), || {
            self.lines()
                .iter()
                .filter_map(|line| serde_json::from_str::<Value>(line).ok())
                .find(|message| matches(message))
        })
    }

    /// Types one console line.
    pub fn send(&mut self, message: &Value) {
        let stdin = self.stdin.as_mut().expect("stdin is open until it stops");
        writeln!(stdin, "{message}")
            .and_then(|()| stdin.flush())
            .unwrap_or_else(|e| panic!("cannot write to frame_editor's stdin: {e}"));
    }

    /// Its stderr so far.
    pub fn log(&self) -> String {
        std::fs::read_to_string(&self.log).unwrap_or_else(|e| format!("(no log: {e})"))
    }
}

impl Drop for Idelink {
    fn drop(&mut self) {
        use rustix::process::{Pid, Signal, kill_process};
        drop(self.stdin.take());
        let _ = kill_process(Pid::from_child(&self.child), Signal::TERM);
        let exited = wait::within(Duration::from_secs(5), || {
            matches!(self.child.try_wait(), Ok(Some(_)))
        });
        if !exited {
            let _ = self.child.kill();
            let _ = self.child.wait();
        }
    }
}
