//! Lines from the terminal, read on a helper thread one request at a time, so the host loop
//! never blocks on stdin and nothing reads the terminal while `$EDITOR` owns it.

use idelink_mio::Waker;
use std::io::BufRead;
use std::sync::Arc;
use std::sync::mpsc::{self, Receiver, Sender, TryRecvError};

/// What the reader thread hands back.
pub enum Input {
    /// One line, without its line ending.
    Line(String),
    /// Standard input is closed.
    Closed,
}

/// A line reader that reads only when asked.
pub struct LineReader {
    requests: Sender<()>,
    lines: Receiver<Input>,
    /// A request is outstanding: the thread is (or will be) blocked reading.
    asked: bool,
    closed: bool,
}

impl LineReader {
    /// Starts the reader thread; it wakes the host's poll whenever a line arrives.
    pub fn spawn(waker: Arc<Waker>) -> std::io::Result<LineReader> {
        let (requests, asked) = mpsc::channel::<()>();
        let (send_line, lines) = mpsc::channel();
        std::thread::Builder::new()
            .name("idelink-stdin".into())
            .spawn(move || {
                let stdin = std::io::stdin();
                for () in asked {
                    let mut line = String::new();
                    let input = match stdin.lock().read_line(&mut line) {
                        Ok(0) | Err(_) => Input::Closed,
                        Ok(_) => Input::Line(line.trim_end_matches(['\n', '\r']).to_owned()),
                    };
                    let closed = matches!(input, Input::Closed);
                    if send_line.send(input).is_err() || closed {
                        break;
                    }
                    let _ = waker.wake();
                }
            })?;
        Ok(LineReader {
            requests,
            lines,
            asked: false,
            closed: false,
        })
    }

    /// Asks for the next line (no-op when one is already asked for).
    pub fn ask(&mut self) {
        if !self.asked && !self.closed && self.requests.send(()).is_ok() {
            self.asked = true;
        }
    }

    /// The answer to the outstanding request, if it has come.
    pub fn try_take(&mut self) -> Option<Input> {
        if !self.asked {
            return None;
        }
        match self.lines.try_recv() {
            Ok(input) => {
                self.asked = false;
                self.closed = matches!(input, Input::Closed);
                Some(input)
            }
            Err(TryRecvError::Empty) => None,
            Err(TryRecvError::Disconnected) => {
                self.asked = false;
                self.closed = true;
                Some(Input::Closed)
            }
        }
    }
}
