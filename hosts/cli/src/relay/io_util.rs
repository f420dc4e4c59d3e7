//! Non-blocking socket helpers shared by both sides of the relay.

use mio::net::TcpStream;
use std::io::{self, Read, Write};

/// What one non-blocking read gave.
pub(super) enum ReadOutcome {
    /// This many bytes (at least one) are at the start of the buffer.
    Data(usize),
    /// Nothing more until the next readiness event.
    WouldBlock,
    /// End of stream, or a socket error: the connection is gone.
    Gone,
}

/// One read into `buf`, retrying on `Interrupted`.
pub(super) fn read_once(stream: &mut TcpStream, buf: &mut [u8]) -> ReadOutcome {
    loop {
        match stream.read(buf) {
            Ok(0) => return ReadOutcome::Gone,
            Ok(n) => return ReadOutcome::Data(n),
            Err(e) if e.kind() == io::ErrorKind::WouldBlock => return ReadOutcome::WouldBlock,
            Err(e) if e.kind() == io::ErrorKind::Interrupted => {}
            Err(_) => return ReadOutcome::Gone,
        }
    }
}

/// Writes as much of `out` as the socket takes and drops what went. `Ok(true)` when `out` is
/// empty afterwards; an error means the connection is gone.
pub(super) fn flush(stream: &mut TcpStream, out: &mut Vec<u8>) -> io::Result<bool> {
    while !out.is_empty() {
        match stream.write(out) {
            Ok(0) => return Err(io::ErrorKind::WriteZero.into()),
            Ok(n) => {
                out.drain(..n);
            }
            Err(e) if e.kind() == io::ErrorKind::WouldBlock => return Ok(false),
            Err(e) if e.kind() == io::ErrorKind::Interrupted => {}
            Err(e) => return Err(e),
        }
    }
    Ok(true)
}
