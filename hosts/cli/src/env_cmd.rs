//! `idelink env`: what a terminal exports so `claude` connects to a given port, or to the
//! server whose lock contains the current folder.

use crate::args::Shell;
use crate::workspace::{path_text, workspace_dir};
use idelink_core::terminal_env::TerminalEnv;
use std::error::Error;

/// Prints the export lines for `port`, or for the server serving the current folder.
pub fn run(port: Option<u16>, shell: Shell) -> Result<(), Box<dyn Error>> {
    let port = match port {
        Some(port) => port,
        None => crate::claude_cmd::serving_port(&path_text(&workspace_dir(None)?)?)?,
    };
    let no_proxy = std::env::var("no_proxy").ok();
    let no_proxy_upper = std::env::var("NO_PROXY").ok();
    let vars = variables(port, no_proxy.as_deref(), no_proxy_upper.as_deref());
    crate::print_stdout(render(shell, &vars).as_bytes())?;
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

/// The export lines for `shell`, values quoted for it.
pub fn render(shell: Shell, vars: &[(&str, String)]) -> String {
    vars.iter()
        .map(|(name, value)| match shell {
            Shell::Sh => format!("export {name}='{}'\n", value.replace('\'', r"'\''")),
            Shell::Fish => format!("set -gx {name} '{}'\n", value.replace('\'', r"\'")),
            Shell::Powershell => format!("$env:{name} = '{}'\n", value.replace('\'', "''")),
        })
        .collect()
}

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
    }
}
