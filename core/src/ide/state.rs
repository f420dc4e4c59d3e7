//! The editor state the engine answers the read tools from, fed by [`EditorEvent`]s.

use std::borrow::Cow;

use super::diagnostics::DiagnosticsByFile;
use super::event::{Diagnostic, EditorEvent, Range};
use super::notification::{AtMentioned, SelectionChanged};
use super::path::{PathStyle, normalize_path};

/// One open document (one tab).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct OpenDocument {
    /// Its normalized path.
    pub path: String,
    /// The editor's language id, when the editor said.
    pub language_id: Option<String>,
    /// Whether it has unsaved changes.
    pub is_dirty: bool,
    /// Whether it has never been saved to disk.
    pub is_untitled: bool,
    /// When it was last activated, in activation events (0 = never).
    last_activated: u64,
}

/// What an applied event changed that the engine must tell clients about.
#[derive(Clone, Debug, PartialEq, Eq)]
#[non_exhaustive]
#[must_use]
pub enum StateChange {
    /// Nothing any client needs to hear about.
    None,
    /// The active document or its selection changed: send (debounced)
    /// [`EditorState::selection_notification`] as `selection_changed`.
    SelectionOrActiveChanged,
    /// The workspace folders changed: rewrite the lock file's `workspaceFolders`.
    FoldersChanged,
    /// The user mentioned a file or range: send it as `at_mentioned` (queue it until a client
    /// is ready).
    Mention(AtMentioned),
}

/// The editor as the engine knows it: open documents in tab order, the active document and
/// its selection, the latest selection seen anywhere, diagnostics per file and the workspace
/// folders. Every path is stored normalized with the state's [`PathStyle`].
///
/// Rules:
/// - Opening a document adds a tab without activating it. Activating or selecting in an
///   unknown document opens it at the end of the tab order.
/// - The active document stays active until another one is activated or it is closed
///   (focus leaving the editor area changes nothing). Closing it activates the most recently
///   active document still open, or none when no remaining document was ever active.
///   [`EditorEvent::NoDocumentActive`] leaves none active and every document open.
/// - The current selection belongs to the active document and is forgotten when another
///   document becomes active. The latest selection survives its document closing.
/// - Selection text is kept exactly as given (the engine caps message sizes).
/// - Paths compare byte for byte after normalization (on Windows only the drive letter's
///   case is folded).
/// - The state is bounded by its [`StateLimits`]: past `max_documents` the least recently
///   activated document other than the active one is forgotten (the oldest in tab order among
///   never-activated ones first); past `max_diagnostics` entries the files whose diagnostics
///   were replaced longest ago are forgotten, and one file's own list is cut at the cap. The
///   editor is the host's: overflowing it is neither an error nor a panic, the state keeps the
///   most recent part.
#[derive(Clone, Debug, Default)]
pub struct EditorState {
    style: PathStyle,
    limits: StateLimits,
    documents: Vec<OpenDocument>,
    active: Option<String>,
    /// Whether `latest` is the active document's current selection. One stored selection
    /// serves both (the current one, when there is one, is always the latest), so a big
    /// selection is held once.
    has_current: bool,
    latest: Option<SelectionChanged>,
    diagnostics: DiagnosticsByFile,
    /// The files of `diagnostics`, least recently replaced first.
    diagnostics_order: Vec<String>,
    /// Entries summed over `diagnostics`.
    diagnostics_len: usize,
    folders: Vec<String>,
    activations: u64,
}

/// How much editor state an [`EditorState`] keeps (see its rules for what overflow drops).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct StateLimits {
    /// Open documents kept.
    pub max_documents: usize,
    /// Diagnostic entries kept, summed over every file.
    pub max_diagnostics: usize,
}

impl Default for StateLimits {
    /// No limit: the engine hands in the limits of its `Config`.
    fn default() -> Self {
        StateLimits {
            max_documents: usize::MAX,
            max_diagnostics: usize::MAX,
        }
    }
}

