//! The ledger as a value: turns, files, hunks, the budget, undo and its refusals.

use proptest::prelude::*;

use super::*;
use crate::engine::ConnId;
use crate::time::Timestamp;

const LIMITS: LedgerLimits = LedgerLimits {
    max_bytes: 1 << 20,
    max_file_bytes: 1 << 16,
};

fn text(s: &str) -> FileContent {
    FileContent::Text { text: s.to_owned() }
}

fn conn() -> ConnId {
    ConnId::from_u64(1)
}

/// One claude edit of `path` in `turn`: baseline `before`, then settled at `after`.
fn edit(ledger: &mut Ledger, turn: TurnId, path: &str, before: FileContent, after: FileContent) {
    ledger.baseline(turn, path, before);
    ledger.settle(turn, path, after);
}

/// Carries out `writes` as a host would, on `disk` (path, content) pairs.
fn perform(ledger: &mut Ledger, writes: Vec<FileWrite>) {
    for w in writes {
        let content = w
            .text
            .map_or(FileContent::Missing, |text| FileContent::Text { text });
        ledger.undone(w.turn, &w.path, content);
    }
}

#[test]
fn an_accept_edits_turn_lists_its_files_with_their_hunks() {
    let mut ledger = Ledger::new(LIMITS);
    let turn = ledger.start_turn(Timestamp::from_millis(5), conn());
    edit(
        &mut ledger,
        turn,
        "/w/a.txt",
        text("one\ntwo\n"),
        text("one\n2\n"),
    );
    edit(
        &mut ledger,
        turn,
        "/w/new.txt",
        FileContent::Missing,
        text("fresh\n"),
    );
    let t = ledger.turn(turn).expect("the turn just started");
    let summary: Vec<_> = t
        .files
        .iter()
        .map(|f| {
            (
                f.path.as_str(),
                f.added_removed(),
                f.reviewed,
                f.hunks.len(),
            )
        })
        .collect();
    assert_eq!(
        summary,
        [
            ("/w/a.txt", (1, 1), false, 1),
            ("/w/new.txt", (1, 0), false, 1)
        ]
    );
    assert_eq!(
        ledger.take_changes(),
        [
            TurnChange::Started { turn, conn: conn() },
            TurnChange::FileAdded {
                turn,
                path: "/w/a.txt".into(),
                changed_by: ChangedBy::Claude
            },
            TurnChange::FileChanged {
                turn,
                path: "/w/a.txt".into(),
                revision: 1,
                hunks: 1,
                added: 1,
                removed: 1
            },
            TurnChange::FileAdded {
                turn,
                path: "/w/new.txt".into(),
                changed_by: ChangedBy::Claude
            },
            TurnChange::FileChanged {
                turn,
                path: "/w/new.txt".into(),
                revision: 1,
                hunks: 1,
                added: 1,
                removed: 0
            },
        ]
    );
}

#[test]
fn an_answered_diff_makes_its_edit_reviewed_and_the_next_prompt_closes_the_turn() {
    let mut ledger = Ledger::new(LIMITS);
    let first = ledger.start_turn(Timestamp::ZERO, conn());
    ledger.diff_answered(conn(), "/w/a.txt");
    edit(&mut ledger, first, "/w/a.txt", text("a\n"), text("b\n"));
    assert!(ledger.turn(first).is_some_and(Turn::reviewed));
    let second = ledger.start_turn(Timestamp::from_millis(9), conn());
    assert!(ledger.turn(first).is_some_and(|t| t.closed));
    assert_eq!(ledger.open_turn(conn()), Some(second));
}

