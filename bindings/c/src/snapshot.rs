//! Per-frame snapshots in C structs: `IdelinkSnapshot` names the editor's whole visible state
//! (documents, the active document and its selection, diagnostics per file, workspace folders)
//! with pointers into the editor's own memory; `idelink_engine_handle_snapshot` and
//! `idelink_host_handle_snapshot` read it during the call only.
//!
//! Reading it allocates nothing once warm: the borrowed views `idelink-core` compares are
//! built in lists kept per thread and reused from call to call, so an unchanged snapshot costs
//! the editor no allocation end to end.

use crate::args::{array, text};
use crate::guard::invalid;
use crate::status::IdelinkStatus;
use idelink_core::SnapshotChanges;
use idelink_core::ide::{Position, Range, Severity};
use idelink_core::snapshot::{
    ActiveView, DiagnosticCodeView, DiagnosticView, DocumentView, FileDiagnosticsView, Snapshot,
};
use std::cell::RefCell;
use std::ffi::c_char;

/// A position in a document: 0-based line and character (VS Code counts UTF-16 code units).
#[repr(C)]
#[derive(Debug, Clone, Copy)]
pub struct IdelinkPosition {
    /// 0-based line.
    pub line: u32,
    /// 0-based character within the line.
    pub character: u32,
}

/// A range of a document; `start` equal to `end` for a bare caret.
#[repr(C)]
#[derive(Debug, Clone, Copy)]
pub struct IdelinkRange {
    /// Where it starts.
    pub start: IdelinkPosition,
    /// Where it ends.
    pub end: IdelinkPosition,
}

/// One open document (one tab).
#[repr(C)]
#[derive(Debug, Clone, Copy)]
pub struct IdelinkDocument {
    /// Its path, NUL-terminated UTF-8.
    pub path: *const c_char,
    /// The editor's language id (`"cpp"`, …), or NULL when unknown.
    pub language_id: *const c_char,
    /// Whether it has unsaved changes.
    pub is_dirty: bool,
    /// Whether it has never been saved to disk.
    pub is_untitled: bool,
}

/// The active document and its selection.
#[repr(C)]
#[derive(Debug, Clone, Copy)]
pub struct IdelinkActiveDocument {
    /// The document's path.
    pub path: *const c_char,
    /// The selected text; NULL or `""` for a bare caret.
    pub text: *const c_char,
    /// The selection.
    pub selection: IdelinkRange,
}

/// A diagnostic's severity: the values of `IdelinkDiagnostic::severity`.
#[repr(C)]
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum IdelinkSeverity {
    /// An error.
    IdelinkSeverityError = 0,
    /// A warning.
    IdelinkSeverityWarning = 1,
    /// Information.
    IdelinkSeverityInfo = 2,
    /// A hint.
    IdelinkSeverityHint = 3,
}

/// One diagnostic.
#[repr(C)]
#[derive(Debug, Clone, Copy)]
pub struct IdelinkDiagnostic {
    /// The human-readable message.
    pub message: *const c_char,
    /// An `IdelinkSeverity` value (another value fails the call with
    /// `IDELINK_ERROR_INVALID_ARGUMENT`).
    pub severity: u32,
    /// Where it applies.
    pub range: IdelinkRange,
    /// The tool that produced it (`"clang"`), or NULL.
    pub source: *const c_char,
    /// A textual code (`"-Wunused-variable"`), or NULL.
    pub code: *const c_char,
    /// With `code` NULL: whether `code_number` is the code.
    pub has_code_number: bool,
    /// A numeric code, read when `code` is NULL and `has_code_number` is set.
    pub code_number: i64,
}

/// The diagnostics of one file.
#[repr(C)]
#[derive(Debug, Clone, Copy)]
pub struct IdelinkFileDiagnostics {
    /// The file's path.
    pub path: *const c_char,
    /// Its complete list: `diagnostic_count` entries (NULL when 0).
    pub diagnostics: *const IdelinkDiagnostic,
    /// How many.
    pub diagnostic_count: usize,
}

/// The editor's whole visible state at one moment. Every pointer is the editor's and is only
/// read during the call; an array may be NULL when its count is 0.
#[repr(C)]
#[derive(Debug, Clone, Copy)]
pub struct IdelinkSnapshot {
    /// The open documents, in tab order (each path listed once).
    pub documents: *const IdelinkDocument,
    /// How many.
    pub document_count: usize,
    /// The active document, or NULL when none is active.
    pub active: *const IdelinkActiveDocument,
    /// The diagnostics of each file that has some.
    pub files: *const IdelinkFileDiagnostics,
    /// How many files.
    pub file_count: usize,
    /// The workspace folders (absolute paths).
    pub workspace_folders: *const *const c_char,
    /// How many.
    pub workspace_folder_count: usize,
}

