//! The one gate everything the engine says about the editor passes: the push path asks it for
//! the `selection_changed` to send and whether a mention may go, the answer path has every read
//! answer screened by it, and the request path asks whether a request's file is denied.

use std::borrow::Cow;

use super::matcher::PathMatcher;
use super::rules::{ContextPolicy, SharingMode};
use super::withheld::Withheld;
use crate::engine::EngineEvent;
use crate::ide::answer::{Answer, DiagnosticFiles};
use crate::ide::{AtMentioned, EditorState, PathStyle, SelectionChanged, ToolName, ToolRequest};
use crate::time::Timestamp;

/// Verdicts kept per path before the cache starts over. A verdict costs one match per pattern
/// and folder level; the cache holds the paths of a working editor (its documents, selections
/// and diagnostics are capped at 4096 documents by default), and starting over bounds what a
/// client naming many paths can make it hold.
pub const MAX_CACHED_VERDICTS: usize = 8192;

/// What the policy lets `selection_changed` say about the current state.
#[derive(Debug)]
pub(crate) enum SharedSelection<'s> {
    /// This selection.
    Selection(Cow<'s, SelectionChanged>),
    /// No document is active (the policy had nothing to hold back).
    NoDocument,
    /// The policy withholds what there is: the client hears "no file".
    Withheld,
}

/// A compiled [`ContextPolicy`] with its verdict cache and what it withheld.
pub(crate) struct Gate {
    policy: ContextPolicy,
    matcher: PathMatcher,
    folders: Vec<String>,
    style: PathStyle,
    /// Path → denied, sorted by path (a sorted `Vec`: a map's code is larger in the wasm
    /// module, and a lookup is a binary search either way).
    verdicts: Vec<(String, bool)>,
    withheld: Withheld,
}

impl Gate {
    /// The gate of `policy` for the workspace `folders` (normalized) in `style`.
    pub(crate) fn new(policy: ContextPolicy, folders: &[String], style: PathStyle) -> Self {
        Gate {
            matcher: PathMatcher::new(&policy, folders, style),
            policy,
            folders: folders.to_vec(),
            style,
            verdicts: Vec::new(),
            withheld: Withheld::default(),
        }
    }

    /// Replaces the policy (the verdicts start over; the withheld totals go on).
    pub(crate) fn set_policy(&mut self, policy: ContextPolicy) {
        self.matcher = PathMatcher::new(&policy, &self.folders, self.style);
        self.policy = policy;
        self.verdicts.clear();
    }

    /// The workspace folders changed: the deny globs' bases with them.
    pub(crate) fn set_folders(&mut self, folders: &[String]) {
        self.folders = folders.to_vec();
        self.matcher = PathMatcher::new(&self.policy, folders, self.style);
        self.verdicts.clear();
    }

    /// Whether `path` (normalized) is denied.
    pub(crate) fn denies(&mut self, path: &str) -> bool {
        let at = match self
            .verdicts
            .binary_search_by(|(known, _)| known.as_str().cmp(path))
        {
            Ok(at) => return self.verdicts[at].1,
            Err(at) => at,
        };
        let denied = self.matcher.denies(path);
        if self.verdicts.len() >= MAX_CACHED_VERDICTS {
            self.verdicts.clear();
            self.verdicts.push((path.to_owned(), denied));
        } else {
            self.verdicts.insert(at, (path.to_owned(), denied));
        }
        denied
    }

