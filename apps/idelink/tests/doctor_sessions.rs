//! `idelink doctor` on the environments where claude runs and never connects by itself, or
//! gives up on a diff: a background session, bare mode, a short `MCP_TOOL_TIMEOUT`
//! (apps/idelink/src/doctor/sessions.rs). A real server serves the folder, so every other
//! check passes and the verdict is these rules' alone.
#![expect(
    clippy::unwrap_used,
    reason = "a test: any failure must stop it loudly"
)]

use serde_json::Value;
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::sync::mpsc::Receiver;
use std::time::{Duration, Instant};

mod support;

use support::{DEADLINE, idelink, lines, temp_dir, wait_for_line};

/// A private HOME whose `.claude/ide` holds the lock of `idelink serve` on `work/`.
struct Served {
    home: PathBuf,
    work: PathBuf,
    server: Child,
    /// Its stdout, read until the end: a closed pipe would stop it at its next line.
    _stdout: Receiver<String>,
}

/// `idelink ARGS` seeing only `home`: no inherited claude or proxy variables.
fn command_in(home: &Path, args: &[&str]) -> Command {
    let mut command = idelink(args);
    command
        .env_clear()
        .env("PATH", std::env::var_os("PATH").unwrap_or_default())
        .env("HOME", home)
        .env("CLAUDE_CONFIG_DIR", home.join(".claude"))
        .stdin(Stdio::null());
    command
}

impl Served {
    fn start(name: &str) -> Served {
        let dir = temp_dir(name);
        let home = dir.join("home");
        std::fs::create_dir_all(home.join(".claude")).unwrap();
        let work = dir.join("work").canonicalize().unwrap();
        let mut server = command_in(&home, &["serve", "--diff", "reject"])
            .arg(&work)
            .stdout(Stdio::piped())
            .spawn()
            .unwrap();
        let out = lines(server.stdout.take().unwrap());
        let banner = wait_for_line(&out, "on 127.0.0.1:");
        let port: u16 = banner.rsplit(':').next().unwrap().trim().parse().unwrap();
        // The banner can come before the lock's rename: wait for the lock itself.
        let lock = home
            .join(".claude")
            .join("ide")
            .join(format!("{port}.lock"));
        let started = Instant::now();
        while !lock.is_file() {
            assert!(
                started.elapsed() < DEADLINE,
                "no {} after the banner",
                lock.display()
            );
            std::thread::park_timeout(Duration::from_millis(20));
        }
        Served {
            home,
            work,
            server,
            _stdout: out,
        }
    }

    /// `idelink doctor --json --no-live-check work/` with `env` added: its findings as
    /// `(check, level)` pairs, the report, and whether it exited 0.
    fn doctor(&self, env: &[(&str, &str)]) -> (Vec<(String, String)>, Value, bool) {
        let output = command_in(&self.home, &["doctor", "--json", "--no-live-check"])
            .arg(&self.work)
            .envs(env.iter().copied())
            .output()
            .unwrap();
        let report: Value = serde_json::from_slice(&output.stdout)
            .unwrap_or_else(|e| panic!("doctor --json printed no JSON ({e}): {output:?}"));
        let findings = report["findings"]
            .as_array()
            .unwrap()
            .iter()
            .map(|f| {
                (
                    f["check"].as_str().unwrap().to_owned(),
                    f["level"].as_str().unwrap().to_owned(),
                )
            })
            .collect();
        (findings, report, output.status.success())
    }
}

impl Drop for Served {
    fn drop(&mut self) {
        let _ = self.server.kill();
        let _ = self.server.wait();
    }
}

fn has(findings: &[(String, String)], check: &str, level: &str) -> bool {
    findings.iter().any(|(c, l)| c == check && l == level)
}

#[test]
fn a_background_session_fails_the_verdict_that_otherwise_passes() {
    let served = Served::start("doctor-bg");
    let (plain, report, connects) = served.doctor(&[("CLAUDE_CODE_SESSION_KIND", "daemon")]);
    assert!(connects, "the folder is served: {report:#}");
    assert!(
        !plain.iter().any(|(c, _)| c == "session kind"),
        "{report:#}"
    );
    let (found, report, connects) = served.doctor(&[("CLAUDE_CODE_SESSION_KIND", "bg")]);
    assert!(has(&found, "session kind", "fail"), "{report:#}");
    assert!(!connects, "a background session never connects: {report:#}");
}

#[test]
fn bare_mode_and_a_short_tool_timeout_warn() {
    let served = Served::start("doctor-bare");
    let (found, report, _) =
        served.doctor(&[("CLAUDE_CODE_SIMPLE", "1"), ("MCP_TOOL_TIMEOUT", "20000")]);
    assert!(has(&found, "bare mode", "warn"), "{report:#}");
    assert!(has(&found, "tool timeout", "warn"), "{report:#}");
    let text = report.to_string();
    assert!(text.contains("after 20 s"), "{report:#}");
    let (found, report, _) = served.doctor(&[("MCP_TOOL_TIMEOUT", "600000")]);
    assert!(
        !found
            .iter()
            .any(|(c, _)| c == "tool timeout" || c == "bare mode"),
        "{report:#}"
    );
}
