//! `idelink serve --remote COMMAND` with `idelink bridge` as COMMAND's far end, as processes:
//! the far lock (the bridge's pid, the mapped folder, the editor's token), no lock on the
//! editor's side, claude's paths mapped both ways, and the faults: the link dying mid-diff
//! (the far lock gone within 1 s), the bridge SIGKILLed (the editor side says so, the next
//! bridge sweeps its lock).
#![cfg(unix)]
#![expect(
    clippy::unwrap_used,
    reason = "a test: any failure must stop it loudly"
)]

use idelink_test_client::Client;
use serde_json::{Value, json};
use std::path::{Path, PathBuf};
use std::process::{Child, Stdio};
use std::sync::mpsc::Receiver;
use std::time::{Duration, Instant};

mod support;

use support::{
    alive, all_lines, idelink, lines, pid_in, temp_dir, texts, wait_exit, wait_for_line,
};

/// The far side's name for the workspace.
const FAR: &str = "/far/proj";

struct Remote {
    serve: Child,
    out: Receiver<String>,
    err: Receiver<String>,
    lock: PathBuf,
    port: u16,
    token: String,
    bridge_pid: u32,
}

/// `idelink serve --remote 'idelink bridge --lock-dir FAR_LOCKS' --map /far/proj=WORK WORK`.
fn start(dir: &Path, diff: &str) -> Remote {
    start_through(dir, diff, |bridge| format!("exec {bridge}"))
}

/// [`start`] with the bridge's command line put into a transport by `transport`.
fn start_through(dir: &Path, diff: &str, transport: fn(&str) -> String) -> Remote {
    let work = dir.join("work").canonicalize().unwrap();
    let far_locks = dir.join("far-ide");
    let bridge = transport(&format!(
        "'{}' bridge --lock-dir '{}'",
        env!("CARGO_BIN_EXE_idelink"),
        far_locks.display()
    ));
    let mut serve = idelink(&["serve", "--diff", diff, "--lock-dir"])
        .arg(dir.join("near-ide"))
        .args(["--remote", &bridge, "--map"])
        .arg(format!("{FAR}={}", work.display()))
        .arg(&work)
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let out = lines(serve.stdout.take().unwrap());
    let err = lines(std::process::ChildStdout::from(std::os::fd::OwnedFd::from(
        serve.stderr.take().unwrap(),
    )));
    let up = wait_for_line(&err, "idelink bridge: listening on 127.0.0.1:");
    let lock = PathBuf::from(up.rsplit("lock ").next().unwrap());
    let body: Value = serde_json::from_str(&std::fs::read_to_string(&lock).unwrap()).unwrap();
    assert_eq!(
        body["workspaceFolders"],
        json!([FAR]),
        "the far side's name"
    );
    let port = lock.file_stem().unwrap().to_str().unwrap().parse().unwrap();
    Remote {
        serve,
        out,
        err,
        port,
        token: body["authToken"].as_str().unwrap().to_owned(),
        bridge_pid: u32::try_from(body["pid"].as_u64().unwrap()).unwrap(),
        lock,
    }
}

/// Waits (with a deadline) until `path` is gone; returns how long it took.
fn gone_within(path: &Path, deadline: Duration) -> Duration {
    let started = Instant::now();
    while path.exists() {
        assert!(
            started.elapsed() < deadline,
            "{} still there after {deadline:?}",
            path.display()
        );
        std::thread::sleep(Duration::from_millis(10));
    }
    started.elapsed()
}

fn kill(pid: u32, signal: rustix::process::Signal) {
    let pid = rustix::process::Pid::from_raw(i32::try_from(pid).unwrap()).unwrap();
    rustix::process::kill_process(pid, signal).unwrap();
}

