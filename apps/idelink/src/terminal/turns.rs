//! The serve terminal's view of the turn ledger: `t` lists the turns (files, lines added and
//! removed, "auto" or "reviewed", "seen on disk"), `t N` shows turn N's hunks, `u N [FILE
//! [HUNK]]` undoes turn N, one of its files or one hunk after a `yes`. Every path and line
//! shown came from the model or the disk and goes through the inert renderer.

use super::inert;
use idelink_core::ledger::{
    ChangedBy, FileChange, FileContent, Ledger, Turn, TurnId, UndoTarget, lines,
};

/// The widest line shown.
const MAX_LINE_CHARS: usize = 200;

/// A ledger command.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum TurnCommand {
    /// `t`: every turn.
    List,
    /// `t N`: one turn's hunks.
    Show(TurnId),
    /// `u N [FILE [HUNK]]`: an undo, confirmed with `yes`. `FILE` is workspace-relative or
    /// absolute; `HUNK` counts from 1 as shown.
    Undo {
        /// The turn.
        turn: TurnId,
        /// The file, if only one.
        file: Option<String>,
        /// The hunk (1-based), if only one.
        hunk: Option<u32>,
    },
}

/// The command `line` is, `None` when it is no ledger command.
pub fn parse(line: &str) -> Option<Result<TurnCommand, String>> {
    let mut words = line.split_whitespace();
    let verb = words.next()?;
    if verb != "t" && verb != "u" {
        return None;
    }
    let number = |word: Option<&str>| {
        word.map(|w| {
            w.parse::<u64>()
                .map_err(|_| format!("{w} is not a turn number (see t)"))
        })
    };
    let turn = match number(words.next()) {
        None if verb == "t" => return Some(Ok(TurnCommand::List)),
        None => return Some(Err("u takes a turn: u N, u N FILE or u N FILE HUNK".into())),
        Some(Err(e)) => return Some(Err(e)),
        Some(Ok(n)) => TurnId::from_u64(n),
    };
    if verb == "t" {
        return Some(Ok(TurnCommand::Show(turn)));
    }
    let file = words.next().map(str::to_owned);
    let hunk = match words.next().map(str::parse::<u32>) {
        None => None,
        Some(Ok(n)) if n >= 1 => Some(n),
        Some(_) => return Some(Err("a hunk is a number from 1, as t N shows".into())),
    };
    Some(Ok(TurnCommand::Undo { turn, file, hunk }))
}

/// The undo `command` names, for the ledger as it is (the revision a hunk is shown at).
pub fn undo_target(
    ledger: &Ledger,
    turn: TurnId,
    file: Option<&str>,
    hunk: Option<u32>,
    workspace: &str,
) -> Result<UndoTarget, String> {
    let Some(file) = file else {
        return Ok(UndoTarget::Turn { turn });
    };
    let path = if file.starts_with('/') {
        file.to_owned()
    } else {
        format!(
            "{}/{}",
            workspace.trim_end_matches('/'),
            file.trim_start_matches("./")
        )
    };
    let Some(hunk) = hunk else {
        return Ok(UndoTarget::File { turn, path });
    };
    let revision = ledger
        .turn(turn)
        .and_then(|t| t.file(&path))
        .map(|f| f.revision)
        .ok_or_else(|| {
            format!(
                "{turn} did not change {}",
                inert::line(file, MAX_LINE_CHARS)
            )
        })?;
    Ok(UndoTarget::Hunk {
        turn,
        path,
        revision,
        hunk: hunk - 1,
    })
}

/// `t`: one line per turn holding a changed file, newest last.
pub fn list(ledger: &Ledger, workspace: &str) -> Vec<String> {
    let shown: Vec<String> = ledger
        .turns()
        .filter(|turn| turn.files.iter().any(FileChange::changed))
        .map(|turn| turn_line(turn, workspace))
        .collect();
    if shown.is_empty() {
        return vec!["no turn changed a file yet".to_owned()];
    }
    shown
}

/// `t N`: the turn's files and hunks.
pub fn show(ledger: &Ledger, turn: TurnId, workspace: &str) -> Vec<String> {
    let Some(t) = ledger.turn(turn) else {
        return vec![format!("{turn} is not in the ledger (see t)")];
    };
    let mut out = vec![turn_line(t, workspace)];
    for file in t.files.iter().filter(|f| f.changed()) {
        out.push(format!("--- {}", file_label(file, workspace)));
        let (Some(old), Some(new)) = (text_of(&file.baseline), text_of(&file.current)) else {
            out.push(format!(
                "    not shown: before {}, now {}",
                file.baseline.summary(),
                file.current.summary()
            ));
            continue;
        };
        let (old, new) = (lines(old), lines(new));
        for (i, h) in file.hunks.iter().enumerate() {
            out.push(format!(
                "  hunk {} @@ -{},{} +{},{} @@",
                i + 1,
                h.old_start + 1,
                h.old_lines,
                h.new_start + 1,
                h.new_lines
            ));
            let (os, ns) = (h.old_start as usize, h.new_start as usize);
            for line in &old[os..os + h.old_lines as usize] {
                out.push(format!(
                    "  -{}",
                    inert::line(line.trim_end_matches(['\n', '\r']), MAX_LINE_CHARS)
                ));
            }
            for line in &new[ns..ns + h.new_lines as usize] {
                out.push(format!(
                    "  +{}",
                    inert::line(line.trim_end_matches(['\n', '\r']), MAX_LINE_CHARS)
                ));
            }
        }
    }
    out
}

