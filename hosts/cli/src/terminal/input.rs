//! The terminal's input, owned by one helper thread so the serve loop never blocks on it.
//!
//! The thread reads standard input as it comes and hands over whole lines, each stamped with
//! the *epoch* current when its first byte was read. The loop starts a new epoch each time it
//! shows a question (after the diff is on screen) and each time the question goes away (the
//! diff was closed or replaced), so a line typed before a diff was shown, or meant for one that
//! is gone, carries an old epoch and answers nothing. On a terminal, starting an epoch also
//! drops what was typed ahead and not yet read (`tcflush(TCIFLUSH)`, POSIX termios), which
//! covers a half-typed line the kernel still holds.
//!
//! The same thread runs `$VISUAL` / `$EDITOR` when the user edits a proposal: while the editor
//! owns the terminal nothing else reads it, and the serve loop keeps polling meanwhile.

use super::{editor_command, review};
use idelink_core::ToolCallId;
use idelink_mio::Waker;
use std::io::{self, IsTerminal, Read, Write};
use std::os::fd::AsFd;
use std::os::unix::net::UnixStream;
use std::sync::Arc;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::mpsc::{self, Receiver, Sender, TryRecvError};

/// The longest line kept; the rest of a longer line is dropped (no answer is that long).
const MAX_LINE_BYTES: usize = 4096;

/// What the input thread hands back.
#[derive(Debug)]
pub enum Input {
    /// One line, without its line ending, and the epoch it was started in.
    Line {
        /// The text.
        text: String,
        /// The epoch current when its first byte was read.
        epoch: u64,
    },
    /// The editor started for `id` exited: the text it saved, or why there is none.
    Edited {
        /// The proposal that was edited.
        id: ToolCallId,
        /// The saved text.
        result: io::Result<String>,
    },
    /// Standard input is closed.
    Closed,
}

/// A proposal to open in the user's editor.
pub struct EditJob {
    /// The proposal.
    pub id: ToolCallId,
    /// Its text.
    pub proposed: Arc<str>,
    /// The file name, for the temporary file (editors pick a mode by extension).
    pub file_name: String,
}

/// The loop's handle on the input thread.
pub struct Keyboard {
    epoch: Arc<AtomicU64>,
    jobs: Sender<EditJob>,
    /// A byte written here wakes the thread's `poll`.
    bell: UnixStream,
    inputs: Receiver<Input>,
    terminal: bool,
}

impl Keyboard {
    /// Starts the input thread; it wakes the host's poll whenever it has something.
    pub fn spawn(waker: Arc<Waker>) -> io::Result<Keyboard> {
        let epoch = Arc::new(AtomicU64::new(0));
        let (jobs, job_queue) = mpsc::channel();
        let (send, inputs) = mpsc::channel();
        let (bell, bell_end) = UnixStream::pair()?;
        bell.set_nonblocking(true)?;
        bell_end.set_nonblocking(true)?;
        let thread = Reader {
            epoch: Arc::clone(&epoch),
            jobs: job_queue,
            bell: bell_end,
            send,
            waker,
            lines: LineAssembler::default(),
        };
        std::thread::Builder::new()
            .name("idelink-stdin".into())
            .spawn(move || thread.run())?;
        Ok(Keyboard {
            epoch,
            jobs,
            bell,
            inputs,
            terminal: io::stdin().is_terminal(),
        })
    }

    /// Starts a new epoch (dropping typed-ahead input on a terminal) and returns it.
    pub fn new_epoch(&self) -> u64 {
        if self.terminal {
            let _ = rustix::termios::tcflush(
                io::stdin().as_fd(),
                rustix::termios::QueueSelector::IFlush,
            );
        }
        self.epoch.fetch_add(1, Ordering::SeqCst) + 1
    }

    /// Opens a proposal in the user's editor; the result comes back as [`Input::Edited`].
    pub fn edit(&mut self, job: EditJob) {
        if self.jobs.send(job).is_ok() {
            // A full bell already rings: a failed write loses nothing.
            let _ = self.bell.write_all(b"e");
        }
    }

