//! The claude CLI's own rules for choosing an IDE, as pure functions (read in the bundled code
//! of CLI 2.1.332): which lock contains a folder, when auto-connect is on, and
//! which lock it then picks. `idelink doctor` and `idelink claude` judge with these, so their
//! verdict is the CLI's.

use unicode_normalization::UnicodeNormalization;

/// A path as the CLI compares it: NFC, and a leading Windows drive letter upper-cased
/// (`c:/x` → `C:/x`). The CLI applies this to its cwd and to every workspace folder.
pub fn cli_path(path: &str) -> String {
    let nfc: String = path.nfc().collect();
    let mut chars = nfc.chars();
    match (chars.next(), chars.next()) {
        (Some(letter), Some(':')) if letter.is_ascii_alphabetic() => {
            format!("{}{}", letter.to_ascii_uppercase(), &nfc[1..])
        }
        _ => nfc,
    }
}

/// Whether `cwd` is `folder` or lies under it: a case-sensitive text prefix ending at a
/// separator, both sides through [`cli_path`]. `/a/bc` does not lie under `/a/b`.
///
/// The CLI resolves each folder with Node's `path.resolve`, which on Windows spells every `/`
/// as `\`, and its cwd there has backslashes; so on Windows both sides are compared with
/// backslashes (idelink writes `C:/x`, the CLI compares `C:\x`), elsewhere as they are.
pub fn folder_contains(folder: &str, cwd: &str) -> bool {
    let sep = if cfg!(windows) { '\\' } else { '/' };
    let spelled = |path: &str| cli_path(path).replace('/', &sep.to_string());
    let (folder, cwd) = (spelled(folder), spelled(cwd));
    if folder.is_empty() {
        return false;
    }
    if cwd == folder {
        return true;
    }
    let prefix = if folder.ends_with(sep) {
        folder
    } else {
        format!("{folder}{sep}")
    };
    cwd.starts_with(&prefix)
}

/// The CLI's reading of a yes/no variable: `1 true yes on` → yes, `0 false no off` → no
/// (trimmed, any case), anything else or unset → not given.
pub fn env_flag(value: Option<&str>) -> Option<bool> {
    let value = value?.trim().to_ascii_lowercase();
    match value.as_str() {
        "1" | "true" | "yes" | "on" => Some(true),
        "0" | "false" | "no" | "off" => Some(false),
        _ => None,
    }
}

/// The port `CLAUDE_CODE_SSE_PORT` names, when it names one.
pub fn sse_port(value: Option<&str>) -> Option<u16> {
    value?.trim().parse().ok()
}

/// What decides auto-connect, gathered by the caller from the environment and claude's config.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct ConnectFacts {
    /// `CLAUDE_CODE_AUTO_CONNECT_IDE`, raw.
    pub auto_connect_env: Option<String>,
    /// `CLAUDE_CODE_SSE_PORT`, raw.
    pub sse_port_env: Option<String>,
    /// `autoConnectIde` in claude's global config.
    pub auto_connect_config: bool,
    /// claude is started with `--ide` (as `idelink claude` and the README do).
    pub ide_flag: bool,
}

/// Whether the CLI looks for an IDE at start, and why.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum AutoConnect {
    /// Turned off by `CLAUDE_CODE_AUTO_CONNECT_IDE` set to a "no" value; `/ide` still works.
    Disabled,
    /// On, for the given reason.
    On(&'static str),
    /// Off because nothing asked for it: plain `claude` waits for `/ide`.
    NotRequested,
}

/// The CLI's decision (interactive mode): a "no" in `CLAUDE_CODE_AUTO_CONNECT_IDE` wins;
/// otherwise any of `autoConnectIde`, `--ide`, `CLAUDE_CODE_SSE_PORT` set, or a "yes" in
/// `CLAUDE_CODE_AUTO_CONNECT_IDE` turns it on.
pub fn auto_connect(facts: &ConnectFacts) -> AutoConnect {
    let flag = env_flag(facts.auto_connect_env.as_deref());
    if flag == Some(false) {
        AutoConnect::Disabled
    } else if facts.ide_flag {
        AutoConnect::On("claude --ide")
    } else if facts.sse_port_env.is_some() {
        AutoConnect::On("CLAUDE_CODE_SSE_PORT is set")
    } else if flag == Some(true) {
        AutoConnect::On("CLAUDE_CODE_AUTO_CONNECT_IDE is set")
    } else if facts.auto_connect_config {
        AutoConnect::On("autoConnectIde in claude's config")
    } else {
        AutoConnect::NotRequested
    }
}

/// The IDE terminal claude would detect from `get` (VS Code family, JetBrains, or
/// `FORCE_CODE_TERMINAL`), where it takes a lock found by folder only when the lock's `pid` is
/// its parent or an ancestor.
pub fn ide_terminal(get: &dyn Fn(&str) -> Option<String>) -> Option<&'static str> {
    if get("FORCE_CODE_TERMINAL").is_some_and(|v| !v.is_empty()) {
        Some("FORCE_CODE_TERMINAL")
    } else if get("TERM_PROGRAM").is_some_and(|v| v == "vscode") {
        Some("a VS Code terminal")
    } else if get("TERMINAL_EMULATOR").is_some_and(|v| v.contains("JetBrains")) {
        Some("a JetBrains terminal")
    } else {
        None
    }
}

