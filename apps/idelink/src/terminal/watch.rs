//! `idelink serve`'s file watcher: changes on disk that no CLI call announced (an edit by
//! claude's Bash: `sed -i`, a generator) join the open turn as "seen on disk"
//! ([`Host::handle_file_seen`]); their baseline is the watcher's last snapshot of the file.
//! Files the open turn holds as claude's own edits are not reported (see [`claudes_own`]).
//!
//! What it watches: the workspace, debounced ([`DEBOUNCE`]), its folders made after start
//! included (each watched when it appears, see `Watcher::folder_made`), except the folders in
//! [`SKIPPED_DIRS`] (`.git/`, build output, dependencies: many files no turn reviews, whose
//! churn during a build would flood the ledger). The context policy's deny rules do not apply:
//! they decide what reaches claude, and the ledger only shows the user their own files (a
//! denied `.env` claude's Bash rewrote is exactly what the user should see). Memory is bounded:
//! the snapshot holds at most [`SNAPSHOT_MAX_FILES`] files and [`SNAPSHOT_MAX_BYTES`] of text
//! (a file over the ledger's `max_ledger_file_bytes` is its size and digest), the queue at
//! most [`MAX_PENDING_PATHS`] paths.

use super::ledger_files;
use idelink_core::ledger::{ChangedBy, FileContent};
use idelink_mio::{Host, Waker};
use notify_debouncer_mini::notify::{RecommendedWatcher, RecursiveMode};
use notify_debouncer_mini::{DebounceEventResult, Debouncer, new_debouncer};
use std::collections::{BTreeSet, HashMap};
use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex, PoisonError};
use std::time::Duration;

/// How long a path must stay quiet before its change is reported: one `sed -i` (write a
/// temporary file, rename it over) or an editor's save is a burst of events within a few
/// milliseconds; 100 ms folds it into one without making `t` lag behind.
pub const DEBOUNCE: Duration = Duration::from_millis(100);
/// Folders (by name, at any depth) the watcher neither watches nor reports.
pub const SKIPPED_DIRS: [&str; 3] = [".git", "target", "node_modules"];
/// Files the snapshot keeps a baseline for (the first ones read, then every changed one while
/// room is left): a huge workspace costs a bounded start-up walk and bounded memory.
pub const SNAPSHOT_MAX_FILES: usize = 4096;
/// Text the snapshot holds at most, over all its files: the ledger's own default budget
/// (`maxLedgerBytes`, 64 MiB); a file past it is known as "not read" (no baseline).
pub const SNAPSHOT_MAX_BYTES: usize = 64 << 20;
/// Changed paths queued between two loop turns; past it the rest is dropped (and counted):
/// a mass rewrite is not a review the ledger can hold anyway.
pub const MAX_PENDING_PATHS: usize = 4096;

/// The watcher and its snapshot.
pub struct Watcher {
    debouncer: Debouncer<RecommendedWatcher>,
    /// The workspace (canonical): a folder made in it after start is watched when it comes.
    workspace: PathBuf,
    /// Its top folders under a recursive watch.
    watched: BTreeSet<PathBuf>,
    pending: Arc<Mutex<Pending>>,
    snapshot: Snapshot,
    max_bytes: usize,
}

/// The last content the watcher saw of each file, within [`SNAPSHOT_MAX_FILES`] and
/// [`SNAPSHOT_MAX_BYTES`].
#[derive(Default)]
struct Snapshot {
    files: HashMap<PathBuf, FileContent>,
    held: usize,
    /// Once a bound was hit, a file it does not know may have been left out: its baseline is
    /// "not read", never "missing".
    partial: bool,
}

impl Snapshot {
    /// What `path` held when last seen ("missing": new since serve started).
    fn previous(&self, path: &Path) -> FileContent {
        match self.files.get(path) {
            Some(known) => known.clone(),
            None if !self.partial => FileContent::Missing,
            None => FileContent::Unread {
                reason: "past the watcher's snapshot".to_owned(),
            },
        }
    }

