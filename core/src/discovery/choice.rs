//! Which live lock the CLI connects to.

use super::paths::folder_contains;
use crate::ide::PathStyle;
use serde::{Deserialize, Serialize};

/// A live lock (its pid alive, its body read), as far as choosing goes. JSON form:
/// `{"port":4242,"workspaceFolders":["/p"]}`.
#[derive(Debug, Clone, PartialEq, Eq, Deserialize)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
pub struct Candidate {
    /// The port from the lock's file name.
    pub port: u16,
    /// The lock's `workspaceFolders`, in NFC.
    pub workspace_folders: Vec<String>,
}

/// The CLI's choice among live locks for a cwd: a lock whose port is `CLAUDE_CODE_SSE_PORT`
/// matches whatever its folders; when exactly one lock has that port it alone is taken.
/// Otherwise the locks containing the cwd are counted, and only exactly one connects. JSON
/// form: `{"kind":"one","port":4242}`, `{"kind":"none"}`, `{"kind":"ambiguous","ports":[1,2]}`.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[serde(tag = "kind", rename_all = "camelCase")]
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
pub enum LockChoice {
    /// This lock is the one.
    One {
        /// Its port.
        port: u16,
    },
    /// No lock matches.
    None,
    /// These locks all match: the CLI connects to none of them.
    Ambiguous {
        /// Their ports, in the candidates' order.
        ports: Vec<u16>,
    },
}

/// Applies the rules of [`LockChoice`] to `candidates` for `cwd` (NFC, as every path here:
/// see the [module docs](super)), on a machine whose paths are spelled in `style`. `sse_port`
/// is [`sse_port`](super::sse_port)'s reading of `CLAUDE_CODE_SSE_PORT`; `every_lock_matches`
/// is [`skip_valid_check`](super::skip_valid_check).
pub fn choose_lock(
    candidates: &[Candidate],
    cwd: &str,
    sse_port: Option<u16>,
    every_lock_matches: bool,
    style: PathStyle,
) -> LockChoice {
    if let Some(port) = sse_port
        && candidates.iter().filter(|c| c.port == port).count() == 1
    {
        return LockChoice::One { port };
    }
    let matching: Vec<u16> = candidates
        .iter()
        .filter(|c| {
            every_lock_matches
                || Some(c.port) == sse_port
                || c.workspace_folders
                    .iter()
                    .any(|f| folder_contains(f, cwd, style))
        })
        .map(|c| c.port)
        .collect();
    match matching.as_slice() {
        [] => LockChoice::None,
        [port] => LockChoice::One { port: *port },
        _ => LockChoice::Ambiguous { ports: matching },
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn lock(port: u16, folder: &str) -> Candidate {
        Candidate {
            port,
            workspace_folders: vec![folder.to_owned()],
        }
    }

    const POSIX: PathStyle = PathStyle::Posix;

    #[test]
    fn exactly_one_containing_lock_connects_and_two_connect_none() {
        let one = [lock(1, "/p"), lock(2, "/q")];
        assert_eq!(
            choose_lock(&one, "/p/src", None, false, POSIX),
            LockChoice::One { port: 1 }
        );
        assert_eq!(
            choose_lock(&one, "/r", None, false, POSIX),
            LockChoice::None
        );
        assert_eq!(
            choose_lock(&one, "/r", None, true, POSIX),
            LockChoice::Ambiguous { ports: vec![1, 2] }
        );
        let two = [lock(1, "/p"), lock(2, "/")];
        assert_eq!(
            choose_lock(&two, "/p", None, false, POSIX),
            LockChoice::Ambiguous { ports: vec![1, 2] }
        );
    }

    #[test]
    fn the_sse_port_picks_its_lock_among_several_and_matches_any_folder() {
        let two = [lock(1, "/p"), lock(2, "/p")];
        assert_eq!(
            choose_lock(&two, "/p", Some(2), false, POSIX),
            LockChoice::One { port: 2 }
        );
        let elsewhere = [lock(7, "/q")];
        assert_eq!(
            choose_lock(&elsewhere, "/p", Some(7), false, POSIX),
            LockChoice::One { port: 7 }
        );
        assert_eq!(
            choose_lock(&two, "/p", Some(9), false, POSIX),
            LockChoice::Ambiguous { ports: vec![1, 2] }
        );
    }

    #[test]
    fn folders_are_matched_in_the_style_of_the_clis_machine() {
        let windows = [lock(1, "C:/w")];
        assert_eq!(
            choose_lock(&windows, r"C:\w\src", None, false, PathStyle::Windows),
            LockChoice::One { port: 1 }
        );
        assert_eq!(
            choose_lock(&windows, r"C:\w\src", None, false, POSIX),
            LockChoice::None
        );
    }
}
