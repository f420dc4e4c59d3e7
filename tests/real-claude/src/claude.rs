//! The real `claude` CLI: where it is installed, how it is launched (a native binary, or a
//! `cli.js` run by Node for the releases before 2.1.113), whether the suite may run without it,
//! and the private configuration that lets it start unattended against loopback servers only.

use serde_json::json;
use std::io::Write;
use std::path::{Path, PathBuf};
use std::process::Command;

use crate::expect::Expectations;

/// The CLI version `scripts/install` installs and the suite is verified against.
pub const PINNED_VERSION: &str = "2.1.332";

/// The dummy API key. The fake API never checks it; the CLI remembers its last 20 characters
/// as approved (`customApiKeyResponses`), which skips the "use this key?" dialog.
pub const API_KEY: &str = "sk-ant-api03-idelink-drift-alarm-0000000000000000000000";

/// The CLI found on this machine.
#[derive(Debug, Clone)]
pub struct Claude {
    /// What `CLAUDE_BIN` (or the pinned install) names: the native executable, or `cli.js`.
    pub bin: PathBuf,
    /// The program to run: `bin` itself, or `node` for a `cli.js`.
    pub program: PathBuf,
    /// The arguments before the CLI's own: `[bin]` for a `cli.js`, else none.
    pub leading: Vec<String>,
    /// What `claude --version` printed (first word), e.g. `2.1.332`.
    pub version: String,
    /// How this version words and does what the tests look for.
    pub expect: Expectations,
}

/// Finds the CLI and tmux. `None` (after a loud message on stderr) when either is absent on a
/// developer machine; a panic when absent in CI (`CI=true`) or when `CLAUDE_BIN` names nothing
/// runnable: in CI a missing CLI must fail the suite, never skip it silently.
pub fn locate(test: &str) -> Option<Claude> {
    let (bin, how) = match std::env::var_os("CLAUDE_BIN") {
        Some(bin) => {
            let bin = PathBuf::from(bin);
            assert!(
                bin.is_file(),
                "CLAUDE_BIN={} is not a file; point it at a claude executable or unset it",
                bin.display()
            );
            (bin, "CLAUDE_BIN")
        }
        None => (pinned_path(), "the pinned install"),
    };
    if !bin.is_file() {
        return absent(
            test,
            &format!(
                "the real claude CLI is not installed at {}.\n\
                 Install it with `bash scripts/install`, or:\n  \
                 npm install --prefix {} --ignore-scripts --no-save \
                 @anthropic-ai/claude-code@{PINNED_VERSION}\n\
                 or point CLAUDE_BIN at a claude executable.",
                bin.display(),
                pinned_dir().display()
            ),
        );
    }
    if Command::new("tmux").arg("-V").output().is_err() {
        return absent(
            test,
            "tmux is not installed (the CLI runs in a tmux pseudo-terminal): apt-get install tmux",
        );
    }
    let (program, leading) = launcher(&bin);
    let version = version_of(&program, &leading);
    let expect = Expectations::for_version(&version);
    eprintln!(
        "{test}: real claude CLI {version} from {how} ({}); {expect:?}",
        bin.display()
    );
    Some(Claude {
        bin,
        program,
        leading,
        version,
        expect,
    })
}

/// How to run `bin`: a file ending in `.js` (the npm package's `cli.js`, how releases before
/// 2.1.113 ship) runs under the `node` found on `PATH` (`NODE` overrides it); anything else is
/// run directly.
fn launcher(bin: &Path) -> (PathBuf, Vec<String>) {
    if bin.extension().is_none_or(|ext| ext != "js") {
        return (bin.to_path_buf(), Vec::new());
    }
    let node = std::env::var_os("NODE")
        .map(PathBuf::from)
        .or_else(|| {
            let path = std::env::var_os("PATH")?;
            std::env::split_paths(&path)
                .map(|dir| dir.join("node"))
                .find(|node| node.is_file())
        })
        .unwrap_or_else(|| {
            panic!(
                "{} is a JavaScript CLI, and no `node` is on PATH (or in NODE) to run it",
                bin.display()
            )
        });
    (node, vec![bin.display().to_string()])
}

fn absent(test: &str, why: &str) -> Option<Claude> {
    let in_ci = std::env::var("CI").is_ok_and(|v| v == "true" || v == "1");
    assert!(!in_ci, "CI=true and {why}");
    let rule = "!".repeat(78);
    // Straight to the process's stderr: the test harness captures `eprintln!` of passing tests.
    let _ = writeln!(
        std::io::stderr(),
        "\n{rule}\n!! SKIPPED {test}: the drift alarm against the real claude CLI did not run.\n\
         !! {}\n{rule}",
        why.replace('\n', "\n!! ")
    );
    None
}

/// `${XDG_CACHE_HOME:-$HOME/.cache}/idelink/claude-<pinned>`: where `scripts/install` installs the CLI
/// (outside the repository).
pub fn pinned_dir() -> PathBuf {
    let cache = std::env::var_os("XDG_CACHE_HOME")
        .filter(|v| !v.is_empty())
        .map(PathBuf::from)
        .or_else(|| std::env::var_os("HOME").map(|home| PathBuf::from(home).join(".cache")))
        .unwrap_or_else(|| PathBuf::from(".cache"));
    cache
        .join("idelink")
        .join(format!("claude-{PINNED_VERSION}"))
}

