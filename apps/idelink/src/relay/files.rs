//! The workspace as the page sees it: a bounded file listing and reads confined to the folder.
//! The page has no file system; it asks the relay over the authenticated link.

use idelink_host::regular_file::read_regular_file;
use std::fs;
use std::io;
use std::path::{Path, PathBuf};

/// Most files listed.
const MAX_FILES: usize = 5_000;
/// Most folders read by one listing. Each read is an open, a directory read and a close on
/// the relay's only thread; files alone do not bound them (100,000 empty folders, or folders
/// holding only dotfiles, list nothing and cost seconds). 5,000 reads take tens of
/// milliseconds and cover any tree whose first 5,000 files one would browse.
const MAX_FOLDERS_READ: usize = 5_000;
/// Most directory entries looked at by one listing, listed or not (hidden entries, skipped
/// folders and special files count): the other cost of a walk that finds no files.
const MAX_ENTRIES_VISITED: usize = 50_000;
/// Deepest folder nesting walked.
const MAX_DEPTH: usize = 12;
/// Largest file read: the demo editor is a textarea.
const MAX_READ_BYTES: u64 = 8 << 20;
/// Folders never listed: build output and dependencies, not what one edits.
const SKIPPED: [&str; 2] = ["target", "node_modules"];

/// The workspace folder, canonical.
pub struct Workspace {
    root: PathBuf,
    budget: WalkBudget,
}

/// What one listing may cost.
#[derive(Debug, Clone, Copy)]
struct WalkBudget {
    /// Most files listed ([`MAX_FILES`]).
    files: usize,
    /// Most folders read ([`MAX_FOLDERS_READ`]).
    folders: usize,
    /// Most entries visited ([`MAX_ENTRIES_VISITED`]).
    entries: usize,
}

impl WalkBudget {
    const DEFAULT: WalkBudget = WalkBudget {
        files: MAX_FILES,
        folders: MAX_FOLDERS_READ,
        entries: MAX_ENTRIES_VISITED,
    };
}

/// A listing of the workspace.
#[derive(Debug, PartialEq, Eq)]
pub struct Listing {
    /// Relative paths, forward slashes, sorted.
    pub files: Vec<String>,
    /// The walk stopped before the end of the tree (a budget ran out): more files may exist
    /// than were listed.
    pub truncated: bool,
    /// Folders read, for the log (and the test that the walk stops).
    pub folders_read: usize,
    /// Entries visited, for the log (and the test that the walk stops).
    pub entries_visited: usize,
}

impl Workspace {
    /// The workspace at `root` (already canonical).
    pub fn new(root: PathBuf) -> Self {
        Workspace {
            root,
            budget: WalkBudget::DEFAULT,
        }
    }

    /// The workspace folder, canonical.
    pub fn root(&self) -> &Path {
        &self.root
    }

    /// Files under the root; hidden entries, `target` and `node_modules` skipped, symlinks not
    /// followed. The walk stops at the first file past [`MAX_FILES`], before a folder past
    /// [`MAX_FOLDERS_READ`] and at the entry past [`MAX_ENTRIES_VISITED`], whichever comes
    /// first, and says so (`truncated`): a huge tree, with files or without, costs the relay's
    /// thread (and claude's traffic) no more than the budget.
    pub fn list(&self) -> Listing {
        let budget = self.budget;
        let mut listing = Listing {
            files: Vec::new(),
            truncated: false,
            folders_read: 0,
            entries_visited: 0,
        };
        let mut stack = vec![(self.root.clone(), 0)];
        'walk: while let Some((dir, depth)) = stack.pop() {
            if listing.folders_read == budget.folders {
                listing.truncated = true;
                break;
            }
            let Ok(entries) = fs::read_dir(&dir) else {
                continue;
            };
            listing.folders_read += 1;
            for entry in entries.flatten() {
                if listing.entries_visited == budget.entries {
                    listing.truncated = true;
                    break 'walk;
                }
                listing.entries_visited += 1;
                let name = entry.file_name();
                let Some(name) = name.to_str() else { continue };
                if name.starts_with('.') || SKIPPED.contains(&name) {
                    continue;
                }
                let Ok(kind) = entry.file_type() else {
                    continue;
                };
                if kind.is_dir() && depth < MAX_DEPTH {
                    stack.push((entry.path(), depth + 1));
                } else if kind.is_file() {
                    if listing.files.len() == budget.files {
                        listing.truncated = true;
                        break 'walk;
                    }
                    if let Some(relative) = relative_text(&self.root, &entry.path()) {
                        listing.files.push(relative);
                    }
                }
            }
        }
        listing.files.sort();
        listing
    }

    /// The text of `requested` (absolute, or relative to the root) as (absolute path with
    /// forward slashes, text). Refuses paths outside the workspace (after resolving symlinks
    /// and `..`), folders, files over 8 MiB and files that are not UTF-8.
    pub fn read(&self, requested: &str) -> Result<(String, String), String> {
        let path = self.root.join(requested);
        let canonical = path
            .canonicalize()
            .map_err(|e| format!("cannot open {requested}: {e}"))?;
        if !canonical.starts_with(&self.root) {
            return Err(format!("{requested} is outside the workspace"));
        }
        // Read by the regular-file rules on the opened handle: a FIFO (or a device) put in the
        // workspace, or swapped in after the path was resolved, never stalls the relay.
        let bytes = read_regular_file(&canonical, MAX_READ_BYTES).map_err(|e| match e.kind() {
            io::ErrorKind::InvalidInput => format!("{requested} is not a file ({e})"),
            io::ErrorKind::FileTooLarge => {
                format!("{requested} is more than the demo editor opens ({e})")
            }
            _ => format!("cannot read {requested}: {e}"),
        })?;
        let text =
            String::from_utf8(bytes).map_err(|_| format!("{requested} is not UTF-8 text"))?;
        let shown = canonical
            .to_str()
            .ok_or_else(|| format!("{requested}: the path is not UTF-8"))?
            .replace('\\', "/");
        Ok((shown, text))
    }
}

