//! How many not-yet-authenticated connections a listener keeps: the handshake budget.
//!
//! Any local process can open sockets to a loopback listener and send nothing. A listener that
//! keeps each until a deadline lets a few thousand idle sockets use up its process's
//! descriptors, and then neither claude nor the page gets in. So every listener counts the
//! connections that have not proven anything yet (still in the HTTP handshake, or upgraded
//! but not yet authenticated), and when one more arrives past the budget the *oldest* of them
//! goes. Idle sockets then only evict one another: a real client, which speaks at once, always
//! finds room. The engine applies it to claude's upgrades (`Config::max_handshakes`); the relay
//! to its page port and to claude's connections its page has not answered yet.

/// A budget of connections not yet authenticated.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct HandshakeBudget {
    max: usize,
}

impl HandshakeBudget {
    /// At most `max` pending connections; at least one is always admitted (a budget of 0 acts
    /// as 1, so a listener never refuses everyone).
    pub const fn new(max: usize) -> HandshakeBudget {
        HandshakeBudget {
            max: if max == 0 { 1 } else { max },
        }
    }

    /// The budget, at least 1.
    pub const fn max(&self) -> usize {
        self.max
    }

    /// With `pending` connections counted, how many of the oldest must go before one more is
    /// admitted.
    pub const fn evictions_to_admit(&self, pending: usize) -> usize {
        (pending + 1).saturating_sub(self.max)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn one_more_past_the_budget_evicts_the_oldest() {
        let budget = HandshakeBudget::new(8);
        assert_eq!(budget.evictions_to_admit(0), 0);
        assert_eq!(budget.evictions_to_admit(7), 0);
        assert_eq!(budget.evictions_to_admit(8), 1);
        assert_eq!(budget.evictions_to_admit(10), 3);
    }

    #[test]
    fn a_budget_of_zero_still_admits_one() {
        let budget = HandshakeBudget::new(0);
        assert_eq!(budget.max(), 1);
        assert_eq!(budget.evictions_to_admit(0), 0);
        assert_eq!(budget.evictions_to_admit(1), 1);
    }
}
