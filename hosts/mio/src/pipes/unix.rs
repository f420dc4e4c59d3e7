//! The link's stream on Unix: its two pipe ends, non-blocking, as mio sources of the host's
//! poll.

use super::LinkPipes;
use mio::unix::pipe::{Receiver, Sender};
use mio::{Interest, Registry, Token, Waker};
use std::io::{self, Read, Write};
use std::sync::Arc;

/// The capacity asked for a link's pipes, in bytes (Linux; best effort). 1 MiB, the kernel's
/// default `pipe-max-size`: a pipe's default 64 KiB makes a 16 MiB answer cross in 256 hand-offs
/// between the two processes, each a wakeup; at 1 MiB, 16.
#[cfg(target_os = "linux")]
const PIPE_BYTES: usize = 1 << 20;

impl LinkPipes {
    /// Makes the pipes a [`LinkStream`] of the poll of `registry`: readable events under
    /// `input`, writable ones under `output`. Returns it and the bytes already read (see
    /// [`already_read`](Self::already_read)).
    pub fn register(
        self,
        registry: &Registry,
        (input, output): (Token, Token),
        _waker: &Arc<Waker>,
    ) -> io::Result<(LinkStream, Vec<u8>)> {
        let (in_token, out_token) = (input, output);
        let mut input = Receiver::from(self.input);
        let mut output = Sender::from(self.output);
        input.set_nonblocking(true)?;
        output.set_nonblocking(true)?;
        // A pipe that stays at its size (the limit is lower, another user's pipe) only costs
        // more wakeups.
        #[cfg(target_os = "linux")]
        for fd in [
            std::os::fd::AsFd::as_fd(&input),
            std::os::fd::AsFd::as_fd(&output),
        ] {
            let _ = rustix::pipe::fcntl_setpipe_size(fd, PIPE_BYTES);
        }
        registry.register(&mut input, in_token, Interest::READABLE)?;
        registry.register(&mut output, out_token, Interest::WRITABLE)?;
        Ok((LinkStream { input, output }, self.read))
    }
}

/// The registered pipes: read until `WouldBlock` after a readable event, write until
/// `WouldBlock` and again after a writable one (mio is edge-triggered).
pub struct LinkStream {
    input: Receiver,
    output: Sender,
}

impl LinkStream {
    /// Reads what the stream holds: `Ok(0)` at its end, `WouldBlock` when nothing is there.
    pub fn read(&mut self, buf: &mut [u8]) -> io::Result<usize> {
        self.input.read(buf)
    }

    /// Writes what the pipe takes of `bytes` (`WouldBlock`: nothing, wait for a writable
    /// event).
    pub fn write(&mut self, bytes: &[u8]) -> io::Result<usize> {
        self.output.write(bytes)
    }

    /// Leaves the poll; dropping the stream then closes both pipes (the bridge's end of stream).
    pub fn deregister(&mut self, registry: &Registry) {
        let _ = registry.deregister(&mut self.input);
        let _ = registry.deregister(&mut self.output);
    }
}