#[test]
fn a_claude_behind_the_bridge_is_served_with_its_own_paths() {
    let dir = temp_dir("remote-serve");
    std::fs::write(dir.join("work/main.rs"), "fn main() {}\n").unwrap();
    let mut remote = start(&dir, "accept");
    let near: Vec<_> = std::fs::read_dir(dir.join("near-ide"))
        .map(|d| d.flatten().map(|e| e.file_name()).collect())
        .unwrap_or_default();
    assert!(near.is_empty(), "the editor side wrote a lock: {near:?}");

    let mut client = Client::connect_initialized(remote.port, &remote.token).unwrap();
    wait_for_line(&remote.out, "connected (idelink-test-client)");
    let path = format!("{FAR}/main.rs");
    let saved = client
        .call_tool(
            "openDiff",
            json!({"old_file_path": path, "new_file_path": path,
                   "new_file_contents": "fn main() { run() }\n", "tab_name": "t"}),
        )
        .unwrap();
    assert_eq!(texts(&saved), ["FILE_SAVED", "fn main() { run() }\n"]);
    // The review read the editor's file (the far path does not exist here).
    wait_for_line(&remote.out, "openDiff main.rs");
    let folders = client.call_tool("getWorkspaceFolders", json!({})).unwrap();
    let folders: Value = serde_json::from_str(&texts(&folders)[0]).unwrap();
    assert_eq!(folders["rootPath"], FAR);
    let outside = client
        .call_tool("openFile", json!({"filePath": "/etc/passwd"}))
        .unwrap();
    assert_eq!(outside["result"]["isError"], true);
    assert!(
        texts(&outside)[0].contains("/etc/passwd is outside every path mapping"),
        "{outside}"
    );

    support::stop(&mut remote.serve);
    gone_within(&remote.lock, Duration::from_secs(1));
}

#[test]
fn the_link_dying_mid_diff_closes_claudes_connection_and_removes_the_far_lock() {
    let dir = temp_dir("remote-dies");
    std::fs::write(dir.join("work/main.rs"), "fn main() {}\n").unwrap();
    let mut remote = start(&dir, "ask");
    let mut client = Client::connect_initialized(remote.port, &remote.token).unwrap();
    let path = format!("{FAR}/main.rs");
    let id = client
        .send_request(
            "tools/call",
            json!({"name": "openDiff", "arguments": {"old_file_path": path, "new_file_path": path,
                   "new_file_contents": "x\n", "tab_name": "t"}}),
        )
        .unwrap();
    wait_for_line(&remote.out, "openDiff main.rs");
    // The editor side vanishes: its end of the link with it.
    remote.serve.kill().unwrap();
    remote.serve.wait().unwrap();
    let took = gone_within(&remote.lock, Duration::from_secs(1));
    // claude gets a clean close (no answer can come any more).
    let answer = client.response(id);
    assert!(answer.is_err(), "{answer:?}");
    eprintln!("far lock removed {took:?} after the link died");
}

#[test]
fn a_killed_bridge_is_reported_and_its_lock_swept_by_the_next() {
    let dir = temp_dir("remote-killed");
    let mut first = start(&dir, "accept");
    kill(first.bridge_pid, rustix::process::Signal::KILL);
    wait_for_line(
        &first.err,
        "idelink: the remote link ended: the bridge exited",
    );
    assert!(first.lock.exists(), "SIGKILL leaves the lock behind");
    let mut second = start(&dir, "accept");
    assert!(
        !first.lock.exists(),
        "the next bridge sweeps the dead one's lock"
    );
    assert!(second.lock.exists());
    support::stop(&mut second.serve);
    support::stop(&mut first.serve);
}

/// A pipe of about 1 MB/s: 4 KiB at a time, 4 ms apart (python3, as on any dev machine).
const SLOW_PIPE: &str = "python3 -c 'import sys,time\nr=sys.stdin.buffer\nw=sys.stdout.buffer\n\
while True:\n b=r.read1(4096)\n if not b: break\n w.write(b); w.flush(); time.sleep(0.004)'";

