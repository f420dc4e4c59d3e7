//! The disk side of the page's turn ledger (docs/relay.md, "The ledger view"): the page's
//! engine asks for a file's content when claude is about to change it and when its edit ends
//! (`content {id, path}`), and carries out an undo as a compare-and-write (`write {id, path,
//! expected, text}`). The page answers from its own documents when it holds a file with
//! unsaved edits; everything else comes here, where the file system is.
//!
//! Both are confined to the workspace like `read`: the path, after resolving symlinks and `..`
//! of the part that exists, must lie inside the workspace folder, and what does not exist yet
//! (a file claude deleted, in a folder it created) may only be plain names below it. The
//! content is classified and written by the rules `serve` uses (`terminal::ledger_files`): text
//! up to the cap, else binary or large with a digest; a write happens only while the file still
//! holds what the ledger expects.

use super::files::Workspace;
use crate::terminal::ledger_files::{compare_and_write, read_content};
use idelink_core::ledger::{FileContent, FileWrite, TurnId};
use std::path::{Path, PathBuf};

/// The most bytes of a file kept as text for the ledger: the engine's default
/// `maxLedgerFileBytes` (8 MiB), which is also what the page link carries in one message; a
/// bigger file is reported as `large` with a digest (listed, not undoable).
pub const MAX_LEDGER_FILE_BYTES: usize = 8 << 20;

/// What a `write` asks: the file, what it must hold now, and what to write (`None`: delete it).
#[derive(Debug)]
pub struct PageWrite {
    /// The file (absolute, or relative to the workspace).
    pub path: String,
    /// What it must hold for the write to happen.
    pub expected: FileContent,
    /// The text to write; `None` deletes the file.
    pub text: Option<String>,
}

/// What a `write` did: the file's absolute path, what it holds afterwards, and, when nothing
/// was written, why.
#[derive(Debug, PartialEq, Eq)]
pub struct Written {
    /// The file, absolute, forward slashes.
    pub path: String,
    /// What it holds now.
    pub content: FileContent,
    /// Why nothing (or not all) was written; `None` when the write happened.
    pub conflict: Option<String>,
}

impl Workspace {
    /// What `requested` holds, as the ledger takes it, with its absolute path; an error for a
    /// path outside the workspace.
    pub fn ledger_content(&self, requested: &str) -> Result<(String, FileContent), String> {
        let path = self.confine(requested)?;
        let content = read_content(&path, MAX_LEDGER_FILE_BYTES);
        Ok((shown(&path)?, content))
    }

    /// Carries out `write` when the file still holds `write.expected`; an error for a path
    /// outside the workspace.
    pub fn ledger_write(&self, write: PageWrite) -> Result<Written, String> {
        let path = self.confine(&write.path)?;
        let shown = shown(&path)?;
        let file = FileWrite {
            // The relay keeps no ledger: the turn only names the write in core's type.
            turn: TurnId::from_u64(0),
            path: shown.clone(),
            expected: write.expected,
            text: write.text,
        };
        let (content, conflict) = compare_and_write(&file, self.root(), MAX_LEDGER_FILE_BYTES);
        Ok(Written {
            path: shown,
            content,
            conflict,
        })
    }

    /// `requested` inside the workspace: its longest existing ancestor resolved (symlinks,
    /// `..`) must be the root or below it, and the rest plain names (a path whose missing
    /// part holds a `..` is refused: `Path::file_name` is none there).
    fn confine(&self, requested: &str) -> Result<PathBuf, String> {
        let root = self.root();
        let path = root.join(requested);
        let mut existing = path.as_path();
        let mut rest = Vec::new();
        let resolved = loop {
            match existing.canonicalize() {
                Ok(resolved) => break resolved,
                Err(_) => {
                    let (Some(parent), Some(name)) = (existing.parent(), existing.file_name())
                    else {
                        return Err(format!("{requested} is outside the workspace"));
                    };
                    rest.push(name.to_owned());
                    existing = parent;
                }
            }
        };
        if !resolved.starts_with(root) {
            return Err(format!("{requested} is outside the workspace"));
        }
        Ok(rest
            .into_iter()
            .rev()
            .fold(resolved, |path, name| path.join(name)))
    }
}

