//! Windows: a reader thread blocks on stdin and feeds the input thread's channel, the one the
//! loop sends editor jobs through, so bytes, the end of input and jobs are handled in the
//! order they came. A console handle cannot be polled together with a pipe, hence the second
//! thread; it stamps what it reads with the epoch current at the read.
//!
//! A read takes what it reads, so unlike Unix's poll the reader must not be inside one when an
//! editor starts: a console editor (or any editor reading stdin) would lose input to it. The
//! reader therefore reads only through a [`Gate`]: after each read it waits until the input
//! thread has handled the bytes; when they completed a line, until the loop has taken every
//! line and acted on it (an `e` asks for the editor before the loop comes back for more); and
//! while an editor runs, until it exits.

use super::{Event, Worker};
use std::io::{self, Read};
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::mpsc::{Receiver, Sender};
use std::sync::{Arc, Condvar, Mutex, MutexGuard};

/// The loop's side of the gate: what it tells the reader.
pub struct Bell(Arc<Gate>);

impl Bell {
    /// An editor job was sent: the reader waits until the editor exits.
    pub fn ring(&mut self) {
        self.0.update(|state| state.editors += 1);
    }

    /// The loop has taken every line handed over and acted on each (it found the channel
    /// empty): the reader may read again, unless an editor runs.
    pub fn all_taken(&self) {
        let mut state = self.0.state();
        if state.lines_out {
            state.lines_out = false;
            self.0.turn.notify_all();
        }
    }
}

/// When the reader may read again.
#[derive(Default)]
struct Gate {
    state: Mutex<GateState>,
    turn: Condvar,
}

#[derive(Default)]
struct GateState {
    /// The reader's last bytes are not handled yet.
    unhandled: bool,
    /// Lines were handed to the loop and it has not yet come back for more.
    lines_out: bool,
    /// Editor jobs sent ([`Bell::ring`]) minus editors exited: not zero while one runs. The job
    /// is sent before the bell rings, so an editor that fails at once may count down first.
    editors: i32,
}

impl Gate {
    fn state(&self) -> MutexGuard<'_, GateState> {
        // Every holder only sets flags: a poisoned state is still a valid one.
        self.state
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner)
    }

    /// Blocks until no read, line or editor is outstanding.
    fn wait_open(&self) {
        let mut state = self.state();
        while state.unhandled || state.lines_out || state.editors != 0 {
            state = self
                .turn
                .wait(state)
                .unwrap_or_else(std::sync::PoisonError::into_inner);
        }
    }

    fn update(&self, change: impl FnOnce(&mut GateState)) {
        change(&mut self.state());
        self.turn.notify_all();
    }
}

/// Starts the input thread, which handles the events in `queue` in order, and the reader
/// thread, which sends what stdin gives (stamped with `epoch`) through `events`.
pub fn start(
    mut worker: Worker,
    queue: Receiver<Event>,
    events: &Sender<Event>,
    epoch: &Arc<AtomicU64>,
) -> io::Result<Bell> {
    let gate = Arc::new(Gate::default());
    let input_gate = Arc::clone(&gate);
    std::thread::Builder::new()
        .name("idelink-input".into())
        .spawn(move || {
            for event in queue {
                let (typed, completes_line, edit) = match &event {
                    Event::Typed { bytes, .. } => (true, bytes.contains(&b'\n'), false),
                    Event::Edit(_) => (false, false, true),
                    Event::Closed => (false, false, false),
                };
                // A line is marked as out before the reader may go on (one '\n', one line).
                if completes_line {
                    input_gate.update(|state| state.lines_out = true);
                }
                let go_on = worker.handle(event);
                if typed || edit {
                    input_gate.update(|state| {
                        state.unhandled &= !typed;
                        state.editors -= i32::from(edit);
                    });
                }
                if !go_on {
                    return;
                }
            }
        })?;
    let (events, epoch, reader_gate) = (events.clone(), Arc::clone(epoch), Arc::clone(&gate));
    std::thread::Builder::new()
        .name("idelink-stdin".into())
        .spawn(move || read_stdin(&events, &epoch, &reader_gate))?;
    Ok(Bell(gate))
}

/// Sends stdin's bytes as they come, each read only when the gate is open, then
/// [`Event::Closed`] at its end; stops early when the input thread is gone.
fn read_stdin(events: &Sender<Event>, epoch: &AtomicU64, gate: &Gate) {
    let mut stdin = io::stdin();
    let mut buf = [0u8; 4096];
    loop {
        gate.wait_open();
        let n = match stdin.read(&mut buf) {
            Ok(n) => n,
            Err(e) if e.kind() == io::ErrorKind::Interrupted => continue,
            Err(_) => 0,
        };
        if n == 0 {
            let _ = events.send(Event::Closed);
            return;
        }
        gate.state().unhandled = true;
        let typed = Event::Typed {
            bytes: buf[..n].to_vec(),
            epoch: epoch.load(Ordering::SeqCst),
        };
        if events.send(typed).is_err() {
            return;
        }
    }
}

/// Drops what was typed on the console and not yet read.
pub fn discard_typed_ahead() {
    crate::windows::flush_console_input();
}
