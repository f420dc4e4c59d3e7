//! How a host pumps sockets into an engine: when it stops reading a client that does not read
//! its answers, when it resumes, how long a closed connection may take to flush, how often the
//! lock file is checked.
//!
//! Back-pressure, the same in every host: before each read of a socket, the host measures the
//! bytes it holds for that socket and has not handed to the kernel (the engine's outbound queue,
//! plus any user-space write buffer such as Node's `socket.writableLength`). At or above
//! [`PumpPolicy::pause_reads_at_bytes`] it stops reading that socket; once a write brings the
//! count below [`PumpPolicy::resume_reads_below_bytes`] it reads again. The gap between the two
//! (a hysteresis) keeps a slow reader from toggling the socket on every write. A client that
//! pipelines calls and never reads therefore costs at most about `pause_reads_at_bytes` plus one
//! read's worth of answers, whatever it sends; the engine's own `max_outbound_bytes` closes it if
//! one read alone would overflow.

use crate::time::Timestamp;

/// Thresholds and periods of a host's socket pump. [`PumpPolicy::default`] is what every
/// shipped host uses; a host may tighten it (the relay forwards for many connections at once).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct PumpPolicy {
    /// Stop reading a socket when this many of its answer bytes are still unsent. Default 8 MiB:
    /// far above any answer the CLI waits for, well under the engine's 96 MiB outbound cap.
    pub pause_reads_at_bytes: usize,
    /// Read again when the unsent bytes fall below this. Default 4 MiB (half the pause mark).
    pub resume_reads_below_bytes: usize,
    /// How long a connection the engine (or the peer's partner) closed may take to flush its last
    /// bytes before the host drops it. Default 2 s: a close frame and a reply are a few bytes;
    /// a peer that does not take them within 2 s is not reading.
    pub linger_ms: u64,
    /// How often the host checks that its lock file still exists (the CLI deletes locks it
    /// thinks stale; a user may clean the folder). Default 1 s: one `stat` a second.
    pub lock_check_interval_ms: u64,
    /// Bytes read from a socket at a time. Default 64 KiB (a typical socket receive buffer).
    pub read_chunk_bytes: usize,
}

impl PumpPolicy {
    /// The defaults, as a constant.
    pub const DEFAULT: PumpPolicy = PumpPolicy {
        pause_reads_at_bytes: 8 << 20,
        resume_reads_below_bytes: 4 << 20,
        linger_ms: 2_000,
        lock_check_interval_ms: 1_000,
        read_chunk_bytes: 64 << 10,
    };

    /// The default policy with reads paused at `pause_reads_at_bytes` and resumed below half of
    /// it.
    pub const fn pausing_at(pause_reads_at_bytes: usize) -> PumpPolicy {
        PumpPolicy {
            pause_reads_at_bytes,
            resume_reads_below_bytes: pause_reads_at_bytes / 2,
            ..PumpPolicy::DEFAULT
        }
    }

    /// With `unsent` answer bytes held for a socket, may the host read it? `false` pauses it.
    pub const fn may_read(&self, unsent: usize) -> bool {
        unsent < self.pause_reads_at_bytes
    }

    /// A paused socket's unsent bytes fell to `unsent`: resume reading it?
    pub const fn may_resume(&self, unsent: usize) -> bool {
        unsent < self.resume_reads_below_bytes
    }

    /// A connection the engine closed at `closing_since` still has bytes to flush at `now`:
    /// has its time run out (drop it)?
    pub const fn linger_expired(&self, closing_since: Timestamp, now: Timestamp) -> bool {
        now.millis_since(closing_since) >= self.linger_ms
    }

    /// When a connection closed at `closing_since` is dropped at the latest.
    pub const fn linger_deadline(&self, closing_since: Timestamp) -> Timestamp {
        closing_since.add_millis(self.linger_ms)
    }

    /// The lock file was last checked at `last`: is a check due at `now`?
    pub const fn lock_check_due(&self, last: Timestamp, now: Timestamp) -> bool {
        now.millis_since(last) >= self.lock_check_interval_ms
    }
}

impl Default for PumpPolicy {
    fn default() -> Self {
        PumpPolicy::DEFAULT
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn reads_pause_at_the_mark_and_resume_below_half() {
        let p = PumpPolicy::pausing_at(100);
        assert_eq!(p.resume_reads_below_bytes, 50);
        assert!(p.may_read(99));
        assert!(!p.may_read(100));
        assert!(!p.may_resume(50));
        assert!(p.may_resume(49));
        assert_eq!(PumpPolicy::default(), PumpPolicy::pausing_at(8 << 20));
    }

    #[test]
    fn linger_and_lock_checks_count_from_their_start() {
        let p = PumpPolicy::DEFAULT;
        let t = Timestamp::from_millis(10_000);
        assert!(!p.linger_expired(t, t.add_millis(1_999)));
        assert!(p.linger_expired(t, t.add_millis(2_000)));
        assert_eq!(p.linger_deadline(t), t.add_millis(2_000));
        assert!(!p.lock_check_due(t, t.add_millis(999)));
        assert!(p.lock_check_due(t, t.add_millis(1_000)));
        assert!(
            !p.linger_expired(t, Timestamp::ZERO),
            "a clock that went back is not late"
        );
    }
}
