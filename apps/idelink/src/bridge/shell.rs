//! `idelink serve --remote-shell PREFIX`: PREFIX runs a shell on the far side (`ssh -T dev`,
//! `docker exec -i box`, `wsl.exe -d Ubuntu`, `kubectl exec -i pod --`; idelink appends `sh`
//! and writes each script to that shell's stdin, so no command line is quoted twice). idelink
//! asks the far side what it runs and which idelinks it has ([`super::probe`]); starts one that
//! is this very binary (the `idelink` on its PATH, or the copy in
//! `~/.cache/idelink/bin/idelink-<version>`); else copies this binary there (a private folder,
//! mode 0700, written to a temporary name, checked with POSIX `cksum`, then renamed) and starts
//! the copy. A far side of another system or architecture gets a PATH idelink of this same
//! version, or a refusal: this binary cannot run there. Every wait for the far side's words is
//! bounded ([`super::wait`]).

use super::BINARY_VERSION;
use super::cksum::cksum_line;
use super::command::shell;
use super::near::{Bridge, settle, start_bridge};
use super::probe::{
    FAR_DIR, MARK, Plan, Probe, described, exec_cached, exec_path, plan, platform_matches,
    probe_script,
};
use super::wait::{Awaited, Heard, Patience, hear};
use crate::terminal::inert;
use std::error::Error;
use std::io::{ErrorKind, Write};
use std::process::{ChildStdout, Stdio};

/// The largest binary copied: idelink's release builds are a few MiB, a debug build some
/// tens; anything bigger is not this program.
const MAX_BINARY_BYTES: usize = 512 << 20;

/// Starts the bridge through `prefix`'s far shell, copying this binary over first when the far
/// side has no idelink that is this very build; each wait for the far side as `patience` says.
pub fn spawn_through_shell(prefix: &str, patience: Patience) -> Result<Bridge, Box<dyn Error>> {
    let command = format!("{prefix} sh");
    let own = std::env::current_exe()
        .map_err(|e| format!("cannot find this idelink's own binary to copy: {e}"))?;
    let binary = std::fs::read(&own)
        .map_err(|e| format!("cannot read {} to copy it: {e}", own.display()))?;
    if binary.len() > MAX_BINARY_BYTES {
        return Err(format!("{} is not an idelink binary (too large)", own.display()).into());
    }
    let sum = cksum_line(&binary);
    let lines = run(
        &command,
        &probe_script(&sum),
        None,
        &far_shell(&command, "the far shell's answer to the probe"),
        patience,
    )?;
    let far = Probe::parse(&lines)?;
    let start = start_line(prefix, &command, &far, (&binary, &sum), patience)?;
    start_bridge(
        &command,
        start.as_bytes(),
        "did its idelink start?",
        &far_shell(&command, "the bridge's hello"),
        patience,
    )
}

/// The line that starts the bridge on the far side that `far` describes, copying `binary`
/// (whose `cksum` is `sum`) there through `command` first when the plan says so; each step
/// said on stderr.
fn start_line(
    prefix: &str,
    command: &str,
    far: &Probe,
    (binary, sum): (&[u8], &str),
    patience: Patience,
) -> Result<String, Box<dyn Error>> {
    let (os, arch) = (std::env::consts::OS, std::env::consts::ARCH);
    let runs = platform_matches(os, arch, &far.os, &far.machine);
    Ok(match plan(far, sum, runs) {
        Plan::ThisOnPath(path) => {
            eprintln!(
                "idelink: the far side's {} is this very idelink {BINARY_VERSION}: using it",
                inert::line(&path, 200)
            );
            exec_path(&path)
        }
        Plan::Cached => {
            eprintln!("idelink: the far side has this idelink {BINARY_VERSION} already");
            exec_cached()
        }
        Plan::Copy => {
            if let Some(far_idelink) = &far.path {
                eprintln!(
                    "idelink: the far side's {} is another build than this idelink \
                     {BINARY_VERSION}: copying this one to its cache",
                    described(far_idelink)
                );
            }
            let lines = run(
                command,
                &copy_script(sum),
                Some((
                    binary,
                    &far_shell(command, "the far shell's check of the copy"),
                )),
                &far_shell(command, "the far shell's go-ahead for the copy"),
                patience,
            )?;
            copied(&lines, sum)?;
            eprintln!(
                "idelink: copied idelink {BINARY_VERSION} to the far side ({} bytes)",
                binary.len()
            );
            exec_cached()
        }
        Plan::SameVersionOnPath(path) => {
            eprintln!(
                "idelink: the far side is {} {}, where this {os} {arch} build cannot run; its {} \
                 is idelink {BINARY_VERSION} too (another build): using it",
                inert::line(&far.os, 40),
                inert::line(&far.machine, 40),
                inert::line(&path, 200)
            );
            exec_path(&path)
        }
        Plan::Refuse => {
            let theirs = far.path.as_ref().map_or_else(
                || "it has no idelink on its PATH".to_owned(),
                |f| format!("its {} is another version", described(f)),
            );
            return Err(format!(
                "the far side is {} {} and this idelink is a {os} {arch} build: it cannot run \
                 there, and {theirs}. Install idelink {BINARY_VERSION} there (the release \
                 archives cover Linux x86_64 and aarch64) and use --remote-shell again, or \
                 --remote '{prefix} idelink bridge'",
                inert::line(&far.os, 40),
                inert::line(&far.machine, 40),
            )
            .into());
        }
    })
}

