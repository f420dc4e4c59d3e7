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

impl Answer<'_> {
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
            Answer::Diagnostics(files) => diagnostics(j, files),
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

fn diagnostics(j: &mut JsonText<'_>, files: &DiagnosticFiles<'_>) {
    match files {
        DiagnosticFiles::All(all) => diagnostic_files(j, all.iter()),
        DiagnosticFiles::Listed(listed) => {
            diagnostic_files(j, listed.iter().map(|(path, list)| (path.as_ref(), *list)));
        }
    }
}

fn diagnostic_files<'f>(
    j: &mut JsonText<'_>,
    files: impl Iterator<Item = (&'f str, &'f [Diagnostic])>,
) {
    j.lit(lit!("["));
    for (at, (path, list)) in files.enumerate() {
        if at > 0 {
            j.lit(lit!(","));
        }
        j.lit(lit!(r#"{"uri":"#));
        j.uri(path);
        j.lit(lit!(r#","diagnostics":["#));
        for (at, diagnostic) in list.iter().enumerate() {
            if at > 0 {
                j.lit(lit!(","));
            }
            one_diagnostic(j, diagnostic);
        }
        j.lit(lit!("]}"));
    }
    j.lit(lit!("]"));
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
        j.value(code);
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
