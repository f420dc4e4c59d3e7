//! What in the environment claude inherits from this shell makes it run without ever
//! connecting by itself, or give up on a diff shown in the editor: a background session,
//! bare mode, a short `MCP_TOOL_TIMEOUT`. Each rule is the CLI's own (2.1.332, its bundled
//! code; docs/protocol.md §9).

use super::report::{Finding, Level};
use idelink_core::discovery::env_flag;

/// `MCP_TOOL_TIMEOUT` below this many milliseconds warns: every IDE call has the limit, an
/// `openDiff` that waits for the user included, and a person reading a diff takes longer.
pub const MIN_TOOL_TIMEOUT_MS: u64 = 60_000;

/// The CLI's floor for `MCP_TOOL_TIMEOUT` (it takes `max(value, 1000)`).
const CLI_TOOL_TIMEOUT_FLOOR_MS: u64 = 1_000;

/// What these rules found, and whether one of them keeps claude from connecting by itself.
#[derive(Debug, Default)]
pub struct SessionFindings {
    /// In reading order.
    pub findings: Vec<Finding>,
    /// A plain `claude`, `idelink claude` or `claude --ide` started here does not connect.
    pub blocks_auto_connect: bool,
}

/// Judges the variables `get` reads (the doctor's own environment, which a `claude` started
/// from this shell inherits).
pub fn examine(get: &dyn Fn(&str) -> Option<String>) -> SessionFindings {
    let mut out = SessionFindings::default();
    // `function Yt(){return Rz()==="bg"}` (`Rz` reads CLAUDE_CODE_SESSION_KIND), and the
    // auto-connect effect starts `if(Yt()&&!ro){return}`: a background session never looks.
    if get("CLAUDE_CODE_SESSION_KIND").is_some_and(|kind| kind == "bg") {
        out.blocks_auto_connect = true;
        out.findings.push(Finding::new(
            Level::Fail,
            "session kind",
            "CLAUDE_CODE_SESSION_KIND=bg: this is a background session's environment (`claude \
             --bg`), and a background session never connects to an IDE by itself"
                .to_owned(),
            Some("run claude in a terminal with `idelink claude`; in a background session, connect by hand with /ide"),
        ));
    }
    // `function er(){return De(process.env.CLAUDE_CODE_SIMPLE)||ZQt("--bare")}` and
    // `AGt(e){…if(er())return e;…}`: in bare mode only an explicit `--ide` connects.
    if env_flag(get("CLAUDE_CODE_SIMPLE").as_deref()) == Some(true) {
        out.findings.push(Finding::new(
            Level::Warn,
            "bare mode",
            "CLAUDE_CODE_SIMPLE is set: claude runs bare (as with --bare), where \
             CLAUDE_CODE_SSE_PORT, autoConnectIde and an IDE terminal connect nothing; only \
             `claude --ide` does"
                .to_owned(),
            Some("unset CLAUDE_CODE_SIMPLE (and leave out --bare), or start claude with --ide"),
        ));
    }
    if let Some(finding) = tool_timeout(get("MCP_TOOL_TIMEOUT").as_deref()) {
        out.findings.push(finding);
    }
    out
}

/// `function Ti(e){let n=…??s.MCP_TOOL_TIMEOUT??Sh;return Math.min(Math.max(n,1000),Lu)}`:
/// the limit of every MCP call, the IDE's `openDiff` included (the default `Sh` is 1e8 ms).
fn tool_timeout(value: Option<&str>) -> Option<Finding> {
    let value = value?.trim();
    let Ok(ms) = value.parse::<u64>() else {
        return Some(Finding::new(
            Level::Info,
            "tool timeout",
            format!(
                "MCP_TOOL_TIMEOUT={value:?} is not a number of milliseconds: claude ignores it"
            ),
            None,
        ));
    };
    if ms >= MIN_TOOL_TIMEOUT_MS {
        return None;
    }
    let effective = ms.max(CLI_TOOL_TIMEOUT_FLOOR_MS);
    Some(Finding::new(
        Level::Warn,
        "tool timeout",
        format!(
            "MCP_TOOL_TIMEOUT={ms}: claude gives up on a diff shown in the editor after {} s, \
             closes it and asks in the terminal instead",
            effective.div_ceil(1_000)
        ),
        Some("unset MCP_TOOL_TIMEOUT, or set it to 60000 or more"),
    ))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn examine_with(vars: &[(&str, &str)]) -> SessionFindings {
        let vars: Vec<(String, String)> = vars
            .iter()
            .map(|(k, v)| ((*k).to_owned(), (*v).to_owned()))
            .collect();
        examine(&|name| {
            vars.iter()
                .find(|(key, _)| key == name)
                .map(|(_, value)| value.clone())
        })
    }

    fn checks(found: &SessionFindings) -> Vec<(&'static str, Level)> {
        found.findings.iter().map(|f| (f.check, f.level)).collect()
    }

    #[test]
    fn a_plain_environment_finds_nothing() {
        let found = examine_with(&[("MCP_TOOL_TIMEOUT", "60000"), ("CLAUDE_CODE_SIMPLE", "0")]);
        assert!(found.findings.is_empty(), "{:?}", found.findings);
        assert!(!found.blocks_auto_connect);
    }

    #[test]
    fn a_background_session_blocks_and_bare_mode_warns() {
        let found = examine_with(&[
            ("CLAUDE_CODE_SESSION_KIND", "bg"),
            ("CLAUDE_CODE_SIMPLE", "Yes"),
        ]);
        assert_eq!(
            checks(&found),
            [("session kind", Level::Fail), ("bare mode", Level::Warn)]
        );
        assert!(found.blocks_auto_connect);
        let daemon = examine_with(&[("CLAUDE_CODE_SESSION_KIND", "daemon")]);
        assert!(daemon.findings.is_empty(), "only `bg` skips the IDE");
    }

    #[test]
    fn a_tool_timeout_below_a_minute_warns_with_the_seconds_claude_waits() {
        let found = examine_with(&[("MCP_TOOL_TIMEOUT", "30000")]);
        assert_eq!(checks(&found), [("tool timeout", Level::Warn)]);
        assert!(
            found.findings[0].message.contains("after 30 s"),
            "{:?}",
            found.findings
        );
        let floor = examine_with(&[("MCP_TOOL_TIMEOUT", "10")]);
        assert!(
            floor.findings[0].message.contains("after 1 s"),
            "{:?}",
            floor.findings
        );
        let junk = examine_with(&[("MCP_TOOL_TIMEOUT", "soon")]);
        assert_eq!(checks(&junk), [("tool timeout", Level::Info)]);
        assert!(!junk.blocks_auto_connect);
    }
}
