//! What each CLI version shows and does on its own, in one place. The protocol checks are the
//! same for every version; only the CLI's own words and file writing differ between
//! releases. Each difference below was seen in a run (docs/compatibility.md) and pinned to the
//! first release that has it, in the CLI's bundled code or by running the releases around it.
//! idelink behaves the same for every version.

/// A CLI version as three numbers, e.g. `(2, 1, 332)`.
pub type Version = (u32, u32, u32);

/// The first release that numbers a selection's lines from 1 in the model's context:
/// `lineStart: start.line + 1`. Up to 2.1.179 the CLI put the wire's 0-based line there.
const ONE_BASED_SELECTION_LINES: Version = (2, 1, 181);

/// The first release that shows a rejected edit as `Rejected update to <file>`; up to 2.1.328
/// it said `User rejected update to <file>`.
const SHORT_REJECTION: Version = (2, 1, 329);

/// The first release that keeps the final newline of a file it creates through an accepted
/// `openDiff`; up to 2.1.328 the file ends without it, whatever the IDE answered (runs of
/// the create test: 2.1.328 drops it, 2.1.329 keeps it).
const KEEPS_FINAL_NEWLINE: Version = (2, 1, 329);

/// The first release that writes an accepted `openDiff`'s text with today's rules: a
/// byte-order mark the answer lost is put back (its bundle has
/// `P.charCodeAt(0)===65279?$Gt(D,N[1].text):N[1].text`, 2.1.328's `B[1].text`), and the final
/// newline is written as answered (2.1.316 wrote a final `\r\n` the answer did not have: the
/// replaced test).
const WRITES_AS_ANSWERED: Version = (2, 1, 329);
/// The first release that closes its IDE connection on a WebSocket message over 16 MiB (its
/// bundled code: `MCP server sent a WebSocket message over ${EMe/1024/1024} MiB. Claude Code did
/// not read it and closed the connection.`, in 2.1.295 and not in 2.1.294). 2.1.286 and 2.1.257
/// read a 17 MiB answer; 2.1.112 runs on Node's `ws` package, whose cap is 100 MiB.
const CLOSES_OVER_16_MIB: Version = (2, 1, 295);

/// The per-version expectations the tests read.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Expectations {
    /// How the CLI words, in the model's context, a selection on the file's first line (line
    /// 0 on the wire): `lines 1 to 1`, or `lines 0 to 0` before 2.1.181.
    pub first_line_selection: &'static str,
    /// What the CLI's screen shows before the file name once the IDE rejected an edit:
    /// `Rejected update to`, or `User rejected update to` before 2.1.329.
    pub rejected_update: &'static str,
    /// Whether a file the CLI creates through an accepted `openDiff` keeps the final newline
    /// of the text idelink answered.
    pub created_file_keeps_final_newline: bool,
    /// Whether the CLI puts back a byte-order mark the accepted text lost and writes its final
    /// newline as answered (2.1.329 on); before, no mark is put back and the file keeps the
    /// final newline it had.
    pub writes_accept_as_answered: bool,
    /// Whether the CLI closes its IDE connection on a message over 16 MiB (from 2.1.295);
    /// before, it reads a 17 MiB one.
    pub closes_over_16_mib: bool,
}

impl Expectations {
    /// The expectations for `version` as `claude --version` prints it.
    pub fn for_version(version: &str) -> Expectations {
        let version = parse(version);
        Expectations {
            first_line_selection: if version >= ONE_BASED_SELECTION_LINES {
                "lines 1 to 1"
            } else {
                "lines 0 to 0"
            },
            rejected_update: if version >= SHORT_REJECTION {
                "Rejected update to"
            } else {
                "User rejected update to"
            },
            created_file_keeps_final_newline: version >= KEEPS_FINAL_NEWLINE,
            writes_accept_as_answered: version >= WRITES_AS_ANSWERED,
            closes_over_16_mib: version >= CLOSES_OVER_16_MIB,
        }
    }

    /// What the CLI writes for a new file when the IDE accepts `text`.
    pub fn created_file(&self, text: &str) -> String {
        if self.created_file_keeps_final_newline {
            text.to_owned()
        } else {
            text.strip_suffix('\n').unwrap_or(text).to_owned()
        }
    }
}

/// `2.1.332` → `(2, 1, 332)`; a part that is not a number counts as the newest possible, so
/// an unreadable version gets the newest expectations.
pub fn parse(version: &str) -> Version {
    let mut parts = version
        .split(['.', '-'])
        .map(|part| part.parse::<u32>().unwrap_or(u32::MAX));
    let mut next = || parts.next().unwrap_or(0);
    (next(), next(), next())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn each_version_gets_the_words_seen_on_it() {
        let pinned = Expectations::for_version("2.1.332");
        assert_eq!(pinned.first_line_selection, "lines 1 to 1");
        assert_eq!(pinned.rejected_update, "Rejected update to");
        let between = Expectations::for_version("2.1.257");
        assert_eq!(between.first_line_selection, "lines 1 to 1");
        assert_eq!(between.rejected_update, "User rejected update to");
        for old in ["2.1.179", "2.1.160", "2.1.112"] {
            let old = Expectations::for_version(old);
            assert_eq!(old.first_line_selection, "lines 0 to 0");
            assert_eq!(old.rejected_update, "User rejected update to");
        }
        assert_eq!(
            Expectations::for_version("2.1.181").first_line_selection,
            "lines 1 to 1"
        );
        assert_eq!(
            Expectations::for_version("2.1.328").rejected_update,
            "User rejected update to"
        );
        assert_eq!(
            Expectations::for_version("2.1.329").rejected_update,
            "Rejected update to"
        );
        assert_eq!(pinned.created_file("a\n"), "a\n");
        assert_eq!(between.created_file("a\n"), "a");
        assert!(!Expectations::for_version("2.1.328").created_file_keeps_final_newline);
        assert!(Expectations::for_version("2.1.329").created_file_keeps_final_newline);
        assert!(!Expectations::for_version("2.1.328").writes_accept_as_answered);
        assert!(Expectations::for_version("2.1.329").writes_accept_as_answered);
        assert!(!Expectations::for_version("2.1.294").closes_over_16_mib);
        assert!(Expectations::for_version("2.1.295").closes_over_16_mib);
        assert!(!Expectations::for_version("2.1.112").closes_over_16_mib);
    }

    #[test]
    fn versions_compare_as_numbers() {
        assert_eq!(parse("2.1.332"), (2, 1, 332));
        assert!(parse("2.1.99") < parse("2.1.181"));
        assert!(parse("10.0.0") > parse("2.1.332"));
        assert_eq!(parse("unknown"), (u32::MAX, 0, 0));
    }
}
