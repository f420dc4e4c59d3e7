//! Which `claude` runs: the one lookup `idelink claude` starts and `idelink doctor` reports, so
//! the two always name the same file.
//!
//! `idelink claude` starts the program inside the workspace. Left to the OS, a bare name is
//! looked up after that change of folder, and an empty or relative `PATH` entry (a trailing
//! `:`, a `.`) then names a file of the workspace: a repository's own `claude` would run. So the
//! program is resolved first, in the folder idelink was started in, and only `PATH`'s absolute
//! entries are searched (POSIX `execvp` reads an empty entry as the current folder; Windows'
//! `SearchPath` also tries the current folder: neither is followed).

use std::ffi::{OsStr, OsString};
use std::path::{Path, PathBuf};

/// The variable naming the claude program (`idelink claude --claude`'s default); the doctor
/// reads it too.
pub const PROGRAM_VAR: &str = "IDELINK_CLAUDE";

/// The program named by `name` (`--claude`, `IDELINK_CLAUDE`, else `claude`), as an absolute
/// path: a name holding a path separator is a path, taken against `cwd`; a bare name is the
/// first executable match in `path_var`'s absolute entries. The error says what was looked for.
pub fn resolve_program(
    name: &OsStr,
    path_var: Option<&OsStr>,
    cwd: &Path,
) -> Result<PathBuf, String> {
    let shown = name.to_string_lossy();
    if Path::new(name).components().count() > 1 || Path::new(name).is_absolute() {
        let path = cwd.join(name);
        return if is_executable(&path) {
            Ok(path)
        } else {
            Err(format!("{} is not an executable file", path.display()))
        };
    }
    path_var
        .into_iter()
        .flat_map(std::env::split_paths)
        .filter(|dir| dir.is_absolute())
        .flat_map(|dir| candidates(name).into_iter().map(move |file| dir.join(file)))
        .find(|candidate| is_executable(candidate))
        .ok_or_else(|| {
            format!(
                "no `{shown}` on PATH (its empty and relative entries are skipped: inside the \
                 workspace they would name the workspace's own files)"
            )
        })
}

/// The file names a bare `name` may have: on Windows the runnable extensions first (as
/// `cmd.exe` tries `PATHEXT`), then the name itself.
fn candidates(name: &OsStr) -> Vec<OsString> {
    let mut names = Vec::new();
    if cfg!(windows) && Path::new(name).extension().is_none() {
        for ext in [".exe", ".cmd"] {
            let mut with = name.to_owned();
            with.push(ext);
            names.push(with);
        }
    }
    names.push(name.to_owned());
    names
}

#[cfg(unix)]
fn is_executable(path: &Path) -> bool {
    use std::os::unix::fs::PermissionsExt;
    path.metadata()
        .is_ok_and(|m| m.is_file() && m.permissions().mode() & 0o111 != 0)
}

#[cfg(not(unix))]
fn is_executable(path: &Path) -> bool {
    path.is_file()
}

#[cfg(all(test, unix))]
mod tests {
    use super::*;
    use std::os::unix::fs::PermissionsExt;

    #[test]
    fn only_absolute_path_entries_are_searched_and_paths_are_taken_from_the_start_folder() {
        let dir = std::env::temp_dir().join(format!("idelink-program-{}", std::process::id()));
        let bin = dir.join("bin");
        std::fs::create_dir_all(&bin).expect("temp dir");
        let script = bin.join("claude");
        std::fs::write(&script, "#!/bin/sh\n").expect("write");
        std::fs::set_permissions(&script, std::fs::Permissions::from_mode(0o755)).expect("chmod");
        let claude = OsStr::new("claude");
        // From inside bin/, "", "." and "bin/.." all name the script; none is searched.
        for path in [":", ".", "::.:", "../bin"] {
            let found = resolve_program(claude, Some(OsStr::new(path)), &bin);
            assert!(found.is_err(), "{path:?}: {found:?}");
        }
        let path = format!("/nonexistent::{}", bin.display());
        assert_eq!(
            resolve_program(claude, Some(OsStr::new(&path)), Path::new("/")),
            Ok(script.clone())
        );
        assert_eq!(
            resolve_program(OsStr::new("bin/claude"), None, &dir),
            Ok(script.clone())
        );
        assert_eq!(
            resolve_program(script.as_os_str(), None, Path::new("/")),
            Ok(script)
        );
        assert!(resolve_program(OsStr::new("./nothing"), None, &dir).is_err());
        std::fs::remove_dir_all(&dir).expect("cleanup");
    }
}
