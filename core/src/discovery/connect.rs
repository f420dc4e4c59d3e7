//! Whether the CLI looks for an IDE when it starts (interactive mode), and why.

use super::switches::env_flag;
use serde::Serialize;

/// What decides auto-connect, gathered by the caller from the environment and claude's config.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct ConnectFacts {
    /// `CLAUDE_CODE_AUTO_CONNECT_IDE`, raw.
    pub auto_connect_env: Option<String>,
    /// `CLAUDE_CODE_SSE_PORT`, raw.
    pub sse_port_env: Option<String>,
    /// `autoConnectIde` in claude's global config (`~/.claude.json`).
    pub auto_connect_config: bool,
    /// claude is started with `--ide` (as `idelink claude` and the README do).
    pub ide_flag: bool,
}

/// Why auto-connect is on. JSON form: `"ideFlag"`, `"ssePort"`, `"autoConnectEnv"`,
/// `"autoConnectConfig"`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "camelCase")]
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
#[non_exhaustive]
pub enum AutoConnectReason {
    /// claude was started with `--ide`.
    IdeFlag,
    /// `CLAUDE_CODE_SSE_PORT` is set.
    SsePort,
    /// `CLAUDE_CODE_AUTO_CONNECT_IDE` says yes.
    AutoConnectEnv,
    /// `autoConnectIde` is on in claude's config.
    AutoConnectConfig,
}

impl AutoConnectReason {
    /// A stable word for it: `ideFlag`, `ssePort`, `autoConnectEnv`, `autoConnectConfig`.
    pub fn as_str(self) -> &'static str {
        match self {
            AutoConnectReason::IdeFlag => "ideFlag",
            AutoConnectReason::SsePort => "ssePort",
            AutoConnectReason::AutoConnectEnv => "autoConnectEnv",
            AutoConnectReason::AutoConnectConfig => "autoConnectConfig",
        }
    }

    /// How to say it to a person: `claude --ide`, `CLAUDE_CODE_SSE_PORT is set`, ...
    pub fn words(self) -> &'static str {
        match self {
            AutoConnectReason::IdeFlag => "claude --ide",
            AutoConnectReason::SsePort => "CLAUDE_CODE_SSE_PORT is set",
            AutoConnectReason::AutoConnectEnv => "CLAUDE_CODE_AUTO_CONNECT_IDE is set",
            AutoConnectReason::AutoConnectConfig => "autoConnectIde in claude's config",
        }
    }
}

/// Whether the CLI looks for an IDE at start. JSON form: `{"state":"disabled"}`,
/// `{"state":"on","reason":"ideFlag"}`, `{"state":"notRequested"}`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(tag = "state", rename_all = "camelCase")]
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
pub enum AutoConnect {
    /// Turned off by `CLAUDE_CODE_AUTO_CONNECT_IDE` set to a "no" value; `/ide` still works.
    Disabled,
    /// On.
    On {
        /// The first reason that applies, in the CLI's order.
        reason: AutoConnectReason,
    },
    /// Off because nothing asked for it: plain `claude` waits for `/ide`.
    NotRequested,
}

/// The CLI's decision (interactive mode): a "no" in `CLAUDE_CODE_AUTO_CONNECT_IDE` wins;
/// otherwise any of `--ide`, `CLAUDE_CODE_SSE_PORT` set, a "yes" in
/// `CLAUDE_CODE_AUTO_CONNECT_IDE` or `autoConnectIde` turns it on.
pub fn auto_connect(facts: &ConnectFacts) -> AutoConnect {
    let flag = env_flag(facts.auto_connect_env.as_deref());
    let reason = if flag == Some(false) {
        return AutoConnect::Disabled;
    } else if facts.ide_flag {
        AutoConnectReason::IdeFlag
    } else if facts.sse_port_env.is_some() {
        AutoConnectReason::SsePort
    } else if flag == Some(true) {
        AutoConnectReason::AutoConnectEnv
    } else if facts.auto_connect_config {
        AutoConnectReason::AutoConnectConfig
    } else {
        return AutoConnect::NotRequested;
    };
    AutoConnect::On { reason }
}

#[cfg(test)]
mod tests {
    use super::*;

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
        assert_eq!(
            auto_connect(&ide),
            AutoConnect::On {
                reason: AutoConnectReason::IdeFlag
            }
        );
        let config = ConnectFacts {
            auto_connect_config: true,
            ..plain
        };
        assert_eq!(
            auto_connect(&config),
            AutoConnect::On {
                reason: AutoConnectReason::AutoConnectConfig
            }
        );
    }

    #[test]
    fn the_first_reason_in_the_clis_order_is_given() {
        let port_and_yes = ConnectFacts {
            auto_connect_env: Some("yes".into()),
            sse_port_env: Some("4242".into()),
            ..ConnectFacts::default()
        };
        assert_eq!(
            auto_connect(&port_and_yes),
            AutoConnect::On {
                reason: AutoConnectReason::SsePort
            }
        );
        let yes = ConnectFacts {
            auto_connect_env: Some("1".into()),
            ..ConnectFacts::default()
        };
        let AutoConnect::On { reason } = auto_connect(&yes) else {
            panic!("a yes turns it on");
        };
        assert_eq!(
            (reason.as_str(), reason.words()),
            ("autoConnectEnv", "CLAUDE_CODE_AUTO_CONNECT_IDE is set")
        );
    }
}
