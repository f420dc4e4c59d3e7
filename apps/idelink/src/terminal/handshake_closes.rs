//! Connections closed before they authenticated, reported in aggregate.
//!
//! Any local process can connect to serve's port and hang up (or send a wrong token) as fast
//! as it likes; one status line each would scroll the diff under review out of sight and
//! bury its question. Such closes are counted instead, and one line per
//! [`INTERVAL`] says how many there were and the last one's reason. Sessions (connections
//! that passed the upgrade with the token) keep their own lines.

use std::time::{Duration, Instant};

/// How long handshake-stage closes are counted before one line reports them.
pub const INTERVAL: Duration = Duration::from_secs(5);

/// The closes counted in the current interval.
#[derive(Debug, Default)]
pub struct HandshakeCloses {
    /// When the first close of this interval was counted; None while nothing is counted.
    since: Option<Instant>,
    count: u64,
    /// The last close's reason (peer-influenced text: the screen makes it inert).
    last: String,
}

impl HandshakeCloses {
    /// Counts one close at `now` (the loop's clock), for `reason`.
    pub fn count(&mut self, now: Instant, reason: String) {
        self.since.get_or_insert(now);
        self.count += 1;
        self.last = reason;
    }

    /// When [`due`](Self::due) has a line to give: the loop's poll must wake by then.
    pub fn next_due(&self) -> Option<Instant> {
        self.since.map(|since| since + INTERVAL)
    }

    /// The line for the interval that ended by `now`, if one did; counting starts afresh.
    pub fn due(&mut self, now: Instant) -> Option<String> {
        if self.next_due()? > now {
            return None;
        }
        Some(self.take())
    }

    /// The line for what is counted so far (at shutdown), if anything is.
    pub fn flush(&mut self) -> Option<String> {
        self.since?;
        Some(self.take())
    }

    fn take(&mut self) -> String {
        self.since = None;
        let count = std::mem::take(&mut self.count);
        let last = std::mem::take(&mut self.last);
        let what = if count == 1 {
            "1 connection".to_owned()
        } else {
            format!("{count} connections")
        };
        format!(
            "{what} closed before authenticating in the last {} s (the last: {last})",
            INTERVAL.as_secs()
        )
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn closes_are_counted_and_reported_once_per_interval() {
        let start = Instant::now();
        let mut closes = HandshakeCloses::default();
        assert_eq!(closes.next_due(), None);
        assert_eq!(closes.due(start + INTERVAL * 10), None);
        closes.count(start, "the client hung up".into());
        for i in 1..3000 {
            closes.count(
                start + Duration::from_millis(i),
                "upgrade refused with 401".into(),
            );
        }
        assert_eq!(closes.next_due(), Some(start + INTERVAL));
        assert_eq!(
            closes.due(start + INTERVAL - Duration::from_millis(1)),
            None
        );
        assert_eq!(
            closes.due(start + INTERVAL).as_deref(),
            Some(
                "3000 connections closed before authenticating in the last 5 s \
                 (the last: upgrade refused with 401)"
            )
        );
        assert_eq!(closes.next_due(), None);
        let later = start + INTERVAL * 3;
        closes.count(later, "the client hung up".into());
        assert_eq!(closes.next_due(), Some(later + INTERVAL));
        assert_eq!(
            closes.flush().as_deref(),
            Some(
                "1 connection closed before authenticating in the last 5 s \
                 (the last: the client hung up)"
            )
        );
        assert_eq!(closes.flush(), None);
    }
}
