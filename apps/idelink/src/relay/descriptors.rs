//! The relay's file descriptors: as many as the system lets it have, and a way through when
//! they run out anyway.
//!
//! Every socket is a descriptor, and the common soft limit is 1024. At start the relay raises
//! its soft `RLIMIT_NOFILE` to the hard limit (POSIX `setrlimit`: an unprivileged process may
//! raise its soft limit up to the hard one). The listeners' handshake budgets keep idle sockets
//! far under either; should `accept` still fail with `EMFILE` / `ENFILE`, the connection would
//! stay in the kernel's backlog, unanswered, and with edge-triggered readiness no new event
//! would come for it. So the relay keeps one [`Spare`] descriptor: it closes it, accepts the
//! connection, closes that at once (the peer sees its end instead of a hang) and opens the
//! spare again. Windows sockets are not counted against such a limit, so there the limit is
//! left alone and there is no spare.

use mio::net::TcpListener;
use std::io;

/// Raises the soft limit on open descriptors to the hard limit; returns the (soft limit before,
/// after), or None when nothing changed. On macOS an unlimited hard limit is not accepted as a
/// soft one: `OPEN_MAX` (10,240) is tried then.
#[cfg(unix)]
pub fn raise_limit() -> Option<(Option<u64>, Option<u64>)> {
    use rustix::process::{Resource, Rlimit, getrlimit, setrlimit};
    /// macOS's `OPEN_MAX`, the highest soft limit it takes when the hard one is unlimited.
    const OPEN_MAX: u64 = 10_240;
    let limit = getrlimit(Resource::Nofile);
    if limit.current == limit.maximum {
        return None;
    }
    let raise = |current| {
        setrlimit(
            Resource::Nofile,
            Rlimit {
                current,
                maximum: limit.maximum,
            },
        )
        .ok()
        .map(|()| (limit.current, current))
    };
    raise(limit.maximum).or_else(|| match limit.maximum {
        None if limit.current.is_some_and(|soft| soft < OPEN_MAX) => raise(Some(OPEN_MAX)),
        _ => None,
    })
}

/// Windows: nothing to raise.
#[cfg(windows)]
pub fn raise_limit() -> Option<(Option<u64>, Option<u64>)> {
    None
}

/// Whether `error` says the process (or the system) has no descriptor left.
pub fn exhausted(error: &io::Error) -> bool {
    #[cfg(unix)]
    let codes = [
        rustix::io::Errno::MFILE.raw_os_error(),
        rustix::io::Errno::NFILE.raw_os_error(),
    ];
    // WSAEMFILE: no socket handle left.
    #[cfg(windows)]
    let codes = [10024];
    error
        .raw_os_error()
        .is_some_and(|code| codes.contains(&code))
}

/// One descriptor held in reserve, to accept and close a connection when none is left.
pub struct Spare {
    #[cfg(unix)]
    file: Option<std::fs::File>,
}

impl Spare {
    /// Opens the spare (the null device).
    pub fn new() -> Spare {
        Spare {
            #[cfg(unix)]
            file: open_spare(),
        }
    }

    /// No descriptor is left for a connection waiting on `listener`: frees the spare, accepts
    /// the connection and closes it at once, then takes the spare back. False when there was
    /// no spare (it could not be reopened last time) or nothing was accepted: the caller tries
    /// again later.
    #[cfg(unix)]
    pub fn shed(&mut self, listener: &TcpListener) -> bool {
        if self.file.take().is_none() {
            self.file = open_spare();
            return false;
        }
        let shed = listener.accept().is_ok();
        self.file = open_spare();
        shed
    }

    /// Windows: no spare.
    #[cfg(windows)]
    pub fn shed(&mut self, _listener: &TcpListener) -> bool {
        false
    }
}

#[cfg(unix)]
fn open_spare() -> Option<std::fs::File> {
    std::fs::File::open("/dev/null").ok()
}
