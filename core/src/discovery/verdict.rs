//! The whole question an editor asks: "claude started in this folder, with this environment,
//! would connect to which server?", answered with every rule of this module at once.

use super::choice::{Candidate, LockChoice, choose_lock};
use super::connect::{AutoConnect, ConnectFacts, auto_connect};
use super::switches::{IdeTerminal, TerminalVars, ide_terminal, skip_valid_check, sse_port};
use crate::ide::PathStyle;
use serde::{Deserialize, Serialize};

/// The environment variables the CLI reads when it chooses an IDE, raw (`None`: unset). JSON
/// form: an object with the variables' own names, so `process.env` can be passed as it is
/// (other variables are ignored).
#[derive(Debug, Clone, Default, PartialEq, Eq, Deserialize)]
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
pub struct ClaudeEnv {
    /// `CLAUDE_CODE_AUTO_CONNECT_IDE`: a yes/no switch (`1 true yes on` / `0 false no off`).
    #[serde(rename = "CLAUDE_CODE_AUTO_CONNECT_IDE", default)]
    #[cfg_attr(feature = "ts", ts(as = "Option<_>", optional))]
    pub auto_connect_ide: Option<String>,
    /// `CLAUDE_CODE_SSE_PORT`: the port whose lock matches whatever its folders.
    #[serde(rename = "CLAUDE_CODE_SSE_PORT", default)]
    #[cfg_attr(feature = "ts", ts(as = "Option<_>", optional))]
    pub sse_port: Option<String>,
    /// `CLAUDE_CODE_IDE_SKIP_VALID_CHECK`: every lock matches.
    #[serde(rename = "CLAUDE_CODE_IDE_SKIP_VALID_CHECK", default)]
    #[cfg_attr(feature = "ts", ts(as = "Option<_>", optional))]
    pub ide_skip_valid_check: Option<String>,
    /// `FORCE_CODE_TERMINAL`.
    #[serde(rename = "FORCE_CODE_TERMINAL", default)]
    #[cfg_attr(feature = "ts", ts(as = "Option<_>", optional))]
    pub force_code_terminal: Option<String>,
    /// `TERM_PROGRAM`.
    #[serde(rename = "TERM_PROGRAM", default)]
    #[cfg_attr(feature = "ts", ts(as = "Option<_>", optional))]
    pub term_program: Option<String>,
    /// `TERMINAL_EMULATOR`.
    #[serde(rename = "TERMINAL_EMULATOR", default)]
    #[cfg_attr(feature = "ts", ts(as = "Option<_>", optional))]
    pub terminal_emulator: Option<String>,
}

impl ClaudeEnv {
    /// The variables' names, in the order of the fields.
    pub const NAMES: [&'static str; 6] = [
        "CLAUDE_CODE_AUTO_CONNECT_IDE",
        "CLAUDE_CODE_SSE_PORT",
        "CLAUDE_CODE_IDE_SKIP_VALID_CHECK",
        "FORCE_CODE_TERMINAL",
        "TERM_PROGRAM",
        "TERMINAL_EMULATOR",
    ];

    /// Each variable looked up with `get` (e.g. `std::env::var(name).ok()`).
    pub fn read(get: impl Fn(&str) -> Option<String>) -> ClaudeEnv {
        let [a, b, c, d, e, f] = ClaudeEnv::NAMES.map(get);
        ClaudeEnv {
            auto_connect_ide: a,
            sse_port: b,
            ide_skip_valid_check: c,
            force_code_terminal: d,
            term_program: e,
            terminal_emulator: f,
        }
    }
}