/// What an undo of `target` will do, for its confirmation.
pub fn describe(target: &UndoTarget, workspace: &str) -> String {
    let rel = |path: &str| inert::line(relative(path, workspace), MAX_LINE_CHARS);
    match target {
        UndoTarget::Turn { turn } => format!("undo every file of {turn}"),
        UndoTarget::File { turn, path } => format!("undo {turn}'s change of {}", rel(path)),
        UndoTarget::Hunk {
            turn, path, hunk, ..
        } => {
            format!("undo hunk {} of {} in {turn}", hunk + 1, rel(path))
        }
    }
}

fn text_of(content: &FileContent) -> Option<&str> {
    match content {
        FileContent::Missing => Some(""),
        other => other.text(),
    }
}

fn turn_line(turn: &Turn, workspace: &str) -> String {
    let files: Vec<&FileChange> = turn.files.iter().filter(|f| f.changed()).collect();
    let state = if turn.closed { "ended" } else { "current" };
    let review = if turn.reviewed() { "reviewed" } else { "auto" };
    let mut line = format!("{} ({state}, {review}): {} files", turn.id, files.len());
    for file in files {
        line.push_str(" · ");
        line.push_str(&file_label(file, workspace));
    }
    line
}

fn file_label(file: &FileChange, workspace: &str) -> String {
    let (added, removed) = file.added_removed();
    let mut label = format!(
        "{} +{added} -{removed}",
        inert::line(relative(&file.path, workspace), MAX_LINE_CHARS)
    );
    match (&file.baseline, &file.current) {
        (FileContent::Missing, _) => label.push_str(" (created)"),
        (_, FileContent::Missing) => label.push_str(" (deleted)"),
        (FileContent::Binary { .. }, _) | (_, FileContent::Binary { .. }) => {
            label.push_str(" (binary)")
        }
        (FileContent::Large { .. }, _) | (_, FileContent::Large { .. }) => {
            label.push_str(" (large: summary only)")
        }
        _ => {}
    }
    if file.changed_by == ChangedBy::SeenOnDisk {
        label.push_str(" (seen on disk)");
    } else if file.outside_change {
        label.push_str(" (also changed outside claude)");
    }
    label
}

fn relative<'p>(path: &'p str, workspace: &str) -> &'p str {
    path.strip_prefix(workspace.trim_end_matches('/'))
        .and_then(|rest| rest.strip_prefix('/'))
        .unwrap_or(path)
}

#[cfg(test)]
mod tests {
    use super::*;
    use idelink_core::ledger::LedgerLimits;
    use idelink_core::{ConnId, Timestamp};

    fn text(s: &str) -> FileContent {
        FileContent::Text { text: s.to_owned() }
    }

    fn ledger() -> (Ledger, TurnId) {
        let mut ledger = Ledger::new(LedgerLimits {
            max_bytes: 1 << 20,
            max_file_bytes: 1 << 20,
        });
        let turn = ledger.start_turn(Timestamp::ZERO, ConnId::from_u64(1));
        ledger.baseline(turn, "/w/a.txt", text("one\ntwo\n"));
        ledger.settle(turn, "/w/a.txt", text("one\n\u{1b}[31mred\n"));
        ledger.baseline(turn, "/w/new.txt", FileContent::Missing);
        ledger.settle(turn, "/w/new.txt", text("fresh\n"));
        ledger.seen_on_disk("/w/s.txt", text("sed\n"), text("orig\n"));
        (ledger, turn)
    }

    #[test]
    fn t_lists_files_with_their_lines_and_how_they_changed() {
        let (ledger, _) = ledger();
        assert_eq!(
            list(&ledger, "/w"),
            [
                "turn 1 (current, auto): 3 files · a.txt +1 -1 · new.txt +1 -0 (created) · s.txt +1 -1 (seen on disk)"
            ]
        );
    }

    #[test]
    fn t_n_shows_the_hunks_inert() {
        let (ledger, turn) = ledger();
        let shown = show(&ledger, turn, "/w").join("\n");
        assert!(
            shown.contains("  hunk 1 @@ -2,1 +2,1 @@\n  -two\n  +"),
            "{shown}"
        );
        assert!(
            !shown.contains('\u{1b}'),
            "no escape reaches the terminal: {shown}"
        );
    }

    #[test]
    fn commands_parse_and_name_their_undo() {
        assert_eq!(parse("t"), Some(Ok(TurnCommand::List)));
        assert_eq!(
            parse("t 2"),
            Some(Ok(TurnCommand::Show(TurnId::from_u64(2))))
        );
        assert_eq!(
            parse("u 1 a.txt 1"),
            Some(Ok(TurnCommand::Undo {
                turn: TurnId::from_u64(1),
                file: Some("a.txt".into()),
                hunk: Some(1)
            }))
        );
        assert!(matches!(parse("u"), Some(Err(_))));
        assert!(matches!(parse("u 1 a.txt 0"), Some(Err(_))));
        assert_eq!(parse("a"), None);
        let (ledger, turn) = ledger();
        assert_eq!(
            undo_target(&ledger, turn, Some("a.txt"), Some(1), "/w"),
            Ok(UndoTarget::Hunk {
                turn,
                path: "/w/a.txt".into(),
                revision: 1,
                hunk: 0
            })
        );
        assert_eq!(
            describe(&UndoTarget::Turn { turn }, "/w"),
            "undo every file of turn 1"
        );
    }
}
