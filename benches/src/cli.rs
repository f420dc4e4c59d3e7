//! The `idelink` command itself, as a user starts it: start-up time (exec to the lock file on
//! disk, exec to the line or message saying it serves) and its idle cost next to the servers'.

use crate::procfs;
use crate::servers::{Kind, Server};
use std::io::{self, Read};
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::mpsc;
use std::time::{Duration, Instant};

/// How long a start may take before the benchmark gives up on it.
const START_DEADLINE: Duration = Duration::from_secs(10);

/// The `idelink` binary: `idelink` beside the `examples/` folder of the bench servers.
pub fn binary(bin_dir: &Path) -> io::Result<PathBuf> {
    let path = bin_dir.join("..").join("idelink");
    if path.exists() {
        Ok(path)
    } else {
        Err(io::Error::other(format!(
            "no idelink binary at {}: build it with `cargo build --release -p idelink` \
             (scripts/bench does)",
            path.display()
        )))
    }
}

/// A scratch folder with a workspace and a lock folder, removed when dropped.
pub struct Scratch {
    root: PathBuf,
}

impl Scratch {
    /// A new, empty scratch folder named after `label` and this process.
    pub fn new(label: &str) -> io::Result<Scratch> {
        static NEXT: AtomicU64 = AtomicU64::new(0);
        let root = std::env::temp_dir().join(format!(
            "idelink-bench-{label}-{}-{}",
            std::process::id(),
            NEXT.fetch_add(1, Ordering::Relaxed)
        ));
        std::fs::create_dir_all(root.join("work"))?;
        std::fs::create_dir_all(root.join("ide"))?;
        Ok(Scratch { root })
    }

    /// The workspace folder.
    pub fn work(&self) -> PathBuf {
        self.root.join("work")
    }

    /// The lock folder.
    pub fn locks(&self) -> PathBuf {
        self.root.join("ide")
    }

    /// The first `*.lock` file in the lock folder, once there is one.
    pub fn lock_file(&self) -> Option<PathBuf> {
        std::fs::read_dir(self.locks())
            .ok()?
            .filter_map(Result::ok)
            .map(|entry| entry.path())
            .find(|path| path.extension().is_some_and(|e| e == "lock"))
    }
}

impl Drop for Scratch {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir_all(&self.root);
    }
}

/// `idelink serve` (terminal) or `serve --stdio` on `scratch`, stdin held open.
fn spawn_serve(cli: &Path, scratch: &Scratch, stdio: bool) -> io::Result<Child> {
    let mut command = Command::new(cli);
    command.arg("serve");
    if stdio {
        command.arg("--stdio");
    } else {
        command.args(["--diff", "reject"]);
    }
    command
        .arg("--max-connections")
        .arg("64")
        .arg("--lock-dir")
        .arg(scratch.locks())
        .arg(scratch.work())
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::null())
        .spawn()
}

/// Sends the time `needle` first appears in `out`, and everything read up to then.
fn watch(
    mut out: impl Read + Send + 'static,
    needle: &'static [u8],
) -> mpsc::Receiver<(Instant, Vec<u8>)> {
    let (send, receive) = mpsc::channel();
    std::thread::spawn(move || {
        let mut seen = Vec::new();
        let mut chunk = [0u8; 4096];
        while let Ok(n) = out.read(&mut chunk) {
            if n == 0 {
                return;
            }
            seen.extend_from_slice(&chunk[..n]);
            if seen.windows(needle.len()).any(|w| w == needle) {
                let _ = send.send((Instant::now(), seen));
                // Keep draining so the child never blocks on a full pipe.
                while matches!(out.read(&mut chunk), Ok(n) if n > 0) {}
                return;
            }
        }
    });
    receive
}

/// What `serve` prints once it serves: the banner line, or the `idelink/ready` message.
fn ready_needle(stdio: bool) -> &'static [u8] {
    if stdio {
        b"idelink/ready"
    } else {
        b"on 127.0.0.1:"
    }
}