/// How claude is started, as the editor knows it. JSON form (the wasm, Node and C faces):
/// `{"cwd":"/p/src","pathStyle":"posix","locks":[{"port":4242,"workspaceFolders":["/p"]}],
/// "env":{"CLAUDE_CODE_SSE_PORT":"4242"},"autoConnectConfig":false,"ideFlag":true}`; only
/// `cwd` and `locks` are required. Every path in NFC: the Node, wasm and C bindings normalize
/// it; a Rust caller normalizes first.
#[derive(Debug, Clone, PartialEq, Eq, Deserialize)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
pub struct ClaudeStart {
    /// The folder claude starts in.
    pub cwd: String,
    /// How the machine claude runs on spells paths (default POSIX).
    #[serde(default)]
    #[cfg_attr(feature = "ts", ts(as = "Option<_>", optional))]
    pub path_style: PathStyle,
    /// The live locks (their pid alive), as the lock folders hold them.
    pub locks: Vec<Candidate>,
    /// The environment claude starts with.
    #[serde(default)]
    #[cfg_attr(feature = "ts", ts(as = "Option<_>", optional))]
    pub env: ClaudeEnv,
    /// `autoConnectIde` in claude's global config (`~/.claude.json`).
    #[serde(default)]
    #[cfg_attr(feature = "ts", ts(as = "Option<_>", optional))]
    pub auto_connect_config: bool,
    /// claude is started with `--ide` (as `idelink claude` does).
    #[serde(default)]
    #[cfg_attr(feature = "ts", ts(as = "Option<_>", optional))]
    pub ide_flag: bool,
}

/// What the CLI would do. JSON form: `{"autoConnect":{"state":"on","reason":"ideFlag"},
/// "choice":{"kind":"one","port":4242},"ideTerminal":null,"ancestorRule":false,
/// "connectsTo":4242}`.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[serde(rename_all = "camelCase")]
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
pub struct Verdict {
    /// Whether it looks for an IDE at start.
    pub auto_connect: AutoConnect,
    /// The lock it takes.
    pub choice: LockChoice,
    /// The IDE terminal it detects.
    pub ide_terminal: Option<IdeTerminal>,
    /// In that IDE terminal, with no `CLAUDE_CODE_SSE_PORT`: the chosen lock is taken only
    /// when its `pid` is claude's parent or an ancestor (the editor's own terminal).
    pub ancestor_rule: bool,
    /// The port it connects to at start: auto-connect on and exactly one lock chosen (subject
    /// to [`ancestor_rule`](Self::ancestor_rule)); `None` otherwise (`/ide` may still connect
    /// by hand).
    pub connects_to: Option<u16>,
}