    /// Keeps `content` as `path`'s; false when a bound left it out.
    fn keep(&mut self, path: PathBuf, content: FileContent) -> bool {
        let old = self.files.get(&path).map_or(0, FileContent::held_bytes);
        let fits = self.held - old + content.held_bytes() <= SNAPSHOT_MAX_BYTES
            && (self.files.contains_key(&path) || self.files.len() < SNAPSHOT_MAX_FILES);
        if fits {
            self.held = self.held - old + content.held_bytes();
            self.files.insert(path, content);
        } else {
            self.partial = true;
            if let Some(gone) = self.files.remove(&path) {
                self.held -= gone.held_bytes();
            }
        }
        fits
    }
}

#[derive(Default)]
struct Pending {
    paths: BTreeSet<PathBuf>,
    dropped: usize,
}

impl Watcher {
    /// Watches `workspace` (canonical), waking the host's loop with `waker` when paths changed;
    /// snapshots its files of up to `max_bytes` first.
    pub fn start(
        workspace: &Path,
        waker: Arc<Waker>,
        max_bytes: usize,
    ) -> notify_debouncer_mini::notify::Result<Watcher> {
        let pending = Arc::new(Mutex::new(Pending::default()));
        let queue = Arc::clone(&pending);
        let mut debouncer = new_debouncer(DEBOUNCE, move |result: DebounceEventResult| {
            let Ok(events) = result else { return };
            let mut queue = queue.lock().unwrap_or_else(PoisonError::into_inner);
            for event in events.into_iter().filter(|e| !skipped(&e.path)) {
                if queue.paths.len() < MAX_PENDING_PATHS {
                    queue.paths.insert(event.path);
                } else {
                    queue.dropped += 1;
                }
            }
            drop(queue);
            // A wake that fails leaves the paths for the next tick.
            let _ = waker.wake();
        })?;
        let watcher = debouncer.watcher();
        watcher.watch(workspace, RecursiveMode::NonRecursive)?;
        let mut watched = BTreeSet::new();
        for entry in std::fs::read_dir(workspace)?.flatten() {
            let path = entry.path();
            if entry.file_type().is_ok_and(|t| t.is_dir()) && !skipped(&path) {
                watcher.watch(&path, RecursiveMode::Recursive)?;
                watched.insert(path);
            }
        }
        let mut snapshot = Snapshot::default();
        walk(workspace, &mut |path| {
            let content = ledger_files::read_content(path, max_bytes);
            snapshot.keep(path.to_owned(), content)
        });
        Ok(Watcher {
            debouncer,
            workspace: workspace.to_owned(),
            watched,
            pending,
            snapshot,
            max_bytes,
        })
    }

    /// Hands every path that changed since the last call to `host` (the engine adds those of
    /// an open turn the CLI did not announce as "seen on disk") and takes them into the
    /// snapshot; returns how many changes were dropped past [`MAX_PENDING_PATHS`].
    pub fn deliver(&mut self, host: &mut Host) -> usize {
        let Pending { paths, dropped } =
            std::mem::take(&mut *self.pending.lock().unwrap_or_else(PoisonError::into_inner));
        for path in paths {
            if path.is_dir() {
                self.folder_made(host, &path);
            } else if !self.watched.remove(&path) {
                // (A watched folder that went away is watched again if it comes back.)
                self.changed(host, path);
            }
        }
        dropped
    }

    /// A folder appeared (or changed) at `path`. One made in the workspace itself after start
    /// has no watch yet (the workspace is watched non-recursively, its folders each
    /// recursively, so the skipped ones cost nothing): it gets one. Deeper folders come under
    /// their top folder's recursive watch by themselves. Either way the files made in it
    /// before its watch came are taken as changes (a walk; files seen as they were are no
    /// change).
    fn folder_made(&mut self, host: &mut Host, path: &Path) {
        if skipped(path) {
            return;
        }
        if path.parent() == Some(self.workspace.as_path()) && !self.watched.contains(path) {
            if self
                .debouncer
                .watcher()
                .watch(path, RecursiveMode::Recursive)
                .is_err()
            {
                return;
            }
            self.watched.insert(path.to_owned());
        }
        let mut found = Vec::new();
        walk(path, &mut |file| {
            found.push(file.to_owned());
            found.len() < MAX_PENDING_PATHS
        });
        for file in found {
            self.changed(host, file);
        }
    }

