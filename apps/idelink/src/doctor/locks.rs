//! Reading the lock directories as the CLI does: `$CLAUDE_CONFIG_DIR/ide`
//! when set, and `~/.claude/ide` always; every `<port>.lock` in them, read by the regular-file
//! rules ([`read_lock_file`]: a FIFO or a device named `x.lock` is reported, never waited on),
//! parsed with [`LockFile::parse`], with whether its `pid` is alive.

use super::rules::{candidate, choose_lock};
use idelink_core::discovery::{Candidate, LockChoice};
use idelink_core::host_rules::lock_dir::{ConfigDir, LOCK_SUBDIR};
use idelink_core::lockfile::LockFile;
use idelink_host::lock::read_lock_file;
use std::error::Error;
use std::fs;
use std::path::{Path, PathBuf};

/// One `*.lock` file found.
#[derive(Debug)]
pub struct FoundLock {
    /// Its path.
    pub path: PathBuf,
    /// The port from its name (`None`: not a name the CLI reads a port from).
    pub port: Option<u16>,
    /// The parsed body, or why it could not be read or parsed.
    pub body: Result<LockFile, String>,
    /// Whether the body's pid is alive (`false` when there is no body).
    pub pid_alive: bool,
}

impl FoundLock {
    /// A lock the CLI keeps: a port name, a body, a live pid. The CLI deletes the others.
    pub fn is_live(&self) -> bool {
        self.port.is_some() && self.body.is_ok() && self.pid_alive
    }
}

/// A lock directory and what it holds.
#[derive(Debug)]
pub struct LockDir {
    /// The directory.
    pub path: PathBuf,
    /// Whether it exists.
    pub exists: bool,
    /// Problems with its owner or mode, each with the fix.
    pub problems: Vec<String>,
    /// Its `*.lock` files, by name.
    pub locks: Vec<FoundLock>,
}

/// The directories the CLI searches, in its order, without duplicates.
pub fn search_dirs(config_dir: Option<&str>, home: Option<&str>) -> Vec<PathBuf> {
    let mut dirs = Vec::new();
    for located in [
        ConfigDir::locate(config_dir, home),
        ConfigDir::locate(None, home),
    ]
    .into_iter()
    .flatten()
    {
        let dir: PathBuf = located
            .components()
            .iter()
            .collect::<PathBuf>()
            .join(LOCK_SUBDIR);
        if !dirs.contains(&dir) {
            dirs.push(dir);
        }
    }
    dirs
}

/// Reads one directory.
pub fn read_dir(dir: &Path) -> LockDir {
    let mut found = LockDir {
        path: dir.to_owned(),
        exists: false,
        problems: Vec::new(),
        locks: Vec::new(),
    };
    let entries = match fs::read_dir(dir) {
        Ok(entries) => entries,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => return found,
        Err(e) => {
            found.exists = true;
            found
                .problems
                .push(format!("cannot read it: {e}; claude cannot either"));
            return found;
        }
    };
    found.exists = true;
    found.problems = dir_problems(dir);
    let mut names: Vec<String> = entries
        .flatten()
        .filter_map(|e| e.file_name().into_string().ok())
        .filter(|name| name.ends_with(".lock"))
        .collect();
    names.sort();
    for name in names {
        let path = dir.join(&name);
        let body = read_lock_file(&path)
            .map_err(|e| format!("cannot read: {e}"))
            .and_then(|text| LockFile::parse(&text).map_err(|e| e.to_string()));
        let pid_alive = body.as_ref().is_ok_and(|lock| pid_alive(lock.pid));
        found.locks.push(FoundLock {
            port: LockFile::port_from_file_name(&name),
            path,
            body,
            pid_alive,
        });
    }
    found
}

/// Whether `pid` is alive as the CLI asks: `kill(pid, 0)` succeeds. A live process of another
/// user fails the check too (EPERM), and the CLI deletes its lock.
#[cfg(unix)]
fn pid_alive(pid: u32) -> bool {
    let Some(pid) = i32::try_from(pid)
        .ok()
        .and_then(rustix::process::Pid::from_raw)
    else {
        return false;
    };
    rustix::process::test_kill_process(pid).is_ok()
}

/// Windows: the CLI's check is `process.kill(pid, 0)`, which Node answers by opening the
/// process and asking whether it has ended; idelink-mio's check does the same (it counts a
/// process it may not open as alive, where Node's check fails: rare for one user's locks).
#[cfg(not(unix))]
fn pid_alive(pid: u32) -> bool {
    idelink_host::lock::pid_is_alive(pid)
}

/// Owner and mode problems (idelink-core's "Security" docs): the directory must be a real directory
/// of this user, mode 0700.
#[cfg(unix)]
fn dir_problems(dir: &Path) -> Vec<String> {
    use std::os::unix::fs::MetadataExt;
    let mut problems = Vec::new();
    let Ok(meta) = fs::symlink_metadata(dir) else {
        return problems;
    };
    if meta.file_type().is_symlink() {
        problems.push(format!(
            "it is a symbolic link; idelink refuses it: replace it with a directory (mkdir -m 700 {})",
            dir.display()
        ));
        return problems;
    }
    let me = rustix::process::getuid().as_raw();
    if meta.uid() != me {
        problems.push(format!(
            "it belongs to uid {}, not to you (uid {me}): another user can read the tokens; \
             remove it and let idelink create it",
            meta.uid()
        ));
    }
    let mode = meta.mode() & 0o777;
    if mode & 0o077 != 0 {
        problems.push(format!(
            "its mode is {mode:03o}: others can list it; fix: chmod 700 {}",
            dir.display()
        ));
    }
    problems
}

