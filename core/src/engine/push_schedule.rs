//! When notifications go out: the `selection_changed` debounce and the `at_mentioned` queue.

use crate::ide::AtMentioned;
use crate::time::Timestamp;
use std::collections::VecDeque;

/// When the engine's own messages go out. Pure bookkeeping: the engine decides who receives
/// what.
#[derive(Default)]
pub(crate) struct PushSchedule {
    /// Trailing edge of the selection debounce: send when this comes.
    selection_due: Option<Timestamp>,
    /// Mentions made while no client was ready, with their expiry, oldest first.
    mentions: VecDeque<(Timestamp, AtMentioned)>,
}

impl PushSchedule {
    /// The selection or active document changed: (re)start the debounce, so a burst of moves
    /// sends one notification `debounce_ms` after the last.
    pub(crate) fn selection_changed(&mut self, now: Timestamp, debounce_ms: u64) {
        self.selection_due = Some(now.add_millis(debounce_ms));
    }

    /// True once when the debounce has run out at `now`.
    pub(crate) fn selection_due(&mut self, now: Timestamp) -> bool {
        let due = self.selection_due.is_some_and(|at| at <= now);
        if due {
            self.selection_due = None;
        }
        due
    }

    /// Keeps a mention until `expires` for the next client that becomes ready; with `max`
    /// already queued, the oldest is dropped first (none is kept when `max` is 0).
    pub(crate) fn queue_mention(&mut self, expires: Timestamp, mention: AtMentioned, max: usize) {
        while self.mentions.len() >= max.max(1) {
            self.mentions.pop_front();
        }
        if max > 0 {
            self.mentions.push_back((expires, mention));
        }
    }

    /// Drops mentions that expired at `now`.
    pub(crate) fn expire_mentions(&mut self, now: Timestamp) {
        self.mentions.retain(|(expires, _)| *expires > now);
    }

    /// Hands over every queued mention, oldest first.
    pub(crate) fn take_mentions(&mut self) -> Vec<AtMentioned> {
        self.mentions
            .drain(..)
            .map(|(_, mention)| mention)
            .collect()
    }

    pub(crate) fn next_deadline(&self) -> Option<Timestamp> {
        let expiry = self.mentions.iter().map(|(expires, _)| *expires).min();
        self.selection_due.into_iter().chain(expiry).min()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn at(ms: u64) -> Timestamp {
        Timestamp::from_millis(ms)
    }

    #[test]
    fn debounce_fires_once_after_the_last_change() {
        let mut n = PushSchedule::default();
        n.selection_changed(at(0), 100);
        n.selection_changed(at(80), 100);
        assert_eq!(n.next_deadline(), Some(at(180)));
        assert!(!n.selection_due(at(179)));
        assert!(n.selection_due(at(180)));
        assert!(!n.selection_due(at(500)));
        assert_eq!(n.next_deadline(), None);
    }
}