/// One start: milliseconds from exec to the lock file on disk, and to the ready line.
pub fn startup(cli: &Path, stdio: bool) -> io::Result<(f64, f64)> {
    let scratch = Scratch::new("startup")?;
    let start = Instant::now();
    let mut child = spawn_serve(cli, &scratch, stdio)?;
    let ready = watch(take_stdout(&mut child)?, ready_needle(stdio));
    let mut lock_at = None;
    while lock_at.is_none() && start.elapsed() < START_DEADLINE {
        if scratch.lock_file().is_some() {
            lock_at = Some(start.elapsed());
        } else {
            std::thread::sleep(Duration::from_micros(50));
        }
    }
    let ready_at = ready.recv_timeout(START_DEADLINE).map(|(at, _)| at - start);
    let _ = child.kill();
    let _ = child.wait();
    match (lock_at, ready_at) {
        (Some(lock), Ok(ready)) => Ok((lock.as_secs_f64() * 1e3, ready.as_secs_f64() * 1e3)),
        _ => Err(io::Error::other("idelink serve did not start within 10 s")),
    }
}

/// The floor for a start: exec of the echo server to its first line (it binds a socket and
/// prints its port), in milliseconds.
pub fn startup_floor(bin_dir: &Path) -> io::Result<f64> {
    let start = Instant::now();
    let server = Server::start(Kind::Echo, bin_dir)?;
    let took = start.elapsed();
    drop(server);
    Ok(took.as_secs_f64() * 1e3)
}

fn take_stdout(child: &mut Child) -> io::Result<std::process::ChildStdout> {
    child
        .stdout
        .take()
        .ok_or_else(|| io::Error::other("no stdout pipe"))
}

/// `idelink serve --stdio` running for the idle measurement: its port and token from the
/// `idelink/ready` message and the lock file.
pub struct Serving {
    child: Child,
    _scratch: Scratch,
    /// The port claude connects to.
    pub port: u16,
    /// The token in its lock file.
    pub token: String,
}

impl Serving {
    /// Starts `idelink serve --stdio` and waits for it to serve.
    pub fn start(cli: &Path) -> io::Result<Serving> {
        let scratch = Scratch::new("idle")?;
        let mut child = spawn_serve(cli, &scratch, true)?;
        let ready = watch(take_stdout(&mut child)?, b"}}");
        let seen = ready.recv_timeout(START_DEADLINE).map(|(_, seen)| seen);
        let port = seen.ok().and_then(|seen| {
            let text = String::from_utf8_lossy(&seen).into_owned();
            let after = text.split_once(r#""port":"#)?.1;
            let digits: String = after.chars().take_while(char::is_ascii_digit).collect();
            digits.parse().ok()
        });
        let lock = scratch.lock_file().map(std::fs::read_to_string);
        let token = match lock {
            Some(Ok(text)) => serde_json::from_str::<serde_json::Value>(&text)
                .ok()
                .and_then(|v| v["authToken"].as_str().map(str::to_owned)),
            _ => None,
        };
        match (port, token) {
            (Some(port), Some(token)) => Ok(Serving {
                child,
                _scratch: scratch,
                port,
                token,
            }),
            _ => {
                let _ = child.kill();
                let _ = child.wait();
                Err(io::Error::other(
                    "idelink serve --stdio gave no port or token",
                ))
            }
        }
    }

    /// Its process id.
    pub fn pid(&self) -> u32 {
        self.child.id()
    }
}

impl Drop for Serving {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

/// A process's wakeups and CPU time, read before and after an idle period.
#[derive(Debug, Clone, Copy)]
pub struct IdleSample {
    switches: u64,
    cpu_seconds: f64,
}

impl IdleSample {
    /// The process's context switches (all threads) and CPU time now.
    pub fn take(pid: u32) -> io::Result<IdleSample> {
        Ok(IdleSample {
            switches: procfs::context_switches(pid)?,
            cpu_seconds: procfs::cpu_seconds(pid)?,
        })
    }

    /// Wakeups per minute and CPU milliseconds since `earlier`, over `seconds`.
    pub fn since(&self, earlier: &IdleSample, seconds: f64) -> (f64, f64) {
        let wakeups = self.switches.saturating_sub(earlier.switches) as f64;
        (
            wakeups * 60.0 / seconds,
            (self.cpu_seconds - earlier.cpu_seconds) * 1e3,
        )
    }
}