/// A live lock, as far as choosing goes.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Candidate {
    /// The port from the lock's file name.
    pub port: u16,
    /// The lock's `workspaceFolders`.
    pub folders: Vec<String>,
}

/// The CLI's pick among live locks for `cwd`: a lock whose port is `CLAUDE_CODE_SSE_PORT`
/// matches whatever its folders; when exactly one lock has that port it alone is taken.
/// Otherwise the locks containing `cwd` are counted, and only exactly one connects.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Pick {
    /// This port is the one.
    One(u16),
    /// No lock matches.
    None,
    /// These ports all match: the CLI connects to none of them.
    Ambiguous(Vec<u16>),
}

/// Applies the rules of [`Pick`]. `every_lock_matches` is `CLAUDE_CODE_IDE_SKIP_VALID_CHECK`
/// set: the CLI then takes every lock as containing its cwd.
pub fn pick(
    candidates: &[Candidate],
    cwd: &str,
    sse_port: Option<u16>,
    every_lock_matches: bool,
) -> Pick {
    if let Some(port) = sse_port {
        let named: Vec<u16> = candidates
            .iter()
            .filter(|c| c.port == port)
            .map(|c| c.port)
            .collect();
        if named.len() == 1 {
            return Pick::One(port);
        }
    }
    let matching: Vec<u16> = candidates
        .iter()
        .filter(|c| {
            every_lock_matches
                || Some(c.port) == sse_port
                || c.folders.iter().any(|f| folder_contains(f, cwd))
        })
        .map(|c| c.port)
        .collect();
    match matching.as_slice() {
        [] => Pick::None,
        [port] => Pick::One(*port),
        _ => Pick::Ambiguous(matching),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn paths_compare_in_nfc_with_the_drive_letter_upper_cased() {
        assert_eq!(cli_path("/tmp/cafe\u{301}"), "/tmp/caf\u{e9}");
        assert_eq!(cli_path("c:/Users/x"), "C:/Users/x");
        assert_eq!(cli_path("/c:/x"), "/c:/x");
        assert!(folder_contains("/tmp/caf\u{e9}", "/tmp/cafe\u{301}/src"));
        assert!(folder_contains("c:/p", "C:/p"));
    }

    #[test]
    fn containment_is_a_prefix_ending_at_a_separator_and_case_sensitive() {
        assert!(folder_contains("/a/b", "/a/b"));
        assert!(folder_contains("/a/b", "/a/b/c/d"));
        assert!(folder_contains("/a/b/", "/a/b/c"));
        assert!(!folder_contains("/a/b", "/a/bc"));
        assert!(!folder_contains("/a/b", "/a"));
        assert!(!folder_contains("/A/b", "/a/b"));
        assert!(!folder_contains("", "/a"));
    }

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
    }

    #[test]
    fn ide_terminals_are_recognised_by_their_variables() {
        let vscode = |name: &str| (name == "TERM_PROGRAM").then(|| "vscode".to_owned());
        assert_eq!(ide_terminal(&vscode), Some("a VS Code terminal"));
        let jetbrains =
            |name: &str| (name == "TERMINAL_EMULATOR").then(|| "JetBrains-JediTerm".to_owned());
        assert_eq!(ide_terminal(&jetbrains), Some("a JetBrains terminal"));
        assert_eq!(ide_terminal(&|_: &str| None), None);
    }

    #[test]
    fn a_no_in_auto_connect_ide_wins_over_everything() {
        let facts = ConnectFacts {
            auto_connect_env: Some("false".into()),
            sse_port_env: Some("1".into()),
            auto_connect_config: true,
            ide_flag: true,
        };
        assert_eq!(auto_connect(&facts), AutoConnect::Disabled);
        let plain = ConnectFacts::default();
        assert_eq!(auto_connect(&plain), AutoConnect::NotRequested);
        let ide = ConnectFacts {
            ide_flag: true,
            ..plain.clone()
        };
        assert_eq!(auto_connect(&ide), AutoConnect::On("claude --ide"));
        let config = ConnectFacts {
            auto_connect_config: true,
            ..plain
        };
        assert!(matches!(auto_connect(&config), AutoConnect::On(_)));
    }

    fn lock(port: u16, folder: &str) -> Candidate {
        Candidate {
            port,
            folders: vec![folder.to_owned()],
        }
    }

    #[test]
    fn exactly_one_containing_lock_connects_and_two_connect_none() {
        let one = [lock(1, "/p"), lock(2, "/q")];
        assert_eq!(pick(&one, "/p/src", None, false), Pick::One(1));
        assert_eq!(pick(&one, "/r", None, false), Pick::None);
        assert_eq!(pick(&one, "/r", None, true), Pick::Ambiguous(vec![1, 2]));
        let two = [lock(1, "/p"), lock(2, "/")];
        assert_eq!(pick(&two, "/p", None, false), Pick::Ambiguous(vec![1, 2]));
    }

    #[test]
    fn the_sse_port_picks_its_lock_among_several_and_matches_any_folder() {
        let two = [lock(1, "/p"), lock(2, "/p")];
        assert_eq!(pick(&two, "/p", Some(2), false), Pick::One(2));
        let elsewhere = [lock(7, "/q")];
        assert_eq!(pick(&elsewhere, "/p", Some(7), false), Pick::One(7));
        assert_eq!(
            pick(&two, "/p", Some(9), false),
            Pick::Ambiguous(vec![1, 2])
        );
    }
}
