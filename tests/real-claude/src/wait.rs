//! Bounded waiting: every wait in the drift alarm polls a condition until a deadline, then
//! fails with what it was waiting for.

use std::time::{Duration, Instant};

/// How long one step (the CLI starting, a tool call arriving, a file changing) may take. Far
/// above what a step takes here (a few seconds at most), so only a stuck step trips it.
pub const STEP_DEADLINE: Duration = Duration::from_secs(60);

/// How often a condition is checked again.
const POLL_INTERVAL: Duration = Duration::from_millis(50);

/// Checks `check` until it yields a value, or panics after [`STEP_DEADLINE`] naming `what`.
pub fn until<T>(what: &str, mut check: impl FnMut() -> Option<T>) -> T {
    let started = Instant::now();
    loop {
        if let Some(value) = check() {
            return value;
        }
        assert!(
            started.elapsed() < STEP_DEADLINE,
            "timed out after {} s waiting for {what}",
            STEP_DEADLINE.as_secs()
        );
        std::thread::park_timeout(POLL_INTERVAL);
    }
}

/// Waits up to `grace` for `done` to hold; true when it did.
pub fn within(grace: Duration, mut done: impl FnMut() -> bool) -> bool {
    let started = Instant::now();
    loop {
        if done() {
            return true;
        }
        if started.elapsed() >= grace {
            return false;
        }
        std::thread::park_timeout(POLL_INTERVAL);
    }
}
