//! The claude CLI's discovery rules ([`idelink_core::discovery`]) as `idelink doctor`, `idelink
//! claude` and `idelink env` call them on this machine: every path in NFC first (core's
//! contract: it compares text as given, the CLI normalizes), in this OS's path style.

use idelink_core::discovery::{self, Candidate, LockChoice};
use idelink_core::ide::PathStyle;
use unicode_normalization::UnicodeNormalization;

/// The path style of the machine claude runs on: this one's.
const STYLE: PathStyle = if cfg!(windows) {
    PathStyle::Windows
} else {
    PathStyle::Posix
};

/// `path` in Unicode normalization form C, as the CLI compares it.
fn nfc(path: &str) -> String {
    path.nfc().collect()
}

/// A live lock as core's rules take it, its folders in NFC.
pub fn candidate(port: u16, folders: &[String]) -> Candidate {
    Candidate {
        port,
        workspace_folders: folders.iter().map(|f| nfc(f)).collect(),
    }
}

/// [`discovery::folder_contains`] on this machine.
pub fn folder_contains(folder: &str, cwd: &str) -> bool {
    discovery::folder_contains(&nfc(folder), &nfc(cwd), STYLE)
}

/// [`discovery::choose_lock`] on this machine, for candidates made by [`candidate`].
pub fn choose_lock(
    candidates: &[Candidate],
    cwd: &str,
    sse_port: Option<u16>,
    every_lock_matches: bool,
) -> LockChoice {
    discovery::choose_lock(candidates, &nfc(cwd), sse_port, every_lock_matches, STYLE)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn paths_are_compared_in_nfc() {
        assert!(folder_contains("/tmp/caf\u{e9}", "/tmp/cafe\u{301}/src"));
        assert!(folder_contains("/tmp/cafe\u{301}", "/tmp/caf\u{e9}"));
        let locks = [candidate(1, &["/tmp/cafe\u{301}".to_owned()])];
        assert_eq!(
            choose_lock(&locks, "/tmp/caf\u{e9}/x", None, false),
            LockChoice::One { port: 1 }
        );
    }
}
