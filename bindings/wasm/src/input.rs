//! The JSON forms the host hands in (`Config`, `EditorEvent`, `EditorSnapshot`, `ToolOutcome`), read from plain
//! JS objects field by field ([`crate::js::Obj`]) into core's types, with the rules core's
//! serde forms have: a config refuses unknown fields and defaults the rest, events and
//! outcomes are tagged by `type` / `outcome` and ignore fields they do not know.
//!
//! A variant added to one of these core enums needs its line here (and in `output.rs` for
//! outputs); the transcript vectors and `test/engine.test.mjs` exercise every one.

use crate::js::Obj;
use idelink_core::engine::SessionPolicy;
use idelink_core::ide::{
    Diagnostic, FileDiagnostics, OpenTab, PathStyle, Position, Range, ReadSource, ReadSources,
    Severity, ToolName,
};
use idelink_core::mcp::ServerInfo;
use idelink_core::rpc::RpcLimits;
use idelink_core::snapshot::{SnapshotActive, SnapshotDocument};
use idelink_core::ws::WsConfig;
use idelink_core::{Config, EditorEvent, EditorSnapshot, ToolOutcome};
use wasm_bindgen::prelude::*;

const U16: u64 = u16::MAX as u64;
const U32: u64 = u32::MAX as u64;
const USIZE: u64 = usize::MAX as u64;
const U64: u64 = u64::MAX;

/// The `Config` JSON form: every field optional (defaults of `Config::new`), unknown refused.
pub(crate) fn config(value: JsValue) -> Result<Config, JsError> {
    let obj = Obj::root("config", value)?;
    obj.deny_unknown(&[
        "port",
        "serverInfo",
        "workspaceFolders",
        "pathStyle",
        "maxHeadBytes",
        "handshakeTimeoutMs",
        "ws",
        "rpc",
        "maxConnections",
        "maxHandshakes",
        "maxOutboundBytes",
        "maxClientMessageBytes",
        "maxPendingCalls",
        "maxPendingProposalBytes",
        "maxTotalPendingProposalBytes",
        "maxDocuments",
        "maxDiagnostics",
        "maxQueuedMentions",
        "sessionPolicy",
        "readyDelayMs",
        "selectionDebounceMs",
        "mentionTtlMs",
        "toolDeadlineMs",
        "diffDeadlineMs",
        "executeCode",
        "reads",
    ])?;
    let mut c = Config::new(0);
    let usize_field = |name, slot: &mut usize| -> Result<(), JsError> {
        if let Some(n) = obj.opt_integer(name, USIZE, false)? {
            *slot = n as usize;
        }
        Ok(())
    };
    let u64_field = |name, slot: &mut u64| -> Result<(), JsError> {
        if let Some(n) = obj.opt_integer(name, U64, false)? {
            *slot = n;
        }
        Ok(())
    };
    if let Some(port) = obj.opt_integer("port", U16, false)? {
        c.port = port as u16;
    }
    if let Some(info) = obj.object("serverInfo")? {
        info.deny_unknown(&["name", "version"])?;
        c.server_info = ServerInfo {
            name: info.string("name")?,
            version: info.string("version")?,
        };
    }
    if let Some(folders) = obj.strings("workspaceFolders")? {
        c.workspace_folders = folders;
    }
    if let Some(style) = obj.opt_string("pathStyle")? {
        c.path_style = match style.as_str() {
            "posix" => PathStyle::Posix,
            "windows" => PathStyle::Windows,
            other => return Err(obj.unknown_variant(other, &["posix", "windows"])),
        };
    }
    usize_field("maxHeadBytes", &mut c.max_head_bytes)?;
    u64_field("handshakeTimeoutMs", &mut c.handshake_timeout_ms)?;
    if let Some(ws) = obj.object("ws")? {
        c.ws = ws_config(&ws)?;
    }
    if let Some(rpc) = obj.object("rpc")? {
        rpc.deny_unknown(&["maxDepth"])?;
        let mut limits = RpcLimits::default();
        if let Some(n) = rpc.opt_integer("maxDepth", USIZE, false)? {
            limits.max_depth = n as usize;
        }
        c.rpc = limits;
    }
    usize_field("maxConnections", &mut c.max_connections)?;
    usize_field("maxHandshakes", &mut c.max_handshakes)?;
    usize_field("maxOutboundBytes", &mut c.max_outbound_bytes)?;
    usize_field("maxClientMessageBytes", &mut c.max_client_message_bytes)?;
    usize_field("maxPendingCalls", &mut c.max_pending_calls)?;
    usize_field("maxPendingProposalBytes", &mut c.max_pending_proposal_bytes)?;
    usize_field(
        "maxTotalPendingProposalBytes",
        &mut c.max_total_pending_proposal_bytes,
    )?;
    usize_field("maxDocuments", &mut c.max_documents)?;
    usize_field("maxDiagnostics", &mut c.max_diagnostics)?;
    usize_field("maxQueuedMentions", &mut c.max_queued_mentions)?;
    if let Some(policy) = obj.opt_string("sessionPolicy")? {
        c.session_policy = match policy.as_str() {
            "multi" => SessionPolicy::Multi,
            "single" => SessionPolicy::Single,
            other => return Err(obj.unknown_variant(other, &["multi", "single"])),
        };
    }
    u64_field("readyDelayMs", &mut c.ready_delay_ms)?;
    u64_field("selectionDebounceMs", &mut c.selection_debounce_ms)?;
    u64_field("mentionTtlMs", &mut c.mention_ttl_ms)?;
    for (name, slot) in [
        ("toolDeadlineMs", &mut c.tool_deadline_ms),
        ("diffDeadlineMs", &mut c.diff_deadline_ms),
    ] {
        if obj.get(name)?.is_some() {
            *slot = obj.opt_integer(name, U64, true)?;
        }
    }
    if let Some(on) = obj.opt_bool("executeCode")? {
        c.execute_code = on;
    }
    if let Some(reads) = obj.object("reads")? {
        c.reads = read_sources(&reads)?;
    }
    Ok(c)
}

