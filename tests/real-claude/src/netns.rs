//! "Another machine" on one Linux host: a named network namespace (its own `127.0.0.1`, which
//! the rest of the host cannot reach) and code run on a thread inside it. A network namespace
//! is per thread, and a process started from that thread inherits it: a scene driven from
//! [`NetNs::run_inside`] has its fake API and its claude there. Needs root; without it
//! [`NetNs::create`] says why, for the caller to skip loudly ([`skip`]).

use std::io::Write;
use std::path::PathBuf;
use std::process::Command;

/// A named network namespace with its loopback up, deleted on drop.
pub struct NetNs {
    name: String,
}

impl NetNs {
    /// Creates `idelink-<tag>-<pid>`, or says why it cannot (no root, no `ip`).
    pub fn create(tag: &str) -> Result<NetNs, String> {
        if !cfg!(target_os = "linux") {
            return Err("network namespaces are Linux's".to_owned());
        }
        let name = format!("idelink-{tag}-{}", std::process::id());
        run(&["ip", "netns", "add", &name])?;
        let ns = NetNs { name };
        run(&[
            "ip", "netns", "exec", &ns.name, "ip", "link", "set", "lo", "up",
        ])?;
        Ok(ns)
    }

    /// Its name, for `ip netns exec NAME`.
    pub fn name(&self) -> &str {
        &self.name
    }

    /// Runs `f` on a thread moved into the namespace, and returns what it returned.
    pub fn run_inside<T: Send + 'static>(&self, f: impl FnOnce() -> T + Send + 'static) -> T {
        let ns = std::fs::File::open(PathBuf::from("/run/netns").join(&self.name))
            .unwrap_or_else(|e| panic!("cannot open the namespace {}: {e}", self.name));
        let thread = std::thread::spawn(move || {
            enter_network_namespace(&ns)
                .unwrap_or_else(|e| panic!("cannot enter the network namespace: {e}"));
            f()
        });
        thread
            .join()
            .unwrap_or_else(|panic| std::panic::resume_unwind(panic))
    }
}

/// Moves the calling thread into the network namespace `ns` (setns(2), Linux only).
#[cfg(target_os = "linux")]
fn enter_network_namespace(ns: &std::fs::File) -> std::io::Result<()> {
    use std::os::fd::AsFd;
    rustix::thread::move_into_link_name_space(
        ns.as_fd(),
        Some(rustix::thread::LinkNameSpaceType::Network),
    )
    .map_err(Into::into)
}

/// Network namespaces are Linux's ([`NetNs::create`] says so before this is reached).
#[cfg(not(target_os = "linux"))]
fn enter_network_namespace(_ns: &std::fs::File) -> std::io::Result<()> {
    Err(std::io::Error::new(
        std::io::ErrorKind::Unsupported,
        "network namespaces are Linux's",
    ))
}

impl Drop for NetNs {
    fn drop(&mut self) {
        let _ = run(&["ip", "netns", "delete", &self.name]);
    }
}

/// The network namespace of this process's main thread (the editor's side), for
/// `nsenter --net=PATH` from a thread that moved out of it.
pub fn editor_side() -> PathBuf {
    PathBuf::from(format!("/proc/{}/ns/net", std::process::id()))
}

/// Says loudly that `test` did not run and why; with `CI=true` that is a failure.
pub fn skip(test: &str, why: &str) {
    let in_ci = std::env::var("CI").is_ok_and(|v| v == "true" || v == "1");
    assert!(!in_ci, "CI=true and {why}");
    let _ = writeln!(
        std::io::stderr(),
        "\n!! SKIPPED {test}: network namespaces are not available here: {why}"
    );
}

fn run(args: &[&str]) -> Result<(), String> {
    let out = Command::new(args[0])
        .args(&args[1..])
        .output()
        .map_err(|e| format!("cannot run {}: {e}", args[0]))?;
    if out.status.success() {
        Ok(())
    } else {
        Err(format!(
            "`{}` failed: {}",
            args.join(" "),
            String::from_utf8_lossy(&out.stderr).trim()
        ))
    }
}
