//! `idelink doctor` in the remote case, on both sides of a real `serve --remote` link (here
//! both on this machine, as two users' views): the bridge's lock found as a bridge's, a
//! `CLAUDE_CODE_SSE_PORT` naming another port, a killed bridge's lock, a remote session with no bridge lock, a
//! `serve --remote` whose link died, and a folder outside every `--map`. The processes are read
//! from Linux's /proc.
#![cfg(target_os = "linux")]
#![expect(
    clippy::unwrap_used,
    reason = "a test: any failure must stop it loudly"
)]

use serde_json::Value;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::sync::mpsc::Receiver;

mod support;

use support::{Running, idelink, temp_dir, wait_for_line};

/// A private HOME and claude config (where the bridge writes its lock) and the workspace.
struct Side {
    dir: PathBuf,
    work: PathBuf,
}

impl Side {
    fn new(name: &str) -> Side {
        let dir = temp_dir(name);
        std::fs::create_dir_all(dir.join("home/.claude")).unwrap();
        let work = dir.join("work").canonicalize().unwrap();
        Side { dir, work }
    }

    /// `idelink ARGS` seeing only this side's HOME and config.
    fn command(&self, args: &[&str]) -> Command {
        let mut command = idelink(args);
        command
            .env_clear()
            .env("PATH", std::env::var_os("PATH").unwrap_or_default())
            .env("HOME", self.dir.join("home"))
            .env("CLAUDE_CONFIG_DIR", self.dir.join("home/.claude"))
            .stdin(Stdio::null());
        command
    }

    /// `serve --remote 'idelink bridge' --map /far=WORK WORK`; the bridge's port and pid.
    fn serve_remote(&self) -> (Running, Receiver<String>, u16, u32) {
        let bridge = format!("exec '{}' bridge", env!("CARGO_BIN_EXE_idelink"));
        let (child, _out, err) = support::spawn_piped(
            self.command(&["serve", "--diff", "reject", "--remote", &bridge, "--map"])
                .arg(format!("/far={}", self.work.display()))
                .arg(&self.work),
        );
        let (_lock, body, port) = support::bridge_lock(&err);
        let pid = u32::try_from(body["pid"].as_u64().unwrap()).unwrap();
        (child, err, port, pid)
    }

    /// `idelink doctor --json --no-live-check DIR` with `env`: its "remote" findings.
    fn remote_findings(&self, dir: &Path, env: &[(&str, &str)]) -> Vec<String> {
        let output = self
            .command(&["doctor", "--json", "--no-live-check"])
            .arg(dir)
            .envs(env.iter().copied())
            .output()
            .unwrap();
        let report: Value = serde_json::from_slice(&output.stdout).unwrap();
        report["findings"]
            .as_array()
            .unwrap()
            .iter()
            .filter(|f| f["check"] == "remote")
            .map(|f| {
                format!(
                    "{}: {}",
                    f["level"].as_str().unwrap(),
                    f["message"].as_str().unwrap()
                )
            })
            .collect()
    }
}

fn has(findings: &[String], wanted: &str) -> bool {
    findings.iter().any(|f| f.contains(wanted))
}

#[test]
fn the_far_side_finds_the_bridge_and_a_port_variable_that_names_another() {
    let side = Side::new("doctor-remote-far");
    let (serve, _err, port, pid) = side.serve_remote();
    let far = Path::new("/");
    let found = side.remote_findings(far, &[]);
    assert!(
        has(
            &found,
            &format!("ok: port {port} is an idelink bridge (pid {pid})")
        ),
        "{found:?}"
    );
    let elsewhere = port.wrapping_add(1).max(1).to_string();
    let found = side.remote_findings(far, &[("CLAUDE_CODE_SSE_PORT", &elsewhere)]);
    assert!(
        has(
            &found,
            &format!(
                "fail: CLAUDE_CODE_SSE_PORT={elsewhere} names no live lock here; the bridge listens on {port}"
            )
        ),
        "{found:?}"
    );
    drop(serve);
}

#[test]
fn a_remote_session_without_a_bridge_lock_is_told_to_start_one() {
    let side = Side::new("doctor-remote-none");
    let ssh = [("SSH_CONNECTION", "127.0.0.1 50000 127.0.0.1 22")];
    let found = side.remote_findings(&side.work, &ssh);
    assert!(
        has(
            &found,
            "fail: this is an SSH session (SSH_CONNECTION is set) and no bridge lock is here"
        ),
        "{found:?}"
    );
    assert!(!has(
        &side.remote_findings(&side.work, &[]),
        "no bridge lock"
    ));
}

#[test]
fn the_editor_side_finds_a_dead_link_and_a_folder_outside_every_map() {
    let side = Side::new("doctor-remote-near");
    let (serve, err, port, bridge) = side.serve_remote();
    let serve_pid = serve.0.id();
    let found = side.remote_findings(&side.work, &[]);
    assert!(
        has(
            &found,
            &format!("ok: serve --remote (pid {serve_pid}) is running with its bridge")
        ),
        "{found:?}"
    );
    let outside = side.dir.join("home");
    let found = side.remote_findings(&outside, &[]);
    assert!(
        has(
            &found,
            &format!(
                "warn: {} is outside every --map of serve --remote (pid {serve_pid})",
                outside.display()
            )
        ),
        "{found:?}"
    );
    let pid = rustix::process::Pid::from_raw(i32::try_from(bridge).unwrap()).unwrap();
    rustix::process::kill_process(pid, rustix::process::Signal::KILL).unwrap();
    wait_for_line(&err, "idelink: the remote link ended");
    // The link's end is said before the bridge's process is reaped: wait for that, with a
    // deadline.
    let until = std::time::Instant::now() + support::DEADLINE;
    let dead = format!("fail: serve --remote (pid {serve_pid}) runs without its bridge");
    while !has(&side.remote_findings(&side.work, &[]), &dead) {
        assert!(std::time::Instant::now() < until, "no dead-link finding");
        std::thread::sleep(std::time::Duration::from_millis(20));
    }
    // Where claude runs, once the bridge is reaped (a zombie's pid still answers as alive):
    // the lock SIGKILL left behind is told from any stale lock.
    let far = side.remote_findings(Path::new("/"), &[]);
    assert!(
        has(
            &far,
            &format!("fail: port {port} was an idelink bridge's (pid {bridge}, gone)")
        ),
        "{far:?}"
    );
    drop(serve);
}
