//! Pull reads: a read tool the [`ReadSources`] send to the editor instead of answering from
//! the [`EditorState`](super::EditorState). The call becomes a [`ToolRequest`] with its
//! arguments parsed, the editor answers with a typed [`ToolOutcome`], and the answer is the
//! same `Answer` as the state's (written straight into the reply by the same code): for the
//! same editor state, a pulled read and a pushed one give the same bytes.
//!
//! For an editor that already answers such queries on demand (a buffer store, a language
//! server's `for_uri`), pulling saves keeping a copy of that state in the engine.

use std::borrow::Cow;

use serde::{Deserialize, Serialize};
use serde_json::value::RawValue;

use super::answer::{Answer, DiagnosticFiles, TabFacts};
use super::args::Args;
use super::catalog::ToolName;
use super::event::Diagnostic;
use super::notification::SelectionChanged;
use super::path::{PathStyle, normalize_path};
use super::plan::ToolPlan;
use super::read_tools::{self, NO_ACTIVE_EDITOR, NO_SELECTION};
use super::request::{ToolOutcome, ToolRequest};

/// Where a read tool's answer comes from.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
pub enum ReadSource {
    /// The engine answers at once from the editor events it was fed (push).
    #[default]
    State,
    /// The engine hands the call to the editor as a [`ToolRequest`] and answers with its
    /// [`ToolOutcome`], or with an error when the editor misses `tool_deadline_ms` (pull).
    Editor,
}

/// The [`ReadSource`] of each read tool. Default: every one from the state. JSON form:
/// `{"getDiagnostics": "editor"}` (camelCase tool names, every field optional, unknown
/// fields refused).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Serialize, Deserialize)]
#[serde(default, rename_all = "camelCase", deny_unknown_fields)]
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
pub struct ReadSources {
    /// `getDiagnostics`.
    #[cfg_attr(feature = "ts", ts(as = "Option<_>", optional))]
    pub get_diagnostics: ReadSource,
    /// `getCurrentSelection`.
    #[cfg_attr(feature = "ts", ts(as = "Option<_>", optional))]
    pub get_current_selection: ReadSource,
    /// `getLatestSelection`.
    #[cfg_attr(feature = "ts", ts(as = "Option<_>", optional))]
    pub get_latest_selection: ReadSource,
    /// `getOpenEditors`.
    #[cfg_attr(feature = "ts", ts(as = "Option<_>", optional))]
    pub get_open_editors: ReadSource,
    /// `getWorkspaceFolders`.
    #[cfg_attr(feature = "ts", ts(as = "Option<_>", optional))]
    pub get_workspace_folders: ReadSource,
    /// `checkDocumentDirty`.
    #[cfg_attr(feature = "ts", ts(as = "Option<_>", optional))]
    pub check_document_dirty: ReadSource,
}

impl ReadSources {
    /// Every read tool from `source`.
    pub fn all(source: ReadSource) -> Self {
        ReadSources {
            get_diagnostics: source,
            get_current_selection: source,
            get_latest_selection: source,
            get_open_editors: source,
            get_workspace_folders: source,
            check_document_dirty: source,
        }
    }

    /// Where `tool` is answered from; [`ReadSource::State`] for every tool that is no read
    /// tool (those are not the state's to answer either way).
    pub fn source(&self, tool: ToolName) -> ReadSource {
        match tool {
            ToolName::GetDiagnostics => self.get_diagnostics,
            ToolName::GetCurrentSelection => self.get_current_selection,
            ToolName::GetLatestSelection => self.get_latest_selection,
            ToolName::GetOpenEditors => self.get_open_editors,
            ToolName::GetWorkspaceFolders => self.get_workspace_folders,
            ToolName::CheckDocumentDirty => self.check_document_dirty,
            _ => ReadSource::State,
        }
    }
}

/// Plans the `tools/call` of read tool `tool` for the editor to answer: its request, with
/// the arguments parsed and checked as for an answer from the state (the same
/// [`ToolPlan::InvalidArguments`] for the same arguments). `None` when `tool` is no read
/// tool.
pub fn plan_pulled_read(
    tool: ToolName,
    arguments: Option<&RawValue>,
    style: PathStyle,
) -> Option<ToolPlan> {
    plan_pull(tool, arguments, style)
}

