//! A request to stop ends the serve loop cleanly, so the lock file is removed: SIGINT, SIGTERM
//! and SIGHUP on Unix; Ctrl-C, Ctrl-Break, closing the console window, logoff and shutdown on
//! Windows.
//!
//! On Windows the system ends the process at the latest 5 s after a console-close event
//! (longer for logoff and shutdown), whatever the handler does; the handler holds the event
//! that long while the loop removes the lock. Should the process still be cut short, the next
//! idelink (and the claude CLI) finds its owner pid dead and deletes the lock.

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
    on_stop_request(move || {
        stop.request_stop();
        // The loop also checks the flag on its regular wake-ups.
        let _ = waker.wake();
    })?;
    Ok(flag)
}

/// Unix: SIGINT, SIGTERM and SIGHUP, delivered to a thread of ours (signal-hook).
#[cfg(unix)]
fn on_stop_request(handler: impl FnOnce() + Send + 'static) -> io::Result<()> {
    use signal_hook::consts::{SIGHUP, SIGINT, SIGTERM};
    let mut signals = signal_hook::iterator::Signals::new([SIGINT, SIGTERM, SIGHUP])?;
    std::thread::Builder::new()
        .name("idelink-signals".into())
        .spawn(move || {
            if signals.forever().next().is_some() {
                handler();
            }
        })?;
    Ok(())
}

/// Windows: Ctrl-C, Ctrl-Break, closing the console window, logoff and shutdown (a console
/// control handler that holds the close events while the loop stops).
#[cfg(windows)]
fn on_stop_request(handler: impl FnOnce() + Send + 'static) -> io::Result<()> {
    let handler = std::sync::Mutex::new(Some(handler));
    crate::windows::on_console_control(move || {
        if let Some(handler) = handler.lock().ok().and_then(|mut h| h.take()) {
            handler();
        }
    })
}
