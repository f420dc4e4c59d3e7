//! `idelink serve --remote-shell PREFIX`: PREFIX runs a shell on the far side (`ssh -T dev`,
//! `docker exec -i box`, `wsl.exe -d Ubuntu`, `kubectl exec -i pod --`; idelink appends `sh`
//! and writes each script to that shell's stdin, so no command line is quoted twice). idelink
//! asks the far side what it runs (`uname -s`, `uname -m`) and whether it holds this very
//! binary (POSIX `cksum` of `~/.cache/idelink/bin/idelink-<version>`); copies it there when not
//! (a private folder, mode 0700, written to a temporary name, checked, then renamed); then
//! starts that copy as the bridge. A far side of another system or architecture is refused:
//! this binary cannot run there.

use super::BINARY_VERSION;
use super::cksum::cksum_line;
use super::near::{Bridge, shell, start_bridge};
use crate::terminal::inert;
use std::error::Error;
use std::io::{BufRead, BufReader, ErrorKind, Write};
use std::process::{ChildStdout, Stdio};

/// The far side's folder for idelink's copies: the user's own cache (XDG's rule), never a
/// shared folder such as /tmp.
const FAR_DIR: &str = "\"${XDG_CACHE_HOME:-$HOME/.cache}/idelink/bin\"";

/// The prefix of every line the scripts print (anything else on stdout, say a login
/// script's greeting, is not theirs and is skipped).
const MARK: &str = "idelink-remote ";

/// The largest binary copied: idelink's release builds are a few MiB, a debug build some
/// tens; anything bigger is not this program.
const MAX_BINARY_BYTES: usize = 512 << 20;

/// Starts the bridge through `prefix`'s far shell, copying this binary over first when the far
/// side lacks it.
pub fn spawn_through_shell(prefix: &str) -> Result<Bridge, Box<dyn Error>> {
    let command = format!("{prefix} sh");
    let own = std::env::current_exe()
        .map_err(|e| format!("cannot find this idelink's own binary to copy: {e}"))?;
    let binary = std::fs::read(&own)
        .map_err(|e| format!("cannot read {} to copy it: {e}", own.display()))?;
    if binary.len() > MAX_BINARY_BYTES {
        return Err(format!("{} is not an idelink binary (too large)", own.display()).into());
    }
    let sum = cksum_line(&binary);
    let far = Probe::parse(&run(&command, &probe_script(), None)?)?;
    if !platform_matches(
        std::env::consts::OS,
        std::env::consts::ARCH,
        &far.os,
        &far.machine,
    ) {
        return Err(format!(
            "the far side is {} {} and this idelink is a {} {} build: it cannot run there. \
             Install idelink there (the release archives cover Linux x86_64 and aarch64) and \
             use --remote '{prefix} idelink bridge'",
            inert::line(&far.os, 40),
            inert::line(&far.machine, 40),
            std::env::consts::OS,
            std::env::consts::ARCH
        )
        .into());
    }
    if far.have.as_deref() == Some(sum.as_str()) {
        eprintln!("idelink: the far side has this idelink {BINARY_VERSION} already");
    } else {
        let lines = run(&command, &copy_script(&sum), Some(&binary))?;
        copied(&lines, &sum)?;
        eprintln!(
            "idelink: copied idelink {BINARY_VERSION} to the far side ({} bytes)",
            binary.len()
        );
    }
    start_bridge(
        &command,
        format!("exec {FAR_DIR}/idelink-{BINARY_VERSION} bridge\n").as_bytes(),
        "did its copy of idelink start?",
    )
}

/// What the far side said about itself.
#[derive(Debug, PartialEq, Eq)]
struct Probe {
    os: String,
    machine: String,
    /// `cksum` of its copy of this version, when it has one.
    have: Option<String>,
}

impl Probe {
    fn parse(lines: &[String]) -> Result<Probe, Box<dyn Error>> {
        let field = |key: &str| {
            lines
                .iter()
                .find_map(|l| l.strip_prefix(key))
                .map(str::trim)
                .map(str::to_owned)
        };
        let (Some(os), Some(machine)) = (field("os "), field("machine ")) else {
            return Err(
                "the far shell did not answer `uname`: is PREFIX a command that runs \
                        `sh` there (`ssh -T host`, `docker exec -i box`)?"
                    .into(),
            );
        };
        Ok(Probe {
            os,
            machine,
            have: field("have ").filter(|have| have != "none"),
        })
    }
}