/// `what` from the far shell that `command` runs.
fn far_shell<'a>(command: &'a str, what: &'a str) -> Awaited<'a> {
    Awaited {
        command,
        what,
        runs: "sh",
    }
}

/// Receives the binary on stdin once it said `ready` (so no shell can have read ahead into
/// it), into a temporary name in a private folder (umask 077, `set -C`: never an existing
/// file), checks its `cksum`, makes it executable by its owner alone and renames it into
/// place. Each failure says which step, and the far side's own message is on stderr.
fn copy_script(sum: &str) -> String {
    format!(
        "{{ umask 077; set -C; d={FAR_DIR}; t=\"$d/.idelink-{BINARY_VERSION}.$$\"; \
         mkdir -p \"$d\" && chmod 700 \"$d\" || {{ echo \"{MARK}failed mkdir $d\"; exit 1; }}; \
         echo '{MARK}ready'; \
         cat > \"$t\" || {{ rm -f \"$t\"; echo \"{MARK}failed write $d\"; exit 1; }}; \
         s=$(cksum < \"$t\"); \
         [ \"$s\" = '{sum}' ] || {{ rm -f \"$t\"; echo \"{MARK}failed checksum $s\"; exit 1; }}; \
         chmod 700 \"$t\" && mv -f \"$t\" \"$d/idelink-{BINARY_VERSION}\" \
           || {{ rm -f \"$t\"; echo \"{MARK}failed move $d\"; exit 1; }}; \
         echo '{MARK}done'; }}\n"
    )
}

/// What the copy's lines say: done, or the step that failed, for a person.
fn copied(lines: &[String], sum: &str) -> Result<(), Box<dyn Error>> {
    let last = lines.last().map(String::as_str).unwrap_or("");
    let (step, rest) = last
        .strip_prefix("failed ")
        .and_then(|r| r.split_once(' '))
        .unwrap_or(("", ""));
    let rest = inert::line(rest, 400);
    Err(match (last, step) {
        ("done", _) => return Ok(()),
        (_, "mkdir") => format!(
            "cannot make {rest} on the far side (a read-only or full disk? its message is above)"
        ),
        (_, "write") => format!(
            "cannot write idelink into {rest} on the far side: the disk is full or read-only \
             (its message is above)"
        ),
        (_, "checksum") => format!(
            "the copy on the far side is damaged (cksum {rest}, sent {sum}): the transport \
             altered the bytes; nothing was installed"
        ),
        (_, "move") => format!("cannot rename the copy into {rest} on the far side"),
        _ => "the far shell ended before the copy was done (its message, if any, is above)"
            .to_owned(),
    }
    .into())
}

