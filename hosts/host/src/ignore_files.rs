//! The workspace's ignore files, read for the engine's context policy (core reads no file:
//! [`IgnoreFile`] is text the host hands in). Which ones, in the order the policy wants them
//! (`ContextPolicy::ignore_files`: lowest precedence first):
//!
//! 1. `<folder>/.git/info/exclude` (git's per-repository excludes);
//! 2. `<folder>/.gitignore`;
//! 3. every nested `.gitignore` below the folder, found by a walk bounded by
//!    [`MAX_WALK_ENTRIES`] and [`MAX_WALK_DEPTH`], that enters no `.git` folder and follows no
//!    symbolic link.
//!
//! Not read: the user's global excludes file (`core.excludesFile`, by default
//! `~/.config/git/ignore`): it is the user's, not the workspace's, and differs per machine;
//! a user who wants it lists its patterns in the policy's `deny`.

use idelink_core::policy::IgnoreFile;
use std::fs;
use std::path::Path;

use crate::regular_file::read_regular_file;

/// Directory entries the walk for nested `.gitignore` files looks at, per folder. A large
/// checkout (a `node_modules` tree) has hundreds of thousands; the walk is done once at start,
/// and what lies past the budget is reported so the user can add a deny glob instead.
pub const MAX_WALK_ENTRIES: usize = 50_000;

/// Folder levels the walk descends below the workspace folder.
pub const MAX_WALK_DEPTH: usize = 12;

/// The bytes read of one ignore file; a longer one is cut (its last line may be cut too). Real
/// ignore files are a few KiB; this bounds a hostile one in a cloned repository.
pub const MAX_IGNORE_FILE_BYTES: u64 = 1 << 20;

/// The ignore files of `folder` (spelled as the engine spells it) and whether the walk stopped
/// at its budget before seeing every folder.
pub fn read_ignore_files(folder: &Path) -> (Vec<IgnoreFile>, bool) {
    let mut files = Vec::new();
    let exclude = folder.join(".git").join("info").join("exclude");
    push_file(&mut files, folder, &exclude);
    let mut budget = MAX_WALK_ENTRIES;
    let complete = walk(folder, 0, &mut budget, &mut files);
    (files, !complete)
}

/// Adds `folder/.gitignore` and those below it; false when the budget ran out.
fn walk(folder: &Path, depth: usize, budget: &mut usize, files: &mut Vec<IgnoreFile>) -> bool {
    push_file(files, folder, &folder.join(".gitignore"));
    let Ok(entries) = fs::read_dir(folder) else {
        return true;
    };
    let mut folders = Vec::new();
    for entry in entries.flatten() {
        if *budget == 0 {
            return false;
        }
        *budget -= 1;
        // `file_type` does not follow symbolic links: a link to a folder is not entered.
        if entry.file_type().is_ok_and(|t| t.is_dir()) && entry.file_name() != ".git" {
            folders.push(entry.path());
        }
    }
    folders.sort();
    for sub in folders {
        if depth + 1 > MAX_WALK_DEPTH || !walk(&sub, depth + 1, budget, files) {
            return false;
        }
    }
    true
}

/// Reads `file` (an ignore file of `dir`) when it is a regular file.
fn push_file(files: &mut Vec<IgnoreFile>, dir: &Path, file: &Path) {
    let Ok(bytes) = read_regular_file(file, MAX_IGNORE_FILE_BYTES) else {
        return;
    };
    files.push(IgnoreFile {
        dir: dir.to_string_lossy().into_owned(),
        text: String::from_utf8_lossy(&bytes).into_owned(),
    });
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn exclude_then_root_then_nested_and_never_inside_git() {
        let root = std::env::temp_dir().join(format!("idelink-ignore-{}", std::process::id()));
        let _ = fs::remove_dir_all(&root);
        for dir in ["a/b", ".git/info", ".git/sub"] {
            fs::create_dir_all(root.join(dir)).unwrap();
        }
        fs::write(root.join(".gitignore"), "target/\n").unwrap();
        fs::write(root.join(".git/info/exclude"), "local/\n").unwrap();
        fs::write(root.join(".git/sub/.gitignore"), "never\n").unwrap();
        fs::write(root.join("a/b/.gitignore"), "*.log\n").unwrap();
        let (files, cut) = read_ignore_files(&root);
        let got: Vec<(String, &str)> = files
            .iter()
            .map(|f| {
                let dir = Path::new(&f.dir).strip_prefix(&root).unwrap();
                (dir.to_string_lossy().into_owned(), f.text.as_str())
            })
            .collect();
        assert_eq!(
            got,
            [
                (String::new(), "local/\n"),
                (String::new(), "target/\n"),
                (Path::new("a").join("b").display().to_string(), "*.log\n"),
            ]
        );
        assert!(!cut);
        fs::remove_dir_all(&root).unwrap();
    }
}