fn relative_text(root: &Path, path: &Path) -> Option<String> {
    let relative = path.strip_prefix(root).ok()?;
    let parts: Option<Vec<&str>> = relative.iter().map(|p| p.to_str()).collect();
    Some(parts?.join("/"))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn workspace(name: &str) -> (PathBuf, Workspace) {
        let dir = std::env::temp_dir().join(format!("idelink-relay-{name}-{}", std::process::id()));
        let _ = fs::remove_dir_all(&dir);
        fs::create_dir_all(dir.join("src/deep")).unwrap();
        fs::create_dir_all(dir.join(".git")).unwrap();
        fs::create_dir_all(dir.join("target")).unwrap();
        fs::write(dir.join("src/main.rs"), "fn main() {}\n").unwrap();
        fs::write(dir.join("src/deep/x.txt"), "x").unwrap();
        fs::write(dir.join(".git/HEAD"), "ref").unwrap();
        fs::write(dir.join("target/out"), "bin").unwrap();
        fs::write(dir.join("bin.dat"), [0xff, 0xfe]).unwrap();
        let root = dir.canonicalize().unwrap();
        (dir, Workspace::new(root))
    }

    #[test]
    fn lists_what_one_edits() {
        let (dir, ws) = workspace("list");
        let listing = ws.list();
        assert_eq!(
            (listing.files, listing.truncated),
            (
                vec![
                    "bin.dat".to_owned(),
                    "src/deep/x.txt".to_owned(),
                    "src/main.rs".to_owned()
                ],
                false
            )
        );
        fs::remove_dir_all(dir).unwrap();
    }

    #[test]
    fn the_walk_stops_at_the_limit() {
        let dir = std::env::temp_dir().join(format!("idelink-relay-walk-{}", std::process::id()));
        let _ = fs::remove_dir_all(&dir);
        for folder in 0..20 {
            let sub = dir.join(format!("d{folder}"));
            fs::create_dir_all(&sub).unwrap();
            for file in 0..5 {
                fs::write(sub.join(format!("f{file}")), "x").unwrap();
            }
        }
        let ws = Workspace {
            root: dir.canonicalize().unwrap(),
            budget: WalkBudget {
                files: 7,
                ..WalkBudget::DEFAULT
            },
        };
        let listing = ws.list();
        assert_eq!(listing.files.len(), 7);
        assert!(listing.truncated);
        // The root and two folders of five files hold the eighth file: nothing more is read.
        assert_eq!(listing.folders_read, 3, "{listing:?}");
        fs::remove_dir_all(dir).unwrap();
    }

    #[test]
    fn folders_and_entries_without_files_are_budgeted_too() {
        let dir = std::env::temp_dir().join(format!("idelink-relay-empty-{}", std::process::id()));
        let _ = fs::remove_dir_all(&dir);
        for folder in 0..20 {
            fs::create_dir_all(dir.join(format!("d{folder}"))).unwrap();
        }
        for hidden in 0..20 {
            fs::write(dir.join(format!("d0/.h{hidden}")), "x").unwrap();
        }
        let root = dir.canonicalize().unwrap();
        let folders = Workspace {
            root: root.clone(),
            budget: WalkBudget {
                folders: 5,
                ..WalkBudget::DEFAULT
            },
        }
        .list();
        assert!(folders.files.is_empty() && folders.truncated, "{folders:?}");
        assert_eq!(folders.folders_read, 5);
        let entries = Workspace {
            root: root.clone(),
            budget: WalkBudget {
                entries: 30,
                ..WalkBudget::DEFAULT
            },
        }
        .list();
        assert!(entries.truncated, "{entries:?}");
        assert_eq!(entries.entries_visited, 30);
        let whole = Workspace::new(root).list();
        assert!(!whole.truncated, "{whole:?}");
        assert_eq!((whole.folders_read, whole.entries_visited), (21, 40));
        fs::remove_dir_all(dir).unwrap();
    }

    #[test]
    #[cfg(unix)]
    fn a_fifo_in_the_workspace_is_refused_without_blocking() {
        let (dir, ws) = workspace("fifo");
        // mkfifo(1) (POSIX), as rustix has no mkfifoat on every Unix.
        let made = std::process::Command::new("mkfifo")
            .arg(dir.join("pipe"))
            .status()
            .unwrap();
        assert!(made.success());
        let refused = ws.read("pipe").unwrap_err();
        assert_eq!(
            refused,
            "pipe is not a file (it is a FIFO, not a regular file)"
        );
    }

    #[test]
    fn reads_are_confined_to_the_workspace() {
        let (dir, ws) = workspace("read");
        let (path, text) = ws.read("src/main.rs").unwrap();
        assert!(path.ends_with("/src/main.rs"), "{path}");
        assert_eq!(text, "fn main() {}\n");
        assert_eq!(
            ws.read(&path).unwrap().1,
            text,
            "absolute paths inside work too"
        );
        assert!(
            ws.read("../")
                .unwrap_err()
                .contains("outside the workspace")
        );
        assert!(ws.read("/etc/hostname").is_err());
        assert!(ws.read("src").unwrap_err().contains("not a file"));
        assert!(ws.read("bin.dat").unwrap_err().contains("not UTF-8"));
        assert!(ws.read("missing.rs").unwrap_err().contains("cannot open"));
        fs::remove_dir_all(dir).unwrap();
    }
}
