//! The editor model `idelink serve` runs when no editor is attached: the files on disk are the
//! documents, and diffs wait in a queue for review (or are decided by policy).

use super::file_read::{MAX_FILE_BYTES, read_regular};
use clap::ValueEnum;
use idelink_core::ide::{NO_CHANGE_REASON, is_no_change};
use idelink_core::{EditorEvent, ToolCallId, ToolOutcome, ToolRequest};
use std::collections::VecDeque;
use std::path::Path;
use std::sync::Arc;

/// Who answers `openDiff` when no editor is attached.
#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum DiffPolicy {
    /// Show the diff and ask: accept, reject or edit.
    Ask,
    /// Accept every proposal unchanged.
    Accept,
    /// Reject every proposal.
    Reject,
}

/// A proposal waiting for the user.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct PendingDiff {
    /// The tool call to answer.
    pub id: ToolCallId,
    /// The file (absolute, forward slashes).
    pub path: String,
    /// The proposed contents (shared with the diff worker and the editor, not copied).
    pub proposed: Arc<str>,
}

/// What to do with a tool request.
#[derive(Debug, PartialEq)]
pub enum Decision {
    /// Feed these editor events, then answer with the outcome now.
    Answer(Vec<EditorEvent>, ToolOutcome),
    /// A diff joined the review queue.
    Queued,
}

/// Answers tool requests from the file system and keeps the diff review queue.
pub struct WorkspaceEditor {
    policy: DiffPolicy,
    queue: VecDeque<PendingDiff>,
}

impl WorkspaceEditor {
    /// An editor deciding diffs by `policy`.
    pub fn new(policy: DiffPolicy) -> Self {
        WorkspaceEditor {
            policy,
            queue: VecDeque::new(),
        }
    }

    /// Decides a tool request. Never writes a file: an accepted diff is written by claude.
    pub fn on_tool_call(&mut self, id: ToolCallId, request: ToolRequest) -> Decision {
        match request {
            ToolRequest::OpenDiff {
                new_file_path,
                new_file_contents,
                ..
            } => match self.policy {
                DiffPolicy::Accept => {
                    let original = match read_regular(Path::new(&new_file_path), MAX_FILE_BYTES) {
                        // A file that does not exist is read as empty, as the CLI reads it.
                        Ok(bytes) => Some(
                            bytes
                                .map(|b| String::from_utf8_lossy(&b).into_owned())
                                .unwrap_or_default(),
                        ),
                        Err(message) => {
                            return Decision::Answer(Vec::new(), ToolOutcome::Failed { message });
                        }
                    };
                    let proposed = new_file_contents.clone();
                    Decision::Answer(
                        Vec::new(),
                        WorkspaceEditor::accept(original, &proposed, new_file_contents),
                    )
                }
                DiffPolicy::Reject => Decision::Answer(Vec::new(), ToolOutcome::DiffRejected),
                DiffPolicy::Ask => {
                    self.queue.push_back(PendingDiff {
                        id,
                        path: new_file_path,
                        proposed: new_file_contents.into(),
                    });
                    Decision::Queued
                }
            },
            ToolRequest::OpenFile {
                path,
                make_frontmost,
                ..
            } => open_file(path, make_frontmost),
            ToolRequest::SaveDocument { .. } => {
                // Files on disk are always saved.
                Decision::Answer(Vec::new(), ToolOutcome::DocumentSaved)
            }
            _ => Decision::Answer(
                Vec::new(),
                ToolOutcome::Failed {
                    message: "idelink serve does not run code; attach an editor that does"
                        .to_owned(),
                },
            ),
        }
    }

    /// The outcome of accepting `proposed` as `final_text` for a file whose text on disk is
    /// `original` (empty: it does not exist; none: not read): `diffSaved` with the original,
    /// or, when the accept
    /// changes nothing ([`is_no_change`]: the CLI would read it as "User denied via IDE"), a
    /// refusal that says so, which leaves the decision to claude's own prompt.
    pub fn accept(original: Option<String>, proposed: &str, final_text: String) -> ToolOutcome {
        if is_no_change(original.as_deref(), proposed, &final_text) {
            return ToolOutcome::DiffRefused {
                reason: NO_CHANGE_REASON.to_owned(),
            };
        }
        ToolOutcome::DiffSaved {
            final_text,
            original_text: original,
        }
    }

    /// Drops a cancelled proposal. Returns true when it was the one under review.
    pub fn on_cancelled(&mut self, id: ToolCallId) -> bool {
        let was_current = self.current().is_some_and(|d| d.id == id);
        self.queue.retain(|d| d.id != id);
        was_current
    }

    /// The proposal under review (the oldest waiting).
    pub fn current(&self) -> Option<&PendingDiff> {
        self.queue.front()
    }

    /// Removes the proposal under review once it is answered.
    pub fn finish_current(&mut self) -> Option<PendingDiff> {
        self.queue.pop_front()
    }
}

