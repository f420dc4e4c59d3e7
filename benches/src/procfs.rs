//! What Linux says about a server process: CPU time and resident memory, from `/proc`.

use std::fs;
use std::io;

/// Clock ticks per second in `/proc/<pid>/stat` (USER_HZ, 100 on every Linux ABI).
const TICKS_PER_SECOND: f64 = 100.0;

/// User plus system CPU time the process has used, all threads, in seconds
/// (`/proc/<pid>/stat` fields 14 and 15; resolution 10 ms).
pub fn cpu_seconds(pid: u32) -> io::Result<f64> {
    let stat = fs::read_to_string(format!("/proc/{pid}/stat"))?;
    // The command name (field 2) is parenthesized and may hold spaces: count from its end.
    let after_name = stat.rsplit_once(')').map_or("", |(_, rest)| rest);
    let fields: Vec<&str> = after_name.split_whitespace().collect();
    let field = |n: usize| -> io::Result<f64> {
        // `after_name` starts at field 3 (state).
        fields
            .get(n - 3)
            .and_then(|f| f.parse::<f64>().ok())
            .ok_or_else(|| io::Error::other(format!("/proc/{pid}/stat has no field {n}")))
    };
    Ok((field(14)? + field(15)?) / TICKS_PER_SECOND)
}

/// The resident set now (`VmRSS`) and its peak (`VmHWM`), in bytes.
pub fn rss_bytes(pid: u32) -> io::Result<(u64, u64)> {
    let status = fs::read_to_string(format!("/proc/{pid}/status"))?;
    let kib = |key: &str| -> io::Result<u64> {
        status
            .lines()
            .find_map(|line| line.strip_prefix(key))
            .and_then(|rest| rest.split_whitespace().next())
            .and_then(|n| n.parse::<u64>().ok())
            .map(|n| n * 1024)
            .ok_or_else(|| io::Error::other(format!("/proc/{pid}/status has no {key}")))
    };
    Ok((kib("VmRSS:")?, kib("VmHWM:")?))
}

/// Context switches of every thread of the process so far (`voluntary_ctxt_switches` plus
/// `nonvoluntary_ctxt_switches` of each `/proc/<pid>/task/*/status`): each is a time the
/// thread stopped running, so between two readings of an idle process, its wakeups.
pub fn context_switches(pid: u32) -> io::Result<u64> {
    let mut total = 0;
    for task in fs::read_dir(format!("/proc/{pid}/task"))? {
        let status = match fs::read_to_string(task?.path().join("status")) {
            Ok(status) => status,
            // A thread that ended between the listing and the read.
            Err(e) if e.kind() == io::ErrorKind::NotFound => continue,
            Err(e) => return Err(e),
        };
        total += status
            .lines()
            .filter(|line| line.contains("ctxt_switches:"))
            .filter_map(|line| line.split_whitespace().nth(1)?.parse::<u64>().ok())
            .sum::<u64>();
    }
    Ok(total)
}

/// Resets the process's peak resident set to its current one (`/proc/<pid>/clear_refs`, 5),
/// so the next `VmHWM` is the peak since now.
pub fn reset_peak_rss(pid: u32) -> io::Result<()> {
    fs::write(format!("/proc/{pid}/clear_refs"), "5")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn this_process_has_cpu_time_and_memory() {
        let pid = std::process::id();
        let spin: u64 = (0..20_000_000u64).fold(0, |a, b| a.wrapping_add(b * b));
        std::hint::black_box(spin);
        assert!(cpu_seconds(pid).unwrap_or(-1.0) >= 0.0);
        let (rss, peak) = rss_bytes(pid).unwrap_or((0, 0));
        assert!(rss > 0 && peak >= rss, "{rss} {peak}");
        let before = context_switches(pid).unwrap_or(0);
        std::thread::sleep(std::time::Duration::from_millis(2));
        assert!(context_switches(pid).unwrap_or(0) > before);
    }
}
