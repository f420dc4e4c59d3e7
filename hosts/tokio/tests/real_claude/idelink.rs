//! The process under test for the reused drift-alarm harness: the `buffer_editor` example,
//! with the same interface as the harness's `idelink serve` wrapper
//! (`hosts/cli/tests/real_claude/idelink.rs`) so `scene.rs` drives it unchanged.

use serde_json::Value;
use std::io::{BufRead, BufReader, Write};
use std::path::{Path, PathBuf};
use std::process::{Child, ChildStdin, Command, Stdio};
use std::sync::{Arc, Mutex, PoisonError};
use std::time::Duration;

use crate::wait;

/// The name the example serves as (what `/status` shows).
pub const IDE_NAME: &str = "tokio buffer_editor";

/// The example's executable, next to this test's (`cargo test` builds examples).
fn program() -> PathBuf {
    let test = std::env::current_exe().expect("the test's own path");
    let profile = test
        .parent()
        .and_then(Path::parent)
        .expect("the test runs from <target>/<profile>/deps");
    let program = profile
        .join("examples")
        .join(format!("buffer_editor{}", std::env::consts::EXE_SUFFIX));
    assert!(
        program.is_file(),
        "{} is missing: run `cargo test -p idelink-tokio` (it builds the examples) or \
         `cargo build -p idelink-tokio --example buffer_editor`",
        program.display()
    );
    program
}

/// A running buffer_editor.
pub struct Idelink {
    child: Child,
    stdin: Option<ChildStdin>,
    lines: Arc<Mutex<Vec<String>>>,
    log: PathBuf,
}

impl Idelink {
    /// Starts `buffer_editor <args> --name <IDE_NAME> --lock-dir <lock_dir> <workspace>`
    /// (`args` is the harness's `--diff <policy>`), stderr to `log`.
    pub fn start(args: &[&str], lock_dir: &Path, workspace: &Path, log: PathBuf) -> Idelink {
        let program = program();
        let stderr = std::fs::File::create(&log)
            .unwrap_or_else(|e| panic!("cannot create {}: {e}", log.display()));
        let mut child = Command::new(&program)
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
            &format!("buffer_editor to print a line containing {needle:?}"),
            || {
                self.lines()
                    .into_iter()
                    .enumerate()
                    .skip(from)
                    .find(|(_, line)| line.contains(needle))
            },
        )
    }

    /// Waits for a console line that is JSON matching `matches` (the sidecar's form; unused
    /// here, kept for the harness's interface).
    pub fn wait_message(&self, what: &str, matches: impl Fn(&Value) -> bool) -> Value {
        wait::until(&format!("buffer_editor to print {what}"), || {
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
            .unwrap_or_else(|e| panic!("cannot write to buffer_editor's stdin: {e}"));
    }

    /// Its stderr so far.
    pub fn log(&self) -> String {
        std::fs::read_to_string(&self.log).unwrap_or_else(|e| format!("(no log: {e})"))
    }
}

impl Drop for Idelink {
    /// Closes its stdin (it shuts down and removes its lock), then kills it if it lingers.
    fn drop(&mut self) {
        drop(self.stdin.take());
        let exited = wait::within(Duration::from_secs(5), || {
            matches!(self.child.try_wait(), Ok(Some(_)))
        });
        if !exited {
            let _ = self.child.kill();
            let _ = self.child.wait();
        }
    }
}