impl EditorState {
    /// An editor with no open documents, spelling paths in `style`, showing
    /// `workspace_folders` (normalized, duplicates dropped).
    pub fn new(style: PathStyle, workspace_folders: Vec<String>) -> Self {
        let mut state = EditorState {
            style,
            ..EditorState::default()
        };
        state.folders = state.normalize_folders(&workspace_folders);
        state
    }

    /// The same state bounded by `limits`.
    pub fn with_limits(mut self, limits: StateLimits) -> Self {
        self.limits = limits;
        self
    }

    /// Applies one event (paths normalized on the way in). Returns what changed that the
    /// engine must notify about; an event that changes nothing visible returns
    /// [`StateChange::None`].
    pub fn apply(&mut self, event: &EditorEvent) -> StateChange {
        match event {
            EditorEvent::DocumentOpened {
                path,
                language_id,
                is_dirty,
                is_untitled,
            } => {
                let path = self.normalize(path);
                let doc = self.open(path);
                if language_id.is_some() {
                    doc.language_id.clone_from(language_id);
                }
                doc.is_dirty = *is_dirty;
                doc.is_untitled = *is_untitled;
                StateChange::None
            }
            EditorEvent::DocumentClosed { path } => self.close(&self.normalize(path)),
            EditorEvent::DocumentActivated { path } => {
                if self.activate(self.normalize(path)) {
                    StateChange::SelectionOrActiveChanged
                } else {
                    StateChange::None
                }
            }
            EditorEvent::NoDocumentActive => self.deactivate(),
            EditorEvent::DocumentDirtyChanged { path, is_dirty } => {
                self.set_dirty(path, *is_dirty);
                StateChange::None
            }
            EditorEvent::DocumentSaved { path } => {
                self.set_dirty(path, false);
                StateChange::None
            }
            EditorEvent::SelectionChanged {
                path,
                text,
                selection,
            } => self.select(self.normalize(path), text, *selection),
            EditorEvent::DiagnosticsChanged { path, diagnostics } => {
                self.set_diagnostics(self.normalize(path), diagnostics);
                StateChange::None
            }
            // The engine keeps a proposal's diagnostics with its call (they belong to one
            // client's pending diff, not to the editor's files).
            EditorEvent::ProposalDiagnosticsChanged { .. } => StateChange::None,
            // The engine's context policy, not the editor's state.
            EditorEvent::PolicyChanged { .. } | EditorEvent::SharingPaused { .. } => {
                StateChange::None
            }
            EditorEvent::WorkspaceFoldersChanged { folders } => {
                let folders = self.normalize_folders(folders);
                if folders == self.folders {
                    StateChange::None
                } else {
                    self.folders = folders;
                    StateChange::FoldersChanged
                }
            }
            EditorEvent::Mention {
                path,
                line_start,
                line_end,
            } => StateChange::Mention(AtMentioned {
                file_path: self.normalize(path),
                line_start: *line_start,
                line_end: *line_end,
            }),
        }
    }

    /// The workspace folders, normalized, in the editor's order.
    pub fn workspace_folders(&self) -> &[String] {
        &self.folders
    }

    /// How this editor spells paths.
    pub fn path_style(&self) -> PathStyle {
        self.style
    }

    /// The open documents in tab order.
    pub fn documents(&self) -> &[OpenDocument] {
        &self.documents
    }

    /// The open document at `normalized_path`, if any.
    pub fn document(&self, normalized_path: &str) -> Option<&OpenDocument> {
        self.documents.iter().find(|d| d.path == normalized_path)
    }

    /// The path of the active document, if any.
    pub fn active_path(&self) -> Option<&str> {
        self.active.as_deref()
    }

    /// The latest selection seen in any document, even one closed since.
    pub fn latest_selection(&self) -> Option<&SelectionChanged> {
        self.latest.as_ref()
    }

    /// The diagnostics of every file that has some, ordered by path.
    pub fn diagnostics(&self) -> &DiagnosticsByFile {
        &self.diagnostics
    }