/// What a snapshot changed, by kind; all false when nothing changed (nothing was sent).
#[repr(C)]
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct IdelinkSnapshotChanges {
    /// Documents were opened, closed or changed language or flags.
    pub documents: bool,
    /// The active document or its selection changed (a push to claude follows).
    pub active: bool,
    /// Some file's diagnostics changed.
    pub diagnostics: bool,
    /// The workspace folders changed (the host level rewrote the lock file).
    pub workspace_folders: bool,
}

impl From<SnapshotChanges> for IdelinkSnapshotChanges {
    fn from(changes: SnapshotChanges) -> Self {
        IdelinkSnapshotChanges {
            documents: changes.documents,
            active: changes.active,
            diagnostics: changes.diagnostics,
            workspace_folders: changes.workspace_folders,
        }
    }
}

type ArgResult<T> = Result<T, (IdelinkStatus, String)>;

/// The lists the views are built in, kept per thread between calls (empty, with their
/// capacity) so a warm call allocates nothing.
#[derive(Default)]
struct Lists {
    documents: Vec<DocumentView<'static>>,
    diagnostics: Vec<DiagnosticView<'static>>,
    files: Vec<FileDiagnosticsView<'static>>,
    folders: Vec<&'static str>,
}

thread_local! {
    static LISTS: RefCell<Lists> = RefCell::new(Lists::default());
}

/// An empty list of `U` in the allocation of `list` (cleared first). The element types differ
/// only in lifetime, so the standard library's in-place collection keeps the allocation.
fn recycle<T, U>(mut list: Vec<T>) -> Vec<U> {
    list.clear();
    list.into_iter().filter_map(|_| None).collect()
}

/// Reads `snapshot` into borrowed views and calls `body` with them; every argument problem is
/// found before `body` runs (a failed call changes nothing).
///
/// # Safety
/// `snapshot` is NULL or points to an `IdelinkSnapshot` whose pointers are valid as its field
/// docs say, and stay valid and unmodified during the call.
pub(crate) unsafe fn read<R>(
    snapshot: *const IdelinkSnapshot,
    body: impl FnOnce(&Snapshot<'_>) -> R,
) -> ArgResult<R> {
    // SAFETY: NULL or a valid snapshot (caller's obligation).
    let snapshot = unsafe { snapshot.as_ref() }.ok_or_else(|| invalid("snapshot is NULL"))?;
    let taken = LISTS.with(|lists| std::mem::take(&mut *lists.borrow_mut()));
    let mut documents: Vec<DocumentView<'_>> = recycle(taken.documents);
    let mut diagnostics: Vec<DiagnosticView<'_>> = recycle(taken.diagnostics);
    let mut folders: Vec<&str> = recycle(taken.folders);
    // SAFETY: forwarded: the pointers inside `snapshot` are valid (caller's obligation).
    let filled = unsafe { fill(snapshot, &mut documents, &mut diagnostics, &mut folders) };
    let mut files: Vec<FileDiagnosticsView<'_>> = recycle(taken.files);
    // The files' lists are slices of `diagnostics`, complete now.
    let result = filled
        .and_then(|active| {
            // SAFETY: forwarded, as above.
            unsafe { file_views(snapshot, &diagnostics, &mut files) }.map(|()| active)
        })
        .map(|active| {
            body(&Snapshot {
                documents: &documents,
                active,
                diagnostics: &files,
                workspace_folders: &folders,
            })
        });
    let files = recycle(files);
    let kept = Lists {
        documents: recycle(documents),
        diagnostics: recycle(diagnostics),
        files,
        folders: recycle(folders),
    };
    LISTS.with(|lists| *lists.borrow_mut() = kept);
    result
}

/// Builds the views of the documents, of every diagnostic (one list, file after file) and of
/// the folders; returns the active document's.
///
/// # Safety
/// As for [`read`].
unsafe fn fill<'a>(
    snapshot: &'a IdelinkSnapshot,
    documents: &mut Vec<DocumentView<'a>>,
    diagnostics: &mut Vec<DiagnosticView<'a>>,
    folders: &mut Vec<&'a str>,
) -> ArgResult<Option<ActiveView<'a>>> {
    // SAFETY: the arrays hold their counts of valid entries and every string is NULL (where
    // allowed) or NUL-terminated (the caller's obligation, stated on `IdelinkSnapshot`).
    unsafe {
        let docs = array(snapshot.documents, snapshot.document_count, "documents")?;
        for (i, doc) in docs.iter().enumerate() {
            documents.push(DocumentView {
                path: required(doc.path, "documents[].path", i)?,
                language_id: optional(doc.language_id, "documents[].language_id", i)?,
                is_dirty: doc.is_dirty,
                is_untitled: doc.is_untitled,
            });
        }
        let active = match snapshot.active.as_ref() {
            None => None,
            Some(active) => Some(ActiveView {
                path: required(active.path, "active.path", 0)?,
                text: optional(active.text, "active.text", 0)?.unwrap_or(""),
                selection: range(active.selection),
            }),
        };
        let files = array(snapshot.files, snapshot.file_count, "files")?;
        for (i, file) in files.iter().enumerate() {
            let list = array(
                file.diagnostics,
                file.diagnostic_count,
                "files[].diagnostics",
            )?;
            for d in list {
                diagnostics.push(diagnostic(d, i)?);
            }
        }
        let list = array(
            snapshot.workspace_folders,
            snapshot.workspace_folder_count,
            "workspace_folders",
        )?;
        for (i, &folder) in list.iter().enumerate() {
            folders.push(required(folder, "workspace_folders[]", i)?);
        }
        Ok(active)
    }
}

