//! Unix: the input thread polls stdin and a bell (one end of a socket pair) together, so it
//! reads the terminal only between editor jobs: while `$EDITOR` runs, the terminal is the
//! editor's alone.

use super::{Event, Worker};
use std::io::{self, Read, Write};
use std::os::fd::AsFd;
use std::os::unix::net::UnixStream;
use std::sync::Arc;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::mpsc::{Receiver, Sender, TryRecvError};

/// The loop's end of the bell: a byte written here wakes the thread's `poll`.
pub struct Bell(UnixStream);

impl Bell {
    /// Wakes the input thread to take what waits in its channel.
    pub fn ring(&mut self) {
        // A full bell already rings: a failed write loses nothing.
        let _ = self.0.write_all(b"e");
    }

    /// The loop has taken every input handed over: nothing to do, as the thread polls stdin
    /// without reading it while it waits.
    pub fn all_taken(&self) {}
}

/// Starts the input thread: it takes the events the loop sends (`queue`) when the bell rings
/// and reads stdin itself, stamping what it reads with `epoch`. The loop's `events` sender is
/// not needed here: stdin and the channel are polled by the same thread.
pub fn start(
    worker: Worker,
    queue: Receiver<Event>,
    _events: &Sender<Event>,
    epoch: &Arc<AtomicU64>,
) -> io::Result<Bell> {
    let (bell, bell_end) = UnixStream::pair()?;
    bell.set_nonblocking(true)?;
    bell_end.set_nonblocking(true)?;
    let reader = Reader {
        worker,
        queue,
        bell: bell_end,
        epoch: Arc::clone(epoch),
    };
    std::thread::Builder::new()
        .name("idelink-stdin".into())
        .spawn(move || reader.run())?;
    Ok(Bell(bell))
}

/// Drops what was typed on the terminal and not yet read (`tcflush(TCIFLUSH)`).
pub fn discard_typed_ahead() {
    let _ = rustix::termios::tcflush(io::stdin().as_fd(), rustix::termios::QueueSelector::IFlush);
}

/// The input thread's state.
struct Reader {
    worker: Worker,
    queue: Receiver<Event>,
    bell: UnixStream,
    epoch: Arc<AtomicU64>,
}

impl Reader {
    fn run(mut self) {
        let stdin = io::stdin();
        let mut buf = [0u8; 4096];
        loop {
            loop {
                match self.queue.try_recv() {
                    Ok(event) => {
                        if !self.worker.handle(event) {
                            return;
                        }
                    }
                    Err(TryRecvError::Empty) => break,
                    Err(TryRecvError::Disconnected) => return,
                }
            }
            use rustix::event::{PollFd, PollFlags};
            let stdin_fd = stdin.as_fd();
            let mut fds = [
                PollFd::new(&stdin_fd, PollFlags::IN),
                PollFd::new(&self.bell, PollFlags::IN),
            ];
            match rustix::event::poll(&mut fds, None) {
                Ok(_) => {}
                Err(rustix::io::Errno::INTR) => continue,
                Err(_) => {
                    self.worker.handle(Event::Closed);
                    return;
                }
            }
            let (input_ready, bell_rang) =
                (!fds[0].revents().is_empty(), !fds[1].revents().is_empty());
            if bell_rang && !self.drain_bell() {
                return;
            }
            if !input_ready {
                continue;
            }
            let n = match rustix::io::read(stdin_fd, &mut buf) {
                Ok(n) => n,
                Err(rustix::io::Errno::INTR | rustix::io::Errno::AGAIN) => continue,
                Err(_) => 0,
            };
            if n == 0 {
                self.worker.handle(Event::Closed);
                return;
            }
            let typed = Event::Typed {
                bytes: buf[..n].to_vec(),
                epoch: self.epoch.load(Ordering::SeqCst),
            };
            if !self.worker.handle(typed) {
                return;
            }
        }
    }

    /// Empties the bell; false when the loop's end of it is gone (time to stop).
    fn drain_bell(&mut self) -> bool {
        let mut buf = [0u8; 64];
        loop {
            match self.bell.read(&mut buf) {
                Ok(0) => return false,
                Ok(_) => {}
                Err(e) if e.kind() == io::ErrorKind::WouldBlock => return true,
                Err(e) if e.kind() == io::ErrorKind::Interrupted => {}
                Err(_) => return false,
            }
        }
    }
}