/// `ReadSources`: `"state"` or `"editor"` per read tool (core's catalog says which tools
/// those are), every field optional, unknown refused.
fn read_sources(reads: &Obj) -> Result<ReadSources, JsError> {
    let tools = ToolName::ALL.into_iter().filter(|tool| tool.is_read());
    let names: Vec<&str> = tools.clone().map(ToolName::as_str).collect();
    reads.deny_unknown(&names)?;
    let mut sources = ReadSources::default();
    for tool in tools {
        if let Some(source) = reads.opt_string(tool.as_str())? {
            let source = match source.as_str() {
                "state" => ReadSource::State,
                "editor" => ReadSource::Editor,
                other => return Err(reads.unknown_variant(other, &["state", "editor"])),
            };
            sources.set(tool, source);
        }
    }
    Ok(sources)
}

fn ws_config(ws: &Obj) -> Result<WsConfig, JsError> {
    ws.deny_unknown(&[
        "maxMessageBytes",
        "maxFragments",
        "keepaliveIntervalMs",
        "keepaliveTimeoutMs",
        "closeTimeoutMs",
        "acceptBinary",
    ])?;
    let mut c = WsConfig::default();
    for (name, slot) in [
        ("maxMessageBytes", &mut c.max_message_bytes),
        ("maxFragments", &mut c.max_fragments),
    ] {
        if let Some(n) = ws.opt_integer(name, USIZE, false)? {
            *slot = n as usize;
        }
    }
    for (name, slot) in [
        ("keepaliveIntervalMs", &mut c.keepalive_interval_ms),
        ("keepaliveTimeoutMs", &mut c.keepalive_timeout_ms),
        ("closeTimeoutMs", &mut c.close_timeout_ms),
    ] {
        if let Some(n) = ws.opt_integer(name, U64, false)? {
            *slot = n;
        }
    }
    if let Some(on) = ws.opt_bool("acceptBinary")? {
        c.accept_binary = on;
    }
    Ok(c)
}

/// The variants of [`EditorEvent`] by their `type`.
const EVENT_TYPES: [&str; 11] = [
    "documentOpened",
    "documentClosed",
    "documentActivated",
    "documentDirtyChanged",
    "documentSaved",
    "selectionChanged",
    "diagnosticsChanged",
    "proposalDiagnosticsChanged",
    "workspaceFoldersChanged",
    "noDocumentActive",
    "mention",
];

