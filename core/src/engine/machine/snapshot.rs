//! Per-frame snapshots in: the difference from the previous one, applied as editor events.

use crate::snapshot::{Snapshot, SnapshotChanges};
use crate::time::Timestamp;

use super::Engine;

impl Engine {
    /// The editor's whole visible state (see [`crate::snapshot`]). Its difference from the
    /// previous snapshot is applied as the equivalent [`EditorEvent`](crate::EditorEvent)s,
    /// with exactly their effect: nothing when nothing changed (no push, no allocation), one
    /// debounced `selection_changed` when the caret moved. When the returned
    /// [`SnapshotChanges::workspace_folders`] is set, the host rewrites its lock file
    /// ([`rewritten_for_snapshot`](crate::host_rules::lock_life::rewritten_for_snapshot)).
    pub fn handle_snapshot(&mut self, now: Timestamp, snapshot: &Snapshot<'_>) -> SnapshotChanges {
        let mut tracker = std::mem::take(&mut self.snapshots);
        let changes = tracker.update(snapshot, |event| self.handle_editor_event(now, &event));
        self.snapshots = tracker;
        self.advance(now);
        changes
    }
}
