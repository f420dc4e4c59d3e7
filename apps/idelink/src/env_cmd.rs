//! `idelink env`: what a terminal exports so `claude` connects to a given port, or to the
//! server whose lock contains the current folder.

use crate::doctor::serving_port;
use crate::output::print_stdout;
use crate::workspace::{path_text, workspace_dir};
use clap::ValueEnum;
use idelink_core::terminal_env::TerminalEnv;
use std::error::Error;

/// `idelink env` options.
#[derive(Debug, clap::Args)]
pub struct EnvArgs {
    /// The port idelink (or your editor) listens on.
    pub port: Option<u16>,
    /// Print for this shell.
    #[arg(long, value_enum, default_value_t = Shell::Sh)]
    pub shell: Shell,
}

/// Shell syntax for `idelink env`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum Shell {
    /// POSIX sh, bash, zsh.
    Sh,
    /// fish.
    Fish,
    /// PowerShell.
    Powershell,
}

/// Prints the export lines for `args.port`, or for the server serving the current folder.
pub fn run(args: EnvArgs) -> Result<(), Box<dyn Error>> {
    let port = match args.port {
        Some(port) => port,
        None => serving_port(&path_text(&workspace_dir(None)?)?)?,
    };
    let shell = args.shell;
    let no_proxy = std::env::var("no_proxy").ok();
    let no_proxy_upper = std::env::var("NO_PROXY").ok();
    let vars = variables(port, no_proxy.as_deref(), no_proxy_upper.as_deref());
    print_stdout(render(shell, &vars).as_bytes())?;
    Ok(())
}

/// The variables, in order (core's [`TerminalEnv`]): the port (always matches,
/// docs/protocol.md §1), the flag editors traditionally export, and the proxy bypass lists, each extended with
/// loopback.
pub fn variables(
    port: u16,
    no_proxy: Option<&str>,
    no_proxy_upper: Option<&str>,
) -> Vec<(&'static str, String)> {
    TerminalEnv {
        no_proxy,
        no_proxy_upper,
        ..TerminalEnv::new(port)
    }
    .variables()
}

/// The export lines for `shell`, values quoted for it. A value is inherited (`no_proxy`), so
/// any text: each quoting keeps every character literal, newlines included.
pub fn render(shell: Shell, vars: &[(&str, String)]) -> String {
    vars.iter()
        .map(|(name, value)| match shell {
            Shell::Sh => format!("export {name}={}\n", sh_quoted(value)),
            Shell::Fish => format!("set -gx {name} {}\n", fish_quoted(value)),
            Shell::Powershell => format!("$env:{name} = {}\n", powershell_quoted(value)),
        })
        .collect()
}

/// POSIX sh (bash, zsh, dash): inside single quotes every character is literal and a single
/// quote cannot occur (POSIX.1-2017 XCU §2.2.2), so each `'` closes, is escaped, reopens.
pub(crate) fn sh_quoted(value: &str) -> String {
    format!("'{}'", value.replace('\'', r"'\''"))
}

/// fish: inside single quotes `\'` and `\\` are the only escapes (fish manual, "Quotes"), so
/// both the backslash and the quote are escaped, the backslash first.
fn fish_quoted(value: &str) -> String {
    format!("'{}'", value.replace('\\', r"\\").replace('\'', r"\'"))
}

/// PowerShell: a verbatim string is delimited by any of five single-quote characters, and one
/// is written inside it by doubling it (PowerShell Language Specification §2.3.5.2,
/// *single-quote-character*: U+0027, U+2018, U+2019, U+201A, U+201B).
fn powershell_quoted(value: &str) -> String {
    let mut quoted = String::with_capacity(value.len() + 2);
    quoted.push('\'');
    for c in value.chars() {
        if POWERSHELL_SINGLE_QUOTES.contains(&c) {
            quoted.push(c);
        }
        quoted.push(c);
    }
    quoted.push('\'');
    quoted
}

/// PowerShell's *single-quote-character*s (Language Specification §2.3.5.2).
const POWERSHELL_SINGLE_QUOTES: [char; 5] = ['\'', '\u{2018}', '\u{2019}', '\u{201A}', '\u{201B}'];

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn loopback_is_added_once_to_an_existing_bypass_list() {
        let vars = variables(4242, Some("corp.example, localhost"), None);
        assert_eq!(vars[0], ("CLAUDE_CODE_SSE_PORT", "4242".to_owned()));
        assert_eq!(vars[1], ("ENABLE_IDE_INTEGRATION", "true".to_owned()));
        let expected = "corp.example,localhost,127.0.0.1,::1";
        assert_eq!(vars[2], ("no_proxy", expected.to_owned()));
        assert_eq!(vars[3], ("NO_PROXY", expected.to_owned()));
    }

    #[test]
    fn each_shell_quotes_its_own_way() {
        let vars = [("X", "a'b".to_owned())];
        assert_eq!(render(Shell::Sh, &vars), "export X='a'\\''b'\n");
        assert_eq!(render(Shell::Fish, &vars), "set -gx X 'a\\'b'\n");
        assert_eq!(render(Shell::Powershell, &vars), "$env:X = 'a''b'\n");
        let vars = [("X", "a\\'b\u{2019}".to_owned())];
        assert_eq!(
            render(Shell::Fish, &vars),
            "set -gx X 'a\\\\\\'b\u{2019}'\n"
        );
        assert_eq!(
            render(Shell::Powershell, &vars),
            "$env:X = 'a\\''b\u{2019}\u{2019}'\n"
        );
    }
}
