//! The remote case (docs/remote.md): which side of a `serve --remote` link lacks what.
//!
//! - Where claude runs: a stale lock beside a bridge's mark (`<port>.bridge`) was a killed
//!   bridge's; a live lock whose pid is `idelink bridge` is the bridge's; with one
//!   there, a `CLAUDE_CODE_SSE_PORT` naming another port sends claude elsewhere (the CLI dials
//!   that port alone: docs/protocol.md, "Discovery"); with none, in a session that is plainly
//!   remote (SSH, WSL, a container), the editor's side has not started its bridge.
//! - On the editor's side: each running `idelink serve --remote`/`--remote-shell` of this user,
//!   whether its bridge (its child, the transport) is still there, and whether the folder is
//!   inside one of its `--map` pairs.
//!
//! Processes are read from Linux's `/proc` (`cmdline`, `task/<tid>/children`), from `ps` on
//! the other Unix systems (macOS, the BSDs: `doctor/ps.rs`); on Windows these checks find
//! nothing and say nothing.

use super::locks::FoundLock;
use super::report::{Finding, Level};
use super::rules::folder_contains;

/// One process's command line, as read from the OS.
#[derive(Debug, Clone)]
pub struct Process {
    /// Its pid.
    pub pid: u32,
    /// Its arguments, the program first.
    pub args: Vec<String>,
    /// Whether it has child processes (`None`: the OS did not say).
    pub has_children: Option<bool>,
}

/// The variables that mark a session on another machine than the editor's, with their words.
const REMOTE_MARKS: [(&str, &str); 4] = [
    ("SSH_CONNECTION", "an SSH session"),
    ("WSL_DISTRO_NAME", "WSL"),
    ("REMOTE_CONTAINERS", "a devcontainer"),
    ("KUBERNETES_SERVICE_HOST", "a Kubernetes pod"),
];

/// Whether `args` is `idelink bridge` (the program's file name starts with `idelink`: the
/// copy `serve --remote-shell` makes is `idelink-<version>`).
pub fn is_bridge(args: &[String]) -> bool {
    let program = args.first().map(|p| p.rsplit('/').next().unwrap_or(p));
    program.is_some_and(|p| p.starts_with("idelink")) && args.get(1).is_some_and(|a| a == "bridge")
}

/// The `--map` values of `idelink serve` with `--remote` or `--remote-shell`, or `None` when
/// `args` is not such a command.
pub fn remote_serve_maps(args: &[String]) -> Option<Vec<String>> {
    let program = args.first().map(|p| p.rsplit('/').next().unwrap_or(p))?;
    let remote = |a: &String| {
        ["--remote", "--remote-shell"]
            .iter()
            .any(|o| a == o || a.starts_with(&format!("{o}=")))
    };
    if !program.starts_with("idelink") || args.get(1)? != "serve" || !args.iter().any(remote) {
        return None;
    }
    let mut maps = Vec::new();
    let mut rest = args.iter();
    while let Some(arg) = rest.next() {
        if arg == "--map" {
            maps.extend(rest.next().cloned());
        } else if let Some(map) = arg.strip_prefix("--map=") {
            maps.push(map.to_owned());
        }
    }
    Some(maps)
}

/// The findings where claude runs: `live` are the live locks with their pid's process.
pub fn far_findings(
    live: &[(&FoundLock, Option<Process>)],
    sse_port: Option<u16>,
    var: &dyn Fn(&str) -> Option<String>,
) -> Vec<Finding> {
    let bridges: Vec<(u16, u32)> = live
        .iter()
        .filter(|(_, process)| process.as_ref().is_some_and(|p| is_bridge(&p.args)))
        .filter_map(|(lock, process)| Some((lock.port?, process.as_ref()?.pid)))
        .collect();
    let mut found: Vec<Finding> = bridges
        .iter()
        .map(|(port, pid)| {
            Finding::ok(
                "remote",
                format!("port {port} is an idelink bridge (pid {pid}): its editor is on the other side of its link"),
            )
        })
        .collect();
    let ports: Vec<u16> = live.iter().filter_map(|(lock, _)| lock.port).collect();
    match (sse_port, bridges.first()) {
        (Some(sse), Some((bridge, _))) if !ports.contains(&sse) => found.push(Finding::new(
            Level::Fail,
            "remote",
            format!(
                "CLAUDE_CODE_SSE_PORT={sse} names no live lock here; the bridge listens on {bridge}: \
                 claude dials {sse} alone"
            ),
            Some("unset CLAUDE_CODE_SSE_PORT, or export CLAUDE_CODE_SSE_PORT=<the bridge's port>"),
        )),
        (_, None) if live.is_empty() => {
            if let Some((name, words)) = REMOTE_MARKS.iter().find(|(name, _)| var(name).is_some()) {
                found.push(Finding::new(
                    Level::Fail,
                    "remote",
                    format!("this is {words} ({name} is set) and no bridge lock is here"),
                    Some("on the editor's machine, run `idelink serve --remote-shell 'ssh -T <this host>' --map <path here>=<path there> <workspace>` (docs/remote.md)"),
                ));
            }
        }
        _ => {}
    }
    found
}

/// A stale lock (its pid dead) that its mark says was a bridge's (bridge/marker.rs).
pub fn dead_bridge(lock: &FoundLock) -> Option<Finding> {
    let (Ok(body), Some(port)) = (&lock.body, lock.port) else {
        return None;
    };
    (!lock.pid_alive && crate::bridge::marks_bridge(&lock.path, body.pid)).then(|| {
        Finding::new(
            Level::Fail,
            "remote",
            format!(
                "port {port} was an idelink bridge's (pid {}, gone): it ended without removing its lock (killed?), so its editor's link is gone too",
                body.pid
            ),
            Some("start serve --remote again on the editor's machine (the new bridge sweeps this lock)"),
        )
    })
}