/// Whether this build (`os`, `arch` as Rust names them) runs where `uname -s` says
/// `their_os` and `uname -m` says `their_machine`.
fn platform_matches(os: &str, arch: &str, their_os: &str, their_machine: &str) -> bool {
    let os_matches = match os {
        "linux" => their_os == "Linux",
        "macos" => their_os == "Darwin",
        "freebsd" => their_os == "FreeBSD",
        _ => false,
    };
    let arch_matches = match arch {
        "x86_64" => matches!(their_machine, "x86_64" | "amd64"),
        "aarch64" => matches!(their_machine, "aarch64" | "arm64"),
        other => their_machine == other,
    };
    os_matches && arch_matches
}

fn probe_script() -> String {
    format!(
        "{{ b={FAR_DIR}/idelink-{BINARY_VERSION}; \
         printf '{MARK}os %s\\n{MARK}machine %s\\n' \"$(uname -s)\" \"$(uname -m)\"; \
         if [ -f \"$b\" ]; then printf '{MARK}have %s\\n' \"$(cksum < \"$b\")\"; \
         else echo '{MARK}have none'; fi; }}\n"
    )
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

/// Runs `script` in the far shell of `command`; with `payload`, sends it once the script
/// said `ready`, then ends its stdin. Returns the script's own lines, without [`MARK`].
fn run(command: &str, script: &str, payload: Option<&[u8]>) -> Result<Vec<String>, Box<dyn Error>> {
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
    match stdin.write_all(script.as_bytes()) {
        Err(e) if e.kind() != ErrorKind::BrokenPipe => return Err(e.into()),
        _ => {}
    }
    let mut lines = BufReader::new(stdout).lines();
    let mut said = Vec::new();
    if let Some(payload) = payload {
        said.extend(until_ready(&mut lines));
        if said.last().map(String::as_str) == Some("ready") {
            // A far side that stopped reading (its disk is full) says why on its stdout.
            match stdin.write_all(payload) {
                Err(e) if e.kind() != ErrorKind::BrokenPipe => return Err(e.into()),
                _ => {}
            }
        }
    }
    drop(stdin);
    said.extend(ours(lines));
    let _ = child.wait();
    Ok(said)
}

/// The script's lines up to and with `ready` (or all of them when it never says it).
fn until_ready(lines: &mut std::io::Lines<BufReader<ChildStdout>>) -> Vec<String> {
    let mut said = Vec::new();
    for line in lines.map_while(Result::ok) {
        if let Some(ours) = line.strip_prefix(MARK) {
            said.push(ours.to_owned());
            if ours == "ready" || ours.starts_with("failed ") {
                break;
            }
        }
    }
    said
}

fn ours(lines: std::io::Lines<BufReader<ChildStdout>>) -> Vec<String> {
    lines
        .map_while(Result::ok)
        .filter_map(|l| l.strip_prefix(MARK).map(str::to_owned))
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_build_runs_only_on_its_own_system_and_architecture() {
        assert!(platform_matches("linux", "x86_64", "Linux", "x86_64"));
        assert!(platform_matches("linux", "aarch64", "Linux", "aarch64"));
        assert!(platform_matches("macos", "aarch64", "Darwin", "arm64"));
        assert!(!platform_matches("linux", "x86_64", "Linux", "aarch64"));
        assert!(!platform_matches("linux", "x86_64", "Darwin", "x86_64"));
        assert!(!platform_matches("windows", "x86_64", "Linux", "x86_64"));
    }

    #[test]
    fn the_probe_answer_is_read_by_its_keys() {
        let lines = ["os Linux", "machine x86_64", "have 12 34"].map(str::to_owned);
        let probe = Probe::parse(&lines).map_err(|e| e.to_string());
        assert_eq!(
            probe,
            Ok(Probe {
                os: "Linux".into(),
                machine: "x86_64".into(),
                have: Some("12 34".into())
            })
        );
        let none = ["machine x86_64", "os Linux", "have none"].map(str::to_owned);
        assert_eq!(Probe::parse(&none).ok().and_then(|p| p.have), None);
        assert!(Probe::parse(&[]).is_err());
    }

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
}