/// Windows: the directory's ACL is set at creation; nothing to check by mode.
#[cfg(not(unix))]
fn dir_problems(_dir: &Path) -> Vec<String> {
    Vec::new()
}

/// The port of the one live server whose lock contains `dir`, by the CLI's matching rules;
/// the error says what to do when there is none or more than one.
pub fn serving_port(dir: &str) -> Result<u16, Box<dyn Error>> {
    serving_lock(dir).map(|(port, _)| port)
}

/// [`serving_port`] with the path of the lock it was read from.
pub fn serving_lock(dir: &str) -> Result<(u16, PathBuf), Box<dyn Error>> {
    let config_dir = std::env::var("CLAUDE_CONFIG_DIR").ok();
    let home = std::env::var("HOME")
        .or_else(|_| std::env::var("USERPROFILE"))
        .ok();
    let candidates: Vec<(Candidate, PathBuf)> = search_dirs(config_dir.as_deref(), home.as_deref())
        .iter()
        .flat_map(|d| read_dir(d).locks)
        .filter(|lock| lock.is_live())
        .filter_map(|lock| {
            let path = lock.path.clone();
            Some((
                candidate(lock.port?, &lock.body.ok()?.workspace_folders),
                path,
            ))
        })
        .collect();
    let (candidates, paths): (Vec<Candidate>, Vec<PathBuf>) = candidates.into_iter().unzip();
    match choose_lock(&candidates, dir, None, false) {
        LockChoice::One { port } => {
            let at = candidates.iter().position(|c| c.port == port);
            let path = at.and_then(|at| paths.get(at)).cloned().unwrap_or_default();
            Ok((port, path))
        }
        LockChoice::None => Err(format!(
            "no running server has {dir} in its workspace; start one with `idelink serve` \
             there (or open the folder in your editor); `idelink doctor` shows what it found"
        )
        .into()),
        LockChoice::Ambiguous { ports } => Err(format!(
            "{} servers have {dir} in their workspace (ports {}); stop all but one, or name \
             one with `idelink env PORT`",
            ports.len(),
            ports
                .iter()
                .map(u16::to_string)
                .collect::<Vec<_>>()
                .join(", ")
        )
        .into()),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_cli_searches_the_config_dir_and_the_home_dir_once_each() {
        let both = search_dirs(Some("/c"), Some("/h"));
        assert_eq!(
            both,
            vec![PathBuf::from("/c/ide"), PathBuf::from("/h/.claude/ide")]
        );
        let same = search_dirs(Some("/h/.claude"), Some("/h"));
        assert_eq!(same, vec![PathBuf::from("/h/.claude/ide")]);
        assert_eq!(
            search_dirs(None, Some("/h")),
            vec![PathBuf::from("/h/.claude/ide")]
        );
        assert!(search_dirs(None, None).is_empty());
    }

    #[test]
    fn locks_are_read_with_their_liveness_and_bad_ones_are_reported() {
        let dir = std::env::temp_dir().join(format!("idelink-doctor-locks-{}", std::process::id()));
        fs::create_dir_all(&dir).expect("temp dir");
        let live = LockFile {
            pid: std::process::id(),
            workspace_folders: vec!["/p".into()],
            ide_name: "x".into(),
            auth_token: "t".into(),
            running_in_windows: false,
        };
        fs::write(dir.join("4001.lock"), live.to_json()).expect("write");
        fs::write(dir.join("4002.lock"), "{").expect("write");
        fs::write(dir.join("notes.txt"), "").expect("write");
        let found = read_dir(&dir);
        fs::remove_dir_all(&dir).expect("cleanup");
        assert!(found.exists);
        assert_eq!(found.locks.len(), 2);
        assert!(found.locks[0].is_live());
        assert_eq!(found.locks[0].port, Some(4001));
        assert!(!found.locks[1].is_live());
        assert!(found.locks[1].body.is_err());
    }

    #[cfg(unix)]
    #[test]
    fn a_lock_directory_others_can_list_is_reported_with_the_fix() {
        use std::os::unix::fs::PermissionsExt;
        let dir = std::env::temp_dir().join(format!("idelink-doctor-mode-{}", std::process::id()));
        fs::create_dir_all(&dir).expect("temp dir");
        fs::set_permissions(&dir, fs::Permissions::from_mode(0o755)).expect("chmod");
        let loose = dir_problems(&dir);
        fs::set_permissions(&dir, fs::Permissions::from_mode(0o700)).expect("chmod");
        let tight = dir_problems(&dir);
        fs::remove_dir_all(&dir).expect("cleanup");
        assert_eq!(loose.len(), 1, "{loose:?}");
        assert!(loose[0].starts_with("its mode is 755") && loose[0].contains("chmod 700"));
        assert!(tight.is_empty(), "{tight:?}");
    }
}
