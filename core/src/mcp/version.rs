//! Protocol version negotiation.

/// The MCP protocol versions this server speaks, newest first.
///
/// Every one of them is also accepted by the Claude Code CLI 2.1.332 (which adds 2024-10-07),
/// so whichever [`negotiate_version`] picks, the CLI stays connected.
pub const SUPPORTED_PROTOCOL_VERSIONS: &[&str] =
    &["2025-11-25", "2025-06-18", "2025-03-26", "2024-11-05"];

/// The newest version, answered when the client asks for one we do not speak.
const NEWEST: &str = "2025-11-25";

/// The version to answer `initialize` with: `requested` when it is supported, else the newest.
pub fn negotiate_version(requested: &str) -> &'static str {
    // MCP 2025-11-25 lifecycle, version negotiation: if the server supports the requested
    // version, it MUST respond with the same version; otherwise it MUST respond with another
    // version it supports, which SHOULD be the latest.
    SUPPORTED_PROTOCOL_VERSIONS
        .iter()
        .find(|&&supported| supported == requested)
        .copied()
        .unwrap_or(NEWEST)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn newest_is_first() {
        assert_eq!(SUPPORTED_PROTOCOL_VERSIONS.first(), Some(&NEWEST));
    }

    #[test]
    fn supported_versions_are_echoed() {
        for &version in SUPPORTED_PROTOCOL_VERSIONS {
            assert_eq!(negotiate_version(version), version);
        }
    }

    #[test]
    fn others_get_the_newest() {
        for requested in ["2024-10-07", "2099-01-01", "", "2025-11-25 ", "latest"] {
            assert_eq!(negotiate_version(requested), "2025-11-25", "{requested:?}");
        }
    }
}