#[test]
fn undoing_a_file_restores_it_and_a_created_file_is_deleted() {
    let mut ledger = Ledger::new(LIMITS);
    let turn = ledger.start_turn(Timestamp::ZERO, conn());
    edit(&mut ledger, turn, "/w/a", text("x\n"), text("y\n"));
    edit(
        &mut ledger,
        turn,
        "/w/n",
        FileContent::Missing,
        text("new\n"),
    );
    let undo_a = UndoTarget::File {
        turn,
        path: "/w/a".into(),
    };
    let writes = ledger.plan_undo(&undo_a).expect("undoable");
    assert_eq!(
        writes,
        [FileWrite {
            turn,
            path: "/w/a".into(),
            expected: text("y\n"),
            text: Some("x\n".into())
        }]
    );
    let undo_n = UndoTarget::File {
        turn,
        path: "/w/n".into(),
    };
    assert_eq!(
        ledger.plan_undo(&undo_n).map(|w| w[0].text.clone()),
        Ok(None)
    );
    perform(&mut ledger, writes);
    assert_eq!(
        ledger.plan_undo(&undo_a),
        Err(UndoRefused(format!(
            "/w/a is already as it was before {turn}"
        )))
    );
}

#[test]
fn a_file_deleted_by_claude_is_written_again_on_undo() {
    let mut ledger = Ledger::new(LIMITS);
    let turn = ledger.start_turn(Timestamp::ZERO, conn());
    edit(
        &mut ledger,
        turn,
        "/w/gone",
        text("kept\n"),
        FileContent::Missing,
    );
    let writes = ledger
        .plan_undo(&UndoTarget::Turn { turn })
        .expect("undoable");
    assert_eq!(writes[0].expected, FileContent::Missing);
    assert_eq!(writes[0].text.as_deref(), Some("kept\n"));
}

#[test]
fn a_deleted_file_is_one_hunk_of_every_line_and_undoing_it_writes_the_file_again() {
    let mut ledger = Ledger::new(LIMITS);
    let turn = ledger.start_turn(Timestamp::ZERO, conn());
    edit(
        &mut ledger,
        turn,
        "/w/gone",
        text("one\ntwo\nno newline"),
        FileContent::Missing,
    );
    edit(
        &mut ledger,
        turn,
        "/w/n",
        FileContent::Missing,
        text("new\n"),
    );
    let gone = ledger.turn(turn).and_then(|t| t.file("/w/gone")).cloned();
    let gone = gone.expect("deleted in the turn");
    assert_eq!(
        gone.hunks,
        [Hunk {
            old_start: 0,
            old_lines: 3,
            new_start: 0,
            new_lines: 0
        }]
    );
    assert_eq!(gone.added_removed(), (0, 3));
    let hunk = |path: &str| UndoTarget::Hunk {
        turn,
        path: path.into(),
        revision: 1,
        hunk: 0,
    };
    let writes = ledger.plan_undo(&hunk("/w/gone")).expect("undoable");
    assert_eq!(
        writes,
        [FileWrite {
            turn,
            path: "/w/gone".into(),
            expected: FileContent::Missing,
            text: Some("one\ntwo\nno newline".into()),
        }]
    );
    // The one hunk of a created file deletes it again, no empty file left behind.
    let writes = ledger.plan_undo(&hunk("/w/n")).expect("undoable");
    assert_eq!(writes[0].text, None);
}

#[test]
fn a_hunk_shown_before_claude_changed_the_file_again_is_refused() {
    let mut ledger = Ledger::new(LIMITS);
    let turn = ledger.start_turn(Timestamp::ZERO, conn());
    edit(
        &mut ledger,
        turn,
        "/w/a",
        text("1\n2\n3\n"),
        text("1\nB\n3\n"),
    );
    let shown = UndoTarget::Hunk {
        turn,
        path: "/w/a".into(),
        revision: 1,
        hunk: 0,
    };
    assert!(ledger.plan_undo(&shown).is_ok());
    edit(
        &mut ledger,
        turn,
        "/w/a",
        text("1\nB\n3\n"),
        text("1\nB\nC\n"),
    );
    assert_eq!(
        ledger.plan_undo(&shown),
        Err(UndoRefused(
            "/w/a changed again since its hunks were shown (revision 1, now 2): look at its \
             hunks again"
                .into()
        ))
    );
}

