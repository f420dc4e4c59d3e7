//! What in the environment decides whether claude connects, besides the locks: the `claude`
//! binary and its version, proxy variables, the auto-connect switches.

use idelink_core::discovery::ConnectFacts;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::sync::mpsc;
use std::time::Duration;

/// The CLI versions the drift alarm has verified (the table in docs/compatibility.md; a test
/// keeps the two equal).
pub const VERIFIED_CLI_VERSIONS: &[&str] = &[
    "2.1.332", "2.1.316", "2.1.286", "2.1.257", "2.1.252", "2.1.220", "2.1.197", "2.1.160",
    "2.1.112",
];

/// How long `claude --version` may take.
const VERSION_DEADLINE: Duration = Duration::from_secs(10);

/// The `claude` `idelink claude` would run ([`super::program::resolve_program`]), and its
/// version.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ClaudeBinary {
    /// Where it is.
    pub path: PathBuf,
    /// The version it reports, or why it reported none.
    pub version: Result<String, String>,
}

/// Runs `claude --version` with a deadline; the version is its first word (`2.1.332 (Claude
/// Code)` → `2.1.332`).
pub fn claude_version(path: &Path) -> Result<String, String> {
    let child = Command::new(path)
        .arg("--version")
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::null())
        .spawn()
        .map_err(|e| format!("cannot run it: {e}"))?;
    let pid = child.id();
    let (tx, rx) = mpsc::channel();
    std::thread::spawn(move || {
        let _ = tx.send(child.wait_with_output());
    });
    let output = rx
        .recv_timeout(VERSION_DEADLINE)
        .map_err(|_| {
            end(pid);
            "claude --version did not answer within 10 s".to_owned()
        })?
        .map_err(|e| format!("claude --version failed: {e}"))?;
    String::from_utf8_lossy(&output.stdout)
        .split_whitespace()
        .next()
        .map(str::to_owned)
        .ok_or_else(|| "claude --version printed nothing".to_owned())
}

/// Ends the `claude --version` that did not answer (our child: its pid is not reused before
/// the waiting thread reaps it).
#[cfg(unix)]
fn end(pid: u32) {
    if let Some(pid) = i32::try_from(pid)
        .ok()
        .and_then(rustix::process::Pid::from_raw)
    {
        let _ = rustix::process::kill_process(pid, rustix::process::Signal::KILL);
    }
}

/// Windows: the process is left to finish; the doctor exits right after.
#[cfg(not(unix))]
fn end(_pid: u32) {}

/// Proxy variables that are set while loopback is missing from `no_proxy`/`NO_PROXY`: a client
/// honouring them sends the connection to 127.0.0.1 through the proxy.
pub fn proxy_leaks(get: &dyn Fn(&str) -> Option<String>) -> Vec<String> {
    let bypass = get("no_proxy")
        .or_else(|| get("NO_PROXY"))
        .unwrap_or_default();
    let covered = bypass
        .split(',')
        .map(str::trim)
        .any(|entry| matches!(entry, "*" | "127.0.0.1" | "localhost" | "127.0.0.0/8"));
    if covered {
        return Vec::new();
    }
    [
        "HTTP_PROXY",
        "http_proxy",
        "HTTPS_PROXY",
        "https_proxy",
        "ALL_PROXY",
        "all_proxy",
    ]
    .into_iter()
    .filter(|name| get(name).is_some_and(|v| !v.is_empty()))
    .map(str::to_owned)
    .collect()
}

/// The auto-connect facts for `claude --ide` started in this environment.
pub fn connect_facts(
    get: &dyn Fn(&str) -> Option<String>,
    config_json: Option<&str>,
) -> ConnectFacts {
    let auto_connect_config = config_json
        .and_then(|text| serde_json::from_str::<serde_json::Value>(text).ok())
        .and_then(|config| {
            config
                .get("autoConnectIde")
                .and_then(serde_json::Value::as_bool)
        })
        .unwrap_or(false);
    ConnectFacts {
        auto_connect_env: get("CLAUDE_CODE_AUTO_CONNECT_IDE"),
        sse_port_env: get("CLAUDE_CODE_SSE_PORT"),
        auto_connect_config,
        ide_flag: true,
    }
}

/// claude's global config file: `$CLAUDE_CONFIG_DIR/.claude.json`, else `~/.claude.json`.
pub fn global_config_path(config_dir: Option<&str>, home: Option<&str>) -> Option<PathBuf> {
    match (config_dir.filter(|d| !d.is_empty()), home) {
        (Some(dir), _) => Some(Path::new(dir).join(".claude.json")),
        (None, Some(home)) => Some(Path::new(home).join(".claude.json")),
        (None, None) => None,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::collections::HashMap;

    fn env(pairs: &[(&str, &str)]) -> impl Fn(&str) -> Option<String> {
        let map: HashMap<String, String> = pairs
            .iter()
            .map(|(k, v)| ((*k).to_owned(), (*v).to_owned()))
            .collect();
        move |name| map.get(name).cloned()
    }

    #[test]
    fn a_proxy_without_a_loopback_bypass_is_reported() {
        let leaky = env(&[("https_proxy", "http://proxy:3128"), ("NO_PROXY", "corp")]);
        assert_eq!(proxy_leaks(&leaky), vec!["https_proxy".to_owned()]);
        let bypassed = env(&[("HTTP_PROXY", "http://p"), ("no_proxy", "corp, localhost")]);
        assert!(proxy_leaks(&bypassed).is_empty());
        assert!(proxy_leaks(&env(&[])).is_empty());
    }

    #[test]
    fn the_config_switch_and_the_variables_are_gathered() {
        let facts = connect_facts(
            &env(&[("CLAUDE_CODE_AUTO_CONNECT_IDE", "off")]),
            Some(r#"{"autoConnectIde": true}"#),
        );
        assert_eq!(facts.auto_connect_env.as_deref(), Some("off"));
        assert!(facts.auto_connect_config);
        assert!(!connect_facts(&env(&[]), Some("not json")).auto_connect_config);
    }

    #[test]
    fn the_verified_versions_are_the_rows_of_docs_compatibility() {
        let doc = include_str!("../../../../docs/compatibility.md");
        let rows: Vec<&str> = doc
            .lines()
            .filter_map(|line| line.strip_prefix("| "))
            .filter_map(|row| row.split_whitespace().next())
            .filter(|cell| cell.starts_with(|c: char| c.is_ascii_digit()))
            .collect();
        assert_eq!(rows, VERIFIED_CLI_VERSIONS);
    }
}