/// `path` as the page names files: absolute, forward slashes.
fn shown(path: &Path) -> Result<String, String> {
    path.to_str()
        .map(|p| p.replace('\\', "/"))
        .ok_or_else(|| format!("{}: the path is not UTF-8", path.display()))
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::fs;

    fn workspace(name: &str) -> (PathBuf, Workspace) {
        let dir = std::env::temp_dir().join(format!(
            "idelink-relay-ledger-{name}-{}",
            std::process::id()
        ));
        let _ = fs::remove_dir_all(&dir);
        fs::create_dir_all(dir.join("src")).unwrap();
        fs::write(dir.join("src/a.txt"), "one\ntwo\n").unwrap();
        let root = dir.canonicalize().unwrap();
        (root.clone(), Workspace::new(root))
    }

    fn text(text: &str) -> FileContent {
        FileContent::Text { text: text.into() }
    }

    #[test]
    fn contents_are_read_as_the_ledger_takes_them() {
        let (dir, ws) = workspace("content");
        let (path, content) = ws.ledger_content("src/a.txt").unwrap();
        assert_eq!(path, shown(&dir.join("src/a.txt")).unwrap());
        assert_eq!(content, text("one\ntwo\n"));
        assert_eq!(ws.ledger_content(&path).unwrap().1, text("one\ntwo\n"));
        assert_eq!(
            ws.ledger_content("src/new/b.txt").unwrap().1,
            FileContent::Missing
        );
        fs::write(dir.join("bin"), [0u8, 1, 2]).unwrap();
        assert!(matches!(
            ws.ledger_content("bin").unwrap().1,
            FileContent::Binary { bytes: 3, .. }
        ));
        fs::remove_dir_all(dir).unwrap();
    }

    #[test]
    fn nothing_outside_the_workspace_is_read_or_written() {
        let (dir, ws) = workspace("confined");
        let outside = dir
            .parent()
            .unwrap()
            .join(format!("idelink-outside-{}", std::process::id()));
        fs::write(&outside, "theirs").unwrap();
        for requested in [
            "../x".to_owned(),
            "src/../../x".to_owned(),
            "missing/../../x".to_owned(),
            outside.to_str().unwrap().to_owned(),
            "/etc/hostname".to_owned(),
        ] {
            let read = ws.ledger_content(&requested).unwrap_err();
            assert!(
                read.contains("outside the workspace"),
                "{requested}: {read}"
            );
            let write = ws.ledger_write(PageWrite {
                path: requested.clone(),
                expected: FileContent::Missing,
                text: Some("mine".into()),
            });
            assert!(write.is_err(), "{requested}");
        }
        assert_eq!(fs::read_to_string(&outside).unwrap(), "theirs");
        #[cfg(unix)]
        {
            std::os::unix::fs::symlink(&outside, dir.join("link")).unwrap();
            assert!(ws.ledger_content("link").is_err());
        }
        fs::remove_file(outside).unwrap();
        fs::remove_dir_all(dir).unwrap();
    }

    #[test]
    fn a_write_happens_only_over_what_the_ledger_expects() {
        let (dir, ws) = workspace("write");
        let undo = |expected: &str| PageWrite {
            path: "src/a.txt".into(),
            expected: text(expected),
            text: Some("one\n".into()),
        };
        let refused = ws.ledger_write(undo("stale\n")).unwrap();
        assert_eq!(refused.content, text("one\ntwo\n"));
        assert!(
            refused
                .conflict
                .as_deref()
                .is_some_and(|why| why.contains("nothing was written")),
            "{refused:?}"
        );
        assert_eq!(
            fs::read_to_string(dir.join("src/a.txt")).unwrap(),
            "one\ntwo\n"
        );
        let done = ws.ledger_write(undo("one\ntwo\n")).unwrap();
        assert_eq!((done.content, done.conflict), (text("one\n"), None));
        // A file claude deleted is written again; one it created is deleted.
        fs::remove_file(dir.join("src/a.txt")).unwrap();
        let again = ws
            .ledger_write(PageWrite {
                path: "src/a.txt".into(),
                expected: FileContent::Missing,
                text: Some("back\n".into()),
            })
            .unwrap();
        assert_eq!((again.content, again.conflict), (text("back\n"), None));
        let deleted = ws
            .ledger_write(PageWrite {
                path: "src/a.txt".into(),
                expected: text("back\n"),
                text: None,
            })
            .unwrap();
        assert_eq!(deleted.content, FileContent::Missing);
        fs::remove_dir_all(dir).unwrap();
    }
}