/// The findings on the editor's side for `dir`: each running `serve --remote` process.
pub fn editor_findings(processes: &[Process], dir: &str) -> Vec<Finding> {
    let mut found = Vec::new();
    for process in processes {
        let Some(maps) = remote_serve_maps(&process.args) else {
            continue;
        };
        let pid = process.pid;
        if process.has_children == Some(false) {
            found.push(Finding::new(
                Level::Fail,
                "remote",
                format!("serve --remote (pid {pid}) runs without its bridge: the link ended"),
                Some("stop it and start it again (its messages say why the link ended)"),
            ));
        } else {
            found.push(Finding::ok(
                "remote",
                format!("serve --remote (pid {pid}) is running with its bridge"),
            ));
        }
        let locals: Vec<&str> = maps
            .iter()
            .filter_map(|m| m.split_once('=').map(|(_, local)| local))
            .collect();
        if !locals.is_empty()
            && !locals
                .iter()
                .any(|l| folder_contains(l.trim_end_matches('/'), dir))
        {
            found.push(Finding::new(
                Level::Warn,
                "remote",
                format!(
                    "{dir} is outside every --map of serve --remote (pid {pid}): {}; claude on the far side has no name for it",
                    maps.join(", ")
                ),
                Some("add a --map REMOTE=LOCAL pair that covers this folder, or open a folder inside one"),
            ));
        }
    }
    found
}

/// This user's processes (Linux: `/proc/<pid>/cmdline`; the others' are unreadable or skipped).
#[cfg(target_os = "linux")]
pub fn processes() -> Vec<Process> {
    let Ok(entries) = std::fs::read_dir("/proc") else {
        return Vec::new();
    };
    entries
        .flatten()
        .filter_map(|e| e.file_name().to_str()?.parse::<u32>().ok())
        .filter_map(process)
        .collect()
}

/// This user's processes, as `ps` lists them.
#[cfg(all(unix, not(target_os = "linux")))]
pub fn processes() -> Vec<Process> {
    super::ps::processes()
}

/// On Windows the OS is not asked.
#[cfg(windows)]
pub fn processes() -> Vec<Process> {
    Vec::new()
}

/// One process of this user, from `/proc/<pid>`.
#[cfg(target_os = "linux")]
pub fn process(pid: u32) -> Option<Process> {
    use std::os::unix::fs::MetadataExt;
    let dir = format!("/proc/{pid}");
    let mine = std::fs::metadata(&dir).ok()?.uid() == rustix::process::getuid().as_raw();
    if !mine {
        return None;
    }
    let cmdline = std::fs::read(format!("{dir}/cmdline")).ok()?;
    let args = cmdline
        .split(|&b| b == 0)
        .filter(|a| !a.is_empty())
        .map(|a| String::from_utf8_lossy(a).into_owned())
        .collect();
    let has_children = std::fs::read_dir(format!("{dir}/task")).ok().map(|tasks| {
        tasks.flatten().any(|task| {
            std::fs::read_to_string(task.path().join("children"))
                .is_ok_and(|c| !c.trim().is_empty())
        })
    });
    Some(Process {
        pid,
        args,
        has_children,
    })
}

/// One process of this user, from `ps`'s list.
#[cfg(all(unix, not(target_os = "linux")))]
pub fn process(pid: u32) -> Option<Process> {
    processes().into_iter().find(|p| p.pid == pid)
}

/// On Windows the OS is not asked.
#[cfg(windows)]
pub fn process(_pid: u32) -> Option<Process> {
    None
}

#[cfg(test)]
mod tests {
    use super::*;

    fn args(text: &str) -> Vec<String> {
        text.split(' ').map(str::to_owned).collect()
    }

    #[test]
    fn a_bridge_is_told_by_its_command_line() {
        assert!(is_bridge(&args("/usr/bin/idelink bridge")));
        assert!(is_bridge(&args(
            "/home/me/.cache/idelink/bin/idelink-0.1.0 bridge --lock-dir x"
        )));
        assert!(!is_bridge(&args("/usr/bin/idelink serve bridge")));
        assert!(!is_bridge(&args("/usr/bin/other bridge")));
    }

    #[test]
    fn the_maps_of_a_remote_serve_are_read_in_both_spellings() {
        let maps = remote_serve_maps(&args("idelink serve --remote x --map /a=/b --map=/c=/d ."));
        assert_eq!(maps, Some(vec!["/a=/b".to_owned(), "/c=/d".to_owned()]));
        assert_eq!(
            remote_serve_maps(&args("idelink serve --map /a=/b .")),
            None
        );
        assert_eq!(
            remote_serve_maps(&args("idelink serve --remote-shell=x")),
            Some(vec![])
        );
    }

    #[test]
    fn a_folder_outside_every_map_and_a_dead_link_are_found() {
        let serve = |children| Process {
            pid: 7,
            args: args("idelink serve --remote x --map /far=/work ."),
            has_children: Some(children),
        };
        let found = editor_findings(&[serve(false)], "/elsewhere");
        let messages: Vec<_> = found
            .iter()
            .map(|f| (f.level, f.message.as_str()))
            .collect();
        assert!(matches!(messages[0], (Level::Fail, m) if m.contains("runs without its bridge")));
        assert!(
            matches!(messages[1], (Level::Warn, m) if m.contains("/elsewhere is outside every --map"))
        );
        let found = editor_findings(&[serve(true)], "/work/src");
        assert_eq!(found.len(), 1);
        assert_eq!(found[0].level, Level::Ok);
    }
}