/// An `EditorEvent` in its JSON form, tagged by `type`.
pub(crate) fn editor_event(value: JsValue) -> Result<EditorEvent, JsError> {
    let e = Obj::root("event", value)?;
    let kind = e.tag("type")?;
    Ok(match kind.as_str() {
        "documentOpened" => EditorEvent::DocumentOpened {
            path: e.string("path")?,
            language_id: e.opt_string("languageId")?,
            is_dirty: e.opt_bool("isDirty")?.unwrap_or(false),
            is_untitled: e.opt_bool("isUntitled")?.unwrap_or(false),
        },
        "documentClosed" => EditorEvent::DocumentClosed {
            path: e.string("path")?,
        },
        "documentActivated" => EditorEvent::DocumentActivated {
            path: e.string("path")?,
        },
        "documentDirtyChanged" => EditorEvent::DocumentDirtyChanged {
            path: e.string("path")?,
            is_dirty: e
                .opt_bool("isDirty")?
                .ok_or_else(|| e.error("missing field `isDirty`"))?,
        },
        "documentSaved" => EditorEvent::DocumentSaved {
            path: e.string("path")?,
        },
        "selectionChanged" => EditorEvent::SelectionChanged {
            path: e.string("path")?,
            text: e.string("text")?,
            selection: range(&e.required_object("selection")?)?,
        },
        "diagnosticsChanged" => EditorEvent::DiagnosticsChanged {
            path: e.string("path")?,
            diagnostics: e.required_list("diagnostics", diagnostic)?,
        },
        "proposalDiagnosticsChanged" => EditorEvent::ProposalDiagnosticsChanged {
            call: e.integer("call", U64)?,
            diagnostics: e.required_list("diagnostics", diagnostic)?,
        },
        "workspaceFoldersChanged" => EditorEvent::WorkspaceFoldersChanged {
            folders: e
                .strings("folders")?
                .ok_or_else(|| e.error("missing field `folders`"))?,
        },
        "noDocumentActive" => EditorEvent::NoDocumentActive,
        "mention" => EditorEvent::Mention {
            path: e.string("path")?,
            line_start: line(&e, "lineStart")?,
            line_end: line(&e, "lineEnd")?,
        },
        other => return Err(e.unknown_variant(other, &EVENT_TYPES)),
    })
}

/// An `EditorSnapshot` in its JSON form: every field may be left out, `active` may be null.
pub(crate) fn editor_snapshot(value: JsValue) -> Result<EditorSnapshot, JsError> {
    let s = Obj::root("snapshot", value)?;
    let active = match s.get("active")? {
        Some(value) if value.is_null() => None,
        Some(_) => Some(s.required_object("active")?),
        None => None,
    };
    Ok(EditorSnapshot {
        documents: s.list("documents", snapshot_document)?.unwrap_or_default(),
        active: active
            .map(|a| {
                Ok::<_, JsError>(SnapshotActive {
                    path: a.string("path")?,
                    text: a.opt_string("text")?.unwrap_or_default(),
                    selection: match a.object("selection")? {
                        Some(r) => range(&r)?,
                        None => Range::default(),
                    },
                })
            })
            .transpose()?,
        diagnostics: s.list("diagnostics", file_diagnostics)?.unwrap_or_default(),
        workspace_folders: s.strings("workspaceFolders")?.unwrap_or_default(),
    })
}

fn snapshot_document(d: &Obj) -> Result<SnapshotDocument, JsError> {
    Ok(SnapshotDocument {
        path: d.string("path")?,
        language_id: d.opt_string("languageId")?,
        is_dirty: d.opt_bool("isDirty")?.unwrap_or(false),
        is_untitled: d.opt_bool("isUntitled")?.unwrap_or(false),
    })
}

fn open_tab(t: &Obj) -> Result<OpenTab, JsError> {
    Ok(OpenTab {
        path: t.string("path")?,
        language_id: t.opt_string("languageId")?,
        is_dirty: t.opt_bool("isDirty")?.unwrap_or(false),
        is_untitled: t.opt_bool("isUntitled")?.unwrap_or(false),
        is_active: t.opt_bool("isActive")?.unwrap_or(false),
    })
}