/// Runs `script` in the far shell of `command` and returns the script's own lines, without
/// [`MARK`]; with `payload`, sends its bytes once the script said `ready`, then ends its stdin.
/// Each wait for the far shell's words (`awaited`, then the payload's own) is kept to
/// `patience`.
fn run(
    command: &str,
    script: &str,
    payload: Option<(&[u8], &Awaited<'_>)>,
    awaited: &Awaited<'_>,
    patience: Patience,
) -> Result<Vec<String>, Box<dyn Error>> {
    let mut child = shell(command)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::inherit())
        .spawn()
        .map_err(|e| format!("cannot start the remote shell {command:?}: {e}"))?;
    let (Some(mut stdin), Some(stdout)) = (child.stdin.take(), child.stdout.take()) else {
        return Err("the remote shell has no stdin/stdout".into());
    };
    // A prefix that runs no shell there may end before it reads the script: a broken pipe is
    // then no error of ours; what the far side said (nothing) names the failed step.
    sent(stdin.write_all(script.as_bytes()))?;
    let read = match payload {
        None => {
            drop(stdin);
            to_end(&mut child, stdout, Vec::new(), awaited, patience)?
        }
        Some((payload, after)) => {
            match hear(&mut child, stdout, Vec::new(), ready, awaited, patience)? {
                Heard::Enough(stdout, read) => {
                    // A far side that stopped reading (its disk is full) says why on its stdout.
                    if ours(&read).last().map(String::as_str) == Some("ready") {
                        sent(stdin.write_all(payload))?;
                    }
                    drop(stdin);
                    to_end(&mut child, stdout, read, after, patience)?
                }
                Heard::Ended(read) => read,
            }
        }
    };
    settle(&mut child);
    Ok(ours(&read))
}

/// The rest of `stdout` after `read`, within `patience`.
fn to_end(
    child: &mut std::process::Child,
    stdout: ChildStdout,
    read: Vec<u8>,
    awaited: &Awaited<'_>,
    patience: Patience,
) -> Result<Vec<u8>, Box<dyn Error>> {
    Ok(
        match hear(child, stdout, read, |_| Ok(false), awaited, patience)? {
            Heard::Ended(read) | Heard::Enough(_, read) => read,
        },
    )
}

/// A write to the far shell: a broken pipe (it stopped reading) is said by its own lines.
fn sent(written: std::io::Result<()>) -> std::io::Result<()> {
    match written {
        Err(e) if e.kind() != ErrorKind::BrokenPipe => Err(e),
        _ => Ok(()),
    }
}

/// Whether the copy script's whole lines so far end in `ready` or a failure.
fn ready(read: &[u8]) -> Result<bool, String> {
    let whole = read
        .iter()
        .rposition(|&b| b == b'\n')
        .map_or(&read[..0], |end| &read[..=end]);
    Ok(ours(whole)
        .iter()
        .any(|l| l == "ready" || l.starts_with("failed ")))
}

/// The scripts' lines in `read` (every line starting with [`MARK`], without it).
fn ours(read: &[u8]) -> Vec<String> {
    String::from_utf8_lossy(read)
        .lines()
        .filter_map(|l| l.strip_prefix(MARK).map(str::to_owned))
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn each_failed_step_is_named_for_a_person() {
        let said = |line: &str| {
            copied(&[line.to_owned()], "1 2")
                .err()
                .map(|e| e.to_string())
                .unwrap_or_default()
        };
        assert!(copied(&["ready".into(), "done".into()], "1 2").is_ok());
        assert!(said("failed write /ro/idelink/bin").contains("full or read-only"));
        assert!(said("failed mkdir /ro/idelink/bin").contains("cannot make /ro/idelink/bin"));
        assert!(said("failed checksum 9 9").contains("damaged (cksum 9 9, sent 1 2)"));
        assert!(said("ready").contains("ended before the copy was done"));
    }

    #[test]
    fn the_copy_waits_for_a_whole_ready_or_failed_line_of_its_own() {
        assert_eq!(ready(b"Welcome!\nidelink-remote ready\n"), Ok(true));
        assert_eq!(ready(b"idelink-remote failed mkdir /x\n"), Ok(true));
        assert_eq!(ready(b"idelink-remote ready"), Ok(false), "half a line");
        assert_eq!(ready(b"ready\nidelink-remote readyish\n"), Ok(false));
        assert_eq!(
            ours(b"motd\nidelink-remote os Linux\r\nidelink-remote have none"),
            ["os Linux", "have none"]
        );
    }
}