/// `openFile`: the file must exist and be a regular file (a FIFO or a device would block or
/// never end); it becomes an open (and, when frontmost, active) document.
fn open_file(path: String, make_frontmost: bool) -> Decision {
    let failed = |message: String| Decision::Answer(Vec::new(), ToolOutcome::Failed { message });
    let text = match read_regular(Path::new(&path), MAX_FILE_BYTES) {
        Ok(Some(bytes)) => String::from_utf8_lossy(&bytes).into_owned(),
        Ok(None) => return failed(format!("cannot open {path}: no such file")),
        Err(message) => return failed(message),
    };
    let line_count = u32::try_from(text.lines().count()).unwrap_or(u32::MAX);
    let language_id = idelink_core::language::language_id(&path).map(str::to_owned);
    let mut events = vec![EditorEvent::DocumentOpened {
        path: path.clone(),
        language_id: language_id.clone(),
        is_dirty: false,
        is_untitled: false,
    }];
    if make_frontmost {
        events.push(EditorEvent::DocumentActivated { path });
    }
    Decision::Answer(
        events,
        ToolOutcome::FileOpened {
            language_id,
            line_count: Some(line_count),
        },
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    fn diff(path: &str, contents: &str) -> ToolRequest {
        ToolRequest::OpenDiff {
            old_file_path: path.into(),
            new_file_path: path.into(),
            new_file_contents: contents.into(),
            tab_name: "t".into(),
            dirty: false,
        }
    }

    #[test]
    fn policies_decide_diffs_without_writing() {
        let id = ToolCallId::from_u64(1);
        let mut accept = WorkspaceEditor::new(DiffPolicy::Accept);
        assert_eq!(
            accept.on_tool_call(id, diff("/nowhere/x.rs", "new")),
            Decision::Answer(
                Vec::new(),
                ToolOutcome::DiffSaved {
                    final_text: "new".into(),
                    original_text: Some(String::new()),
                }
            )
        );
        assert!(!Path::new("/nowhere/x.rs").exists());
        let mut reject = WorkspaceEditor::new(DiffPolicy::Reject);
        assert_eq!(
            reject.on_tool_call(id, diff("/w/x.rs", "new")),
            Decision::Answer(Vec::new(), ToolOutcome::DiffRejected)
        );
    }

    /// `--diff accept` of a proposal that is the file's own text would be read by claude as a
    /// denial: it is refused instead, and an accept of a change carries the file's text.
    #[test]
    fn accepting_the_files_own_text_is_refused_and_a_change_carries_the_original() {
        let dir = std::env::temp_dir().join(format!("idelink-same-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let file = dir.join("same.txt");
        std::fs::write(&file, "same\r\n").unwrap();
        let path = file.to_str().unwrap().to_owned();
        let id = ToolCallId::from_u64(1);
        let mut accept = WorkspaceEditor::new(DiffPolicy::Accept);
        assert_eq!(
            accept.on_tool_call(id, diff(&path, "same\n")),
            Decision::Answer(
                Vec::new(),
                ToolOutcome::DiffRefused {
                    reason: NO_CHANGE_REASON.to_owned()
                }
            )
        );
        assert_eq!(
            accept.on_tool_call(id, diff(&path, "changed\n")),
            Decision::Answer(
                Vec::new(),
                ToolOutcome::DiffSaved {
                    final_text: "changed\n".into(),
                    original_text: Some("same\r\n".into()),
                }
            )
        );
        std::fs::remove_dir_all(&dir).unwrap();
    }

    #[test]
    fn asked_diffs_queue_and_cancellation_removes_them() {
        let mut editor = WorkspaceEditor::new(DiffPolicy::Ask);
        let (a, b) = (ToolCallId::from_u64(1), ToolCallId::from_u64(2));
        assert_eq!(editor.on_tool_call(a, diff("/w/a", "A")), Decision::Queued);
        assert_eq!(editor.on_tool_call(b, diff("/w/b", "B")), Decision::Queued);
        assert_eq!(editor.current().map(|d| d.id), Some(a));
        assert!(!editor.on_cancelled(b));
        assert!(editor.on_cancelled(a));
        assert_eq!(editor.current(), None);
    }

    #[test]
    fn open_file_reports_language_and_lines_or_fails_clearly() {
        let dir = std::env::temp_dir().join(format!("idelink-open-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let file = dir.join("m.rs");
        std::fs::write(&file, "a\nb\n").unwrap();
        let path = file.to_str().unwrap().to_owned();
        let mut editor = WorkspaceEditor::new(DiffPolicy::Ask);
        let request = ToolRequest::OpenFile {
            path: path.clone(),
            preview: false,
            start_text: None,
            end_text: None,
            select_to_end_of_line: false,
            make_frontmost: true,
        };
        let Decision::Answer(events, outcome) =
            editor.on_tool_call(ToolCallId::from_u64(1), request)
        else {
            panic!("openFile is answered at once");
        };
        assert_eq!(events.len(), 2);
        assert_eq!(
            outcome,
            ToolOutcome::FileOpened {
                language_id: Some("rust".into()),
                line_count: Some(2)
            }
        );
        let missing = open_file(format!("{path}.missing"), true);
        let Decision::Answer(_, ToolOutcome::Failed { message }) = missing else {
            panic!("a missing file fails");
        };
        assert!(message.starts_with("cannot open "), "{message}");
    }
}
