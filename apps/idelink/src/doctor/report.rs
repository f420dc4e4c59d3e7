//! The doctor's findings and how they print: one line per finding with the fix under it, or
//! one JSON object (`--json`) for editors.

use super::environment::ClaudeBinary;
use super::locks::{FoundLock, LockDir};
use super::rules::folder_contains;
use crate::terminal::inert;
use anstyle::{AnsiColor, Style};
use serde::Serialize;

/// How much a finding matters.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum Level {
    /// Fine.
    Ok,
    /// Worth knowing; does not stop the connection.
    Info,
    /// May cause trouble; does not stop the connection by itself.
    Warn,
    /// Stops claude from connecting.
    Fail,
}

/// One check's result.
#[derive(Debug, Clone, Serialize)]
pub struct Finding {
    /// How much it matters.
    pub level: Level,
    /// What was checked.
    pub check: &'static str,
    /// What was found.
    pub message: String,
    /// What to do about it.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub fix: Option<String>,
}

impl Finding {
    /// A finding with its fix.
    pub fn new(level: Level, check: &'static str, message: String, fix: Option<&str>) -> Self {
        Finding {
            level,
            check,
            message,
            fix: fix.map(str::to_owned),
        }
    }

    /// A passed check.
    pub fn ok(check: &'static str, message: String) -> Self {
        Finding::new(Level::Ok, check, message, None)
    }
}

/// A lock as reported (never its token).
#[derive(Debug, Clone, Serialize)]
#[serde(rename_all = "camelCase")]
struct LockSummary {
    path: String,
    port: Option<u16>,
    ide_name: Option<String>,
    pid: Option<u32>,
    pid_alive: bool,
    workspace_folders: Vec<String>,
    contains_dir: bool,
    error: Option<String>,
}

/// Everything the doctor found.
#[derive(Debug, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct Report {
    dir: String,
    connects: bool,
    findings: Vec<Finding>,
    locks: Vec<LockSummary>,
}

impl Report {
    /// An empty report about `dir`.
    pub fn new(dir: &str) -> Self {
        Report {
            dir: dir.to_owned(),
            connects: false,
            findings: Vec::new(),
            locks: Vec::new(),
        }
    }

    /// Adds a finding.
    pub fn push(&mut self, finding: Finding) {
        self.findings.push(finding);
    }

    /// The lock directory's existence, owner and modes.
    pub fn lock_dir(&mut self, dir: &LockDir) {
        let shown = dir.path.display();
        if !dir.exists {
            self.push(Finding::new(
                Level::Info,
                "lock directory",
                format!("{shown} does not exist (no server has written a lock there)"),
                None,
            ));
            return;
        }
        if dir.problems.is_empty() {
            self.push(Finding::ok(
                "lock directory",
                format!("{shown}: {} lock(s)", dir.locks.len()),
            ));
        }
        for problem in &dir.problems {
            self.push(Finding::new(
                Level::Warn,
                "lock directory",
                format!("{shown}: {problem}"),
                None,
            ));
        }
    }

