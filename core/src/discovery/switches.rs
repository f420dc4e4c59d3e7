//! How the CLI reads the environment variables that steer its choice of IDE, and which IDE
//! terminal it detects.

use serde::Serialize;

/// The CLI's reading of a yes/no variable (`CLAUDE_CODE_AUTO_CONNECT_IDE`): `1 true yes on`
/// → yes, `0 false no off` → no (trimmed, any case), anything else or unset → not given.
pub fn env_flag(value: Option<&str>) -> Option<bool> {
    let value = value?.trim();
    let is = |words: [&str; 4]| words.iter().any(|w| value.eq_ignore_ascii_case(w));
    if is(["1", "true", "yes", "on"]) {
        Some(true)
    } else if is(["0", "false", "no", "off"]) {
        Some(false)
    } else {
        None
    }
}

/// The port `CLAUDE_CODE_SSE_PORT` names, when it names one (trimmed decimal).
pub fn sse_port(value: Option<&str>) -> Option<u16> {
    value?.trim().parse().ok()
}

/// Whether `CLAUDE_CODE_IDE_SKIP_VALID_CHECK` is set: any non-empty value makes the CLI take
/// every lock as containing its cwd ([`choose_lock`](super::choose_lock)'s `every_lock_matches`).
pub fn skip_valid_check(value: Option<&str>) -> bool {
    value.is_some_and(|v| !v.is_empty())
}

/// The variables by which the CLI recognises an IDE's own terminal, as the caller read them.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct TerminalVars {
    /// `FORCE_CODE_TERMINAL`.
    pub force_code_terminal: Option<String>,
    /// `TERM_PROGRAM` (`vscode` in the VS Code family).
    pub term_program: Option<String>,
    /// `TERMINAL_EMULATOR` (`JetBrains-JediTerm` in JetBrains IDEs).
    pub terminal_emulator: Option<String>,
}

impl TerminalVars {
    /// The three variables, each looked up with `get` (e.g. `std::env::var(name).ok()`).
    pub fn read(get: impl Fn(&str) -> Option<String>) -> TerminalVars {
        TerminalVars {
            force_code_terminal: get("FORCE_CODE_TERMINAL"),
            term_program: get("TERM_PROGRAM"),
            terminal_emulator: get("TERMINAL_EMULATOR"),
        }
    }
}

/// An IDE terminal the CLI detects. Inside one it takes a lock found by folder only when the
/// lock's `pid` is its parent or an ancestor (a lock whose port is `CLAUDE_CODE_SSE_PORT` is
/// exempt). JSON form: `"forced"`, `"vscode"`, `"jetbrains"`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "lowercase")]
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
#[non_exhaustive]
pub enum IdeTerminal {
    /// `FORCE_CODE_TERMINAL` is set (non-empty).
    Forced,
    /// `TERM_PROGRAM=vscode`.
    VsCode,
    /// `TERMINAL_EMULATOR` names JetBrains.
    JetBrains,
}

impl IdeTerminal {
    /// A stable word for it: `forced`, `vscode`, `jetbrains`.
    pub fn as_str(self) -> &'static str {
        match self {
            IdeTerminal::Forced => "forced",
            IdeTerminal::VsCode => "vscode",
            IdeTerminal::JetBrains => "jetbrains",
        }
    }

    /// How to name it to a person: `FORCE_CODE_TERMINAL`, `a VS Code terminal`, ...
    pub fn words(self) -> &'static str {
        match self {
            IdeTerminal::Forced => "FORCE_CODE_TERMINAL",
            IdeTerminal::VsCode => "a VS Code terminal",
            IdeTerminal::JetBrains => "a JetBrains terminal",
        }
    }
}

/// What a JetBrains IDE's `TERMINAL_EMULATOR` contains (`JetBrains-JediTerm`). Searched by
/// windows of bytes: `str::contains` would link a substring searcher into the wasm module.
const JETBRAINS: &[u8] = b"JetBrains";

/// The IDE terminal the CLI would detect from `vars`, in its order of checks.
pub fn ide_terminal(vars: &TerminalVars) -> Option<IdeTerminal> {
    if vars
        .force_code_terminal
        .as_deref()
        .is_some_and(|v| !v.is_empty())
    {
        Some(IdeTerminal::Forced)
    } else if vars.term_program.as_deref() == Some("vscode") {
        Some(IdeTerminal::VsCode)
    } else if vars.terminal_emulator.as_deref().is_some_and(|v| {
        v.as_bytes()
            .windows(JETBRAINS.len())
            .any(|w| w == JETBRAINS)
    }) {
        Some(IdeTerminal::JetBrains)
    } else {
        None
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn flags_read_as_the_cli_reads_them() {
        for yes in ["1", "true", " YES ", "on"] {
            assert_eq!(env_flag(Some(yes)), Some(true), "{yes}");
        }
        for no in ["0", "False", "no", "OFF"] {
            assert_eq!(env_flag(Some(no)), Some(false), "{no}");
        }
        assert_eq!(env_flag(Some("maybe")), None);
        assert_eq!(env_flag(None), None);
        assert_eq!(sse_port(Some(" 4242")), Some(4242));
        assert_eq!(sse_port(Some("x")), None);
        assert_eq!(sse_port(Some("70000")), None);
        assert!(skip_valid_check(Some("1")) && !skip_valid_check(Some("")));
        assert!(!skip_valid_check(None));
    }

    #[test]
    fn ide_terminals_are_recognised_by_their_variables() {
        let vscode = |name: &str| (name == "TERM_PROGRAM").then(|| "vscode".to_owned());
        assert_eq!(
            ide_terminal(&TerminalVars::read(vscode)),
            Some(IdeTerminal::VsCode)
        );
        let jetbrains =
            |name: &str| (name == "TERMINAL_EMULATOR").then(|| "JetBrains-JediTerm".to_owned());
        assert_eq!(
            ide_terminal(&TerminalVars::read(jetbrains)),
            Some(IdeTerminal::JetBrains)
        );
        let forced = TerminalVars {
            force_code_terminal: Some("true".into()),
            term_program: Some("vscode".into()),
            ..TerminalVars::default()
        };
        assert_eq!(ide_terminal(&forced), Some(IdeTerminal::Forced));
        assert_eq!(ide_terminal(&TerminalVars::read(|_| None)), None);
        let empty = TerminalVars {
            force_code_terminal: Some(String::new()),
            ..TerminalVars::default()
        };
        assert_eq!(ide_terminal(&empty), None);
    }
}
