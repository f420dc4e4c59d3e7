//! The connection's timers: a keepalive ping after receive silence, half-open detection when
//! that ping gets no answer, and the wait for the peer's close after ours.

use super::config::WsConfig;
use crate::time::Timestamp;

/// What [`Timers::handle_timeout`] found due.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum TimerAction {
    /// Nothing is due yet.
    Nothing,
    /// Send a keepalive ping now (already recorded as sent).
    SendPing,
    /// The keepalive ping got no byte back in time: the connection is half-open.
    KeepaliveTimeout,
    /// Our close frame got no close back in time.
    CloseTimeout,
}

/// Deadlines on the host-supplied clock. At most one runs at a time: the close wait once a
/// close frame was sent, else the keepalive timeout while a ping is unanswered, else the next
/// keepalive ping.
#[derive(Debug, Clone)]
pub(crate) struct Timers {
    keepalive_interval_ms: u64,
    keepalive_timeout_ms: u64,
    close_timeout_ms: u64,
    /// The latest time handed in; earlier times are treated as this one.
    clock: Timestamp,
    last_receive: Timestamp,
    ping_sent_at: Option<Timestamp>,
    close_sent_at: Option<Timestamp>,
}

impl Timers {
    /// Timers for a connection opened at `now`.
    pub(crate) fn new(config: &WsConfig, now: Timestamp) -> Self {
        Timers {
            keepalive_interval_ms: config.keepalive_interval_ms,
            keepalive_timeout_ms: config.keepalive_timeout_ms,
            close_timeout_ms: config.close_timeout_ms,
            clock: now,
            last_receive: now,
            ping_sent_at: None,
            close_sent_at: None,
        }
    }

    /// Moves the clock to `now`, never backwards.
    pub(crate) fn advance(&mut self, now: Timestamp) {
        self.clock = self.clock.max(now);
    }

    /// Bytes arrived from the peer: proof of life, answering any outstanding ping.
    pub(crate) fn received(&mut self) {
        self.last_receive = self.clock;
        self.ping_sent_at = None;
    }

    /// We sent a close frame: keepalive stops, the close wait starts.
    pub(crate) fn close_sent(&mut self) {
        self.close_sent_at = Some(self.clock);
        self.ping_sent_at = None;
    }

    /// True once a close frame was sent.
    pub(crate) fn is_closing(&self) -> bool {
        self.close_sent_at.is_some()
    }

    /// The next deadline, or None when keepalive is off and no close frame was sent.
    pub(crate) fn poll_timeout(&self) -> Option<Timestamp> {
        if let Some(sent) = self.close_sent_at {
            Some(sent.add_millis(self.close_timeout_ms))
        } else if let Some(sent) = self.ping_sent_at {
            Some(sent.add_millis(self.keepalive_timeout_ms))
        } else if self.keepalive_interval_ms > 0 {
            Some(self.last_receive.add_millis(self.keepalive_interval_ms))
        } else {
            None
        }
    }

    /// What is due at the current clock; a ping reported due is recorded as sent.
    pub(crate) fn handle_timeout(&mut self) -> TimerAction {
        let Some(deadline) = self.poll_timeout() else {
            return TimerAction::Nothing;
        };
        if self.clock < deadline {
            TimerAction::Nothing
        } else if self.close_sent_at.is_some() {
            TimerAction::CloseTimeout
        } else if self.ping_sent_at.is_some() {
            TimerAction::KeepaliveTimeout
        } else {
            self.ping_sent_at = Some(self.clock);
            TimerAction::SendPing
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn timers(interval: u64) -> Timers {
        let config = WsConfig {
            keepalive_interval_ms: interval,
            keepalive_timeout_ms: 10,
            close_timeout_ms: 5,
            ..WsConfig::default()
        };
        Timers::new(&config, Timestamp::from_millis(100))
    }

    fn at(timers: &mut Timers, ms: u64) -> TimerAction {
        timers.advance(Timestamp::from_millis(ms));
        timers.handle_timeout()
    }

    #[test]
    fn ping_then_keepalive_timeout() {
        let mut t = timers(30);
        assert_eq!(t.poll_timeout(), Some(Timestamp::from_millis(130)));
        assert_eq!(at(&mut t, 129), TimerAction::Nothing);
        assert_eq!(at(&mut t, 130), TimerAction::SendPing);
        assert_eq!(t.poll_timeout(), Some(Timestamp::from_millis(140)));
        assert_eq!(at(&mut t, 139), TimerAction::Nothing);
        assert_eq!(at(&mut t, 140), TimerAction::KeepaliveTimeout);
    }

    #[test]
    fn receiving_answers_the_ping_and_restarts_the_interval() {
        let mut t = timers(30);
        assert_eq!(at(&mut t, 130), TimerAction::SendPing);
        t.advance(Timestamp::from_millis(135));
        t.received();
        assert_eq!(t.poll_timeout(), Some(Timestamp::from_millis(165)));
        assert_eq!(at(&mut t, 150), TimerAction::Nothing);
    }

    #[test]
    fn close_wait_replaces_keepalive() {
        let mut t = timers(30);
        assert_eq!(at(&mut t, 130), TimerAction::SendPing);
        t.close_sent();
        assert!(t.is_closing());
        assert_eq!(t.poll_timeout(), Some(Timestamp::from_millis(135)));
        assert_eq!(at(&mut t, 134), TimerAction::Nothing);
        assert_eq!(at(&mut t, 135), TimerAction::CloseTimeout);
    }

    #[test]
    fn interval_zero_disables_keepalive_and_time_never_goes_back() {
        let mut t = timers(0);
        assert_eq!(t.poll_timeout(), None);
        assert_eq!(at(&mut t, u64::MAX), TimerAction::Nothing);
        let mut t = timers(30);
        assert_eq!(at(&mut t, 130), TimerAction::SendPing);
        assert_eq!(at(&mut t, 0), TimerAction::Nothing);
        assert_eq!(at(&mut t, 1), TimerAction::Nothing);
        assert_eq!(t.poll_timeout(), Some(Timestamp::from_millis(140)));
    }
}
