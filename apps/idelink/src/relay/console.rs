//! The relay's terminal: a line `r` typed there (then Enter) asks for a new link URL.
//!
//! stdin is read on its own thread, which wakes the event loop; at end of input the thread ends
//! and nothing else changes. A terminal is read only while the relay is its foreground job: a
//! background job reading its terminal is stopped (SIGTTIN, POSIX.1 "General Terminal
//! Interface", 11.1.4), so `idelink relay &` does not read it (restarting the relay also gives a
//! new URL). Windows has no job control (a console has no foreground process group, and no
//! signal stops a process that reads it), so there the terminal is always read.

use mio::Waker;
use std::io::{BufRead, IsTerminal};
use std::sync::Arc;
use std::sync::mpsc::{Receiver, channel};

/// What the user asked for in the terminal.
#[derive(Debug, PartialEq, Eq)]
pub enum Command {
    /// A new link secret: the linked page is unlinked and a new URL printed.
    Rotate,
}

/// The command a typed line asks for, if any.
pub fn parse(line: &str) -> Option<Command> {
    (line.trim() == "r").then_some(Command::Rotate)
}

/// Whether stdin may be read: a pipe or file always, a terminal only in its foreground job.
pub fn readable() -> bool {
    let stdin = std::io::stdin();
    !stdin.is_terminal() || in_foreground(&stdin)
}

/// Unix: our process group is the terminal's foreground group (`tcgetpgrp` = `getpgrp`).
#[cfg(unix)]
fn in_foreground(terminal: &std::io::Stdin) -> bool {
    rustix::termios::tcgetpgrp(terminal).is_ok_and(|group| group == rustix::process::getpgrp())
}

/// Elsewhere (Windows): no job control, so a console is always ours to read.
#[cfg(not(unix))]
fn in_foreground(_terminal: &std::io::Stdin) -> bool {
    true
}

/// Starts reading stdin when [`readable`]; each command wakes `waker` and waits in the
/// receiver (which stays empty otherwise).
pub fn start(waker: Arc<Waker>) -> std::io::Result<Receiver<Command>> {
    let (send, receive) = channel();
    if !readable() {
        return Ok(receive);
    }
    std::thread::Builder::new()
        .name("idelink-console".into())
        .spawn(move || {
            for line in std::io::stdin().lock().lines() {
                let Ok(line) = line else { return };
                if let Some(command) = parse(&line) {
                    if send.send(command).is_err() {
                        return;
                    }
                    let _ = waker.wake();
                }
            }
        })?;
    Ok(receive)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn only_r_rotates() {
        assert_eq!(parse("r"), Some(Command::Rotate));
        assert_eq!(parse(" r \r"), Some(Command::Rotate));
        assert_eq!(parse("rr"), None);
        assert_eq!(parse(""), None);
    }
}