    /// The `selection_changed` the policy lets out for `state`'s current selection.
    pub(crate) fn selection<'s>(&mut self, state: &'s EditorState) -> SharedSelection<'s> {
        let Some(selection) = state.selection_notification() else {
            return SharedSelection::NoDocument;
        };
        if self.hides_selection(&selection) {
            self.withheld.push(&selection.file_path);
            return SharedSelection::Withheld;
        }
        SharedSelection::Selection(selection)
    }

    /// Whether `mention` may go to a client (not paused, its file not denied); a withheld
    /// one is counted.
    pub(crate) fn lets_mention(&mut self, mention: &AtMentioned) -> bool {
        if self.policy.paused || self.denies(&mention.file_path) {
            self.withheld.push(&mention.file_path);
            return false;
        }
        true
    }

    /// Whether `request` (for the editor) names a denied file: `openFile`, `openDiff`.
    pub(crate) fn denies_request(&mut self, request: &ToolRequest) -> bool {
        match request {
            ToolRequest::OpenFile { path, .. } => self.denies(path),
            ToolRequest::OpenDiff {
                old_file_path,
                new_file_path,
                ..
            } => self.denies(old_file_path) || self.denies(new_file_path),
            _ => false,
        }
    }

    /// `answer` of `tool` with what the policy withholds taken out (counted).
    pub(crate) fn screen<'a>(&mut self, tool: ToolName, answer: Answer<'a>) -> Answer<'a> {
        match answer {
            Answer::Selection(selection) => {
                if self.hides_selection(&selection) {
                    self.withheld.read(&selection.file_path);
                    Answer::Failure(crate::ide::no_selection_message(tool))
                } else {
                    Answer::Selection(selection)
                }
            }
            Answer::Tabs(mut tabs) => {
                let all = self.policy.paused || self.policy.mode != SharingMode::Everything;
                tabs.retain(|tab| {
                    let hidden = all || self.denies(&tab.path);
                    if hidden {
                        self.withheld.read(&tab.path);
                    }
                    !hidden
                });
                Answer::Tabs(tabs)
            }
            Answer::Diagnostics(files) => Answer::Diagnostics(self.screen_files(files)),
            Answer::WithProposals(files, mut proposals) => {
                let files = self.screen_files(files);
                proposals.retain(|(path, _)| self.keeps_read(path));
                if proposals.is_empty() {
                    Answer::Diagnostics(files)
                } else {
                    Answer::WithProposals(files, proposals)
                }
            }
            Answer::Dirty { path, .. } if !self.keeps_read(path) => {
                Answer::NotOpen(Cow::Borrowed(path))
            }
            other => other,
        }
    }

    /// When the next withheld report is due, if one waits.
    pub(crate) fn next_report(&self) -> Option<Timestamp> {
        self.withheld.next_report()
    }

    /// The withheld report due at `now`, if any.
    pub(crate) fn take_report(&mut self, now: Timestamp) -> Option<EngineEvent> {
        self.withheld.take_report(now)
    }

    /// Counts a read answer that withheld `path` (a cached answer served again).
    pub(crate) fn withheld_read(&mut self, path: &str) {
        self.withheld.read(path);
    }

    /// Whether the policy keeps `selection` from clients: paused, a mode that shares no
    /// selection of this kind, or a denied file.
    pub(crate) fn hides_selection(&mut self, selection: &SelectionChanged) -> bool {
        let by_mode = match self.policy.mode {
            SharingMode::Everything => false,
            SharingMode::SelectionOnly => selection.selection.is_empty,
            SharingMode::MentionsOnly => true,
        };
        self.policy.paused || by_mode || self.denies(&selection.file_path)
    }

    /// Whether a read may say anything of `path` (not paused, not denied); counts it if not.
    fn keeps_read(&mut self, path: &str) -> bool {
        let kept = !self.policy.paused && !self.denies(path);
        if !kept {
            self.withheld.read(path);
        }
        kept
    }

    /// A `getDiagnostics` answer's files without the withheld ones (borrowed as they were
    /// when none is).
    fn screen_files<'a>(&mut self, files: DiagnosticFiles<'a>) -> DiagnosticFiles<'a> {
        match files {
            DiagnosticFiles::All(by_file) => {
                if by_file
                    .iter()
                    .all(|(path, _)| !self.policy.paused && !self.denies(path))
                {
                    return DiagnosticFiles::All(by_file);
                }
                DiagnosticFiles::Listed(
                    by_file
                        .iter()
                        .filter(|(path, _)| self.keeps_read(path))
                        .map(|(path, list)| (Cow::Borrowed(path), list))
                        .collect(),
                )
            }
            DiagnosticFiles::Listed(mut listed) => {
                listed.retain(|(path, _)| self.keeps_read(path));
                DiagnosticFiles::Listed(listed)
            }
        }
    }
}
