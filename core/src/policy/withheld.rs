//! What the policy kept back, counted for the editor's status line and reported at most once a
//! second ([`REPORT_INTERVAL_MS`]): a burst of keystrokes in a denied file is one report.

use crate::engine::EngineEvent;
use crate::time::Timestamp;

/// The shortest gap between two [`EngineEvent::ContextWithheld`] reports, in milliseconds.
/// A status line needs no more, and a selection moving in a denied file withholds a push per
/// debounce (100 ms by default): one report per push would be one per keystroke.
pub const REPORT_INTERVAL_MS: u64 = 1_000;

/// The paths one report names; the rest are counted in its `morePaths`. A report goes to a
/// status line or a log, and a client flooding reads of many files would otherwise make each
/// report as large as its reads.
pub const MAX_REPORTED_PATHS: usize = 16;

/// The running totals and the paths withheld since the last report.
#[derive(Debug, Default)]
pub(crate) struct Withheld {
    pushes: u64,
    reads: u64,
    paths: Vec<String>,
    more_paths: u64,
    /// Something was withheld since the last report.
    unreported: bool,
    last_report: Option<Timestamp>,
}

impl Withheld {
    /// A push (`selection_changed`, `at_mentioned`) about `path` was withheld.
    pub(crate) fn push(&mut self, path: &str) {
        self.pushes += 1;
        self.note(path);
    }

    /// A read answer left out what it had about `path`.
    pub(crate) fn read(&mut self, path: &str) {
        self.reads += 1;
        self.note(path);
    }

    fn note(&mut self, path: &str) {
        self.unreported = true;
        if self.paths.iter().any(|p| p == path) {
            return;
        }
        if self.paths.len() < MAX_REPORTED_PATHS {
            self.paths.push(path.to_owned());
        } else {
            self.more_paths += 1;
        }
    }

    /// When the next report is due, if anything waits for one.
    pub(crate) fn next_report(&self) -> Option<Timestamp> {
        self.unreported.then(|| {
            self.last_report
                .map_or(Timestamp::ZERO, |at| at.add_millis(REPORT_INTERVAL_MS))
        })
    }

    /// The report due at `now`, if any: totals since the engine started, the paths since the
    /// last report.
    pub(crate) fn take_report(&mut self, now: Timestamp) -> Option<EngineEvent> {
        if self.next_report().is_none_or(|due| due > now) {
            return None;
        }
        self.unreported = false;
        self.last_report = Some(now);
        Some(EngineEvent::ContextWithheld {
            pushes: self.pushes,
            reads: self.reads,
            paths: std::mem::take(&mut self.paths),
            more_paths: std::mem::take(&mut self.more_paths),
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn reports_lead_then_trail_at_most_once_a_second() {
        let mut w = Withheld::default();
        assert_eq!(w.next_report(), None);
        w.push("/w/.env");
        let at = Timestamp::from_millis(5_000);
        let Some(EngineEvent::ContextWithheld { pushes, paths, .. }) = w.take_report(at) else {
            panic!("the first withholding is reported at once");
        };
        assert_eq!((pushes, paths), (1, vec!["/w/.env".to_owned()]));
        for _ in 0..50 {
            w.push("/w/.env");
        }
        w.read("/w/id_rsa");
        assert_eq!(w.next_report(), Some(at.add_millis(REPORT_INTERVAL_MS)));
        assert_eq!(w.take_report(at.add_millis(999)), None);
        let report = w.take_report(at.add_millis(1_000));
        assert_eq!(
            report,
            Some(EngineEvent::ContextWithheld {
                pushes: 51,
                reads: 1,
                paths: vec!["/w/.env".into(), "/w/id_rsa".into()],
                more_paths: 0,
            })
        );
        assert_eq!(w.next_report(), None);
    }

    #[test]
    fn paths_past_the_cap_are_counted() {
        let mut w = Withheld::default();
        for n in 0..MAX_REPORTED_PATHS + 3 {
            w.read(&format!("/w/{n}.key"));
        }
        let Some(EngineEvent::ContextWithheld {
            paths, more_paths, ..
        }) = w.take_report(Timestamp::ZERO)
        else {
            panic!("due");
        };
        assert_eq!((paths.len(), more_paths), (MAX_REPORTED_PATHS, 3));
    }
}
