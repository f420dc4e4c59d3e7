//! The workspace as the page sees it: a bounded file listing and reads confined to the folder.
//! The page has no file system; it asks the relay over the authenticated link.

use std::fs;
use std::path::{Path, PathBuf};

/// Most files listed.
const MAX_FILES: usize = 5_000;
/// Deepest folder nesting walked.
const MAX_DEPTH: usize = 12;
/// Largest file read: the demo editor is a textarea.
const MAX_READ_BYTES: u64 = 8 << 20;
/// Folders never listed: build output and dependencies, not what one edits.
const SKIPPED: [&str; 2] = ["target", "node_modules"];

/// The workspace folder, canonical.
pub struct Workspace {
    root: PathBuf,
}

impl Workspace {
    /// The workspace at `root` (already canonical).
    pub fn new(root: PathBuf) -> Self {
        Workspace { root }
    }

    /// Files under the root, relative, forward slashes, sorted; hidden entries, `target` and
    /// `node_modules` skipped, symlinks not followed. True when the listing was cut short.
    pub fn list(&self) -> (Vec<String>, bool) {
        let mut files = Vec::new();
        let mut truncated = false;
        let mut stack = vec![(self.root.clone(), 0)];
        while let Some((dir, depth)) = stack.pop() {
            let Ok(entries) = fs::read_dir(&dir) else {
                continue;
            };
            for entry in entries.flatten() {
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
                    if files.len() == MAX_FILES {
                        truncated = true;
                        continue;
                    }
                    if let Some(relative) = relative_text(&self.root, &entry.path()) {
                        files.push(relative);
                    }
                }
            }
        }
        files.sort();
        (files, truncated)
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
        let meta = fs::metadata(&canonical).map_err(|e| format!("cannot open {requested}: {e}"))?;
        if !meta.is_file() {
            return Err(format!("{requested} is not a file"));
        }
        if meta.len() > MAX_READ_BYTES {
            return Err(format!(
                "{requested} is {} bytes, more than the demo editor opens",
                meta.len()
            ));
        }
        let bytes = fs::read(&canonical).map_err(|e| format!("cannot read {requested}: {e}"))?;
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
        assert_eq!(
            ws.list(),
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
