//! `idelink serve` as a person runs it, its terminal on pipes, with a test client connected as
//! claude: what the terminal-command tests share.

use super::{DEADLINE, idelink, lines, temp_dir, wait_for_line};
use idelink_test_client::Client;
use serde_json::Value;
use std::io::Write;
use std::path::PathBuf;
use std::process::{Child, ChildStdin, Stdio};
use std::sync::mpsc::Receiver;
use std::time::{Duration, Instant};

/// A running `serve` with its stdin, its stdout lines and a connected, initialized client.
/// Dropping it kills the process.
pub struct Served {
    pub child: Child,
    pub stdin: ChildStdin,
    pub out: Receiver<String>,
    pub client: Client,
    /// The workspace folder, canonical.
    pub work: PathBuf,
}

impl Drop for Served {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

impl Served {
    /// `idelink serve ARGS` for test `name` on a fresh workspace holding `files` (name, text),
    /// with `env` over a colour-neutral environment (no `NO_COLOR`, no `CLICOLOR_FORCE`);
    /// returns once the client is connected and serve said "session ready".
    pub fn start(
        name: &str,
        files: &[(&str, &str)],
        args: &[&str],
        env: &[(&str, &str)],
    ) -> Served {
        let dir = temp_dir(name);
        let work = dir.join("work").canonicalize().unwrap();
        for (file, text) in files {
            std::fs::write(work.join(file), text).unwrap();
        }
        let mut child = idelink(&["serve", "--lock-dir"])
            .arg(dir.join("ide"))
            .args(args)
            .arg(&work)
            .env_remove("NO_COLOR")
            .env_remove("CLICOLOR_FORCE")
            .envs(env.iter().copied())
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .spawn()
            .unwrap();
        let out = lines(child.stdout.take().unwrap());
        let banner = wait_for_line(&out, "on 127.0.0.1:");
        let port: u16 = banner.rsplit(':').next().unwrap().parse().unwrap();
        let lock = dir.join("ide").join(format!("{port}.lock"));
        // The banner may come before the lock's rename: wait for the lock itself.
        let started = Instant::now();
        while !lock.is_file() {
            assert!(started.elapsed() < DEADLINE, "no {}", lock.display());
            std::thread::park_timeout(Duration::from_millis(10));
        }
        let lock: Value = serde_json::from_str(&std::fs::read_to_string(lock).unwrap()).unwrap();
        let client =
            Client::connect_initialized(port, lock["authToken"].as_str().unwrap()).unwrap();
        wait_for_line(&out, "session ready");
        let stdin = child.stdin.take().unwrap();
        Served {
            child,
            stdin,
            out,
            client,
            work,
        }
    }

    /// Types `line` and Enter into serve's terminal.
    pub fn type_line(&mut self, line: &str) {
        writeln!(self.stdin, "{line}").unwrap();
        self.stdin.flush().unwrap();
    }
}
