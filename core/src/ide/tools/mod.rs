//! The tools, one module each (docs/protocol.md §4): a module holds everything about its tool
//! — the wire name, the description and input schema `tools/list` shows, the reading of its
//! arguments, its plan (answered from the state, or a [`ToolRequest`] for the editor), its
//! request when the read is pulled from the editor, and the formatting of the editor's
//! [`ToolOutcome`] into the `tools/call` result. Each implements [`Tool`]; the catalog below
//! is the list of those modules, in `tools/list` order, and everything that goes by tool
//! ([`ToolName`], `tools/list`, planning, [`ReadSources`](super::ReadSources), formatting) is
//! read from it.
//!
//! Adding a tool is one new module here, its line in the `catalog!` list below and a transcript
//! vector that calls it; a tool whose editor request or outcome is new adds its variant to
//! [`ToolRequest`] / [`ToolOutcome`] (the JSON forms), and its answer shape, when new, to
//! `Answer`. The `every_tool_provides_what_a_tool_must` test checks each entry.

use super::answer::Answer;
use super::args::Args;
use super::catalog::Param;
use super::outcome::Answered;
use super::path::PathStyle;
use super::plan::ToolPlan;
use super::request::{ToolOutcome, ToolRequest};
use super::state::EditorState;

/// What a tool module provides. The defaults are those of a tool the state does not answer,
/// that is never pulled and whose outcome never answers it (a tool the engine carries out
/// itself, like `close_tab`).
pub(crate) trait Tool {
    /// The wire name (`tools/call`'s `name`, `tools/list`'s `name`).
    const NAME: &'static str;
    /// `tools/list`'s description.
    const DESCRIPTION: &'static str;
    /// The arguments of `tools/list`'s input schema, in order.
    const PARAMS: &'static [Param];
    /// Listed and callable only when the host enables it (`Config::execute_code`).
    const OPT_IN: bool = false;
    /// A read tool: answered from the state, or pulled from the editor when the
    /// [`ReadSources`](super::ReadSources) say so ([`Tool::pull`] then gives its request).
    const READ: bool = false;

    /// The call with `args` planned against `state`: the answer, a request for the editor,
    /// or a step the engine takes itself. `Err` names the argument and the rule it broke.
    fn plan<'s>(
        args: &mut Args<'s>,
        state: &'s EditorState,
    ) -> Result<ToolPlan<Answer<'s>>, String>;

    /// A read tool's request when it is pulled from the editor, its arguments checked as for
    /// [`Tool::plan`] (the same error for the same arguments), paths normalized with `style`.
    /// `None` for a tool that is no read tool.
    fn pull(_args: &mut Args<'_>, _style: PathStyle) -> Option<Result<ToolRequest, String>> {
        None
    }

    /// The answer to `request` (one of this tool's) from the editor's `outcome` (never
    /// `failed`, which answers every request alike), the editor's paths normalized with
    /// `style`. `None` when the outcome does not answer this tool.
    fn answer<'a>(
        _request: &'a ToolRequest,
        _outcome: &'a ToolOutcome,
        _style: PathStyle,
    ) -> Option<Answered<'a>> {
        None
    }

    /// The answer borrowed from `state` for a tool that reads no arguments and nothing but
    /// the selection, so that the engine can keep it rendered; `None` for any other tool.
    fn in_place(_state: &EditorState) -> Option<Answer<'_>> {
        None
    }
}

/// One catalog entry: a tool module's [`Tool`] items, as values.
pub(crate) struct Entry {
    pub(crate) name: &'static str,
    pub(crate) description: &'static str,
    pub(crate) params: &'static [Param],
    pub(crate) opt_in: bool,
    pub(crate) read: bool,
    pub(crate) plan:
        for<'s> fn(&mut Args<'s>, &'s EditorState) -> Result<ToolPlan<Answer<'s>>, String>,
    pub(crate) pull: fn(&mut Args<'_>, PathStyle) -> Option<Result<ToolRequest, String>>,
    pub(crate) answer:
        for<'a> fn(&'a ToolRequest, &'a ToolOutcome, PathStyle) -> Option<Answered<'a>>,
    pub(crate) in_place: for<'s> fn(&'s EditorState) -> Option<Answer<'s>>,
}

