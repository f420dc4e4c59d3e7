//! Waiting for a far command's words (the bridge's hello, the far shell's answers) without
//! hanging: a transport that never speaks (ssh asking for a password or a new host key, a
//! `docker exec` that hangs) is told on stderr after [`NOTICE`], then ended (killed and reaped)
//! at the deadline with what to check. [`Patience::due`] decides what to do at which moment;
//! [`hear`] reads on a thread of its own while the caller keeps that time.

use crate::terminal::inert;
use std::error::Error;
use std::io::Read;
use std::process::Child;
use std::sync::mpsc::{self, RecvTimeoutError};
use std::time::{Duration, Instant};

/// When a wait is told on stderr: long enough that a working transport has spoken (a local
/// command in milliseconds, ssh in well under a second), short enough that a prompt nobody
/// sees is explained before the user wonders.
pub const NOTICE: Duration = Duration::from_secs(2);

/// `--remote-timeout`'s default, in seconds: room for a slow login or a typed password.
pub const DEFAULT_DEADLINE_SECS: u64 = 30;

/// The largest `--remote-timeout` other than 0 (no limit): an hour.
pub const MAX_DEADLINE_SECS: u64 = 3600;

/// How long a far command may stay silent.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Patience {
    /// When the wait is told.
    pub notice: Duration,
    /// When the command is ended; `None`: never.
    pub deadline: Option<Duration>,
}

/// What a waiter does now.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Due {
    /// Listen for the words this long at most (`None`: until they come).
    Listen(Option<Duration>),
    /// Say on stderr what is waited for, then ask again.
    Tell,
    /// End the command: it had its time.
    GiveUp,
}

impl Patience {
    /// A deadline of `secs` seconds (0: none), told after [`NOTICE`].
    pub fn secs(secs: u64) -> Patience {
        Patience {
            notice: NOTICE,
            deadline: (secs != 0).then(|| Duration::from_secs(secs)),
        }
    }

    /// What to do `elapsed` into the wait, `told` whether the notice was given. The deadline
    /// wins over the notice (a deadline shorter than the notice ends without one); a
    /// [`Due::Listen`] lasts until the next of the two.
    pub fn due(&self, elapsed: Duration, told: bool) -> Due {
        if self.deadline.is_some_and(|d| elapsed >= d) {
            return Due::GiveUp;
        }
        if !told && elapsed >= self.notice {
            return Due::Tell;
        }
        let next = [(!told).then_some(self.notice), self.deadline]
            .into_iter()
            .flatten()
            .min();
        Due::Listen(next.map(|at| at - elapsed))
    }
}

/// What is waited for, for a person: `what` from `command`.
pub struct Awaited<'a> {
    /// The command line started (`ssh -T dev idelink bridge`, `ssh -T dev sh`).
    pub command: &'a str,
    /// What it should say (`the bridge's hello`).
    pub what: &'a str,
    /// What the far side must run for it (`idelink bridge`, `sh`).
    pub runs: &'a str,
}

impl Awaited<'_> {
    /// The command as one line of inert text.
    fn shown(&self) -> String {
        inert::line(self.command, 400)
    }

    /// The notice after `elapsed` of silence.
    pub fn notice(&self, elapsed: Duration, patience: Patience) -> String {
        let end = patience.deadline.map_or_else(
            || "no limit (--remote-timeout 0)".to_owned(),
            |d| format!("ending it after {} s (--remote-timeout)", d.as_secs()),
        );
        format!(
            "waiting for {} from `{}` ({} s so far; {end}). A transport that asks something \
             (an ssh password or passphrase, an unknown host key) waits for an answer: give it \
             on this terminal, or use `ssh -T` with a key or ssh-agent and `-o BatchMode=yes`, \
             so that ssh fails instead of asking",
            self.what,
            self.shown(),
            elapsed.as_secs()
        )
    }

    /// The failure once `deadline` passed without a word.
    pub fn gave_up(&self, deadline: Duration) -> String {
        format!(
            "`{}` said nothing for {} s while idelink waited for {}, so it was ended. Check \
             that it runs without asking anything (run it by hand; for ssh: `ssh -T -o BatchMode=yes HOST true` must work, \
             with a key or ssh-agent and the host key already known) and that it runs `{}` on \
             the far side; --remote-timeout SECS waits longer (0: no limit)",
            self.shown(),
            deadline.as_secs(),
            self.what,
            self.runs
        )
    }
}

/// What [`hear`] heard.
pub enum Heard<R> {
    /// `enough` said so: the reader back, for the rest of the stream, and every byte so far.
    Enough(R, Vec<u8>),
    /// The stream ended first: every byte it carried.
    Ended(Vec<u8>),
}

