//! The terminal's output: status lines, the diff under review, and the question kept last.
//! Written through `anstream`, which turns the colour codes into console calls on legacy
//! Windows consoles and drops them where colour is not wanted.
//!
//! Every status line passes through [`inert::line`] here, whatever its source (paths, client
//! names, close reasons, typed text), so no caller can forget it; diffs arrive already inert
//! from [`diff_view`](super::diff_view).

use super::inert;
use super::review;
use std::io::Write;
use std::time::Instant;

/// Shown characters of a status line; longer ones are cut with a marker.
const MAX_STATUS_CHARS: usize = 1000;
/// Status lines kept while an editor owns the terminal; later ones are counted, not kept.
const MAX_HELD_LINES: usize = 200;

/// The terminal.
pub struct Screen {
    started: Instant,
    /// Paint diffs.
    pub colour: bool,
    /// The question on screen waiting for an answer, asked again after any status line.
    prompt: Option<String>,
    /// The cursor is after a question, not at the start of a line.
    mid_line: bool,
    /// Status lines held back while an editor owns the terminal.
    held: Option<Vec<String>>,
    /// Status lines dropped while held, past [`MAX_HELD_LINES`].
    dropped: usize,
}

impl Screen {
    /// A screen whose status lines are stamped with the seconds since now.
    pub fn new(colour: bool) -> Screen {
        Screen {
            started: Instant::now(),
            colour,
            prompt: None,
            mid_line: false,
            held: None,
            dropped: 0,
        }
    }

    /// One status line, stamped with the seconds since start.
    pub fn say(&mut self, line: &str) {
        let line = format!(
            "[{:>7.1}s] {}",
            self.started.elapsed().as_secs_f64(),
            inert::line(line, MAX_STATUS_CHARS)
        );
        if let Some(held) = self.held.as_mut() {
            if held.len() < MAX_HELD_LINES {
                held.push(line);
            } else {
                self.dropped += 1;
            }
            return;
        }
        let mut out = anstream::stdout().lock();
        if self.mid_line {
            let _ = writeln!(out);
        }
        let _ = writeln!(out, "{line}");
        if let Some(prompt) = &self.prompt {
            let _ = write!(out, "{prompt}");
        }
        self.mid_line = self.prompt.is_some();
        let _ = out.flush();
    }

    /// Prints a diff (inert text from `diff_view`), on a fresh line.
    pub fn show(&mut self, diff: &str) {
        self.prompt = None;
        let mut out = anstream::stdout().lock();
        if std::mem::take(&mut self.mid_line) {
            let _ = writeln!(out);
        }
        let _ = write!(out, "{diff}");
        let _ = out.flush();
    }

    /// The user ended a line (the terminal echoed it): the cursor is at the start of a line.
    pub fn line_entered(&mut self) {
        self.mid_line = false;
    }

    /// Asks the review question for the file `label` (peer text: made inert here); `whole`
    /// is false when only a summary of the change was shown.
    pub fn ask(&mut self, label: &str, whole: bool) {
        let prompt = review::prompt(&inert::line(label, MAX_STATUS_CHARS), whole);
        let mut out = anstream::stdout().lock();
        let _ = write!(out, "{prompt}");
        let _ = out.flush();
        self.prompt = Some(prompt);
        self.mid_line = true;
    }

    /// The question is answered or gone: status lines no longer repeat it (the next output
    /// still starts on a fresh line).
    pub fn withdraw(&mut self) {
        self.prompt = None;
    }

    /// An editor owns the terminal: hold status lines until [`release`](Self::release).
    pub fn hold(&mut self) {
        self.prompt = None;
        self.held.get_or_insert_with(Vec::new);
    }

    /// The editor exited: print the status lines held meanwhile.
    pub fn release(&mut self) {
        let Some(held) = self.held.take() else {
            return;
        };
        let mut out = anstream::stdout().lock();
        for line in held {
            let _ = writeln!(out, "{line}");
        }
        if self.dropped > 0 {
            let _ = writeln!(
                out,
                "({} more status lines while the editor was open)",
                std::mem::take(&mut self.dropped)
            );
        }
        let _ = out.flush();
    }
}