/// [`plan_pulled_read`] for a plan of any reply type (it never is a reply).
pub(crate) fn plan_pull<R>(
    tool: ToolName,
    arguments: Option<&RawValue>,
    style: PathStyle,
) -> Option<ToolPlan<R>> {
    let mut args = match Args::parse(arguments) {
        Ok(args) => args,
        Err(message) => return Some(ToolPlan::InvalidArguments(message)),
    };
    let request = match tool {
        ToolName::GetDiagnostics => {
            read_tools::diagnostics_uri(&mut args, style).map(|uri| ToolRequest::GetDiagnostics {
                path: uri.map(|(raw, _)| raw),
            })
        }
        ToolName::GetCurrentSelection => Ok(ToolRequest::GetCurrentSelection),
        ToolName::GetLatestSelection => Ok(ToolRequest::GetLatestSelection),
        ToolName::GetOpenEditors => Ok(ToolRequest::GetOpenEditors),
        ToolName::GetWorkspaceFolders => Ok(ToolRequest::GetWorkspaceFolders),
        ToolName::CheckDocumentDirty => args
            .path("filePath", style)
            .map(|path| ToolRequest::CheckDocumentDirty { path }),
        _ => return None,
    };
    Some(match request {
        Ok(request) => ToolPlan::Request(request),
        Err(message) => ToolPlan::InvalidArguments(message),
    })
}

/// The answer to pulled read `request` from the editor's `outcome` (not `Failed`, which the
/// caller answers for every request), with the editor's paths normalized with `style`.
/// `None` when the outcome does not answer that request.
pub(crate) fn format_pulled<'a>(
    request: &'a ToolRequest,
    outcome: &'a ToolOutcome,
    style: PathStyle,
) -> Option<Answer<'a>> {
    let normalize = |path: &'a str| normalize_path(path, style);
    Some(match (request, outcome) {
        (ToolRequest::GetDiagnostics { path }, ToolOutcome::Diagnostics { files }) => {
            // Sorted by path, a path given twice keeping its last diagnostics: the list
            // reversed, then stably sorted (the last given first among equal paths), then
            // deduplicated (the first of each run kept). A sorted list is smaller code than an
            // ordered map (the wasm module's size), and sorting once keeps it O(n log n).
            let mut by_path: Vec<(Cow<'a, str>, &'a [Diagnostic])> = files
                .iter()
                .rev()
                .map(|file| (normalize(&file.path), &file.diagnostics[..]))
                .collect();
            by_path.sort_by(|(a, _), (b, _)| a.cmp(b));
            by_path.dedup_by(|(later, _), (kept, _)| later == kept);
            Answer::Diagnostics(DiagnosticFiles::Listed(match path {
                Some(path) => {
                    let diagnostics = by_path
                        .binary_search_by(|(known, _)| known.as_ref().cmp(path.as_str()))
                        .map_or(&[][..], |at| by_path[at].1);
                    vec![(Cow::Borrowed(path.as_str()), diagnostics)]
                }
                None => by_path.into_iter().filter(|(_, d)| !d.is_empty()).collect(),
            }))
        }
        (
            ToolRequest::GetCurrentSelection | ToolRequest::GetLatestSelection,
            ToolOutcome::Selection {
                path,
                text,
                selection,
            },
        ) => Answer::Selection(Cow::Owned(SelectionChanged::new(
            &normalize(path),
            text,
            *selection,
        ))),
        (ToolRequest::GetCurrentSelection, ToolOutcome::NoSelection) => {
            Answer::Failure(NO_ACTIVE_EDITOR)
        }
        (ToolRequest::GetLatestSelection, ToolOutcome::NoSelection) => {
            Answer::Failure(NO_SELECTION)
        }
        (ToolRequest::GetOpenEditors, ToolOutcome::OpenEditors { tabs }) => Answer::Tabs(
            tabs.iter()
                .map(|tab| TabFacts {
                    path: normalize(&tab.path),
                    language_id: tab.language_id.as_deref(),
                    is_dirty: tab.is_dirty,
                    is_untitled: tab.is_untitled,
                    is_active: tab.is_active,
                })
                .collect(),
        ),
        (ToolRequest::GetWorkspaceFolders, ToolOutcome::WorkspaceFolders { folders }) => {
            // As the state keeps them: normalized, each once, in the editor's order.
            let mut unique: Vec<String> = Vec::with_capacity(folders.len());
            for folder in folders {
                let folder = normalize(folder).into_owned();
                if !unique.contains(&folder) {
                    unique.push(folder);
                }
            }
            Answer::Folders(Cow::Owned(unique))
        }
        (
            ToolRequest::CheckDocumentDirty { path },
            ToolOutcome::DocumentDirty {
                is_dirty,
                is_untitled,
            },
        ) => Answer::Dirty {
            path,
            is_dirty: *is_dirty,
            is_untitled: *is_untitled,
        },
        (ToolRequest::CheckDocumentDirty { path }, ToolOutcome::DocumentNotOpen) => {
            Answer::NotOpen(Cow::Borrowed(path))
        }
        _ => return None,
    })
}

#[cfg(test)]
mod tests;
