//! The terminal's input, handled by one helper thread so the serve loop never blocks on it.
//!
//! The thread hands over whole lines, each stamped with the *epoch* current when its first byte
//! was read. The loop starts a new epoch each time it shows a question (after the diff is on
//! screen) and each time the question goes away (the diff was closed or replaced), so a line
//! typed before a diff was shown, or meant for one that is gone, carries an old epoch and
//! answers nothing. On a terminal, starting an epoch also drops what was typed ahead and not yet
//! read, which covers a half-typed line the system still holds (how depends on the platform).
//!
//! The same thread runs `$VISUAL` / `$EDITOR` when the user edits a proposal, and the serve loop
//! keeps polling meanwhile. It takes its work from one channel, in order: typed bytes, the end
//! of input, and editor jobs ([`Event`]). Where the bytes come from is the platform's part:
//! - Unix (`input/unix.rs`): the thread itself polls stdin and a bell the loop rings for an
//!   editor job, so nothing reads the terminal while the editor owns it; a new epoch flushes
//!   the terminal's input queue (`tcflush(TCIFLUSH)`, POSIX termios).
//! - Windows (`input/windows.rs`): a second thread reads stdin (which blocks: a console handle
//!   cannot be polled with the pipe handles) and feeds the channel, reading only when the loop
//!   has acted on every line and no editor runs, so an editor started for `e` gets stdin to
//!   itself; a new epoch empties the console's input buffer (`FlushConsoleInputBuffer`), which
//!   holds what was typed but not yet read. A line the user is typing while that thread waits
//!   in its read is the console's (cooked line editing), not in that buffer, so it is stamped
//!   when Enter ends it: on Windows a line typed before a question but finished after it may
//!   answer it (docs/windows.md).

#[cfg(unix)]
#[path = "input/unix.rs"]
mod platform;
#[cfg(windows)]
#[path = "input/windows.rs"]
mod platform;

use super::{editor_command, review};
use idelink_core::ToolCallId;
use idelink_mio::Waker;
use std::io::{self, IsTerminal};
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

/// The input thread's work, in the order it arrived.
enum Event {
    /// Bytes read from stdin, and the epoch current when they were read.
    Typed {
        /// The bytes.
        bytes: Vec<u8>,
        /// The epoch at the read.
        epoch: u64,
    },
    /// Standard input ended or failed.
    Closed,
    /// A proposal to open in the user's editor.
    Edit(EditJob),
}

/// The loop's handle on the input thread.
pub struct Keyboard {
    epoch: Arc<AtomicU64>,
    events: Sender<Event>,
    /// Tells the input side that an editor job waits in the channel, and that the loop has
    /// taken every input (Windows reads stdin only then).
    bell: platform::Bell,
    inputs: Receiver<Input>,
    terminal: bool,
}

impl Keyboard {
    /// Starts the input thread; it wakes the host's poll whenever it has something.
    pub fn spawn(waker: Arc<Waker>) -> io::Result<Keyboard> {
        let epoch = Arc::new(AtomicU64::new(0));
        let (events, queue) = mpsc::channel();
        let (send, inputs) = mpsc::channel();
        let worker = Worker {
            send,
            waker,
            lines: LineAssembler::default(),
        };
        let bell = platform::start(worker, queue, &events, &epoch)?;
        Ok(Keyboard {
            epoch,
            events,
            bell,
            inputs,
            terminal: io::stdin().is_terminal(),
        })
    }

    /// Starts a new epoch (dropping typed-ahead input on a terminal) and returns it.
    pub fn new_epoch(&self) -> u64 {
        if self.terminal {
            platform::discard_typed_ahead();
        }
        self.epoch.fetch_add(1, Ordering::SeqCst) + 1
    }

    /// Opens a proposal in the user's editor; the result comes back as [`Input::Edited`].
    pub fn edit(&mut self, job: EditJob) {
        if self.events.send(Event::Edit(job)).is_ok() {
            self.bell.ring();
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
            Err(TryRecvError::Empty) => {
                self.bell.all_taken();
                None
            }
            Err(TryRecvError::Disconnected) => Some(Input::Closed),
        }
    }
}

/// The input thread's work: bytes into lines, editor jobs into results, each handed to the
/// loop with a wake-up.
struct Worker {
    send: Sender<Input>,
    waker: Arc<Waker>,
    lines: LineAssembler,
}

impl Worker {
    /// Does what `event` asks; false when the thread should stop (input ended, or the loop is
    /// gone).
    fn handle(&mut self, event: Event) -> bool {
        match event {
            Event::Typed { bytes, epoch } => {
                for (text, epoch) in self.lines.push(&bytes, epoch) {
                    if !self.hand_over(Input::Line { text, epoch }) {
                        return false;
                    }
                }
                true
            }
            Event::Closed => {
                self.hand_over(Input::Closed);
                false
            }
            Event::Edit(job) => {
                let editor = editor_command::user_editor();
                let result = review::edit(&job.proposed, &job.file_name, &editor);
                self.lines.clear();
                self.hand_over(Input::Edited { id: job.id, result })
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