    /// The `selection_changed` params for the current state: the active document's current
    /// selection, or (active document with no selection seen) an empty selection at 0:0 of
    /// it; `None` when no document is active.
    pub fn selection_notification(&self) -> Option<Cow<'_, SelectionChanged>> {
        let current = self.latest.as_ref().filter(|_| self.has_current);
        match (current, &self.active) {
            (Some(current), _) => Some(Cow::Borrowed(current)),
            (None, Some(active)) => Some(Cow::Owned(SelectionChanged::new(
                active,
                "",
                Range::default(),
            ))),
            (None, None) => None,
        }
    }

    fn normalize(&self, path: &str) -> String {
        normalize_path(path, self.style).into_owned()
    }

    fn normalize_folders(&self, folders: &[String]) -> Vec<String> {
        let mut out: Vec<String> = Vec::with_capacity(folders.len());
        for folder in folders {
            let folder = self.normalize(folder);
            if !out.contains(&folder) {
                out.push(folder);
            }
        }
        out
    }

    /// The document at `path`, added at the end of the tab order when unknown (forgetting
    /// one first when `max_documents` are open).
    fn open(&mut self, path: String) -> &mut OpenDocument {
        let index = match self.documents.iter().position(|d| d.path == path) {
            Some(index) => index,
            None => {
                if self.documents.len() >= self.limits.max_documents {
                    self.forget_a_document();
                }
                self.documents.push(OpenDocument {
                    path,
                    language_id: None,
                    is_dirty: false,
                    is_untitled: false,
                    last_activated: 0,
                });
                self.documents.len() - 1
            }
        };
        &mut self.documents[index]
    }

    /// Makes `path` the active document (opening it if unknown); true when it was not
    /// active before. A newly active document has no current selection.
    fn activate(&mut self, path: String) -> bool {
        self.activations = self.activations.saturating_add(1);
        let stamp = self.activations;
        let newly_active = self.active.as_ref() != Some(&path);
        if newly_active {
            self.active = Some(path.clone());
            self.has_current = false;
        }
        self.open(path).last_activated = stamp;
        newly_active
    }

    fn select(&mut self, path: String, text: &str, range: Range) -> StateChange {
        let selection = SelectionChanged::new(&path, text, range);
        let newly_active = self.activate(path);
        // The range first: a moved selection differs there, and comparing a big text is the
        // expensive part.
        let unchanged = !newly_active
            && self.has_current
            && self.latest.as_ref().is_some_and(|latest| {
                latest.selection == selection.selection && *latest == selection
            });
        self.latest = Some(selection);
        self.has_current = true;
        if unchanged {
            return StateChange::None;
        }
        StateChange::SelectionOrActiveChanged
    }

    fn close(&mut self, path: &str) -> StateChange {
        let Some(index) = self.documents.iter().position(|d| d.path == path) else {
            return StateChange::None;
        };
        self.documents.remove(index);
        if self.active.as_deref() != Some(path) {
            return StateChange::None;
        }
        self.has_current = false;
        self.active = self
            .documents
            .iter()
            .filter(|d| d.last_activated > 0)
            .max_by_key(|d| d.last_activated)
            .map(|d| d.path.clone());
        StateChange::SelectionOrActiveChanged
    }

    /// No document is active: the same state as closing the active document with no other
    /// one to fall back to, except that every document stays open.
    fn deactivate(&mut self) -> StateChange {
        self.has_current = false;
        if self.active.take().is_some() {
            StateChange::SelectionOrActiveChanged
        } else {
            StateChange::None
        }
    }

    /// Drops the least recently activated document other than the active one; never-activated
    /// documents go first, oldest in tab order first.
    fn forget_a_document(&mut self) {
        let active = self.active.as_deref();
        let victim = self
            .documents
            .iter()
            .enumerate()
            .filter(|(_, d)| Some(d.path.as_str()) != active)
            .min_by_key(|(index, d)| (d.last_activated, *index))
            .map(|(index, _)| index);
        if let Some(index) = victim {
            self.documents.remove(index);
        }
    }

    /// Replaces the diagnostics of `path`, then forgets the least recently replaced files
    /// until the total fits `max_diagnostics`.
    fn set_diagnostics(&mut self, path: String, diagnostics: &[Diagnostic]) {
        if let Some(old) = self.diagnostics.remove(&path) {
            self.diagnostics_len -= old.len();
            self.diagnostics_order.retain(|p| *p != path);
        }
        let kept = &diagnostics[..diagnostics.len().min(self.limits.max_diagnostics)];
        if kept.is_empty() {
            return;
        }
        while self.diagnostics_len + kept.len() > self.limits.max_diagnostics {
            let Some(oldest) = self.diagnostics_order.first().cloned() else {
                break;
            };
            self.diagnostics_order.remove(0);
            if let Some(old) = self.diagnostics.remove(&oldest) {
                self.diagnostics_len -= old.len();
            }
        }
        self.diagnostics_len += kept.len();
        self.diagnostics_order.push(path.clone());
        self.diagnostics.insert(path, kept.to_vec());
    }

    fn set_dirty(&mut self, path: &str, is_dirty: bool) {
        let path = self.normalize(path);
        if let Some(doc) = self.documents.iter_mut().find(|d| d.path == path) {
            doc.is_dirty = is_dirty;
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::ide::event::{Position, Severity};

    fn opened(path: &str) -> EditorEvent {
        EditorEvent::DocumentOpened {
            path: path.into(),
            language_id: Some("rust".into()),
            is_dirty: false,
            is_untitled: false,
        }
    }

    fn activated(path: &str) -> EditorEvent {
        EditorEvent::DocumentActivated { path: path.into() }
    }

    fn closed(path: &str) -> EditorEvent {
        EditorEvent::DocumentClosed { path: path.into() }
    }

    fn range(a: (u32, u32), b: (u32, u32)) -> Range {
        Range {
            start: Position {
                line: a.0,
                character: a.1,
            },
            end: Position {
                line: b.0,
                character: b.1,
            },
        }
    }

    fn selected(path: &str, text: &str) -> EditorEvent {
        EditorEvent::SelectionChanged {
            path: path.into(),
            text: text.into(),
            selection: range((1, 0), (1, 2)),
        }
    }

    fn paths(state: &EditorState) -> Vec<&str> {
        state.documents().iter().map(|d| d.path.as_str()).collect()
    }

    #[test]
    fn opening_adds_a_tab_without_activating_it() {
        let mut state = EditorState::new(PathStyle::Posix, vec![]);
        assert_eq!(state.apply(&opened("/w/a.rs")), StateChange::None);
        assert_eq!(state.apply(&opened("/w/b.rs")), StateChange::None);
        assert_eq!(paths(&state), ["/w/a.rs", "/w/b.rs"]);
        assert_eq!(state.active_path(), None);
        assert_eq!(state.selection_notification(), None);
    }

    #[test]
    fn reopening_updates_language_and_flags_in_place() {
        let mut state = EditorState::new(PathStyle::Posix, vec![]);
        let _ = state.apply(&opened("/w/a.rs"));
        let _ = state.apply(&opened("/w/b.rs"));
        let _ = state.apply(&EditorEvent::DocumentOpened {
            path: "/w/a.rs".into(),
            language_id: None,
            is_dirty: true,
            is_untitled: true,
        });
        assert_eq!(paths(&state), ["/w/a.rs", "/w/b.rs"]);
        let doc = state.document("/w/a.rs").unwrap();
        assert_eq!(doc.language_id.as_deref(), Some("rust"));
        assert!(doc.is_dirty && doc.is_untitled);
    }

    #[test]
    fn activating_an_unknown_document_opens_it_and_reports_once() {
        let mut state = EditorState::new(PathStyle::Posix, vec![]);
        let _ = state.apply(&opened("/w/a.rs"));
        assert_eq!(
            state.apply(&activated("/w/new.rs")),
            StateChange::SelectionOrActiveChanged
        );
        assert_eq!(state.apply(&activated("/w/new.rs")), StateChange::None);
        assert_eq!(paths(&state), ["/w/a.rs", "/w/new.rs"]);
        assert_eq!(state.active_path(), Some("/w/new.rs"));
        assert_eq!(state.document("/w/new.rs").unwrap().language_id, None);
    }

    #[test]
    fn active_document_without_selection_notifies_an_empty_selection_at_origin() {
        let mut state = EditorState::new(PathStyle::Posix, vec![]);
        let _ = state.apply(&activated("/w/a.rs"));
        assert_eq!(
            state.selection_notification().as_deref(),
            Some(&SelectionChanged::new("/w/a.rs", "", Range::default()))
        );
    }

    #[test]
    fn selection_activates_its_document_and_repeats_are_silent() {
        let mut state = EditorState::new(PathStyle::Posix, vec![]);
        let _ = state.apply(&activated("/w/a.rs"));
        assert_eq!(
            state.apply(&selected("/w/b.rs", "fn")),
            StateChange::SelectionOrActiveChanged
        );
        assert_eq!(state.active_path(), Some("/w/b.rs"));
        assert_eq!(state.apply(&selected("/w/b.rs", "fn")), StateChange::None);
        assert_eq!(
            state.apply(&selected("/w/b.rs", "fn x")),
            StateChange::SelectionOrActiveChanged
        );
        let expected = SelectionChanged::new("/w/b.rs", "fn x", range((1, 0), (1, 2)));
        assert_eq!(state.selection_notification().as_deref(), Some(&expected));
        assert_eq!(state.latest_selection(), Some(&expected));
    }

    #[test]
    fn switching_documents_forgets_the_current_selection_but_not_the_latest() {
        let mut state = EditorState::new(PathStyle::Posix, vec![]);
        let _ = state.apply(&selected("/w/a.rs", "fn"));
        assert_eq!(
            state.apply(&activated("/w/b.rs")),
            StateChange::SelectionOrActiveChanged
        );
        assert_eq!(
            state.selection_notification().as_deref(),
            Some(&SelectionChanged::new("/w/b.rs", "", Range::default()))
        );
        assert_eq!(state.latest_selection().unwrap().file_path, "/w/a.rs");
        // Back to a: its old selection is not resurrected (its text may be stale).
        let _ = state.apply(&activated("/w/a.rs"));
        assert_eq!(state.selection_notification().unwrap().text, "");
    }

    #[test]
    fn closing_the_active_document_activates_the_most_recently_active_one() {
        let mut state = EditorState::new(PathStyle::Posix, vec![]);
        let _ = state.apply(&activated("/w/a.rs"));
        let _ = state.apply(&activated("/w/b.rs"));
        let _ = state.apply(&opened("/w/c.rs"));
        let _ = state.apply(&selected("/w/d.rs", "x"));
        assert_eq!(
            state.apply(&closed("/w/d.rs")),
            StateChange::SelectionOrActiveChanged
        );
        assert_eq!(state.active_path(), Some("/w/b.rs"));
        assert_eq!(state.selection_notification().unwrap().text, "");
        assert_eq!(state.latest_selection().unwrap().file_path, "/w/d.rs");
        let _ = state.apply(&closed("/w/b.rs"));
        assert_eq!(state.active_path(), Some("/w/a.rs"));
        // c was never active: closing a leaves no active document.
        assert_eq!(
            state.apply(&closed("/w/a.rs")),
            StateChange::SelectionOrActiveChanged
        );
        assert_eq!(state.active_path(), None);
        assert_eq!(state.selection_notification(), None);
        assert_eq!(paths(&state), ["/w/c.rs"]);
    }

    #[test]
    fn no_document_active_clears_the_active_one_and_keeps_every_tab() {
        let mut state = EditorState::new(PathStyle::Posix, vec![]);
        let _ = state.apply(&opened("/w/a.rs"));
        let _ = state.apply(&selected("/w/b.rs", "x"));
        let nothing = EditorEvent::NoDocumentActive;
        assert_eq!(state.apply(&nothing), StateChange::SelectionOrActiveChanged);
        assert_eq!(state.active_path(), None);
        assert_eq!(state.selection_notification(), None);
        assert_eq!(paths(&state), ["/w/a.rs", "/w/b.rs"]);
        assert_eq!(state.latest_selection().unwrap().text, "x");
        assert_eq!(state.apply(&nothing), StateChange::None);
        // Activating again starts with no selection: the old one is not resurrected.
        let _ = state.apply(&activated("/w/b.rs"));
        assert_eq!(state.selection_notification().unwrap().text, "");
    }

    #[test]
    fn closing_other_or_unknown_documents_leaves_the_active_one() {
        let mut state = EditorState::new(PathStyle::Posix, vec![]);
        let _ = state.apply(&opened("/w/a.rs"));
        let _ = state.apply(&selected("/w/b.rs", "x"));
        assert_eq!(state.apply(&closed("/w/a.rs")), StateChange::None);
        assert_eq!(state.apply(&closed("/w/zzz.rs")), StateChange::None);
        assert_eq!(state.active_path(), Some("/w/b.rs"));
        assert_eq!(state.selection_notification().unwrap().text, "x");
    }

    #[test]
    fn dirty_flag_follows_changes_and_saves() {
        let mut state = EditorState::new(PathStyle::Posix, vec![]);
        let _ = state.apply(&opened("/w/a.rs"));
        let dirty = EditorEvent::DocumentDirtyChanged {
            path: "/w/a.rs".into(),
            is_dirty: true,
        };
        assert_eq!(state.apply(&dirty), StateChange::None);
        assert!(state.document("/w/a.rs").unwrap().is_dirty);
        let saved = EditorEvent::DocumentSaved {
            path: "/w/a.rs".into(),
        };
        assert_eq!(state.apply(&saved), StateChange::None);
        assert!(!state.document("/w/a.rs").unwrap().is_dirty);
        let unknown = EditorEvent::DocumentDirtyChanged {
            path: "/w/x.rs".into(),
            is_dirty: true,
        };
        assert_eq!(state.apply(&unknown), StateChange::None);
        assert_eq!(state.document("/w/x.rs"), None);
    }

    #[test]
    fn diagnostics_are_replaced_per_file_and_cleared_by_an_empty_list() {
        let mut state = EditorState::new(PathStyle::Posix, vec![]);
        let diag = |message: &str| Diagnostic {
            message: message.into(),
            severity: Severity::Error,
            range: Range::default(),
            source: None,
            code: None,
        };
        let set = |path: &str, diagnostics: Vec<Diagnostic>| EditorEvent::DiagnosticsChanged {
            path: path.into(),
            diagnostics,
        };
        assert_eq!(
            state.apply(&set("/w/b.rs", vec![diag("one")])),
            StateChange::None
        );
        let _ = state.apply(&set("/w/a.rs", vec![diag("x")]));
        let _ = state.apply(&set("/w/b.rs", vec![diag("two"), diag("three")]));
        let keys: Vec<&str> = state.diagnostics().iter().map(|(path, _)| path).collect();
        assert_eq!(keys, ["/w/a.rs", "/w/b.rs"]);
        assert_eq!(state.diagnostics().get("/w/b.rs").map(<[_]>::len), Some(2));
        let _ = state.apply(&set("/w/a.rs", vec![]));
        assert!(state.diagnostics().get("/w/a.rs").is_none());
    }

    #[test]
    fn folders_change_only_when_different() {
        let mut state = EditorState::new(PathStyle::Posix, vec!["/w".into(), "/w".into()]);
        assert_eq!(state.workspace_folders(), ["/w"]);
        let same = EditorEvent::WorkspaceFoldersChanged {
            folders: vec!["/w".into()],
        };
        assert_eq!(state.apply(&same), StateChange::None);
        let more = EditorEvent::WorkspaceFoldersChanged {
            folders: vec!["/w".into(), "/v".into(), "/w".into()],
        };
        assert_eq!(state.apply(&more), StateChange::FoldersChanged);
        assert_eq!(state.workspace_folders(), ["/w", "/v"]);
    }

    #[test]
    fn mentions_pass_through_without_touching_state() {
        let mut state = EditorState::new(PathStyle::Windows, vec![]);
        let mention = EditorEvent::Mention {
            path: r"c:\w\a.rs".into(),
            line_start: Some(2),
            line_end: None,
        };
        assert_eq!(
            state.apply(&mention),
            StateChange::Mention(AtMentioned {
                file_path: "C:/w/a.rs".into(),
                line_start: Some(2),
                line_end: None,
            })
        );
        assert!(state.documents().is_empty());
    }

    #[test]
    fn windows_paths_are_normalized_on_the_way_in() {
        let mut state = EditorState::new(PathStyle::Windows, vec![r"c:\w".into()]);
        assert_eq!(state.workspace_folders(), ["C:/w"]);
        let _ = state.apply(&opened(r"C:\w\a.rs"));
        let _ = state.apply(&selected("c:/w/a.rs", "x"));
        assert_eq!(paths(&state), ["C:/w/a.rs"]);
        assert_eq!(
            state.selection_notification().unwrap().file_url,
            "file:///C:/w/a.rs"
        );
        assert_eq!(
            state.apply(&closed(r"c:\w\a.rs")),
            StateChange::SelectionOrActiveChanged
        );
        assert!(state.documents().is_empty());
    }

    #[test]
    fn posix_backslashes_are_distinct_names() {
        let mut state = EditorState::new(PathStyle::Posix, vec![]);
        let _ = state.apply(&opened(r"/w/a\b.rs"));
        let _ = state.apply(&opened("/w/a/b.rs"));
        assert_eq!(paths(&state), [r"/w/a\b.rs", "/w/a/b.rs"]);
        assert_eq!(state.path_style(), PathStyle::Posix);
    }

    #[test]
    fn documents_past_the_cap_forget_the_least_recently_active() {
        let limits = StateLimits {
            max_documents: 3,
            ..StateLimits::default()
        };
        let mut state = EditorState::new(PathStyle::Posix, vec![]).with_limits(limits);
        let _ = state.apply(&activated("/w/a"));
        let _ = state.apply(&activated("/w/b"));
        let _ = state.apply(&opened("/w/c"));
        // Full: the never-activated one goes first, then the least recently active, never the
        // active one.
        let _ = state.apply(&opened("/w/d"));
        assert_eq!(paths(&state), ["/w/a", "/w/b", "/w/d"]);
        let _ = state.apply(&activated("/w/a"));
        let _ = state.apply(&opened("/w/e"));
        assert_eq!(paths(&state), ["/w/a", "/w/b", "/w/e"]);
        let _ = state.apply(&opened("/w/f"));
        assert_eq!(paths(&state), ["/w/a", "/w/b", "/w/f"]);
        for spelling in ["/w//x", "/w/./x", "/w/y/../x", "/w/x/"] {
            let _ = state.apply(&opened(spelling));
        }
        assert_eq!(state.documents().len(), 3);
        assert_eq!(state.active_path(), Some("/w/a"));
    }

    #[test]
    fn diagnostics_past_the_cap_forget_the_oldest_files() {
        let limits = StateLimits {
            max_diagnostics: 4,
            ..StateLimits::default()
        };
        let mut state = EditorState::new(PathStyle::Posix, vec![]).with_limits(limits);
        let diag = |message: &str| Diagnostic {
            message: message.into(),
            severity: Severity::Error,
            range: Range::default(),
            source: None,
            code: None,
        };
        let set = |path: &str, n: usize| EditorEvent::DiagnosticsChanged {
            path: path.into(),
            diagnostics: (0..n).map(|i| diag(&i.to_string())).collect(),
        };
        let files = |state: &EditorState| {
            state
                .diagnostics()
                .iter()
                .map(|(path, list)| (path.to_owned(), list.len()))
                .collect::<Vec<_>>()
        };
        let _ = state.apply(&set("/w/a", 2));
        let _ = state.apply(&set("/w/b", 2));
        assert_eq!(files(&state), [("/w/a".into(), 2), ("/w/b".into(), 2)]);
        let _ = state.apply(&set("/w/a", 1));
        let _ = state.apply(&set("/w/c", 1));
        assert_eq!(
            files(&state),
            [("/w/a".into(), 1), ("/w/b".into(), 2), ("/w/c".into(), 1)]
        );
        // /w/b was replaced longest ago.
        let _ = state.apply(&set("/w/d", 2));
        assert_eq!(
            files(&state),
            [("/w/a".into(), 1), ("/w/c".into(), 1), ("/w/d".into(), 2)]
        );
        let _ = state.apply(&set("/w/e", 100));
        assert_eq!(files(&state), [("/w/e".into(), 4)]);
        let _ = state.apply(&set("/w/e", 0));
        assert!(state.diagnostics().is_empty());
    }
}