    /// Blocks until the editor started by [`edit`](Self::edit) exits (or the input thread
    /// ends), dropping lines meanwhile.
    pub fn wait_edited(&self) {
        while let Ok(input) = self.inputs.recv() {
            if matches!(input, Input::Edited { .. } | Input::Closed) {
                return;
            }
        }
    }

    /// The next thing from the input thread, if any.
    pub fn try_take(&self) -> Option<Input> {
        match self.inputs.try_recv() {
            Ok(input) => Some(input),
            Err(TryRecvError::Empty) => None,
            Err(TryRecvError::Disconnected) => Some(Input::Closed),
        }
    }
}

/// The input thread's state.
struct Reader {
    epoch: Arc<AtomicU64>,
    jobs: Receiver<EditJob>,
    bell: UnixStream,
    send: Sender<Input>,
    waker: Arc<Waker>,
    lines: LineAssembler,
}

impl Reader {
    fn run(mut self) {
        let stdin = io::stdin();
        let mut buf = [0u8; 4096];
        loop {
            loop {
                match self.jobs.try_recv() {
                    Ok(job) => {
                        let editor = editor_command::user_editor();
                        let result = review::edit(&job.proposed, &job.file_name, &editor);
                        self.lines.clear();
                        if !self.hand_over(Input::Edited { id: job.id, result }) {
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
                    self.hand_over(Input::Closed);
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
                self.hand_over(Input::Closed);
                return;
            }
            let epoch = self.epoch.load(Ordering::SeqCst);
            for (text, epoch) in self.lines.push(&buf[..n], epoch) {
                if !self.hand_over(Input::Line { text, epoch }) {
                    return;
                }
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

    /// Sends `input` to the loop and wakes it; false when the loop is gone.
    fn hand_over(&self, input: Input) -> bool {
        let sent = self.send.send(input).is_ok();
        let _ = self.waker.wake();
        sent
    }
}

/// Bytes into lines, each stamped with the epoch its first byte was read in.
#[derive(Debug, Default)]
struct LineAssembler {
    partial: Vec<u8>,
    started: Option<u64>,
}

impl LineAssembler {
    /// Adds bytes read in `epoch`; returns the lines they complete.
    fn push(&mut self, bytes: &[u8], epoch: u64) -> Vec<(String, u64)> {
        let mut lines = Vec::new();
        for &byte in bytes {
            let started = *self.started.get_or_insert(epoch);
            if byte == b'\n' {
                let text = String::from_utf8_lossy(&self.partial);
                lines.push((text.trim_end_matches('\r').to_owned(), started));
                self.clear();
            } else if self.partial.len() < MAX_LINE_BYTES {
                self.partial.push(byte);
            }
        }
        lines
    }

    /// Forgets a partial line.
    fn clear(&mut self) {
        self.partial.clear();
        self.started = None;
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_line_carries_the_epoch_of_its_first_byte() {
        let mut lines = LineAssembler::default();
        assert_eq!(lines.push(b"a", 1), []);
        assert_eq!(
            lines.push(b"\r\nr\n", 2),
            [("a".to_owned(), 1), ("r".to_owned(), 2)]
        );
        assert_eq!(lines.push(b"e", 3), []);
        lines.clear();
        assert_eq!(lines.push(b"x\n", 4), [("x".to_owned(), 4)]);
    }

    #[test]
    fn an_overlong_line_is_cut_not_split() {
        let mut lines = LineAssembler::default();
        let long = vec![b'a'; MAX_LINE_BYTES + 10];
        assert_eq!(lines.push(&long, 1), []);
        let done = lines.push(b"\n", 2);
        assert_eq!(done.len(), 1);
        assert_eq!(done[0].0.len(), MAX_LINE_BYTES);
        assert_eq!(done[0].1, 1);
    }
}