/// The views of the files, their lists sliced from `diagnostics` (built by [`fill`]).
///
/// # Safety
/// As for [`read`].
unsafe fn file_views<'a>(
    snapshot: &'a IdelinkSnapshot,
    diagnostics: &'a [DiagnosticView<'a>],
    files: &mut Vec<FileDiagnosticsView<'a>>,
) -> ArgResult<()> {
    // SAFETY: the arrays hold their counts of valid entries and every string is NULL (where
    // allowed) or NUL-terminated (the caller's obligation, stated on `IdelinkSnapshot`).
    unsafe {
        let raw = array(snapshot.files, snapshot.file_count, "files")?;
        let mut start = 0;
        for (i, file) in raw.iter().enumerate() {
            let end = start + file.diagnostic_count;
            files.push(FileDiagnosticsView {
                path: required(file.path, "files[].path", i)?,
                diagnostics: &diagnostics[start..end],
            });
            start = end;
        }
        Ok(())
    }
}

/// The view of one diagnostic of file `i`.
///
/// # Safety
/// Its strings are NULL (where allowed) or NUL-terminated.
unsafe fn diagnostic(d: &IdelinkDiagnostic, i: usize) -> ArgResult<DiagnosticView<'_>> {
    // SAFETY: the arrays hold their counts of valid entries and every string is NULL (where
    // allowed) or NUL-terminated (the caller's obligation, stated on `IdelinkSnapshot`).
    unsafe {
        let severity = match d.severity {
            0 => Severity::Error,
            1 => Severity::Warning,
            2 => Severity::Info,
            3 => Severity::Hint,
            other => {
                return Err(invalid(format_args!(
                    "files[{i}].diagnostics[].severity is {other}: use an IdelinkSeverity (0 to 3)"
                )));
            }
        };
        let code = match optional(d.code, "files[].diagnostics[].code", i)? {
            Some(code) => Some(DiagnosticCodeView::Text(code)),
            None => d
                .has_code_number
                .then_some(DiagnosticCodeView::Number(d.code_number)),
        };
        Ok(DiagnosticView {
            message: required(d.message, "files[].diagnostics[].message", i)?,
            severity,
            range: range(d.range),
            source: optional(d.source, "files[].diagnostics[].source", i)?,
            code,
        })
    }
}

fn range(r: IdelinkRange) -> Range {
    let at = |p: IdelinkPosition| Position {
        line: p.line,
        character: p.character,
    };
    Range {
        start: at(r.start),
        end: at(r.end),
    }
}

/// A string that must be there; `what` and `i` name it in the error.
///
/// # Safety
/// `ptr` is NULL or NUL-terminated, valid for `'a`.
unsafe fn required<'a>(ptr: *const c_char, what: &str, i: usize) -> ArgResult<&'a str> {
    if ptr.is_null() {
        return Err(invalid(format_args!("{what} is NULL (entry {i})")));
    }
    // SAFETY: forwarded (this function's contract).
    unsafe { text(ptr, what) }
}

/// A string that may be NULL.
///
/// # Safety
/// As for [`required`].
unsafe fn optional<'a>(ptr: *const c_char, what: &str, i: usize) -> ArgResult<Option<&'a str>> {
    if ptr.is_null() {
        return Ok(None);
    }
    // SAFETY: forwarded.
    unsafe { required(ptr, what, i) }.map(Some)
}
