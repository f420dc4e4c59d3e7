//! The environment a terminal needs so that the `claude` started in it connects to the editor
//! serving on a given port: one pure function every embedder calls when it opens a terminal
//! (the `idelink env` command prints the same variables).
//!
//! What each variable does in the CLI 2.1.332 (read from its bundled code):
//! - `CLAUDE_CODE_SSE_PORT`: a lock file whose port equals it always matches, whatever the
//!   CLI's working directory; setting it also turns auto-connect on.
//! - `ENABLE_IDE_INTEGRATION=true`: what editors have traditionally exported; 2.1.332 does not
//!   read it, older CLIs and guides do, so it is exported anyway.
//! - `no_proxy` / `NO_PROXY`: the CLI connects to `ws://127.0.0.1:<port>`; a proxy configured
//!   for the machine would otherwise get that connection. Loopback names are added to what the
//!   terminal inherits, never in place of it.
//! - `FORCE_CODE_TERMINAL` (opt-in, [`TerminalEnv::force_code_terminal`]): makes the CLI treat
//!   its terminal as an IDE's own terminal, as it does inside VS Code or JetBrains. It then
//!   auto-connects (as `--ide` does), and **ignores every lock whose port is not
//!   `CLAUDE_CODE_SSE_PORT` unless that lock's `pid` is the CLI's parent or one of its
//!   ancestors** (not under WSL), so another editor open on the same folder cannot capture the
//!   session; it also hides the "auto-connect to IDE (external terminal)" setting and names an
//!   editor whose lock has no `ideName` after the terminal. The CLI removes the variable (and
//!   `CLAUDE_CODE_SSE_PORT`) from the environment of the commands it runs itself. Export it
//!   only from a terminal the editor itself started (the editor is then an ancestor).

/// The loopback names added to the proxy bypass lists: the CLI connects to `127.0.0.1`; the
/// other two cover tools that resolve `localhost` or use IPv6.
pub const LOOPBACK_NAMES: [&str; 3] = ["127.0.0.1", "localhost", "::1"];

/// What the terminal's environment must hold for `claude` to connect to `port`.
///
/// ```
/// use idelink_core::terminal_env::TerminalEnv;
///
/// let mut env = TerminalEnv::new(4242);
/// env.no_proxy = Some("corp.example");
/// let vars = env.variables();
/// assert_eq!(vars[0], ("CLAUDE_CODE_SSE_PORT", "4242".to_owned()));
/// assert_eq!(vars[2], ("no_proxy", "corp.example,127.0.0.1,localhost,::1".to_owned()));
/// ```
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct TerminalEnv<'a> {
    /// The port the editor serves on.
    pub port: u16,
    /// The `no_proxy` value the terminal would inherit (`None`: unset).
    pub no_proxy: Option<&'a str>,
    /// The `NO_PROXY` value the terminal would inherit (`None`: unset).
    pub no_proxy_upper: Option<&'a str>,
    /// Also export `FORCE_CODE_TERMINAL=true` (see the module docs for what it changes).
    /// Default false.
    pub force_code_terminal: bool,
}

impl<'a> TerminalEnv<'a> {
    /// The environment for `port`, with nothing inherited and `FORCE_CODE_TERMINAL` off.
    pub const fn new(port: u16) -> Self {
        TerminalEnv {
            port,
            no_proxy: None,
            no_proxy_upper: None,
            force_code_terminal: false,
        }
    }

    /// The variables to set, in this order: `CLAUDE_CODE_SSE_PORT`, `ENABLE_IDE_INTEGRATION`,
    /// `no_proxy`, `NO_PROXY`, then `FORCE_CODE_TERMINAL` when asked for.
    ///
    /// Each bypass list keeps its own inherited entries (trimmed, empty ones dropped) and gains
    /// the [`LOOPBACK_NAMES`] it lacks. When only one of the two is inherited, both start from
    /// it: tools differ in which spelling they read, and each must keep bypassing what it did.
    pub fn variables(&self) -> Vec<(&'static str, String)> {
        let lower = self.no_proxy.or(self.no_proxy_upper);
        let upper = self.no_proxy_upper.or(self.no_proxy);
        let mut vars = vec![
            ("CLAUDE_CODE_SSE_PORT", self.port.to_string()),
            ("ENABLE_IDE_INTEGRATION", "true".to_owned()),
            ("no_proxy", with_loopback(lower)),
            ("NO_PROXY", with_loopback(upper)),
        ];
        if self.force_code_terminal {
            vars.push(("FORCE_CODE_TERMINAL", "true".to_owned()));
        }
        vars
    }
}

/// `inherited`'s entries, then each loopback name it lacks, comma-separated.
fn with_loopback(inherited: Option<&str>) -> String {
    let mut entries: Vec<&str> = inherited
        .unwrap_or("")
        .split(',')
        .map(str::trim)
        .filter(|entry| !entry.is_empty())
        .collect();
    for name in LOOPBACK_NAMES {
        if !entries.contains(&name) {
            entries.push(name);
        }
    }
    // Joined by hand: `[&str]::join` is some 500 bytes of the wasm module for this one list.
    let mut joined = String::new();
    for entry in entries {
        if !joined.is_empty() {
            joined.push(',');
        }
        joined.push_str(entry);
    }
    joined
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn nothing_inherited_gives_the_port_the_flag_and_loopback() {
        assert_eq!(
            TerminalEnv::new(4242).variables(),
            [
                ("CLAUDE_CODE_SSE_PORT", "4242".to_owned()),
                ("ENABLE_IDE_INTEGRATION", "true".to_owned()),
                ("no_proxy", "127.0.0.1,localhost,::1".to_owned()),
                ("NO_PROXY", "127.0.0.1,localhost,::1".to_owned()),
            ]
        );
    }

    #[test]
    fn inherited_entries_are_kept_and_loopback_is_added_once() {
        let env = TerminalEnv {
            no_proxy: Some(" corp.example, localhost,,"),
            no_proxy_upper: Some("*.internal,::1"),
            ..TerminalEnv::new(1)
        };
        let vars = env.variables();
        assert_eq!(
            vars[2].1, "corp.example,localhost,127.0.0.1,::1",
            "lower case keeps its own entries"
        );
        assert_eq!(vars[3].1, "*.internal,::1,127.0.0.1,localhost");
    }

    #[test]
    fn one_inherited_spelling_seeds_both() {
        for (lower, upper) in [(Some("a.example"), None), (None, Some("a.example"))] {
            let env = TerminalEnv {
                no_proxy: lower,
                no_proxy_upper: upper,
                ..TerminalEnv::new(1)
            };
            let vars = env.variables();
            assert_eq!(vars[2].1, "a.example,127.0.0.1,localhost,::1");
            assert_eq!(vars[3].1, vars[2].1);
        }
    }

    #[test]
    fn force_code_terminal_is_opt_in_and_last() {
        assert!(
            !TerminalEnv::new(1)
                .variables()
                .iter()
                .any(|(name, _)| *name == "FORCE_CODE_TERMINAL")
        );
        let env = TerminalEnv {
            force_code_terminal: true,
            ..TerminalEnv::new(1)
        };
        assert_eq!(
            env.variables().last(),
            Some(&("FORCE_CODE_TERMINAL", "true".to_owned()))
        );
    }
}
