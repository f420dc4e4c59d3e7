//! The IDE process under test, as a child: its stdout lines collected as they come, its stderr
//! (a debug log) in a file, ended by pid. What the process is comes from the caller, as an
//! [`IdeSide`]: `idelink serve` for the drift alarm, frame_editor for the C binding's run.

use serde_json::Value;
use std::io::{BufRead, BufReader, Write};
use std::path::{Path, PathBuf};
use std::process::{Child, ChildStdin, Command, Stdio};
use std::sync::{Arc, Mutex, PoisonError};
use std::time::Duration;

use crate::wait;

/// How to start the IDE a scene runs the CLI against.
pub trait IdeSide {
    /// What messages call it, and what the CLI's `/status` shows (`Connected to <name>
    /// extension`) when it says so to the CLI.
    fn name(&self) -> &str;

    /// The command that starts it with the scene's `args` (`--diff <policy>` for a terminal
    /// host, `--stdio=lines` for a sidecar), writing its lock file to `lock_dir` and serving
    /// `workspace`. The harness sets stdin, stdout and stderr.
    fn command(&self, args: &[&str], lock_dir: &Path, workspace: &Path) -> Command;
}

/// An editor program that takes the harness's `args`, then `--name NAME --lock-dir DIR
/// WORKSPACE` (the C binding's frame_editor, the tokio host's buffer_editor).
#[derive(Clone, Debug)]
pub struct NamedProgram {
    /// The executable.
    pub program: PathBuf,
    /// The name it serves as.
    pub name: &'static str,
}

impl IdeSide for NamedProgram {
    fn name(&self) -> &str {
        self.name
    }

    fn command(&self, args: &[&str], lock_dir: &Path, workspace: &Path) -> Command {
        let mut command = Command::new(&self.program);
        command
            .args(args)
            .args(["--name", self.name, "--lock-dir"])
            .arg(lock_dir)
            .arg(workspace);
        command
    }
}

/// A running IDE process.
pub struct Ide {
    name: String,
    child: Child,
    stdin: Option<ChildStdin>,
    lines: Arc<Mutex<Vec<String>>>,
    log: PathBuf,
}

impl Ide {
    /// Starts `side`'s command for `args`, `lock_dir` and `workspace`, stderr to `log`.
    pub fn start(
        side: &dyn IdeSide,
        args: &[&str],
        lock_dir: &Path,
        workspace: &Path,
        log: PathBuf,
    ) -> Ide {
        let name = side.name().to_owned();
        let stderr = std::fs::File::create(&log)
            .unwrap_or_else(|e| panic!("cannot create {}: {e}", log.display()));
        let mut child = side
            .command(args, lock_dir, workspace)
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(stderr)
            .spawn()
            .unwrap_or_else(|e| panic!("cannot start {name}: {e}"));
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
        Ide {
            name,
            child,
            stdin,
            lines,
            log,
        }
    }

    /// Ends the process at once with SIGKILL (a crash: nothing of its own cleans up) and waits
    /// for it.
    pub fn crash(mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
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
            &format!("{} to print a line containing {needle:?}", self.name),
            || {
                self.lines()
                    .into_iter()
                    .enumerate()
                    .skip(from)
                    .find(|(_, line)| line.contains(needle))
            },
        )
    }

    /// Waits for a stdout JSON message (a sidecar's `--stdio=lines` output) that `matches`.
    pub fn wait_message(&self, what: &str, matches: impl Fn(&Value) -> bool) -> Value {
        wait::until(&format!("{} to send {what}", self.name), || {
            self.lines()
                .iter()
                .filter_map(|line| serde_json::from_str::<Value>(line).ok())
                .find(|message| matches(message))
        })
    }

    /// Writes one line-framed JSON message to its stdin.
    pub fn send(&mut self, message: &Value) {
        let name = &self.name;
        let stdin = self
            .stdin
            .as_mut()
            .unwrap_or_else(|| panic!("{name}'s stdin is open until it stops"));
        writeln!(stdin, "{message}")
            .and_then(|()| stdin.flush())
            .unwrap_or_else(|e| panic!("cannot write to {name}'s stdin: {e}"));
    }

    /// Types one line into the IDE's stdin, as the user would at its terminal.
    pub fn type_line(&mut self, line: &str) {
        let stdin = self
            .stdin
            .as_mut()
            .expect("the IDE's stdin is open until it stops");
        writeln!(stdin, "{line}")
            .and_then(|()| stdin.flush())
            .unwrap_or_else(|e| panic!("cannot write to the IDE's stdin: {e}"));
    }

    /// Its debug log (stderr) so far.
    pub fn log(&self) -> String {
        std::fs::read_to_string(&self.log).unwrap_or_else(|e| format!("(no log: {e})"))
    }
}

impl Drop for Ide {
    fn drop(&mut self) {
        use rustix::process::{Pid, Signal, kill_process};
        drop(self.stdin.take());
        // Reaped already (`crash`): its pid may be another process's by now.
        if matches!(self.child.try_wait(), Ok(Some(_))) {
            return;
        }
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
