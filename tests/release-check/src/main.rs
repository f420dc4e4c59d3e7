//! Checks a built `idelink` the way a user meets it: `idelink --version` names this workspace's
//! version, and `idelink serve` serves one session to the real-socket test client (upgrade with
//! the lock file's token, MCP initialize, an `openDiff` answered by `--diff accept`).
//!
//! ```text
//! idelink-release-check [RUNNER ...] IDELINK
//! ```
//!
//! `RUNNER` is what runs a foreign binary here (`qemu-aarch64-static`, `/usr/lib/wine/wine64`);
//! the binary's path is always the last argument. `scripts/release` runs it on every archive
//! it can execute. Exits 0 when every check passes, else prints the first failure and exits 1.

use idelink_test_client::Client;
use serde_json::{Value, json};
use std::io::{BufRead, BufReader};
use std::path::Path;
use std::process::{Child, Command, ExitCode, Stdio};
use std::sync::mpsc::{self, Receiver};
use std::time::Duration;

/// How long any one wait on the binary may take (a first Wine start creates its prefix).
const DEADLINE: Duration = Duration::from_secs(60);

fn main() -> ExitCode {
    let command: Vec<String> = std::env::args().skip(1).collect();
    if command.is_empty() {
        eprintln!("usage: idelink-release-check [RUNNER ...] IDELINK");
        return ExitCode::from(2);
    }
    match check(&command) {
        Ok(()) => {
            println!("release-check: {} passed", command.join(" "));
            ExitCode::SUCCESS
        }
        Err(why) => {
            eprintln!("release-check: {}: {why}", command.join(" "));
            ExitCode::FAILURE
        }
    }
}

fn check(command: &[String]) -> Result<(), String> {
    check_version(command)?;
    let dir = std::env::temp_dir().join(format!("idelink-release-check-{}", std::process::id()));
    let result = check_session(command, &dir);
    let _ = std::fs::remove_dir_all(&dir);
    result
}

/// The command, with `args` after the binary.
fn idelink(command: &[String], args: &[&str]) -> Command {
    let mut run = Command::new(&command[0]);
    run.args(&command[1..]).args(args).env_remove("RUST_LOG");
    run
}

fn check_version(command: &[String]) -> Result<(), String> {
    let out = idelink(command, &["--version"])
        .stdin(Stdio::null())
        .output()
        .map_err(|e| format!("cannot run it: {e}"))?;
    let text = String::from_utf8_lossy(&out.stdout);
    let want = format!("idelink {}", env!("CARGO_PKG_VERSION"));
    if !out.status.success() || text.trim() != want {
        return Err(format!(
            "--version printed {text:?} ({}), expected {want:?}; stderr: {}",
            out.status,
            String::from_utf8_lossy(&out.stderr)
        ));
    }
    println!("release-check: --version: {}", text.trim());
    Ok(())
}

fn check_session(command: &[String], dir: &Path) -> Result<(), String> {
    let work = dir.join("work");
    let lock_dir = dir.join("ide");
    std::fs::create_dir_all(&work).map_err(|e| format!("cannot create {}: {e}", work.display()))?;
    let file = work.join("main.rs");
    std::fs::write(&file, "fn main() {}\n").map_err(|e| e.to_string())?;
    let mut child = idelink(command, &["serve", "--diff", "accept", "--lock-dir"])
        .arg(&lock_dir)
        .arg(&work)
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .spawn()
        .map_err(|e| format!("cannot start serve: {e}"))?;
    let result = serve_one_session(&mut child, &lock_dir);
    let _ = child.kill();
    let _ = child.wait();
    result
}

fn serve_one_session(child: &mut Child, lock_dir: &Path) -> Result<(), String> {
    let stdout = child.stdout.take().ok_or("no stdout")?;
    let lines = lines(stdout);
    let banner = wait_for_line(&lines, "on 127.0.0.1:")?;
    let port: u16 = banner
        .rsplit(':')
        .next()
        .and_then(|p| p.trim().parse().ok())
        .ok_or_else(|| format!("no port in {banner:?}"))?;
    let (token, folder) = read_lock(&lock_dir.join(format!("{port}.lock")))?;
    let mut client = Client::connect_initialized(port, &token)
        .map_err(|e| format!("session on port {port}: {e}"))?;
    wait_for_line(&lines, "connected (idelink-test-client)")?;
    let path = file_in(&folder, "main.rs");
    let answer = client
        .call_tool(
            "openDiff",
            json!({"old_file_path": path, "new_file_path": path,
                   "new_file_contents": "fn main() { run() }\n", "tab_name": "release-check"}),
        )
        .map_err(|e| format!("openDiff: {e}"))?;
    let texts: Vec<&str> = answer["result"]["content"]
        .as_array()
        .map(|items| items.iter().filter_map(|i| i["text"].as_str()).collect())
        .unwrap_or_default();
    if texts != ["FILE_SAVED", "fn main() { run() }\n"] {
        return Err(format!("openDiff answered {answer}"));
    }
    println!("release-check: session on 127.0.0.1:{port}: initialize, openDiff -> FILE_SAVED");
    Ok(())
}

/// `name` inside the lock's workspace folder, joined the served binary's way: a Windows
/// binary under Wine names its folder as a drive path (`Z:\tmp\...`).
fn file_in(folder: &str, name: &str) -> String {
    let separator = if folder.contains('\\') { '\\' } else { '/' };
    format!("{}{separator}{name}", folder.trim_end_matches(separator))
}

/// The auth token and the first workspace folder the lock file names.
fn read_lock(path: &Path) -> Result<(String, String), String> {
    let text = std::fs::read_to_string(path)
        .map_err(|e| format!("cannot read the lock {}: {e}", path.display()))?;
    let lock: Value =
        serde_json::from_str(&text).map_err(|e| format!("lock {}: {e}", path.display()))?;
    match (
        lock["authToken"].as_str(),
        lock["workspaceFolders"][0].as_str(),
    ) {
        (Some(token), Some(folder)) => Ok((token.to_owned(), folder.to_owned())),
        _ => Err(format!(
            "lock without authToken or workspaceFolders: {text}"
        )),
    }
}

/// The child's stdout as lines on a channel, so every wait has a deadline.
fn lines(stdout: impl std::io::Read + Send + 'static) -> Receiver<String> {
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

/// The next line containing `needle`.
fn wait_for_line(lines: &Receiver<String>, needle: &str) -> Result<String, String> {
    loop {
        let line = lines
            .recv_timeout(DEADLINE)
            .map_err(|e| format!("no output line containing {needle:?}: {e}"))?;
        if line.contains(needle) {
            return Ok(line);
        }
    }
}