#[test]
fn a_slow_link_keeps_every_connections_bytes_in_order() {
    let dir = temp_dir("remote-slow");
    std::fs::write(dir.join("work/main.rs"), "fn main() {}\n").unwrap();
    let mut remote = start_through(&dir, "accept", |bridge| {
        format!("{SLOW_PIPE} | {bridge} | {SLOW_PIPE}")
    });
    let path = format!("{FAR}/main.rs");
    // Two sessions at once, each sending diffs of 256 KiB whose answers carry them back:
    // through a slow pipe, cut into frames and interleaved, each must come back whole.
    let sessions: Vec<_> = (0..2u8)
        .map(|who| {
            let (port, token, path) = (remote.port, remote.token.clone(), path.clone());
            std::thread::spawn(move || {
                let mut client = Client::connect_initialized(port, &token).unwrap();
                for round in 0..3u8 {
                    let line = format!("// session {who} round {round}\n");
                    let contents = line.repeat((256 << 10) / line.len());
                    let saved = client
                        .call_tool(
                            "openDiff",
                            json!({"old_file_path": path, "new_file_path": path,
                                   "new_file_contents": contents,
                                   "tab_name": format!("t{who}-{round}")}),
                        )
                        .unwrap();
                    assert_eq!(texts(&saved), ["FILE_SAVED", contents.as_str()]);
                }
            })
        })
        .collect();
    for session in sessions {
        session.join().unwrap();
    }
    support::stop(&mut remote.serve);
    gone_within(&remote.lock, Duration::from_secs(2));
}

/// `idelink serve --remote COMMAND --remote-timeout SECS`: its exit status and stderr.
fn serve_failing(dir: &Path, command: &str, secs: &str) -> (std::process::ExitStatus, String) {
    let (mut serve, _out, err) = support::spawn_piped(
        idelink(&["serve", "--diff", "accept", "--lock-dir"])
            .arg(dir.join("near-ide"))
            .args(["--remote", command, "--remote-timeout", secs])
            .arg(dir.join("work"))
            .stdin(Stdio::null()),
    );
    let status = wait_exit(&mut serve.0);
    (status, all_lines(&err).join("\n"))
}

#[test]
fn a_remote_command_that_never_speaks_is_told_then_ended_at_the_deadline() {
    let dir = temp_dir("remote-silent");
    let pid_file = dir.join("transport.pid");
    // The peer: a transport that neither says hello nor ends (ssh at a prompt, say), one
    // simple command that `sh -c` would otherwise run as its own child.
    let command = format!(
        "sh -c 'echo $$ > \"{}\"; exec sleep 1000'",
        pid_file.display()
    );
    let started = Instant::now();
    let (status, said) = serve_failing(&dir, &command, "3");
    let took = started.elapsed();
    assert_eq!(status.code(), Some(1), "{said}");
    for part in [
        "idelink: waiting for the bridge's hello from",
        "(2 s so far; ending it after 3 s (--remote-timeout))",
        "ssh-agent",
        "-o BatchMode=yes",
        "said nothing for 3 s while idelink waited for the bridge's hello, so it was ended",
        "runs `idelink bridge` on the far side",
    ] {
        assert!(said.contains(part), "{part:?} in {said}");
    }
    assert!(
        said.contains(&format!("from `{command}`")),
        "the command is named: {said}"
    );
    assert!(took >= Duration::from_secs(3), "ended early: {took:?}");
    let transport = pid_in(&pid_file);
    assert!(
        !alive(transport),
        "the transport (pid {transport}) still runs"
    );
}

#[test]
fn a_deadline_shorter_than_the_notice_ends_without_one() {
    let dir = temp_dir("remote-silent-short");
    let (status, said) = serve_failing(&dir, "exec sleep 1000", "1");
    assert_eq!(status.code(), Some(1), "{said}");
    assert!(said.contains("said nothing for 1 s"), "{said}");
    assert!(
        !said.contains("so far"),
        "no notice before the deadline: {said}"
    );
}

#[test]
fn a_bad_remote_timeout_is_refused_with_what_it_takes() {
    let dir = temp_dir("remote-timeout-arg");
    for bad in ["30s", "1.5", "3601"] {
        let (status, said) = serve_failing(&dir, "exec sleep 1000", bad);
        assert_eq!(status.code(), Some(2), "{bad}: {said}");
        assert!(said.contains("from 1 to 3600"), "{bad}: {said}");
        assert!(said.contains("or 0 to wait without limit"), "{bad}: {said}");
    }
}