#[test]
fn a_change_of_a_later_turn_is_never_overwritten() {
    let mut ledger = Ledger::new(LIMITS);
    let first = ledger.start_turn(Timestamp::ZERO, conn());
    edit(&mut ledger, first, "/w/a", text("1\n"), text("2\n"));
    let second = ledger.start_turn(Timestamp::from_millis(1), conn());
    edit(&mut ledger, second, "/w/a", text("2\n"), text("3\n"));
    assert_eq!(
        ledger.plan_undo(&UndoTarget::Turn { turn: first }),
        Err(UndoRefused(format!(
            "{second} changed /w/a after {first}: undo {second}'s change first"
        )))
    );
    assert!(ledger.plan_undo(&UndoTarget::Turn { turn: second }).is_ok());
}

#[test]
fn a_file_claude_is_still_editing_is_not_undone() {
    let mut ledger = Ledger::new(LIMITS);
    let turn = ledger.start_turn(Timestamp::ZERO, conn());
    ledger.baseline(turn, "/w/a", text("1\n"));
    let refused = ledger.plan_undo(&UndoTarget::File {
        turn,
        path: "/w/a".into(),
    });
    assert_eq!(
        refused,
        Err(UndoRefused(
            "claude is still editing /w/a: wait for its edit to end".into()
        ))
    );
}

#[test]
fn a_change_between_two_edits_or_to_other_text_than_accepted_is_marked() {
    let mut ledger = Ledger::new(LIMITS);
    let turn = ledger.start_turn(Timestamp::ZERO, conn());
    edit(&mut ledger, turn, "/w/a", text("1\n"), text("2\n"));
    // Someone wrote "2x" before claude's second edit of it.
    ledger.baseline(turn, "/w/a", text("2x\n"));
    let file = ledger.turn(turn).and_then(|t| t.file("/w/a")).cloned();
    assert_eq!(file.as_ref().map(|f| f.outside_change), Some(true));
    assert_eq!(file.map(|f| f.baseline), Some(text("1\n")));

    ledger.diff_answered(conn(), "/w/b");
    ledger.baseline(turn, "/w/b", text("b\n"));
    ledger.accepted(conn(), "/w/b", "accepted\n");
    ledger.settle(turn, "/w/b", text("accepted\nand more\n"));
    let b = ledger.turn(turn).and_then(|t| t.file("/w/b"));
    assert_eq!(b.map(|f| f.outside_change), Some(true));
    ledger.accepted(conn(), "/w/c", "c2\n");
    ledger.baseline(turn, "/w/c", text("c\n"));
    ledger.settle(turn, "/w/c", text("c2\n"));
    let c = ledger.turn(turn).and_then(|t| t.file("/w/c"));
    assert_eq!(c.map(|f| f.outside_change), Some(false));
}

#[test]
fn a_version_seen_during_claudes_edit_that_the_edit_did_not_end_with_is_an_outside_change() {
    let mut ledger = Ledger::new(LIMITS);
    let turn = ledger.start_turn(Timestamp::ZERO, conn());
    // Claude's own write seen by the watcher before the edit ends: no outside change.
    ledger.baseline(turn, "/w/a", text("a\n"));
    ledger.seen_on_disk("/w/a", text("claude\n"), text("a\n"));
    ledger.settle(turn, "/w/a", text("claude\n"));
    // Someone's "mine" between the baseline and claude's write, which then landed.
    ledger.baseline(turn, "/w/b", text("1\n2\n3\n"));
    ledger.seen_on_disk("/w/b", text("1\nmine\n3\n"), text("1\n2\n3\n"));
    ledger.settle(turn, "/w/b", text("claude\nmine\n3\n"));
    // Claude's write caught in progress (the file truncated, then half written): no outside
    // change.
    ledger.baseline(turn, "/w/c", text("old\n"));
    ledger.seen_on_disk("/w/c", text(""), text("old\n"));
    ledger.seen_on_disk("/w/c", text("new line 1\n"), text(""));
    ledger.settle(turn, "/w/c", text("new line 1\nnew line 2\n"));
    let t = ledger.turn(turn).expect("open");
    let marks: Vec<_> = t.files.iter().map(|f| f.outside_change).collect();
    assert_eq!(marks, [false, true, false]);
    assert!(t.seen_editing.is_empty(), "kept only while editing");
    // The whole file back would drop "mine" unseen: refused, its hunks are undone one by one.
    let whole = UndoTarget::File {
        turn,
        path: "/w/b".into(),
    };
    let reason = "/w/b also changed outside claude during turn 1: undoing the whole file would \
                  drop that change too; undo its hunks one by one (t shows them)";
    assert_eq!(ledger.plan_undo(&whole), Err(UndoRefused(reason.into())));
    assert_eq!(
        ledger.plan_undo(&UndoTarget::Turn { turn }),
        Err(UndoRefused(reason.into()))
    );
    let hunk = UndoTarget::Hunk {
        turn,
        path: "/w/b".into(),
        revision: 1,
        hunk: 0,
    };
    let writes = ledger
        .plan_undo(&hunk)
        .expect("a hunk is shown before it is undone");
    assert_eq!(writes[0].text.as_deref(), Some("1\n2\n3\n"));
}

