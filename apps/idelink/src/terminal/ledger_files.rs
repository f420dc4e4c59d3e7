//! The file side of the turn ledger for `serve`, which has no editor buffers: a
//! [`EngineEvent::LedgerRead`](idelink_core::EngineEvent::LedgerRead) is answered from disk
//! (a regular file only, capped, by [`read_regular`]), an undo's
//! [`FileWrite`] is a compare-and-write on disk: written only when the file still holds
//! what the ledger expects, so a newer change is never overwritten.
//!
//! The reads run on the terminal loop: each is capped at the ledger's per-file limit and the
//! engine answers claude within its own deadline whatever happens here.
//!
//! Both stay inside the workspace once links are resolved ([`outside`]): the engine already
//! leaves out a path that names a place outside it, and a link inside pointing outside is
//! answered [`FileContent::Outside`] (the ledger leaves the file out, with the reason) and
//! never written through.

use super::file_read::read_regular;
use idelink_core::ledger::{FileContent, FileWrite, sha1_hex};
use std::path::Path;

/// What `path` holds for the ledger, when it lies in `root` (the canonical workspace) once
/// its links are resolved: [`read_content`]; else why not, as [`FileContent::Outside`].
pub fn read_within(path: &Path, root: &Path, max_bytes: usize) -> FileContent {
    match outside(path, root) {
        Some(reason) => FileContent::Outside { reason },
        None => read_content(path, max_bytes),
    }
}

/// Why `path` is outside `root` (canonical) once its links are resolved, `None` when it is
/// inside: an existing path by its own resolution, a missing one by its folder's (what a write
/// would create). A link whose target cannot be resolved is outside: a write through it would
/// create a file nobody checked.
pub fn outside(path: &Path, root: &Path) -> Option<String> {
    let shown = path.display();
    let resolved = match path.canonicalize() {
        Ok(resolved) => resolved,
        Err(_) if path.is_symlink() => {
            return Some(format!(
                "{shown} is a link whose target cannot be resolved: the ledger neither reads nor \
                 writes through it"
            ));
        }
        Err(_) => match (path.parent().map(Path::canonicalize), path.file_name()) {
            (Some(Ok(folder)), Some(name)) => folder.join(name),
            _ => return Some(format!("{shown}: its folder cannot be resolved")),
        },
    };
    (!resolved.starts_with(root)).then(|| {
        format!(
            "{shown} resolves to {}, outside the workspace: the ledger neither reads nor \
             writes it",
            resolved.display()
        )
    })
}

/// What `path` holds, as the ledger takes it: text up to `max_bytes`, else a summary; a file
/// that is not UTF-8 or holds a NUL byte is binary.
pub fn read_content(path: &Path, max_bytes: usize) -> FileContent {
    let cap = max_bytes as u64;
    match read_regular(path, cap) {
        Ok(None) => FileContent::Missing,
        Ok(Some(bytes)) => classify(bytes),
        Err(reason) => match std::fs::metadata(path) {
            // Over the cap: its size and modification time tell versions apart without
            // reading it (a 50 MiB file costs no memory).
            Ok(meta) if meta.is_file() && meta.len() > cap => FileContent::Large {
                bytes: meta.len(),
                digest: format!(
                    "{}:{:?}",
                    meta.len(),
                    meta.modified().ok().map(|t| t
                        .duration_since(std::time::UNIX_EPOCH)
                        .map(|d| d.as_nanos())
                        .unwrap_or_default())
                ),
            },
            _ => FileContent::Unread { reason },
        },
    }
}

fn classify(bytes: Vec<u8>) -> FileContent {
    if bytes.contains(&0) {
        return binary(&bytes);
    }
    match String::from_utf8(bytes) {
        Ok(text) => FileContent::Text { text },
        Err(e) => binary(e.as_bytes()),
    }
}

fn binary(bytes: &[u8]) -> FileContent {
    FileContent::Binary {
        bytes: bytes.len() as u64,
        digest: sha1_hex(bytes),
    }
}

