//! The engine's notion of time: host-supplied monotonic milliseconds.

use std::fmt;

/// A point in time on the host's monotonic clock, in milliseconds from an origin the host
/// chooses (its start-up, say).
///
/// The engine never reads a clock. Every input carries a `Timestamp`; hosts must hand in values
/// that never go backwards (a smaller value than the last one is treated as the last one).
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Default)]
pub struct Timestamp(u64);

impl Timestamp {
    /// The host clock's origin.
    pub const ZERO: Timestamp = Timestamp(0);

    /// A timestamp `ms` milliseconds after the host clock's origin.
    pub const fn from_millis(ms: u64) -> Self {
        Timestamp(ms)
    }

    /// Milliseconds since the host clock's origin.
    pub const fn as_millis(self) -> u64 {
        self.0
    }

    /// This instant plus `ms` milliseconds, saturating at the end of time.
    #[must_use]
    pub const fn add_millis(self, ms: u64) -> Self {
        Timestamp(self.0.saturating_add(ms))
    }

    /// Milliseconds from `earlier` to `self`, or 0 when `earlier` is later.
    pub const fn millis_since(self, earlier: Timestamp) -> u64 {
        self.0.saturating_sub(earlier.0)
    }
}

impl fmt::Display for Timestamp {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}ms", self.0)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn arithmetic_saturates() {
        let t = Timestamp::from_millis(u64::MAX - 1);
        assert_eq!(t.add_millis(5).as_millis(), u64::MAX);
        assert_eq!(Timestamp::ZERO.millis_since(t), 0);
        assert_eq!(t.millis_since(Timestamp::ZERO), u64::MAX - 1);
    }
}