/// Reads `reader` (the stdout of `child`) on a thread of its own, after the bytes `read`
/// already held, until `enough` says the words are all there (`Err`: they are wrong, with
/// what to tell) or the stream ends, while this thread keeps `patience`. Silence is told on
/// stderr; at the deadline, on wrong words or a failed read `child` is killed and reaped and
/// the failure said. A thread still blocked (a process the child started holds the pipe)
/// ends with the stream.
pub fn hear<R, F>(
    child: &mut Child,
    reader: R,
    read: Vec<u8>,
    enough: F,
    awaited: &Awaited<'_>,
    patience: Patience,
) -> Result<Heard<R>, Box<dyn Error>>
where
    R: Read + Send + 'static,
    F: Fn(&[u8]) -> Result<bool, String> + Send + 'static,
{
    let (send, heard) = mpsc::channel();
    std::thread::Builder::new()
        .name("idelink-hear".into())
        .spawn(move || {
            let _ = send.send(listen(reader, read, &enough));
        })?;
    let started = Instant::now();
    let mut told = false;
    loop {
        let result = match patience.due(started.elapsed(), told) {
            Due::Tell => {
                eprintln!("idelink: {}", awaited.notice(started.elapsed(), patience));
                told = true;
                continue;
            }
            Due::GiveUp => {
                end(child);
                let deadline = patience.deadline.unwrap_or_default();
                return Err(awaited.gave_up(deadline).into());
            }
            Due::Listen(Some(wait)) => heard.recv_timeout(wait),
            Due::Listen(None) => heard.recv().map_err(|_| RecvTimeoutError::Disconnected),
        };
        match result {
            Ok(Ok(heard)) => return Ok(heard),
            Ok(Err(said)) => {
                end(child);
                return Err(said.into());
            }
            Err(RecvTimeoutError::Timeout) => {}
            Err(RecvTimeoutError::Disconnected) => {
                end(child);
                return Err("the thread reading the remote command ended unexpectedly".into());
            }
        }
    }
}

/// The reading thread's work: chunks into `read` until `enough` or the end.
fn listen<R: Read>(
    mut reader: R,
    mut read: Vec<u8>,
    enough: &dyn Fn(&[u8]) -> Result<bool, String>,
) -> Result<Heard<R>, String> {
    let mut buf = [0u8; 4096];
    loop {
        if enough(&read)? {
            return Ok(Heard::Enough(reader, read));
        }
        let n = reader
            .read(&mut buf)
            .map_err(|e| format!("cannot read the remote command's output: {e}"))?;
        if n == 0 {
            return Ok(Heard::Ended(read));
        }
        read.extend_from_slice(&buf[..n]);
    }
}

/// Kills `child` and reaps it (a child that exited already is only reaped).
pub fn end(child: &mut Child) {
    let _ = child.kill();
    let _ = child.wait();
}

#[cfg(test)]
mod tests {
    use super::*;

    const S: fn(u64) -> Duration = Duration::from_millis;

    #[test]
    fn silence_is_told_at_the_notice_and_ended_at_the_deadline() {
        let patience = Patience::secs(30);
        assert_eq!(patience.due(S(0), false), Due::Listen(Some(S(2_000))));
        assert_eq!(patience.due(S(1_500), false), Due::Listen(Some(S(500))));
        assert_eq!(patience.due(S(2_000), false), Due::Tell);
        assert_eq!(patience.due(S(2_001), true), Due::Listen(Some(S(27_999))));
        assert_eq!(patience.due(S(30_000), true), Due::GiveUp);
        // Told late or never (a busy thread): the deadline still ends it.
        assert_eq!(patience.due(S(31_000), false), Due::GiveUp);
    }

    #[test]
    fn a_deadline_before_the_notice_ends_without_one() {
        let patience = Patience::secs(1);
        assert_eq!(patience.due(S(0), false), Due::Listen(Some(S(1_000))));
        assert_eq!(patience.due(S(1_000), false), Due::GiveUp);
    }

    #[test]
    fn no_deadline_listens_without_end_once_told() {
        let patience = Patience::secs(0);
        assert_eq!(patience.deadline, None);
        assert_eq!(patience.due(S(100), false), Due::Listen(Some(S(1_900))));
        assert_eq!(patience.due(S(2_000), false), Due::Tell);
        assert_eq!(patience.due(S(999_000), true), Due::Listen(None));
    }

    #[test]
    fn the_words_name_the_command_the_causes_and_the_flag() {
        let awaited = Awaited {
            command: "ssh -T dev idelink bridge",
            what: "the bridge's hello",
            runs: "idelink bridge",
        };
        let notice = awaited.notice(S(2_000), Patience::secs(30));
        for part in [
            "waiting for the bridge's hello from `ssh -T dev idelink bridge` (2 s so far",
            "ending it after 30 s (--remote-timeout)",
            "ssh-agent",
            "BatchMode=yes",
        ] {
            assert!(notice.contains(part), "{part:?} in {notice}");
        }
        assert!(
            awaited
                .notice(S(2_000), Patience::secs(0))
                .contains("no limit")
        );
        let failed = awaited.gave_up(S(30_000));
        for part in [
            "`ssh -T dev idelink bridge` said nothing for 30 s while idelink waited for the \
             bridge's hello",
            "so it was ended",
            "ssh -T -o BatchMode=yes HOST true",
            "runs `idelink bridge` on the far side",
            "--remote-timeout SECS",
        ] {
            assert!(failed.contains(part), "{part:?} in {failed}");
        }
    }

    #[test]
    fn the_thread_reads_until_enough_or_the_end() {
        let enough = |read: &[u8]| Ok(read.ends_with(b"\n"));
        // Two reads: the first is enough, and the rest stays in the reader handed back.
        let stream = (&b"so\nfar\n"[..]).chain(&b"rest"[..]);
        let Ok(Heard::Enough(rest, read)) = listen(stream, b"al".to_vec(), &enough) else {
            panic!("the words were enough");
        };
        assert_eq!(read, b"also\nfar\n");
        assert_eq!(rest.into_inner().1, b"rest");
        let ended = listen(&b"no end"[..], Vec::new(), &enough);
        assert!(matches!(ended, Ok(Heard::Ended(r)) if r == b"no end"));
        let wrong = |_: &[u8]| Err("wrong".to_owned());
        assert!(matches!(listen(&b""[..], Vec::new(), &wrong), Err(e) if e == "wrong"));
    }
}