/// Carries out `write` when the file still holds `write.expected` and lies in `root` (the
/// canonical workspace) once its links are resolved; returns what the file holds afterwards
/// (for the engine) and, on a conflict, why nothing was written.
pub fn compare_and_write(
    write: &FileWrite,
    root: &Path,
    max_bytes: usize,
) -> (FileContent, Option<String>) {
    let path = Path::new(&write.path);
    if let Some(reason) = outside(path, root) {
        let why = format!("{reason}: nothing was written");
        return (FileContent::Outside { reason }, Some(why));
    }
    let now = read_content(path, max_bytes);
    if now != write.expected {
        let why = format!(
            "{} changed since the ledger last saw it ({}): nothing was written",
            write.path,
            now.summary()
        );
        return (now, Some(why));
    }
    let done = match &write.text {
        Some(text) => std::fs::write(path, text),
        None => std::fs::remove_file(path),
    };
    match done {
        Ok(()) => (read_content(path, max_bytes), None),
        Err(e) => (
            read_content(path, max_bytes),
            Some(format!("cannot write {}: {e}", write.path)),
        ),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use idelink_core::ledger::TurnId;

    fn dir(name: &str) -> std::path::PathBuf {
        let dir =
            std::env::temp_dir().join(format!("idelink-ledger-{name}-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&dir);
        std::fs::create_dir_all(&dir).unwrap();
        dir.canonicalize().unwrap()
    }

    #[cfg(unix)]
    #[test]
    fn a_link_inside_pointing_outside_is_neither_read_nor_written() {
        let root = dir("links");
        let away = dir("links-away");
        std::fs::write(away.join("secret"), "secret\n").unwrap();
        let inside = root.join("in");
        std::fs::write(&inside, "in\n").unwrap();
        std::os::unix::fs::symlink(away.join("secret"), root.join("link")).unwrap();
        std::os::unix::fs::symlink(&away, root.join("dirlink")).unwrap();
        std::os::unix::fs::symlink(away.join("none"), root.join("dangling")).unwrap();
        std::os::unix::fs::symlink(&inside, root.join("inlink")).unwrap();
        for name in ["link", "dirlink/secret", "dirlink/new", "dangling"] {
            let content = read_within(&root.join(name), &root, 1 << 20);
            assert!(
                matches!(&content, FileContent::Outside { reason } if reason.contains(name)),
                "{name}: {content:?}"
            );
        }
        assert_eq!(
            read_within(&root.join("inlink"), &root, 1 << 20),
            FileContent::Text {
                text: "in\n".into()
            }
        );
        assert_eq!(
            read_within(&root.join("new"), &root, 1 << 20),
            FileContent::Missing
        );
        let write = FileWrite {
            turn: TurnId::from_u64(1),
            path: root.join("link").to_str().unwrap().to_owned(),
            expected: FileContent::Text {
                text: "secret\n".into(),
            },
            text: Some("mine\n".into()),
        };
        let (holds, why) = compare_and_write(&write, &root, 1 << 20);
        assert!(matches!(holds, FileContent::Outside { .. }));
        assert!(why.is_some_and(|w| w.contains("outside the workspace")));
        assert_eq!(
            std::fs::read_to_string(away.join("secret")).unwrap(),
            "secret\n"
        );
    }

    #[test]
    fn text_binary_large_and_missing_files_are_told_apart() {
        let d = dir("kinds");
        std::fs::write(d.join("t"), "hi\n").unwrap();
        std::fs::write(d.join("b"), [0u8, 1, 2]).unwrap();
        std::fs::write(d.join("l"), "x".repeat(100)).unwrap();
        assert_eq!(
            read_content(&d.join("t"), 10),
            FileContent::Text {
                text: "hi\n".into()
            }
        );
        assert!(matches!(
            read_content(&d.join("b"), 10),
            FileContent::Binary { bytes: 3, .. }
        ));
        assert!(matches!(
            read_content(&d.join("l"), 10),
            FileContent::Large { bytes: 100, .. }
        ));
        assert_eq!(read_content(&d.join("none"), 10), FileContent::Missing);
    }

    #[test]
    fn an_undo_writes_only_over_what_the_ledger_expects() {
        let d = dir("cas");
        let file = d.join("a");
        std::fs::write(&file, "claude\n").unwrap();
        let write = FileWrite {
            turn: TurnId::from_u64(1),
            path: file.to_str().unwrap().to_owned(),
            expected: FileContent::Text {
                text: "claude\n".into(),
            },
            text: Some("mine\n".into()),
        };
        std::fs::write(&file, "newer\n").unwrap();
        let (now, why) = compare_and_write(&write, &d, 1 << 20);
        assert_eq!(
            now,
            FileContent::Text {
                text: "newer\n".into()
            }
        );
        assert!(why.is_some_and(|w| w.contains("nothing was written")));
        assert_eq!(std::fs::read_to_string(&file).unwrap(), "newer\n");
        std::fs::write(&file, "claude\n").unwrap();
        assert_eq!(compare_and_write(&write, &d, 1 << 20).1, None);
        assert_eq!(std::fs::read_to_string(&file).unwrap(), "mine\n");
        let delete = FileWrite {
            expected: FileContent::Text {
                text: "mine\n".into(),
            },
            text: None,
            ..write
        };
        assert_eq!(
            compare_and_write(&delete, &d, 1 << 20).0,
            FileContent::Missing
        );
    }
}