#[test]
fn a_change_seen_on_disk_joins_the_open_turn_with_the_last_known_baseline() {
    let mut ledger = Ledger::new(LIMITS);
    // No open turn: the user's own change is not the ledger's.
    ledger.seen_on_disk("/w/s", text("after\n"), text("before\n"));
    assert_eq!(ledger.turns().count(), 0);
    let turn = ledger.start_turn(Timestamp::ZERO, conn());
    ledger.seen_on_disk("/w/s", text("after\n"), text("before\n"));
    let file = ledger.turn(turn).and_then(|t| t.file("/w/s")).cloned();
    let file = file.expect("seen on disk");
    assert_eq!(file.changed_by, ChangedBy::SeenOnDisk);
    assert_eq!(file.added_removed(), (1, 1));
    // Claude's own write seen by the watcher while it edits is not a second change.
    ledger.baseline(turn, "/w/a", text("x\n"));
    ledger.seen_on_disk("/w/a", text("y\n"), text("x\n"));
    ledger.settle(turn, "/w/a", text("y\n"));
    let a = ledger.turn(turn).and_then(|t| t.file("/w/a")).cloned();
    assert_eq!(
        a.map(|f| (f.changed_by, f.revision, f.outside_change)),
        Some((ChangedBy::Claude, 1, false))
    );
}

#[test]
fn a_50_mib_file_is_a_summary_and_a_binary_file_is_marked() {
    let mut ledger = Ledger::new(LIMITS);
    let turn = ledger.start_turn(Timestamp::ZERO, conn());
    let big = "x".repeat(50 << 20);
    edit(
        &mut ledger,
        turn,
        "/w/big",
        text(&big),
        text(&format!("{big}y")),
    );
    let file = ledger.turn(turn).and_then(|t| t.file("/w/big")).cloned();
    let file = file.expect("listed");
    assert!(matches!(file.baseline, FileContent::Large { bytes, .. } if bytes == 50 << 20));
    assert!(matches!(file.current, FileContent::Large { bytes, .. } if bytes == (50 << 20) + 1));
    assert_eq!(file.revision, 1, "the digests differ: the change is seen");
    assert!(ledger.held_bytes() < LIMITS.max_bytes);
    let binary = FileContent::Binary {
        bytes: 4,
        digest: "d1".into(),
    };
    edit(
        &mut ledger,
        turn,
        "/w/bin",
        binary.clone(),
        text("now text\n"),
    );
    let refused = ledger.plan_undo(&UndoTarget::File {
        turn,
        path: "/w/bin".into(),
    });
    assert_eq!(
        refused,
        Err(UndoRefused(format!(
            "/w/bin: its content before {turn} was not kept (binary, 4 bytes), so it cannot be \
             restored"
        )))
    );
}

