//! The link's stream on Windows, where mio cannot poll an anonymous pipe: a thread reads the
//! bridge's output and wakes the host's poll, another writes what the host queued.

use super::LinkPipes;
use mio::{Registry, Token, Waker};
use std::fs::File;
use std::io::{self, Read, Write};
use std::sync::Arc;
use std::sync::mpsc::{Receiver, Sender, TryRecvError, channel};

/// Bytes the reader thread reads at a time: one link data frame.
const READ_CHUNK_BYTES: usize = idelink_core::link::MAX_DATA_FRAME_BYTES;

impl LinkPipes {
    /// Starts the threads that read `input` and write `output`; the reader wakes the poll with
    /// `waker` (read the stream after every wake: mio cannot poll these pipes, so `tokens` are
    /// not used). Returns the stream and the bytes already read (see
    /// [`already_read`](Self::already_read)).
    pub fn register(
        self,
        _registry: &Registry,
        _tokens: (Token, Token),
        waker: &Arc<Waker>,
    ) -> io::Result<(LinkStream, Vec<u8>)> {
        let (in_tx, incoming) = channel();
        let mut input = File::from(self.input);
        let waker = Arc::clone(waker);
        std::thread::Builder::new()
            .name("idelink-link-in".into())
            .spawn(move || {
                let mut buf = vec![0u8; READ_CHUNK_BYTES];
                loop {
                    let read = match input.read(&mut buf) {
                        Ok(0) | Err(_) => None,
                        Ok(n) => Some(buf[..n].to_vec()),
                    };
                    let end = read.is_none();
                    if in_tx.send(read).is_err() {
                        return;
                    }
                    let _ = waker.wake();
                    if end {
                        return;
                    }
                }
            })?;
        let (outgoing, out_rx) = channel::<Vec<u8>>();
        let mut output = File::from(self.output);
        std::thread::Builder::new()
            .name("idelink-link-out".into())
            .spawn(move || {
                while let Ok(bytes) = out_rx.recv() {
                    if output.write_all(&bytes).is_err() {
                        return;
                    }
                }
            })?;
        let stream = LinkStream {
            incoming,
            held: Vec::new(),
            outgoing,
        };
        Ok((stream, self.read))
    }
}

/// The threads' ends: what the reader read (`None` at the end), what the writer writes. Read
/// until `WouldBlock` after every wake; writes never block.
pub struct LinkStream {
    incoming: Receiver<Option<Vec<u8>>>,
    /// A read chunk the host's buffer did not take whole.
    held: Vec<u8>,
    outgoing: Sender<Vec<u8>>,
}

impl LinkStream {
    /// Reads what the stream holds: `Ok(0)` at its end, `WouldBlock` when nothing is there.
    pub fn read(&mut self, buf: &mut [u8]) -> io::Result<usize> {
        if self.held.is_empty() {
            match self.incoming.try_recv() {
                Ok(Some(bytes)) => self.held = bytes,
                Ok(None) | Err(TryRecvError::Disconnected) => return Ok(0),
                Err(TryRecvError::Empty) => return Err(io::ErrorKind::WouldBlock.into()),
            }
        }
        let n = buf.len().min(self.held.len());
        buf[..n].copy_from_slice(&self.held[..n]);
        self.held.drain(..n);
        Ok(n)
    }

    /// Queues all of `bytes` for the writer thread (the link's credit bounds what is in
    /// flight per connection).
    pub fn write(&mut self, bytes: &[u8]) -> io::Result<usize> {
        match self.outgoing.send(bytes.to_vec()) {
            Ok(()) => Ok(bytes.len()),
            Err(_) => Err(io::ErrorKind::BrokenPipe.into()),
        }
    }

    /// Nothing to leave: dropping the stream ends the writer (closing the bridge's input); the
    /// reader ends with the bridge's output.
    pub fn deregister(&mut self, _registry: &Registry) {}
}
