//! This user's processes from `ps`, where there is no `/proc` to read (macOS, the BSDs):
//! `ps -ww -U <uid> -o pid= -o ppid= -o args=` (POSIX's `-U`, real user IDs, and fields;
//! `-ww` for no width limit, which macOS, the BSDs and procps all take; not `-u`, which is a
//! format on macOS and the BSDs). `ps` prints a command line joined with blanks, so the
//! arguments are read back split at blanks: an argument holding a blank (a `--map` path with a
//! space) reads as several.

use super::remote::Process;

/// Every process in `ps`'s lines `listing` (`PID PPID ARGS…`), each said to have children
/// when another line names it as its parent. A line that is not two numbers and a command is
/// skipped.
pub fn parse(listing: &str) -> Vec<Process> {
    let rows: Vec<(u32, u32, Vec<String>)> = listing
        .lines()
        .filter_map(|line| {
            let mut words = line.split_whitespace();
            let pid = words.next()?.parse().ok()?;
            let ppid = words.next()?.parse().ok()?;
            let args: Vec<String> = words.map(str::to_owned).collect();
            (!args.is_empty()).then_some((pid, ppid, args))
        })
        .collect();
    rows.iter()
        .map(|(pid, _, args)| Process {
            pid: *pid,
            args: args.clone(),
            has_children: Some(rows.iter().any(|(_, ppid, _)| ppid == pid)),
        })
        .collect()
}

/// This user's processes as `ps` lists them; none when `ps` cannot be run.
pub fn processes() -> Vec<Process> {
    let uid = rustix::process::getuid().as_raw().to_string();
    let listed = std::process::Command::new("ps")
        .args([
            "-ww", "-U", &uid, "-o", "pid=", "-o", "ppid=", "-o", "args=",
        ])
        .stdin(std::process::Stdio::null())
        .stderr(std::process::Stdio::null())
        .output();
    match listed {
        Ok(out) if out.status.success() => parse(&String::from_utf8_lossy(&out.stdout)),
        _ => Vec::new(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// macOS 14's `ps -ww -U 501 -o pid= -o ppid= -o args=`, shortened.
    const MACOS: &str = "\
  412     1 /System/Library/CoreServices/Finder.app/Contents/MacOS/Finder
 8801  8790 /Users/me/bin/idelink serve --remote-shell ssh -T dev --map /home/me/p=/Users/me/p .
 8802  8801 ssh -T dev sh
 8810  8790 /Users/me/bin/idelink serve --remote ssh dev idelink bridge
 garbage line
";

    #[test]
    fn each_line_is_a_process_and_a_parent_has_children() {
        let found = parse(MACOS);
        let pids: Vec<_> = found.iter().map(|p| (p.pid, p.has_children)).collect();
        assert_eq!(
            pids,
            [
                (412, Some(false)),
                (8801, Some(true)),
                (8802, Some(false)),
                (8810, Some(false))
            ]
        );
        assert_eq!(found[2].args, ["ssh", "-T", "dev", "sh"]);
        let maps = super::super::remote::remote_serve_maps(&found[1].args);
        assert_eq!(maps, Some(vec!["/home/me/p=/Users/me/p".to_owned()]));
    }

    /// The real `ps` of this machine lists this test and its child.
    #[test]
    fn ps_lists_this_process_and_its_child() {
        let mut child = std::process::Command::new("sleep")
            .arg("5")
            .spawn()
            .unwrap_or_else(|e| panic!("start sleep: {e}"));
        let found = processes();
        let _ = child.kill();
        let _ = child.wait();
        let me = found.iter().find(|p| p.pid == std::process::id());
        assert_eq!(me.and_then(|p| p.has_children), Some(true), "{found:?}");
        let sleep = found.iter().find(|p| p.pid == child.id());
        assert_eq!(
            sleep.map(|p| p.args.clone()),
            Some(vec!["sleep".to_owned(), "5".to_owned()])
        );
    }
}