    /// `path` (a file, or no file any more) may have changed: a change is reported and kept.
    fn changed(&mut self, host: &mut Host, path: PathBuf) {
        let content = ledger_files::read_content(&path, self.max_bytes);
        let previous = self.snapshot.previous(&path);
        // A file that came and went between two looks (`sed -i`'s temporary), or one seen
        // again as it was (a folder's walk after its events), is no change.
        if content == previous {
            return;
        }
        if let Some(text) = path.to_str().map(|p| p.replace('\\', "/"))
            && !claudes_own(host, &text)
        {
            host.handle_file_seen(&text, &content, &previous);
        }
        self.snapshot.keep(path, content);
    }
}

/// True when an open turn holds `path` as a file claude's own edit tools changed, and that
/// edit has ended: the engine reads those itself at each edit's end, and a change on disk
/// since is left to the undo's compare-and-write, which refuses it ("changed since the ledger
/// last saw it") rather than take it into the turn. A change while claude's edit is still
/// open is reported: the engine compares it with the edit's end (an outside change between
/// the baseline and claude's write is marked, and the whole file is then not undone).
fn claudes_own(host: &Host, path: &str) -> bool {
    host.engine()
        .ledger()
        .turns()
        .filter(|turn| !turn.closed)
        .filter_map(|turn| turn.file(path))
        .any(|file| file.changed_by == ChangedBy::Claude && file.settled)
}

/// True when `path` lies in a [`SKIPPED_DIRS`] folder.
fn skipped(path: &Path) -> bool {
    path.components()
        .any(|c| SKIPPED_DIRS.iter().any(|skip| c.as_os_str() == *skip))
}

/// Calls `visit` with every regular file under `dir` outside [`SKIPPED_DIRS`], until it
/// returns false.
fn walk(dir: &Path, visit: &mut dyn FnMut(&Path) -> bool) -> bool {
    let Ok(entries) = std::fs::read_dir(dir) else {
        return true;
    };
    for entry in entries.flatten() {
        let path = entry.path();
        let Ok(kind) = entry.file_type() else {
            continue;
        };
        if skipped(&path) {
            continue;
        }
        let go_on = if kind.is_dir() {
            walk(&path, visit)
        } else if kind.is_file() {
            visit(&path)
        } else {
            true
        };
        if !go_on {
            return false;
        }
    }
    true
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_snapshot_stays_within_its_bounds_and_then_knows_it_is_partial() {
        let mut snapshot = Snapshot::default();
        let big = FileContent::Text {
            text: "x".repeat(SNAPSHOT_MAX_BYTES / 2 + 1),
        };
        assert!(snapshot.keep(PathBuf::from("/w/a"), big.clone()));
        assert_eq!(snapshot.previous(Path::new("/w/new")), FileContent::Missing);
        assert!(!snapshot.keep(PathBuf::from("/w/b"), big.clone()));
        assert!(snapshot.held <= SNAPSHOT_MAX_BYTES);
        assert!(matches!(
            snapshot.previous(Path::new("/w/b")),
            FileContent::Unread { .. }
        ));
        // Replacing a kept file counts its new size only.
        assert!(snapshot.keep(PathBuf::from("/w/a"), big));
        assert!(snapshot.held <= SNAPSHOT_MAX_BYTES);
    }

    #[test]
    fn skipped_folders_are_skipped_at_any_depth() {
        assert!(skipped(Path::new("/w/.git/index")));
        assert!(skipped(Path::new("/w/sub/target/debug/x")));
        assert!(!skipped(Path::new("/w/src/target.rs")));
    }
}
