//! `idelink serve` as a child process: its stdout lines collected as they come, its debug log
//! (`-v`, stderr) in a file, ended by pid.

use serde_json::Value;
use std::io::{BufRead, BufReader, Write};
use std::path::{Path, PathBuf};
use std::process::{Child, ChildStdin, Command, Stdio};
use std::sync::{Arc, Mutex, PoisonError};
use std::time::Duration;

use crate::wait;

/// A running `idelink serve`.
pub struct Idelink {
    child: Child,
    stdin: Option<ChildStdin>,
    lines: Arc<Mutex<Vec<String>>>,
    log: PathBuf,
}

impl Idelink {
    /// Starts `idelink -v serve <args> --lock-dir <lock_dir> <workspace>`, stderr to `log`.
    pub fn start(args: &[&str], lock_dir: &Path, workspace: &Path, log: PathBuf) -> Idelink {
        let stderr = std::fs::File::create(&log)
            .unwrap_or_else(|e| panic!("cannot create {}: {e}", log.display()));
        let mut child = Command::new(env!("CARGO_BIN_EXE_idelink"))
            .arg("-v")
            .arg("serve")
            .args(args)
            .arg("--lock-dir")
            .arg(lock_dir)
            .arg(workspace)
            .env_remove("RUST_LOG")
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(stderr)
            .spawn()
            .unwrap_or_else(|e| panic!("cannot start idelink: {e}"));
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

    /// Every stdout line so far.
    pub fn lines(&self) -> Vec<String> {
        self.lines
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .clone()
    }

    /// Waits for the first line at index `from` or later that contains `needle`; returns its
    /// index and text.
    pub fn wait_line(&self, from: usize, needle: &str) -> (usize, String) {
        wait::until(
            &format!("idelink to print a line containing {needle:?}"),
            || {
                self.lines()
                    .into_iter()
                    .enumerate()
                    .skip(from)
                    .find(|(_, line)| line.contains(needle))
            },
        )
    }

    /// Waits for a stdout JSON message (the sidecar's `--stdio=lines` output) that `matches`.
    pub fn wait_message(&self, what: &str, matches: impl Fn(&Value) -> bool) -> Value {
        wait::until(&format!("idelink's sidecar to send {what}"), || {
            self.lines()
                .iter()
                .filter_map(|line| serde_json::from_str::<Value>(line).ok())
                .find(|message| matches(message))
        })
    }

    /// Writes one line-framed JSON message to the sidecar's stdin.
    pub fn send(&mut self, message: &Value) {
        let stdin = self
            .stdin
            .as_mut()
            .expect("idelink's stdin is open until it stops");
        writeln!(stdin, "{message}")
            .and_then(|()| stdin.flush())
            .unwrap_or_else(|e| panic!("cannot write to idelink's stdin: {e}"));
    }

    /// Types one line into the serve terminal (its stdin), as the user would.
    pub fn type_line(&mut self, line: &str) {
        let stdin = self
            .stdin
            .as_mut()
            .expect("idelink's stdin is open until it stops");
        writeln!(stdin, "{line}")
            .and_then(|()| stdin.flush())
            .unwrap_or_else(|e| panic!("cannot write to idelink's stdin: {e}"));
    }

    /// Its debug log so far.
    pub fn log(&self) -> String {
        std::fs::read_to_string(&self.log).unwrap_or_else(|e| format!("(no log: {e})"))
    }
}

impl Drop for Idelink {
    fn drop(&mut self) {
        use rustix::process::{Pid, Signal, kill_process};
        drop(self.stdin.take());
        let pid = Pid::from_child(&self.child);
        let _ = kill_process(pid, Signal::TERM);
        let exited = wait::within(Duration::from_secs(5), || {
            matches!(self.child.try_wait(), Ok(Some(_)))
        });
        if !exited {
            let _ = self.child.kill();
            let _ = self.child.wait();
        }
    }
}