fn line(e: &Obj, name: &str) -> Result<Option<u32>, JsError> {
    Ok(e.opt_integer(name, U32, true)?.map(|n| n as u32))
}

fn position(p: &Obj) -> Result<Position, JsError> {
    Ok(Position {
        line: p.integer("line", U32)? as u32,
        character: p.integer("character", U32)? as u32,
    })
}

fn range(r: &Obj) -> Result<Range, JsError> {
    Ok(Range {
        start: position(&r.required_object("start")?)?,
        end: position(&r.required_object("end")?)?,
    })
}

/// `{path, diagnostics}`: one file's diagnostics, in a snapshot or a pulled read's answer.
fn file_diagnostics(f: &Obj) -> Result<FileDiagnostics, JsError> {
    Ok(FileDiagnostics {
        path: f.string("path")?,
        diagnostics: f.required_list("diagnostics", diagnostic)?,
    })
}

fn diagnostic(d: &Obj) -> Result<Diagnostic, JsError> {
    let severity = d.string("severity")?;
    Ok(Diagnostic {
        message: d.string("message")?,
        severity: match severity.as_str() {
            "Error" => Severity::Error,
            "Warning" => Severity::Warning,
            "Info" => Severity::Info,
            "Hint" => Severity::Hint,
            other => {
                return Err(d.unknown_variant(other, &["Error", "Warning", "Info", "Hint"]));
            }
        },
        range: range(&d.required_object("range")?)?,
        source: d.opt_string("source")?,
        code: d.opt_code("code")?,
    })
}

/// A `ToolOutcome` in its JSON form, tagged by `outcome`.
pub(crate) fn tool_outcome(value: JsValue) -> Result<ToolOutcome, JsError> {
    let o = Obj::root("outcome", value)?;
    let kind = o.tag("outcome")?;
    Ok(match kind.as_str() {
        "fileOpened" => ToolOutcome::FileOpened {
            language_id: o.opt_string("languageId")?,
            line_count: o.opt_integer("lineCount", U32, true)?.map(|n| n as u32),
        },
        "diffSaved" => ToolOutcome::DiffSaved {
            final_text: o.string("finalText")?,
        },
        "diffRejected" => ToolOutcome::DiffRejected,
        "documentSaved" => ToolOutcome::DocumentSaved,
        "codeExecuted" => ToolOutcome::CodeExecuted {
            outputs: o
                .strings("outputs")?
                .ok_or_else(|| o.error("missing field `outputs`"))?,
        },
        "failed" => ToolOutcome::Failed {
            message: o.string("message")?,
        },
        "diagnostics" => ToolOutcome::Diagnostics {
            files: o.required_list("files", file_diagnostics)?,
        },
        "selection" => ToolOutcome::Selection {
            path: o.string("path")?,
            text: o.string("text")?,
            selection: range(&o.required_object("selection")?)?,
        },
        "noSelection" => ToolOutcome::NoSelection,
        "openEditors" => ToolOutcome::OpenEditors {
            tabs: o.required_list("tabs", open_tab)?,
        },
        "workspaceFolders" => ToolOutcome::WorkspaceFolders {
            folders: o
                .strings("folders")?
                .ok_or_else(|| o.error("missing field `folders`"))?,
        },
        "documentDirty" => ToolOutcome::DocumentDirty {
            is_dirty: o
                .opt_bool("isDirty")?
                .ok_or_else(|| o.error("missing field `isDirty`"))?,
            is_untitled: o.opt_bool("isUntitled")?.unwrap_or(false),
        },
        "documentNotOpen" => ToolOutcome::DocumentNotOpen,
        other => {
            return Err(o.unknown_variant(
                other,
                &[
                    "fileOpened",
                    "diffSaved",
                    "diffRejected",
                    "documentSaved",
                    "codeExecuted",
                    "failed",
                    "diagnostics",
                    "selection",
                    "noSelection",
                    "openEditors",
                    "workspaceFolders",
                    "documentDirty",
                    "documentNotOpen",
                ],
            ));
        }
    })
}