/// The CLI's whole decision for `start`.
pub fn discover(start: &ClaudeStart) -> Verdict {
    let env = &start.env;
    let auto = auto_connect(&ConnectFacts {
        auto_connect_env: env.auto_connect_ide.clone(),
        sse_port_env: env.sse_port.clone(),
        auto_connect_config: start.auto_connect_config,
        ide_flag: start.ide_flag,
    });
    let port = sse_port(env.sse_port.as_deref());
    let choice = choose_lock(
        &start.locks,
        &start.cwd,
        port,
        skip_valid_check(env.ide_skip_valid_check.as_deref()),
        start.path_style,
    );
    let terminal = ide_terminal(&TerminalVars {
        force_code_terminal: env.force_code_terminal.clone(),
        term_program: env.term_program.clone(),
        terminal_emulator: env.terminal_emulator.clone(),
    });
    let connects_to = match (auto, &choice) {
        (AutoConnect::On { .. }, LockChoice::One { port }) => Some(*port),
        _ => None,
    };
    Verdict {
        auto_connect: auto,
        ancestor_rule: terminal.is_some() && port.is_none() && connects_to.is_some(),
        choice,
        ide_terminal: terminal,
        connects_to,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::discovery::AutoConnectReason;

    fn start(json: &str) -> ClaudeStart {
        serde_json::from_str(json).unwrap_or_else(|e| panic!("{e}: {json}"))
    }

    #[test]
    fn claude_ide_in_a_served_folder_connects_to_its_lock() {
        let verdict = discover(&start(
            r#"{"cwd":"/p/src","locks":[{"port":4242,"workspaceFolders":["/p"]},
                {"port":4243,"workspaceFolders":["/q"]}],"ideFlag":true,
                "env":{"HOME":"/h","TERM_PROGRAM":"xterm"}}"#,
        ));
        assert_eq!(
            verdict,
            Verdict {
                auto_connect: AutoConnect::On {
                    reason: AutoConnectReason::IdeFlag
                },
                choice: LockChoice::One { port: 4242 },
                ide_terminal: None,
                ancestor_rule: false,
                connects_to: Some(4242),
            }
        );
        assert_eq!(
            serde_json::to_string(&verdict).unwrap_or_default(),
            r#"{"autoConnect":{"state":"on","reason":"ideFlag"},"choice":{"kind":"one","port":4242},"ideTerminal":null,"ancestorRule":false,"connectsTo":4242}"#
        );
    }

    #[test]
    fn plain_claude_or_a_no_connects_to_nothing_at_start() {
        let locks = r#""locks":[{"port":1,"workspaceFolders":["/p"]}]"#;
        let plain = discover(&start(&format!(r#"{{"cwd":"/p",{locks}}}"#)));
        assert_eq!(plain.auto_connect, AutoConnect::NotRequested);
        assert_eq!(
            (plain.choice, plain.connects_to),
            (LockChoice::One { port: 1 }, None)
        );
        let no = discover(&start(&format!(
            r#"{{"cwd":"/p",{locks},"ideFlag":true,"env":{{"CLAUDE_CODE_AUTO_CONNECT_IDE":"0"}}}}"#
        )));
        assert_eq!(
            (no.auto_connect, no.connects_to),
            (AutoConnect::Disabled, None)
        );
    }

    #[test]
    fn two_servers_on_one_folder_connect_none_unless_the_port_is_named() {
        let locks = r#""locks":[{"port":1,"workspaceFolders":["/p"]},{"port":2,"workspaceFolders":["/p"]}]"#;
        let both = discover(&start(&format!(r#"{{"cwd":"/p",{locks},"ideFlag":true}}"#)));
        assert_eq!(
            serde_json::to_string(&both.choice).unwrap_or_default(),
            r#"{"kind":"ambiguous","ports":[1,2]}"#
        );
        assert_eq!(both.connects_to, None);
        let named = discover(&start(&format!(
            r#"{{"cwd":"/elsewhere",{locks},"env":{{"CLAUDE_CODE_SSE_PORT":"2","TERM_PROGRAM":"vscode"}}}}"#
        )));
        assert_eq!(named.connects_to, Some(2));
        assert_eq!(named.ide_terminal, Some(IdeTerminal::VsCode));
        assert!(!named.ancestor_rule, "a named port lifts the ancestor rule");
    }

    #[test]
    fn an_ide_terminal_without_a_named_port_needs_the_lock_owner_as_an_ancestor() {
        let verdict = discover(&start(
            r#"{"cwd":"C:\\w\\src","pathStyle":"windows","ideFlag":true,
                "locks":[{"port":7,"workspaceFolders":["C:/w"]}],
                "env":{"TERMINAL_EMULATOR":"JetBrains-JediTerm"}}"#,
        ));
        assert_eq!(verdict.connects_to, Some(7));
        assert_eq!(verdict.ide_terminal, Some(IdeTerminal::JetBrains));
        assert!(verdict.ancestor_rule);
    }

    #[test]
    fn the_environment_is_read_by_name() {
        let env = ClaudeEnv::read(|name| (name == "CLAUDE_CODE_SSE_PORT").then(|| "9".into()));
        assert_eq!(env.sse_port.as_deref(), Some("9"));
        assert_eq!(env.term_program, None);
        let err = serde_json::from_str::<ClaudeStart>(r#"{"cwd":"/p","locks":[],"lockz":1}"#);
        assert!(err.is_err_and(|e| e.to_string().contains("unknown field `lockz`")));
    }
}
