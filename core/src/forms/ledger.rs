//! The ledger's forms: [`FileContent`] (the host's answer to a `ledgerRead`, and a watcher's
//! `handle_file_seen`), [`UndoTarget`] (what an editor asks to undo), both tagged and
//! ignoring the fields they do not know; and the ledger's turns as `Engine::ledger` holds
//! them, written as serde writes a list of [`Turn`].

use super::FormError;
use super::output::file_content as write_file_content;
use super::read::{Val, Variant, u32, u64};
use super::write::{Object, list};
use crate::ledger::{ChangedBy, FileChange, FileContent, Hunk, Ledger, Turn, TurnId, UndoTarget};

/// The variants of a `FileContent` by their `kind`.
const CONTENTS: &[Variant<FileContent>] = &[
    ("text", |o| {
        Ok(FileContent::Text {
            text: o.string("text")?,
        })
    }),
    ("binary", |o| {
        Ok(FileContent::Binary {
            bytes: o.req("bytes", u64)?,
            digest: o.string("digest")?,
        })
    }),
    ("large", |o| {
        Ok(FileContent::Large {
            bytes: o.req("bytes", u64)?,
            digest: o.string("digest")?,
        })
    }),
    ("missing", |_| Ok(FileContent::Missing)),
    ("unread", |o| {
        Ok(FileContent::Unread {
            reason: o.string("reason")?,
        })
    }),
    ("outside", |o| {
        Ok(FileContent::Outside {
            reason: o.string("reason")?,
        })
    }),
];

/// A `FileContent` in its JSON form (`{"kind":"text","text":"…"}`, `{"kind":"missing"}`, …).
pub(super) fn file_content(v: Val<'_>) -> Result<FileContent, FormError> {
    v.object()?.variant("kind", CONTENTS)
}

/// The variants of an `UndoTarget` by their `undo`.
const TARGETS: &[Variant<UndoTarget>] = &[
    ("hunk", |o| {
        Ok(UndoTarget::Hunk {
            turn: TurnId::from_u64(o.req("turn", u64)?),
            path: o.string("path")?,
            revision: o.req("revision", u32)?,
            hunk: o.req("hunk", u32)?,
        })
    }),
    ("file", |o| {
        Ok(UndoTarget::File {
            turn: TurnId::from_u64(o.req("turn", u64)?),
            path: o.string("path")?,
        })
    }),
    ("turn", |o| {
        Ok(UndoTarget::Turn {
            turn: TurnId::from_u64(o.req("turn", u64)?),
        })
    }),
];

/// An `UndoTarget` in its JSON form (`{"undo":"file","turn":3,"path":"/w/a.rs"}`, …).
pub(super) fn undo_target(v: Val<'_>) -> Result<UndoTarget, FormError> {
    v.object()?.variant("undo", TARGETS)
}

/// The ledger in its JSON form: its turns, oldest first (serde's form of a `Vec<Turn>`).
pub(super) fn ledger(out: &mut Vec<u8>, ledger: &Ledger) {
    turns(out, ledger.turns());
}

/// `turns` as a JSON array of `Turn`s.
pub(super) fn turns<'t>(out: &mut Vec<u8>, turns: impl Iterator<Item = &'t Turn>) {
    out.push(b'[');
    for (i, turn) in turns.enumerate() {
        if i > 0 {
            out.push(b',');
        }
        Object::new(out)
            .u64("id", turn.id.as_u64())
            .u64("conn", turn.conn.as_u64())
            .u64("startedMs", turn.started_ms)
            .bool("closed", turn.closed)
            .with("files", |out| list(out, &turn.files, file_change))
            .end();
    }
    out.push(b']');
}

fn file_change(out: &mut Vec<u8>, file: &FileChange) {
    Object::new(out)
        .str("path", &file.path)
        .str(
            "changedBy",
            match file.changed_by {
                ChangedBy::Claude => "claude",
                ChangedBy::SeenOnDisk => "seenOnDisk",
            },
        )
        .bool("reviewed", file.reviewed)
        .with("baseline", |out| write_file_content(out, &file.baseline))
        .with("current", |out| write_file_content(out, &file.current))
        .u64("revision", file.revision)
        .bool("settled", file.settled)
        .bool("outsideChange", file.outside_change)
        .with("hunks", |out| list(out, &file.hunks, hunk))
        .end();
}

fn hunk(out: &mut Vec<u8>, hunk: &Hunk) {
    Object::new(out)
        .u64("oldStart", hunk.old_start)
        .u64("oldLines", hunk.old_lines)
        .u64("newStart", hunk.new_start)
        .u64("newLines", hunk.new_lines)
        .end();
}
