//! When notifications go out: the `selection_changed` debounce, the `at_mentioned` queue, and
//! each client's start-up pushes ([`StartupPushes`]).

use crate::ide::AtMentioned;
use crate::time::Timestamp;
use std::collections::VecDeque;

/// The gap before the first repeat of the selection after a client became ready; each later
/// gap doubles (0.5, 1, 2, 4, 8 s), so a default window of 16 s holds five repeats. Half a
/// second: the CLI received a push sent 500 ms after `notifications/initialized` on an idle
/// machine (docs/protocol.md §5), and a loaded one needs the later repeats.
pub(crate) const RESEND_FIRST_GAP_MS: u64 = 500;

/// A mention held for a client that just became ready goes out this many times the CLI's own
/// connect pace (from its `initialize` to its `tools/list`) after its `tools/list`, and never
/// sooner than [`MENTION_HOLD_MIN_MS`] after it. The CLI registers its `at_mentioned` handler
/// in the UI render that follows its connected IDE client, the next step of the same start-up,
/// which a loaded machine slows as it slows the connect steps before it.
pub(crate) const MENTION_PACE_FACTOR: u64 = 4;

/// The least time from `tools/list` to a held mention. Measured with 2.1.332, four CLIs
/// starting at once on two cores at load 20–35: the CLI's IDE client was processed by its UI
/// (its debug log's `Channel notifications skipped`) 0.5–0.9 s after `tools/list`, and a
/// mention sent 0.5–1 s after `tools/list` was lost in 3 of 20 sessions.
pub(crate) const MENTION_HOLD_MIN_MS: u64 = 1_500;

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

    /// Hands over every queued mention with its expiry, oldest first.
    pub(crate) fn take_queued(&mut self) -> Vec<(Timestamp, AtMentioned)> {
        std::mem::take(&mut self.mentions).into_iter().collect()
    }

    /// Hands over the queued mentions `take` picks, oldest first; the rest stay queued.
    pub(crate) fn take_mentions(
        &mut self,
        take: impl Fn(&AtMentioned) -> bool,
    ) -> Vec<AtMentioned> {
        let mut taken = Vec::new();
        self.mentions.retain(|(_, mention)| {
            let picked = take(mention);
            if picked {
                taken.push(mention.clone());
            }
            !picked
        });
        taken
    }

    pub(crate) fn next_deadline(&self) -> Option<Timestamp> {
        let expiry = self.mentions.iter().map(|(expires, _)| *expires).min();
        self.selection_due.into_iter().chain(expiry).min()
    }
}

/// A client's pushes in its first seconds, which a CLI that starts slowly would lose.
///
/// The CLI registers its `selection_changed` and `at_mentioned` handlers in React effects that
/// run once its UI has rendered the connected IDE client (the CLI's bundled code:
/// `Ate(oe,mZt(),…)` for `selection_changed`, `Ate(R,ds(),…)` for `at_mentioned`, both on
/// `kQ(clients)`, the client `type==="connected"&&name==="ide"`); before that its MCP client
/// has no handler for the method, and the SDK drops the notification. The CLI sends nothing
/// when it has registered them. So:
/// - the selection is sent again on a doubling schedule (from [`RESEND_FIRST_GAP_MS`]) for
///   the window after the client became ready. A repeat is harmless: the handler overwrites
///   one state (`offerIdeSelection`), and a selection the user dismissed stays dismissed (the
///   CLI compares it with the dismissed one). The repeats stop at the client's first
///   `tools/call` (`closeAllDiffTabs` starts every prompt): the CLI consumes the selection into
///   that prompt (`consumeIdeSelection`), and a repeat would offer it to the next one again.
/// - a mention is never sent twice: its handler inserts `@path#L<a>-<b>` at the cursor each
///   time. A mention that waited for the client (one made later goes at once) is held until
///   [`MENTION_PACE_FACTOR`] times the CLI's connect pace after its `tools/list` (at least
///   [`MENTION_HOLD_MIN_MS`]), or its first `tools/call`, whichever comes first; a client that
///   never lists tools gets it at the end of the window. This is a margin, not proof: the CLI
///   sends nothing that shows it listens before its first prompt.
#[derive(Debug, Default)]
pub(crate) struct StartupPushes {
    /// When the client sent `initialize`.
    initialize_at: Option<Timestamp>,
    /// When it first asked `tools/list`, the last step of the CLI's connect sequence.
    tools_listed_at: Option<Timestamp>,
    /// The selection repeats, while they run.
    resend: Option<Resend>,
    /// Set at ready: the end of the start-up window.
    window_end: Option<Timestamp>,
    /// Mentions held for this client.
    held: Vec<AtMentioned>,
    /// Set by the first `tools/call`: the start-up is over.
    listening: bool,
}