/// The native binary inside the npm install: the package's own `bin/claude.exe` is a
/// placeholder until its postinstall (which we do not run) copies the platform binary over it.
fn pinned_path() -> PathBuf {
    let arch = match std::env::consts::ARCH {
        "x86_64" => "x64",
        "aarch64" => "arm64",
        other => other,
    };
    pinned_dir().join(format!(
        "node_modules/@anthropic-ai/claude-code-{}-{arch}/claude",
        std::env::consts::OS
    ))
}

fn version_of(program: &Path, leading: &[String]) -> String {
    let output = Command::new(program)
        .args(leading)
        .arg("--version")
        .env("DISABLE_AUTOUPDATER", "1")
        .output()
        .unwrap_or_else(|e| panic!("cannot run {} --version: {e}", program.display()));
    let text = String::from_utf8_lossy(&output.stdout);
    assert!(
        output.status.success(),
        "{} {leading:?} --version failed: {text}",
        program.display()
    );
    text.split_whitespace()
        .next()
        .unwrap_or("unknown")
        .to_owned()
}

/// Writes the private `CLAUDE_CONFIG_DIR` that lets the CLI start with no dialog: onboarding
/// done, the dummy key approved, the workspace trusted, the auto-mode nudge seen (it would eat
/// the first keystrokes), and the IDE diff enabled; plus a `settings.json` that allows the IDE's
/// diagnostics tool, so reading diagnostics after an edit asks nothing.
pub fn write_config(config_dir: &Path, workspace: &str) -> std::io::Result<()> {
    std::fs::create_dir_all(config_dir)?;
    let key_suffix = &API_KEY[API_KEY.len() - 20..];
    let state = json!({
        "hasCompletedOnboarding": true,
        "customApiKeyResponses": {"approved": [key_suffix], "rejected": []},
        "projects": {workspace: {"hasTrustDialogAccepted": true}},
        "hasSeenAutoDefaultNudge": true,
        "diffTool": "auto",
    });
    std::fs::write(config_dir.join(".claude.json"), state.to_string())?;
    let settings = json!({"permissions": {"allow": ["mcp__ide__getDiagnostics"]}});
    std::fs::write(config_dir.join("settings.json"), settings.to_string())
}

/// The whole environment the CLI runs with (nothing is inherited): private home, config and
/// temp folders, the fake API on loopback, no updater, telemetry, plugin marketplace or other
/// outbound traffic, and the IDE port to connect to. As a trap, the HTTP(S) proxy is the fake
/// API too: a request the CLI makes to anywhere but loopback lands there and fails the test
/// ([`FakeApi::egress`](crate::fake_api::FakeApi::egress)) instead of reaching the internet.
pub fn environment(home: &Path, tmp: &Path, api_port: u16, ide_port: u16) -> Vec<(String, String)> {
    let path = std::env::var("PATH").unwrap_or_else(|_| "/usr/bin:/bin".to_owned());
    let trap = format!("http://127.0.0.1:{api_port}");
    let loopback = "127.0.0.1,localhost,::1".to_owned();
    let pairs = [
        ("PATH", path),
        ("TERM", "xterm-256color".to_owned()),
        ("LANG", "C.UTF-8".to_owned()),
        ("HOME", home.display().to_string()),
        ("CLAUDE_CONFIG_DIR", config_dir(home).display().to_string()),
        ("TMPDIR", tmp.display().to_string()),
        ("ANTHROPIC_API_KEY", API_KEY.to_owned()),
        ("ANTHROPIC_BASE_URL", format!("http://127.0.0.1:{api_port}")),
        ("HTTPS_PROXY", trap.clone()),
        ("https_proxy", trap.clone()),
        ("HTTP_PROXY", trap.clone()),
        ("http_proxy", trap),
        ("NO_PROXY", loopback.clone()),
        ("no_proxy", loopback),
        ("DISABLE_AUTOUPDATER", "1".to_owned()),
        ("DISABLE_TELEMETRY", "1".to_owned()),
        ("DISABLE_ERROR_REPORTING", "1".to_owned()),
        ("CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC", "1".to_owned()),
        ("CLAUDE_CODE_IDE_SKIP_AUTO_INSTALL", "1".to_owned()),
        // Else it fetches the plugin marketplace from downloads.claude.ai and github.com.
        (
            "CLAUDE_CODE_DISABLE_OFFICIAL_MARKETPLACE_AUTOINSTALL",
            "1".to_owned(),
        ),
        // git over ssh ignores the proxy trap: make any such clone fail here.
        ("GIT_SSH_COMMAND", "false".to_owned()),
        ("CLAUDE_CODE_SSE_PORT", ide_port.to_string()),
    ];
    pairs
        .into_iter()
        .map(|(key, value)| (key.to_owned(), value))
        .collect()
}

/// `$HOME/.claude`, used as `CLAUDE_CONFIG_DIR` (so the lock directory is `<it>/ide`).
pub fn config_dir(home: &Path) -> PathBuf {
    home.join(".claude")
}

/// The CLI's arguments: the permission prompt (the only route of an Edit through `openDiff`)
/// and a debug log to read the connection from.
pub fn arguments(debug_log: &Path) -> Vec<String> {
    arguments_in("default", debug_log)
}

/// [`arguments`] with another `--permission-mode` (`acceptEdits`: the CLI writes edits
/// itself, with no `openDiff`).
pub fn arguments_in(mode: &str, debug_log: &Path) -> Vec<String> {
    vec![
        "--permission-mode".to_owned(),
        mode.to_owned(),
        "--debug-file".to_owned(),
        debug_log.display().to_string(),
    ]
}
