//! `idelink env`: what a terminal exports so `claude` connects to a given port, or to the
//! server whose lock contains the current folder.

use crate::args::Shell;
use crate::workspace::{path_text, workspace_dir};
use std::error::Error;

/// Prints the export lines for `port`, or for the server serving the current folder.
pub fn run(port: Option<u16>, shell: Shell) -> Result<(), Box<dyn Error>> {
    let port = match port {
        Some(port) => port,
        None => crate::claude_cmd::serving_port(&path_text(&workspace_dir(None)?)?)?,
    };
    let no_proxy = std::env::var("no_proxy")
        .or_else(|_| std::env::var("NO_PROXY"))
        .ok();
    crate::print_stdout(render(shell, &variables(port, no_proxy.as_deref())).as_bytes())?;
    Ok(())
}

/// Loopback names a proxy must never see: the CLI connects to 127.0.0.1, and a proxy
/// configured for the machine would otherwise swallow the connection.
const LOOPBACK: [&str; 3] = ["127.0.0.1", "localhost", "::1"];

/// The variables, in order: the port (always matches, docs/protocol.md §1), the flag editors
/// traditionally export, and the proxy bypass lists extended with loopback.
pub fn variables(port: u16, no_proxy: Option<&str>) -> Vec<(&'static str, String)> {
    let mut bypass: Vec<String> = no_proxy
        .unwrap_or("")
        .split(',')
        .map(str::trim)
        .filter(|s| !s.is_empty())
        .map(str::to_owned)
        .collect();
    for name in LOOPBACK {
        if !bypass.iter().any(|b| b == name) {
            bypass.push(name.to_owned());
        }
    }
    let bypass = bypass.join(",");
    vec![
        ("CLAUDE_CODE_SSE_PORT", port.to_string()),
        ("ENABLE_IDE_INTEGRATION", "true".to_owned()),
        ("no_proxy", bypass.clone()),
        ("NO_PROXY", bypass),
    ]
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
        let vars = variables(4242, Some("corp.example, localhost"));
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