/// The next repeat of the selection and the gap after it.
#[derive(Debug, Clone, Copy)]
struct Resend {
    next: Timestamp,
    gap_ms: u64,
}

/// What is due for a client at a time.
#[derive(Debug, Default, PartialEq, Eq)]
pub(crate) struct StartupDue {
    /// Send the current selection to the client again.
    pub(crate) selection: bool,
    /// Send these mentions to the client, oldest first.
    pub(crate) mentions: Vec<AtMentioned>,
}

impl StartupPushes {
    /// The client sent `initialize` at `now`.
    pub(crate) fn initialize(&mut self, now: Timestamp) {
        self.initialize_at.get_or_insert(now);
    }

    /// The client asked `tools/list` at `now` (only the first counts).
    pub(crate) fn tools_listed(&mut self, now: Timestamp) {
        self.tools_listed_at.get_or_insert(now);
    }

    /// The client became ready at `now`, and got the selection then: the repeats run for
    /// `window_ms` (none when 0), and `mentions` are held for it.
    pub(crate) fn became_ready(
        &mut self,
        now: Timestamp,
        window_ms: u64,
        mentions: Vec<AtMentioned>,
    ) {
        self.window_end = Some(now.add_millis(window_ms));
        self.resend = (window_ms > 0 && !self.listening).then_some(Resend {
            next: now.add_millis(RESEND_FIRST_GAP_MS),
            gap_ms: RESEND_FIRST_GAP_MS,
        });
        self.held.extend(mentions);
    }

    /// The client made a `tools/call`: it listens. The repeats stop; the held mentions are
    /// handed back to be sent now.
    pub(crate) fn tool_called(&mut self) -> Vec<AtMentioned> {
        self.listening = true;
        self.resend = None;
        std::mem::take(&mut self.held)
    }

    /// What is due at `now`. Each repeat is due once; a repeat that would come after the
    /// window ends the repeats.
    pub(crate) fn poll(&mut self, now: Timestamp, ready_delay_ms: u64) -> StartupDue {
        let mut due = StartupDue::default();
        if let (Some(resend), Some(end)) = (self.resend, self.window_end)
            && resend.next <= now
        {
            due.selection = resend.next <= end;
            let gap_ms = resend.gap_ms.saturating_mul(2);
            let next = now.add_millis(gap_ms);
            self.resend = (next <= end).then_some(Resend { next, gap_ms });
        }
        if self
            .mentions_due(ready_delay_ms)
            .is_some_and(|at| at <= now)
        {
            due.mentions = std::mem::take(&mut self.held);
        }
        due
    }

    /// When the held mentions go out: [`MENTION_PACE_FACTOR`] times the connect pace after
    /// `tools/list`, at least [`MENTION_HOLD_MIN_MS`] (and `ready_delay_ms`) after it; without
    /// a `tools/list`, at the end of the window. `None` before the client became ready.
    fn mentions_due(&self, ready_delay_ms: u64) -> Option<Timestamp> {
        let end = self.window_end?;
        Some(match (self.initialize_at, self.tools_listed_at) {
            (Some(initialize), Some(listed)) => {
                let pace = listed.millis_since(initialize);
                let hold = pace
                    .saturating_mul(MENTION_PACE_FACTOR)
                    .max(MENTION_HOLD_MIN_MS)
                    .max(ready_delay_ms);
                listed.add_millis(hold)
            }
            _ => end,
        })
    }

