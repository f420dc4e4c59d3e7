//! SIGINT, SIGTERM and SIGHUP end the serve loop cleanly, so the lock file is removed.

use idelink_mio::Waker;
use std::io;
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};

/// A flag set when a termination signal arrives; the signal also wakes the host's poll.
#[derive(Clone)]
pub struct StopFlag(Arc<AtomicBool>);

impl StopFlag {
    /// True once a termination signal (or `request_stop`) arrived.
    pub fn stop_requested(&self) -> bool {
        self.0.load(Ordering::SeqCst)
    }

    /// Asks the loop to stop (stdin closed, say).
    pub fn request_stop(&self) {
        self.0.store(true, Ordering::SeqCst);
    }
}

/// Routes termination signals to a thread that sets the flag and wakes the host.
pub fn install(waker: Arc<Waker>) -> io::Result<StopFlag> {
    use signal_hook::consts::{SIGHUP, SIGINT, SIGTERM};
    let flag = StopFlag(Arc::new(AtomicBool::new(false)));
    let mut signals = signal_hook::iterator::Signals::new([SIGINT, SIGTERM, SIGHUP])?;
    let stop = flag.clone();
    std::thread::Builder::new()
        .name("idelink-signals".into())
        .spawn(move || {
            if signals.forever().next().is_some() {
                stop.request_stop();
                // The loop also checks the flag on its regular wake-ups.
                let _ = waker.wake();
            }
        })?;
    Ok(flag)
}
