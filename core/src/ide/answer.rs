//! The read tools' answers (docs/protocol.md §4), written straight into the reply.
//!
//! A read tool answers with one text item holding compact JSON: JSON text inside a JSON
//! string. Serializing the answer and then escaping that text into the reply costs two passes
//! and a copy of the payload; an [`Answer`] instead writes its JSON already escaped as the
//! string's contents, in one pass: the structure as literals escaped at compile time, and each
//! string value of the answer escaped twice at once ([`json::escape_twice_into`]). The same
//! code writes the plain JSON text for a [`ToolResult`], so both give the bytes serde_json
//! would (the tests hold them to it).

use std::borrow::Cow;

use serde_json::{Number, Value};

use super::diagnostics::DiagnosticsByFile;
use super::event::{Diagnostic, Position, Severity};
use super::notification::{SelectionChanged, SelectionRange};
use super::path::{file_name, file_uri_prefix};
use super::result::ToolResult;
use crate::json;

/// The language id reported for a document whose language the editor never named.
pub(crate) const UNKNOWN_LANGUAGE: &str = "plaintext";

/// A piece of JSON structure (never a string's contents), in its two spellings: as is, and
/// escaped as the contents of a JSON string. Made by `lit!`, which escapes at compile time.
#[derive(Clone, Copy)]
struct Lit {
    plain: &'static [u8],
    nested: &'static [u8],
}

/// The length of `text` escaped by [`escape_lit`]. A control byte stops the build: structure
/// never holds one.
const fn escaped_len(text: &[u8]) -> usize {
    let mut len = text.len();
    let mut at = 0;
    while at < text.len() {
        match text[at] {
            b'"' | b'\\' => len += 1,
            0..=0x1f => panic!("a control byte in a JSON literal"),
            _ => {}
        }
        at += 1;
    }
    len
}

/// `text` as the contents of a JSON string: a backslash before each `"` and `\` (RFC 8259 §7;
/// [`escaped_len`] refuses the control bytes).
const fn escape_lit<const N: usize>(text: &[u8]) -> [u8; N] {
    let mut out = [0u8; N];
    let mut at = 0;
    let mut to = 0;
    while at < text.len() {
        if matches!(text[at], b'"' | b'\\') {
            out[to] = b'\\';
            to += 1;
        }
        out[to] = text[at];
        to += 1;
        at += 1;
    }
    out
}

/// A [`Lit`] for a string literal, both spellings computed at compile time.
macro_rules! lit {
    ($text:literal) => {{
        const PLAIN: &[u8] = $text.as_bytes();
        const NESTED: [u8; escaped_len(PLAIN)] = escape_lit(PLAIN);
        const LIT: Lit = Lit {
            plain: PLAIN,
            nested: &NESTED,
        };
        LIT
    }};
}

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

/// Where an answer's JSON goes: `out`, as plain JSON text, or (`nested`) escaped as the
/// contents of the JSON string it is carried in.
struct JsonText<'o> {
    out: &'o mut Vec<u8>,
    nested: bool,
}

impl JsonText<'_> {
    fn lit(&mut self, lit: Lit) {
        self.out
            .extend_from_slice(if self.nested { lit.nested } else { lit.plain });
    }

    /// The contents of a JSON string (no quotes).
    fn contents(&mut self, text: &str) {
        if self.nested {
            json::escape_twice_into(self.out, text.as_bytes());
        } else {
            json::escape_into(self.out, text.as_bytes());
        }
    }

    fn string(&mut self, text: &str) {
        self.lit(lit!("\""));
        self.contents(text);
        self.lit(lit!("\""));
    }

    /// The string `file://…` naming `normalized_path` (see [`super::file_uri`]).
    fn uri(&mut self, normalized_path: &str) {
        self.lit(lit!("\""));
        self.out
            .extend_from_slice(file_uri_prefix(normalized_path).as_bytes());
        self.contents(normalized_path);
        self.lit(lit!("\""));
    }

    fn bool(&mut self, value: bool) {
        self.lit(if value { lit!("true") } else { lit!("false") });
    }

    fn u64(&mut self, n: u64) {
        json::push_u64(self.out, n);
    }

    /// `{"line":L,"character":C}`.
    fn position(&mut self, at: Position) {
        self.lit(lit!(r#"{"line":"#));
        self.u64(at.line.into());
        self.lit(lit!(r#","character":"#));
        self.u64(at.character.into());
        self.lit(lit!("}"));
    }

    /// Any JSON value, as serde_json writes it (a diagnostic's `code` is passed through).
    fn value(&mut self, value: &Value) {
        match value {
            Value::Null => self.lit(lit!("null")),
            Value::Bool(b) => self.bool(*b),
            Value::Number(n) => self.number(n),
            Value::String(s) => self.string(s),
            Value::Array(items) => {
                self.lit(lit!("["));
                for (at, item) in items.iter().enumerate() {
                    if at > 0 {
                        self.lit(lit!(","));
                    }
                    self.value(item);
                }
                self.lit(lit!("]"));
            }
            Value::Object(members) => {
                self.lit(lit!("{"));
                for (at, (name, item)) in members.iter().enumerate() {
                    if at > 0 {
                        self.lit(lit!(","));
                    }
                    self.string(name);
                    self.lit(lit!(":"));
                    self.value(item);
                }
                self.lit(lit!("}"));
            }
        }
    }

    /// A number: digits, a sign, a point and an exponent, none of which is escaped.
    fn number(&mut self, n: &Number) {
        if let Some(unsigned) = n.as_u64() {
            self.u64(unsigned);
        } else if let Some(signed) = n.as_i64() {
            self.out.push(b'-');
            self.u64(signed.unsigned_abs());
        } else {
            // A float: as rare as it is in a diagnostic code, its shortest form is the one its
            // `Display` writes, which is serde_json's.
            self.out.extend_from_slice(n.to_string().as_bytes());
        }
    }
}

#[cfg(test)]
mod tests;