const fn entry<T: Tool>() -> Entry {
    Entry {
        name: T::NAME,
        description: T::DESCRIPTION,
        params: T::PARAMS,
        opt_in: T::OPT_IN,
        read: T::READ,
        plan: T::plan,
        pull: T::pull,
        answer: T::answer,
        in_place: T::in_place,
    }
}

/// Declares the tool modules, [`ToolName`] with one variant per module, and the entries.
macro_rules! catalog {
    ($($(#[$doc:meta])* $variant:ident => $module:ident,)*) => {
        $(mod $module;)*

        /// A tool the server offers, by its wire name (which is also its serialized form).
        #[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
        pub enum ToolName {
            $($(#[$doc])* $variant,)*
        }

        impl ToolName {
            /// Every tool, in `tools/list` order.
            pub const ALL: [ToolName; [$(ToolName::$variant),*].len()] = [$(ToolName::$variant),*];
        }

        /// The entries, in the order of [`ToolName::ALL`] (one copy in the binary).
        static CATALOG: [Entry; ToolName::ALL.len()] = [$(entry::<$module::Spec>()),*];
    };
}

catalog! {
    /// `openFile`: open a file, optionally selecting text.
    OpenFile => open_file,
    /// `openDiff`: show a proposed edit and block until the user accepts or rejects it.
    OpenDiff => open_diff,
    /// `close_tab`: close a tab (a diff) by its name.
    CloseTab => close_tab,
    /// `closeAllDiffTabs`: close every diff this server opened for the calling client.
    CloseAllDiffTabs => close_all_diff_tabs,
    /// `getDiagnostics`: diagnostics of one file or all files.
    GetDiagnostics => get_diagnostics,
    /// `getCurrentSelection`: the active editor's selection.
    GetCurrentSelection => get_current_selection,
    /// `getLatestSelection`: the last selection seen in any editor.
    GetLatestSelection => get_latest_selection,
    /// `getOpenEditors`: the open tabs.
    GetOpenEditors => get_open_editors,
    /// `getWorkspaceFolders`: the workspace folders.
    GetWorkspaceFolders => get_workspace_folders,
    /// `checkDocumentDirty`: whether an open document has unsaved changes.
    CheckDocumentDirty => check_document_dirty,
    /// `saveDocument`: save an open document.
    SaveDocument => save_document,
    /// `executeCode`: run code in the editor's kernel (only when the host enables it).
    ExecuteCode => execute_code,
}

impl ToolName {
    /// The tool with wire name `name` (case-sensitive), if any.
    pub fn parse(name: &str) -> Option<ToolName> {
        ToolName::ALL.into_iter().find(|tool| tool.as_str() == name)
    }

    /// The wire name.
    pub fn as_str(self) -> &'static str {
        self.entry().name
    }

    /// Whether this is a read tool, one the [`ReadSources`](super::ReadSources) may pull
    /// from the editor.
    pub fn is_read(self) -> bool {
        self.entry().read
    }

    /// The tool's catalog entry.
    pub(crate) fn entry(self) -> &'static Entry {
        &CATALOG[self as usize]
    }
}

/// The failure a selection tool answers with when there is no selection to give (the
/// context policy's answer for one it withholds): `getLatestSelection`'s "No selection
/// available", every other tool's "No active editor found".
pub(crate) fn no_selection_message(tool: ToolName) -> &'static str {
    match tool {
        ToolName::GetLatestSelection => get_latest_selection::NO_SELECTION,
        _ => get_current_selection::NO_ACTIVE_EDITOR,
    }
}

/// The read tools' wire names, in catalog order (serde's list of the fields of
/// [`ReadSources`](super::ReadSources)).
pub(crate) const READ_NAMES: &[&str] = {
    const ALL: ([&str; CATALOG.len()], usize) = {
        let mut names = [""; CATALOG.len()];
        let (mut at, mut count) = (0, 0);
        while at < CATALOG.len() {
            if CATALOG[at].read {
                names[count] = CATALOG[at].name;
                count += 1;
            }
            at += 1;
        }
        (names, count)
    };
    ALL.0.split_at(ALL.1).0
};

#[cfg(test)]
mod tests;
