//! A request to stop ends the serve loop cleanly, so the lock file is removed: SIGINT, SIGTERM
//! and SIGHUP on Unix; Ctrl-C, Ctrl-Break and closing the console window on Windows.
//!
//! On Windows the system ends the process shortly after a console-close event whatever the
//! handler does, so the lock may outlive that one case; the next idelink (and the claude CLI)
//! then finds its owner pid dead and deletes it.

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

/// Routes termination requests to a handler thread that sets the flag and wakes the host.
/// Call it once per process.
pub fn install(waker: Arc<Waker>) -> io::Result<StopFlag> {
    let flag = StopFlag(Arc::new(AtomicBool::new(false)));
    let stop = flag.clone();
    ctrlc::set_handler(move || {
        stop.request_stop();
        // The loop also checks the flag on its regular wake-ups.
        let _ = waker.wake();
    })
    .map_err(|e| match e {
        ctrlc::Error::System(e) => e,
        other => io::Error::other(other),
    })?;
    Ok(flag)
}