    /// One lock: its fields, whether it is live, whether it contains `dir`.
    pub fn lock(&mut self, lock: &FoundLock, dir: &str) {
        let shown = lock.path.display().to_string();
        let body = lock.body.as_ref().ok();
        let folders = body
            .map(|b| b.workspace_folders.clone())
            .unwrap_or_default();
        let contains_dir = folders.iter().any(|f| folder_contains(f, dir));
        self.locks.push(LockSummary {
            path: shown.clone(),
            port: lock.port,
            ide_name: body.map(|b| b.ide_name.clone()),
            pid: body.map(|b| b.pid),
            pid_alive: lock.pid_alive,
            workspace_folders: folders.clone(),
            contains_dir,
            error: lock.body.as_ref().err().cloned(),
        });
        let finding = match (&lock.body, lock.port) {
            (_, None) => Finding::new(
                Level::Warn,
                "lock",
                format!("{shown}: the name is not <port>.lock; claude ignores it"),
                Some("remove the file"),
            ),
            (Err(why), Some(_)) => Finding::new(
                Level::Warn,
                "lock",
                format!("{shown}: {why}; claude deletes it"),
                Some("remove the file, or fix the program that wrote it"),
            ),
            (Ok(body), Some(port)) if !lock.pid_alive => Finding::new(
                Level::Warn,
                "stale lock",
                format!(
                    "{shown}: port {port}, {}, pid {} is not alive; claude deletes it",
                    body.ide_name, body.pid
                ),
                Some("remove the file (the server that wrote it is gone)"),
            ),
            (Ok(body), Some(port)) => Finding::ok(
                "lock",
                format!(
                    "port {port}, {}, pid {} alive, folders [{}]{}",
                    body.ide_name,
                    body.pid,
                    folders.join(", "),
                    if contains_dir {
                        ", contains this folder"
                    } else {
                        ""
                    }
                ),
            ),
        };
        self.push(finding);
    }

    /// The `claude` `idelink claude` would run (or why there is none) and its version against
    /// the verified ones.
    pub fn claude(&mut self, binary: Result<ClaudeBinary, String>, verified: &[&str]) {
        let finding = match binary {
            Err(why) => Finding::new(
                Level::Warn,
                "claude",
                why,
                Some(
                    "install it (npm install -g @anthropic-ai/claude-code) or add its folder to PATH as an absolute path",
                ),
            ),
            Ok(ClaudeBinary {
                path,
                version: Err(why),
            }) => Finding::new(
                Level::Warn,
                "claude",
                format!("{}: {why}", path.display()),
                None,
            ),
            Ok(ClaudeBinary {
                path,
                version: Ok(v),
            }) if verified.contains(&v.as_str()) => {
                Finding::ok("claude", format!("{} {v} (verified)", path.display()))
            }
            Ok(ClaudeBinary {
                path,
                version: Ok(v),
            }) => Finding::new(
                Level::Warn,
                "claude",
                format!(
                    "{} {v}: not a verified version (verified: {})",
                    path.display(),
                    verified.join(", ")
                ),
                Some("it probably works; docs/compatibility.md says how to check a version"),
            ),
        };
        self.push(finding);
    }

    /// Records the verdict.
    pub fn set_verdict(&mut self, connects: bool) {
        self.connects = connects;
    }

    /// Whether claude would connect.
    pub fn connects(&self) -> bool {
        self.connects
    }

    /// The report as one JSON object.
    pub fn to_json(&self) -> String {
        serde_json::to_string_pretty(self).expect("strings, numbers and booleans serialize")
    }

    /// The report for a person: one line per finding, the fix indented under it, the verdict.
    /// The marks carry colour codes; print through `anstream`, which drops them where they do
    /// not belong (a pipe, `NO_COLOR`). Every message and fix is made inert first: they quote
    /// lock files and servers, which any local program may have written.
    pub fn to_text(&self) -> String {
        let mut out = format!("idelink doctor: {}\n", self.dir);
        for finding in &self.findings {
            let (mark, colour) = match finding.level {
                Level::Ok => ("ok  ", AnsiColor::Green),
                Level::Info => ("info", AnsiColor::Blue),
                Level::Warn => ("warn", AnsiColor::Yellow),
                Level::Fail => ("FAIL", AnsiColor::Red),
            };
            let style = Style::new().fg_color(Some(colour.into())).bold();
            out.push_str(&format!(
                "{style}{mark}{style:#} {}: {}\n",
                finding.check,
                inert::line(&finding.message, usize::MAX)
            ));
            if let Some(fix) = &finding.fix {
                out.push_str(&format!("       fix: {}\n", inert::line(fix, usize::MAX)));
            }
        }
        out.push_str(if self.connects {
            "verdict: claude --ide started here will connect\n"
        } else {
            "verdict: claude will NOT connect (see FAIL above)\n"
        });
        out
    }
}
