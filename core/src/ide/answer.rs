//! The read tools' answers (docs/protocol.md §4), written straight into the reply.
//!
//! A read tool answers with one text item holding compact JSON: JSON text inside a JSON
//! string. Serializing the answer and then escaping that text into the reply costs two passes
//! and a copy of the payload; an [`Answer`] instead writes its JSON already escaped as the
//! string's contents, in one pass: the structure as literals escaped at compile time, and each
//! string value of the answer escaped twice at once ([`crate::json::escape_twice_into`]). The same
//! code writes the plain JSON text for a [`ToolResult`], so both give the bytes serde_json
//! would (the tests hold them to it).

use std::borrow::Cow;

use super::diagnostics::DiagnosticsByFile;
use super::event::{Diagnostic, Severity};
use super::notification::{SelectionChanged, SelectionRange};
use super::path::file_name;
use super::result::ToolResult;
use text::{JsonText, lit};

/// The language id reported for a document whose language the editor never named.
pub(crate) const UNKNOWN_LANGUAGE: &str = "plaintext";

/// A read tool's answer, borrowed from what it is answered from (the editor state, or the
/// editor's outcome for a pulled read).
#[derive(Debug)]
pub(crate) enum Answer<'a> {
    /// `getDiagnostics`: `[{uri, diagnostics:[..]}]` for these files, in order.
    Diagnostics(DiagnosticFiles<'a>),
    /// `getDiagnostics` for every file while the client's proposals have diagnostics: the
    /// files as [`Answer::Diagnostics`] lists them, then an empty `file://` entry for each
    /// proposal's file that has none (the CLI reads a proposal's entry only beside its file's),
    /// then one `{"uri":"_claude_fs_right:<path>",diagnostics}` per proposal, by path.
    WithProposals(DiagnosticFiles<'a>, Vec<(&'a str, &'a [Diagnostic])>),
    /// A selection tool's answer for a selection:
    /// `{"success":true,text,filePath,fileUrl,selection}`.
    Selection(Cow<'a, SelectionChanged>),
    /// `{"success":false,"message":..}`.
    Failure(&'static str),
    /// `{"success":false,"message":"Document not open: <path>"}`.
    NotOpen(Cow<'a, str>),
    /// `getOpenEditors`: `{"tabs":[{uri,isActive,label,fileName,languageId,isDirty,isUntitled}]}`
    /// for these tabs, in this order.
    Tabs(Vec<TabFacts<'a>>),
    /// `getWorkspaceFolders`: `{"success":true,"folders":[{name,uri,path}],"rootPath":..}`
    /// for these normalized paths, `rootPath` the first one or `null`.
    Folders(Cow<'a, [String]>),
    /// `checkDocumentDirty` for an open document: `{"success":true,filePath,isDirty,isUntitled}`.
    Dirty {
        /// The document's normalized path.
        path: &'a str,
        /// Whether it has unsaved changes.
        is_dirty: bool,
        /// Whether it was never saved.
        is_untitled: bool,
    },
}

/// The files of a `getDiagnostics` answer, in order.
#[derive(Debug)]
pub(crate) enum DiagnosticFiles<'a> {
    /// Every file the state has diagnostics for, ordered by path.
    All(&'a DiagnosticsByFile),
    /// These files (normalized paths), in this order.
    Listed(Vec<(Cow<'a, str>, &'a [Diagnostic])>),
}

/// One open tab as [`Answer::Tabs`] lists it: a normalized path, its language id (`plaintext`
/// when unknown), and whether it is dirty, untitled, active. Of the fields VS Code and
/// claudecode.nvim report, these are the ones the state knows; `isPinned`, `isPreview`,
/// `groupIndex`, `viewColumn`, `isGroupActive`, `lineCount` and `selection` are left out
/// rather than invented.
#[derive(Debug)]
pub(crate) struct TabFacts<'a> {
    pub(crate) path: Cow<'a, str>,
    pub(crate) language_id: Option<&'a str>,
    pub(crate) is_dirty: bool,
    pub(crate) is_untitled: bool,
    pub(crate) is_active: bool,
}

impl<'a> Answer<'a> {
    /// True for the engine's `getDiagnostics` answer for every file (no `uri`).
    /// The one file of a `getDiagnostics {uri}` answer (normalized, as the CLI spelled it).
    pub(crate) fn one_file_diagnostics(&self) -> Option<&str> {
        match self {
            Answer::Diagnostics(DiagnosticFiles::Listed(files)) if files.len() == 1 => {
                Some(&files[0].0)
            }
            _ => None,
        }
    }

    pub(crate) fn is_every_file_diagnostics(&self) -> bool {
        matches!(self, Answer::Diagnostics(DiagnosticFiles::All(_)))
    }

    /// A `getDiagnostics` answer for every file (the caller knows it is one) with the
    /// client's `proposals` (path, list; sorted by path) added: [`Answer::WithProposals`].
    /// Any other answer, or no proposal, stays as it is.
    pub(crate) fn with_proposals(self, proposals: Vec<(&'a str, &'a [Diagnostic])>) -> Self {
        match self {
            Answer::Diagnostics(files) if !proposals.is_empty() => {
                Answer::WithProposals(files, proposals)
            }
            other => other,
        }
    }

    /// [`write_result`](Self::write_result) for a `getDiagnostics` answer cut to at most
    /// `budget` bytes: the files and diagnostics that fit, in order (a file's entry cut after
    /// its last diagnostic that fits), then a second text item saying how many were left out
    /// and why (the CLI reads only the first; the model sees both). False, with nothing
    /// appended, for any other answer or a budget too small for even an empty list and note.
    pub(crate) fn write_cut_result(&self, out: &mut Vec<u8>, budget: usize, limit: usize) -> bool {
        let (files, proposals) = match self {
            Answer::Diagnostics(files) => (files, &[][..]),
            Answer::WithProposals(files, proposals) => (files, &proposals[..]),
            _ => return false,
        };
        // Room for the note: its text with nothing left out is the longest it can be.
        let mut whole = Cut::default();
        for (_, _, list) in entries(files, proposals) {
            whole.entries += 1;
            whole.diagnostics += list.len();
        }
        whole.kept_entries = whole.entries;
        whole.kept_diagnostics = whole.diagnostics;
        const NOTE_ITEM: &[u8] = br#""},{"type":"text","text":""#;
        const END: &[u8] = br#""}]}"#;
        let room = NOTE_ITEM.len() + whole.note(limit).len() + END.len();
        let start = out.len();
        let Some(end) = (start + budget).checked_sub(room) else {
            return false;
        };
        out.extend_from_slice(br#"{"content":[{"type":"text","text":""#);
        let cut = diagnostic_entries(
            &mut JsonText { out, nested: true },
            entries(files, proposals),
            Some(end),
        );
        out.extend_from_slice(NOTE_ITEM);
        out.extend_from_slice(cut.note(limit).as_bytes());
        out.extend_from_slice(END);
        if out.len() - start > budget {
            out.truncate(start);
            return false;
        }
        true
    }

    /// Appends the tool result `{"content":[{"type":"text","text":<the answer's JSON>}]}` to
    /// `out`, the JSON escaped into the string as it is written.
    pub(crate) fn write_result(&self, out: &mut Vec<u8>) {
        out.extend_from_slice(br#"{"content":[{"type":"text","text":""#);
        self.write_json(&mut JsonText { out, nested: true });
        out.extend_from_slice(br#""}]}"#);
    }

    /// The tool result holding the answer's JSON as its one text item.
    pub(crate) fn to_tool_result(&self) -> ToolResult {
        let mut text = Vec::new();
        self.write_json(&mut JsonText {
            out: &mut text,
            nested: false,
        });
        // Valid UTF-8: the answer's strings are, and only ASCII is put around or in them.
        ToolResult::text(String::from_utf8_lossy(&text).into_owned())
    }

    fn write_json(&self, j: &mut JsonText<'_>) {
        match self {
            Answer::Diagnostics(files) => {
                diagnostic_entries(j, entries(files, &[]), None);
            }
            Answer::WithProposals(files, proposals) => {
                diagnostic_entries(j, entries(files, proposals), None);
            }
            Answer::Selection(selection) => selection_found(j, selection),
            Answer::Failure(message) => {
                j.lit(lit!(r#"{"success":false,"message":""#));
                j.contents(message);
                j.lit(lit!(r#""}"#));
            }
            Answer::NotOpen(path) => {
                j.lit(lit!(r#"{"success":false,"message":"Document not open: "#));
                j.contents(path);
                j.lit(lit!(r#""}"#));
            }
            Answer::Tabs(tabs) => open_editors(j, tabs),
            Answer::Folders(paths) => folders(j, paths),
            Answer::Dirty {
                path,
                is_dirty,
                is_untitled,
            } => {
                j.lit(lit!(r#"{"success":true,"filePath":"#));
                j.string(path);
                j.lit(lit!(r#","isDirty":"#));
                j.bool(*is_dirty);
                j.lit(lit!(r#","isUntitled":"#));
                j.bool(*is_untitled);
                j.lit(lit!("}"));
            }
        }
    }
}

/// Which document a `getDiagnostics` entry is about.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Side {
    /// The file: `file://<path>`.
    File,
    /// The proposal shown against it: `_claude_fs_right:<path>` (the CLI's bundled code:
    /// `pxr=["file://","_claude_fs_right:","_claude_fs_left:"]`; its `getNewDiagnostics` reads
    /// `file://` and `_claude_fs_right:` entries and skips `_claude_fs_left:` ones).
    Proposal,
}

/// One entry of a `getDiagnostics` answer.
type Entry<'f> = (Side, &'f str, &'f [Diagnostic]);

/// The entries for `files` and `proposals`: every file, then an empty one for each proposal's
/// path no file has, then every proposal.
fn entries<'f>(
    files: &'f DiagnosticFiles<'_>,
    proposals: &'f [(&'f str, &'f [Diagnostic])],
) -> impl Iterator<Item = Entry<'f>> {
    let (all, listed) = match files {
        DiagnosticFiles::All(all) => (Some(*all), &[][..]),
        DiagnosticFiles::Listed(listed) => (None, &listed[..]),
    };
    let has = move |path: &str| {
        all.is_some_and(|all| all.get(path).is_some())
            || listed.iter().any(|(file, _)| file.as_ref() == path)
    };
    let listed_files = listed.iter().map(|(path, list)| (path.as_ref(), *list));
    let missing = proposals
        .iter()
        .filter(move |(path, _)| !has(path))
        .map(|(path, _)| (*path, &[][..]));
    all.into_iter()
        .flat_map(DiagnosticsByFile::iter)
        .chain(listed_files)
        .chain(missing)
        .map(|(path, list)| (Side::File, path, list))
        .chain(
            proposals
                .iter()
                .map(|(path, list)| (Side::Proposal, *path, *list)),
        )
}

/// What a cut `getDiagnostics` answer kept of all it had.
#[derive(Default)]
struct Cut {
    entries: usize,
    kept_entries: usize,
    diagnostics: usize,
    kept_diagnostics: usize,
}

impl Cut {
    /// The second text item of a cut answer.
    fn note(&self, limit: usize) -> String {
        format!(
            "idelink: this answer was cut to {} of {} diagnostics ({} of {} entries) to stay \
             within the client's limit of {limit} bytes per message (max_client_message_bytes)",
            self.kept_diagnostics, self.diagnostics, self.kept_entries, self.entries
        )
    }
}

/// Writes `[{uri, diagnostics}, …]` for `entries`. With `end`, stops before the output would
/// pass that length (room kept for the closing brackets): the last entry written is closed
/// after its last diagnostic that fits, and an entry whose `uri` does not fit is left out.
fn diagnostic_entries<'f>(
    j: &mut JsonText<'_>,
    entries: impl Iterator<Item = Entry<'f>>,
    end: Option<usize>,
) -> Cut {
    /// `]}` closes an entry, `]` the list.
    const CLOSING: usize = 3;
    let end = end.map_or(usize::MAX, |end| end.saturating_sub(CLOSING));
    let mut cut = Cut::default();
    let mut full = false;
    j.lit(lit!("["));
    for (side, path, list) in entries {
        cut.entries += 1;
        cut.diagnostics += list.len();
        if full {
            continue;
        }
        let entry_start = j.out.len();
        if cut.kept_entries > 0 {
            j.lit(lit!(","));
        }
        j.lit(lit!(r#"{"uri":"#));
        match side {
            Side::File => j.uri(path),
            Side::Proposal => j.proposal_uri(path),
        }
        j.lit(lit!(r#","diagnostics":["#));
        if j.out.len() > end {
            j.out.truncate(entry_start);
            full = true;
            continue;
        }
        cut.kept_entries += 1;
        for (at, diagnostic) in list.iter().enumerate() {
            let diagnostic_start = j.out.len();
            if at > 0 {
                j.lit(lit!(","));
            }
            one_diagnostic(j, diagnostic);
            if j.out.len() > end {
                j.out.truncate(diagnostic_start);
                full = true;
                break;
            }
            cut.kept_diagnostics += 1;
        }
        j.lit(lit!("]}"));
    }
    j.lit(lit!("]"));
    cut
}

/// `{"message","severity","range","source"?,"code"?}`, as [`Diagnostic`] serializes.
fn one_diagnostic(j: &mut JsonText<'_>, diagnostic: &Diagnostic) {
    j.lit(lit!(r#"{"message":"#));
    j.string(&diagnostic.message);
    j.lit(match diagnostic.severity {
        Severity::Error => lit!(r#","severity":"Error","range":{"start":"#),
        Severity::Warning => lit!(r#","severity":"Warning","range":{"start":"#),
        Severity::Info => lit!(r#","severity":"Info","range":{"start":"#),
        Severity::Hint => lit!(r#","severity":"Hint","range":{"start":"#),
    });
    j.position(diagnostic.range.start);
    j.lit(lit!(r#","end":"#));
    j.position(diagnostic.range.end);
    j.lit(lit!("}"));
    if let Some(source) = &diagnostic.source {
        j.lit(lit!(r#","source":"#));
        j.string(source);
    }
    if let Some(code) = &diagnostic.code {
        j.lit(lit!(r#","code":"#));
        j.code(code);
    }
    j.lit(lit!("}"));
}

/// `{"success":true,text,filePath,fileUrl,selection}`: the `selection_changed` params with
/// `success` first.
fn selection_found(j: &mut JsonText<'_>, selection: &SelectionChanged) {
    j.lit(lit!(r#"{"success":true,"text":"#));
    j.string(&selection.text);
    j.lit(lit!(r#","filePath":"#));
    j.string(&selection.file_path);
    j.lit(lit!(r#","fileUrl":"#));
    j.string(&selection.file_url);
    j.lit(lit!(r#","selection":"#));
    let SelectionRange {
        start,
        end,
        is_empty,
    } = selection.selection;
    j.lit(lit!(r#"{"start":"#));
    j.position(start);
    j.lit(lit!(r#","end":"#));
    j.position(end);
    j.lit(lit!(r#","isEmpty":"#));
    j.bool(is_empty);
    j.lit(lit!("}}"));
}

fn open_editors(j: &mut JsonText<'_>, tabs: &[TabFacts<'_>]) {
    j.lit(lit!(r#"{"tabs":["#));
    for (at, tab) in tabs.iter().enumerate() {
        if at > 0 {
            j.lit(lit!(","));
        }
        j.lit(lit!(r#"{"uri":"#));
        j.uri(&tab.path);
        j.lit(lit!(r#","isActive":"#));
        j.bool(tab.is_active);
        j.lit(lit!(r#","label":"#));
        j.string(file_name(&tab.path));
        j.lit(lit!(r#","fileName":"#));
        j.string(&tab.path);
        j.lit(lit!(r#","languageId":"#));
        j.string(tab.language_id.unwrap_or(UNKNOWN_LANGUAGE));
        j.lit(lit!(r#","isDirty":"#));
        j.bool(tab.is_dirty);
        j.lit(lit!(r#","isUntitled":"#));
        j.bool(tab.is_untitled);
        j.lit(lit!("}"));
    }
    j.lit(lit!("]}"));
}

fn folders(j: &mut JsonText<'_>, paths: &[String]) {
    j.lit(lit!(r#"{"success":true,"folders":["#));
    for (at, path) in paths.iter().enumerate() {
        if at > 0 {
            j.lit(lit!(","));
        }
        j.lit(lit!(r#"{"name":"#));
        j.string(file_name(path));
        j.lit(lit!(r#","uri":"#));
        j.uri(path);
        j.lit(lit!(r#","path":"#));
        j.string(path);
        j.lit(lit!("}"));
    }
    j.lit(lit!(r#"],"rootPath":"#));
    match paths.first() {
        Some(root) => j.string(root),
        None => j.lit(lit!("null")),
    }
    j.lit(lit!("}"));
}

mod text;

#[cfg(test)]
mod tests;