#[test]
fn past_the_budget_the_oldest_ended_turns_are_dropped_and_reported() {
    let mut ledger = Ledger::new(LedgerLimits {
        max_bytes: 100,
        max_file_bytes: 100,
    });
    let old = ledger.start_turn(Timestamp::ZERO, conn());
    edit(
        &mut ledger,
        old,
        "/w/a",
        text(&"a".repeat(20)),
        text(&"b".repeat(20)),
    );
    let new = ledger.start_turn(Timestamp::from_millis(1), conn());
    ledger.take_changes();
    edit(
        &mut ledger,
        new,
        "/w/b",
        text(&"c".repeat(31)),
        text(&"d".repeat(31)),
    );
    let changes = ledger.take_changes();
    assert!(changes.contains(&TurnChange::Dropped { turns: vec![old] }));
    assert!(ledger.turn(old).is_none());
    assert!(ledger.held_bytes() <= 100);
    // The open turn alone over budget: the text is kept as a summary.
    edit(
        &mut ledger,
        new,
        "/w/c",
        text(&"e".repeat(60)),
        text(&"f".repeat(60)),
    );
    assert!(ledger.held_bytes() <= 100);
}

fn lines_text() -> impl Strategy<Value = String> {
    proptest::collection::vec(prop_oneof!["a\n", "b\n", "c\r\n", "d", "\n"], 0..16)
        .prop_map(|parts| parts.concat())
}

proptest! {
    /// Undoing every hunk of a turn, one at a time as a person would (the first hunk listed,
    /// at the revision shown), restores every baseline byte for byte.
    #[test]
    fn undoing_every_hunk_of_a_turn_restores_every_baseline(
        files in proptest::collection::vec((lines_text(), lines_text()), 1..5)
    ) {
        let mut ledger = Ledger::new(LIMITS);
        let turn = ledger.start_turn(Timestamp::ZERO, conn());
        for (i, (before, after)) in files.iter().enumerate() {
            edit(&mut ledger, turn, &format!("/w/{i}"), text(before), text(after));
        }
        for (i, (before, after)) in files.iter().enumerate() {
            let path = format!("/w/{i}");
            // Each undo takes a hunk's edits away: at most one round per line of both texts.
            for _ in 0..=before.len() + after.len() {
                let file = ledger.turn(turn).and_then(|t| t.file(&path)).cloned();
                let Some(file) = file else { break };
                if file.hunks.is_empty() {
                    break;
                }
                let target = UndoTarget::Hunk { turn, path: path.clone(), revision: file.revision, hunk: 0 };
                let writes = ledger.plan_undo(&target);
                prop_assert!(writes.is_ok(), "{:?}", writes);
                perform(&mut ledger, writes.unwrap_or_default());
            }
        }
        for (i, (before, _)) in files.iter().enumerate() {
            let file = ledger.turn(turn).and_then(|t| t.file(&format!("/w/{i}"))).cloned();
            prop_assert_eq!(file.map(|f| f.current), Some(text(before)));
        }
    }
}

#[test]
fn a_writers_temporary_file_seen_and_gone_leaves_a_reviewed_turn_reviewed() {
    let mut ledger = Ledger::new(LIMITS);
    let turn = ledger.start_turn(Timestamp::ZERO, conn());
    ledger.diff_answered(conn(), "/w/a.txt");
    ledger.baseline(turn, "/w/a.txt", text("a\n"));
    // The CLI's atomic write: a temporary, renamed over the file; the watcher read the
    // temporary while it was there, then saw it gone.
    let temporary = "/w/a.txt.tmp.1705.c75a7df21bd2";
    ledger.seen_on_disk(temporary, text("b\n"), FileContent::Missing);
    ledger.settle(turn, "/w/a.txt", text("b\n"));
    ledger.seen_on_disk(temporary, FileContent::Missing, text("b\n"));
    let t = ledger.turn(turn).expect("the turn just started");
    let changed: Vec<&str> = t
        .files
        .iter()
        .filter(|f| f.changed())
        .map(|f| f.path.as_str())
        .collect();
    assert_eq!(changed, ["/w/a.txt"]);
    assert!(t.reviewed(), "{:?}", t.files);
    // A file the turn did change without a diff still makes it "auto".
    ledger.seen_on_disk("/w/b.txt", text("sed\n"), text("orig\n"));
    assert!(ledger.turn(turn).is_some_and(|t| !t.reviewed()));
}