    /// The next instant [`poll`](Self::poll) has something to do.
    pub(crate) fn next_deadline(&self, ready_delay_ms: u64) -> Option<Timestamp> {
        let mentions = (!self.held.is_empty())
            .then(|| self.mentions_due(ready_delay_ms))
            .flatten();
        self.resend
            .map(|r| r.next)
            .into_iter()
            .chain(mentions)
            .min()
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

    fn mention(line: u32) -> AtMentioned {
        AtMentioned {
            file_path: "/w/a.rs".to_owned(),
            line_start: Some(line),
            line_end: Some(line),
        }
    }

    /// Polls `pushes` at every deadline up to `until`, recording when the selection went
    /// out and when each mention did.
    fn run(pushes: &mut StartupPushes, until: u64) -> (Vec<u64>, Vec<(u64, u32)>) {
        let (mut selections, mut mentions) = (Vec::new(), Vec::new());
        while let Some(at) = pushes
            .next_deadline(500)
            .filter(|at| at.as_millis() <= until)
        {
            let due = pushes.poll(at, 500);
            if due.selection {
                selections.push(at.as_millis());
            }
            for m in due.mentions {
                mentions.push((at.as_millis(), m.line_start.unwrap_or_default()));
            }
        }
        (selections, mentions)
    }

    #[test]
    fn the_selection_repeats_on_doubling_gaps_for_the_window() {
        let mut pushes = StartupPushes::default();
        pushes.became_ready(at(1_000), 16_000, Vec::new());
        let (selections, _) = run(&mut pushes, 60_000);
        assert_eq!(selections, [1_500, 2_500, 4_500, 8_500, 16_500]);
        assert_eq!(pushes.next_deadline(500), None);
    }

    #[test]
    fn no_window_means_no_repeat() {
        let mut pushes = StartupPushes::default();
        pushes.became_ready(at(0), 0, Vec::new());
        assert_eq!(pushes.next_deadline(500), None);
        assert_eq!(pushes.poll(at(10_000), 500), StartupDue::default());
    }

    #[test]
    fn the_first_tool_call_ends_the_repeats_and_releases_held_mentions() {
        let mut pushes = StartupPushes::default();
        pushes.became_ready(at(0), 16_000, vec![mention(1)]);
        assert!(pushes.poll(at(500), 500).selection);
        assert_eq!(pushes.tool_called(), [mention(1)]);
        assert_eq!(pushes.next_deadline(500), None);
        assert_eq!(pushes.poll(at(1_500), 500), StartupDue::default());
    }

    #[test]
    fn a_mention_waits_for_four_times_the_connect_pace_after_tools_list() {
        // An idle CLI: initialize at 0, tools/list at 40 ms: the floor rules.
        let mut idle = StartupPushes::default();
        idle.initialize(at(0));
        idle.tools_listed(at(40));
        idle.became_ready(at(500), 16_000, vec![mention(1)]);
        assert_eq!(run(&mut idle, 60_000).1, [(1_540, 1)]);
        // A loaded one: 1 s from initialize to tools/list: held 4 s after it.
        let mut loaded = StartupPushes::default();
        loaded.initialize(at(0));
        loaded.tools_listed(at(1_000));
        loaded.tools_listed(at(3_500));
        loaded.became_ready(at(500), 16_000, vec![mention(1), mention(2)]);
        assert_eq!(
            loaded.next_deadline(500),
            Some(at(1_000)),
            "the selection first"
        );
        assert_eq!(run(&mut loaded, 60_000).1, [(5_000, 1), (5_000, 2)]);
    }

    #[test]
    fn without_tools_list_a_mention_waits_for_the_window_end() {
        let mut pushes = StartupPushes::default();
        pushes.initialize(at(0));
        pushes.became_ready(at(500), 16_000, vec![mention(4)]);
        let (selections, mentions) = run(&mut pushes, 60_000);
        assert_eq!(selections, [1_000, 2_000, 4_000, 8_000, 16_000]);
        assert_eq!(mentions, [(16_500, 4)]);
    }
}
