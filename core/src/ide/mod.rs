//! The IDE layer: the editor state fed by editor events, the tool catalog, the read tools
//! answered from that state, the write tools turned into typed requests for the editor, the
//! exact result shapes, notification params, and the path and URI rules (docs/protocol.md §4–§6).
//!
//! It knows nothing of sockets, WebSocket or JSON-RPC ids. The engine feeds
//! [`EditorEvent`]s to [`EditorState::apply`] and sends notifications for the
//! [`StateChange`]s it returns; it answers `tools/list` with [`tools_json`]; for a
//! `tools/call` it asks [`plan_tool_call`] (the selection tools first go to
//! [`selection_result`], which answers without copying the state) and either answers at once, hands the
//! [`ToolRequest`] to the editor and later formats its [`ToolOutcome`] with
//! [`format_outcome`] (or [`deadline_outcome`] when the editor stays silent), or does the
//! diff bookkeeping for `close_tab` / `closeAllDiffTabs` itself. A read tool the
//! [`ReadSources`] pull from the editor becomes a request like a write tool.
//!
//! Each tool is one module of `tools` (its name, schema, arguments, plan, pulled request and
//! outcome formatting); the catalog is the list of those modules.

pub(crate) mod answer;
mod args;
mod catalog;
mod code;
mod diagnostics;
mod event;
mod notification;
mod outcome;
mod path;
mod plan;
mod pull;
mod request;
mod result;
mod state;
mod tools;
mod written;

pub(crate) use answer::Answer;
pub use catalog::{ToolName, tools_json};
pub use code::{DiagnosticCode, JsonCode};
pub use diagnostics::DiagnosticsByFile;
pub use event::{Diagnostic, EditorEvent, Position, Range, Severity};
pub use notification::{AtMentioned, NoFileSelected, SelectionChanged, SelectionRange};
pub(crate) use outcome::{Answered, answer_outcome};
pub use outcome::{OutcomeMismatch, deadline_outcome, format_outcome};
pub(crate) use path::is_windows_absolute;
pub use path::{PathStyle, file_name, file_uri, normalize_path, path_from_uri};
pub use plan::{SelectionResult, ToolPlan, plan_tool_call, selection_result};
pub(crate) use plan::{plan, selection_answer};
pub use pull::{ReadSource, ReadSources};
pub use request::{FileDiagnostics, OpenTab, ToolOutcome, ToolRequest};
pub use result::ToolResult;
pub use state::{EditorState, OpenDocument, StateChange, StateLimits};
pub(crate) use tools::no_selection_message;
pub(crate) use written::file_replaced;
pub use written::{NO_CHANGE_REASON, WriteRules, is_no_change, written_text};
