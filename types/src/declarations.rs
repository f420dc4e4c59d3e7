//! The declarations file: which types, in which order, under which headings, and the checks
//! that keep it whole.

use idelink_core::discovery::{
    AutoConnect, AutoConnectReason, Candidate, ClaudeEnv, ClaudeStart, IdeTerminal, LockChoice,
    Verdict,
};
use idelink_core::ide::{
    Diagnostic, FileDiagnostics, OpenTab, PathStyle, Position, Range, ReadSource, ReadSources,
    Severity, ToolName,
};
use idelink_core::ledger::{
    ChangedBy, FileChange, FileContent, FileWrite, Hunk, Turn, TurnChange, TurnId, UndoTarget,
};
use idelink_core::mcp::{ClientInfo, ServerInfo};
use idelink_core::policy::{ContextPolicy, IgnoreFile, SharingMode};
use idelink_core::rpc::RpcLimits;
use idelink_core::snapshot::{EditorSnapshot, SnapshotActive, SnapshotChanges, SnapshotDocument};
use idelink_core::ws::WsConfig;
use idelink_core::{
    CancelReason, CloseReason, Config, ConnId, EditorEvent, EngineEvent, Output, Routing,
    SentInstead, SessionChoice, SessionInfo, SessionPolicy, ToolCallId, ToolOutcome, ToolRequest,
};
use ts_rs::TS;

use crate::docs::DocRewriter;
use crate::format::Declaration;

/// The file's opening comment.
const HEADER: &str = "\
// The engine's JSON forms, shared by both JavaScript packages: `idelink` (napi) and
// `idelink-wasm`. Every structured value is the engine's own serde form (camelCase); lines and
// characters are 0-based; times are milliseconds from a monotonic clock; ids and counts are
// numbers (exact up to 2^53).
//
// Generated from the serde types of idelink-core by `cargo run -p idelink-types`: do not edit.
";

/// Types whose every field may be left out on input (`#[serde(default)]` on the container).
const ALL_OPTIONAL: [&str; 5] = [
    "Config",
    "WsConfig",
    "RpcLimits",
    "ReadSources",
    "ContextPolicy",
];

/// The remote link's news (`pollLinkEvent`, a host's `onEvent`): core's forms codec writes it
/// (`core/src/forms/link.rs`, its byte-exact tests there) from `link::AttachEvent`, which has
/// no serde form to generate from, so it is declared here once for both packages.
const LINK_EVENTS: &str = r#"
/** The bridge said who it is: its idelink version, its loopback port and pid, the far lock's folders. */
export type LinkHelloEvent = {
  event: "linkHello";
  binaryVersion: string;
  port: number | null;
  pid: number | null;
  folders: Array<string>;
  runningInWindows: boolean;
};

/**
 * The link ended. `fault`: `eof` (the bridge exited or its stream closed), `keepaliveTimeout`,
 * `peerFault` (the bridge said why: see `message`), `shutdown` (ended in order, by this side or
 * the bridge), `version` (another link version: install the same idelink on both sides),
 * `protocol` (the peer broke the framing). `message` is for a person and holds the far side's words: render it inert.
 */
export type LinkEndedEvent = {
  event: "linkEnded";
  fault: "eof" | "keepaliveTimeout" | "peerFault" | "shutdown" | "version" | "protocol";
  message: string;
};

/** The news of an attached remote link: its hello, then its end. */
export type LinkEvent = LinkHelloEvent | LinkEndedEvent;
"#;

/// One type's ts-rs output.
struct Item {
    name: String,
    docs: Option<String>,
    decl: String,
    dependencies: Vec<String>,
}

fn item<T: TS + 'static>(cfg: &ts_rs::Config) -> Item {
    Item {
        name: T::ident(cfg),
        docs: T::docs(),
        decl: T::decl(cfg),
        dependencies: T::dependencies(cfg)
            .into_iter()
            .map(|dep| dep.ts_name)
            .collect(),
    }
}

/// The declared types under their headings, in file order.
fn sections(cfg: &ts_rs::Config) -> Vec<(&'static str, Vec<Item>)> {
    vec![
        (
            "Editor state and events (in)",
            vec![
                item::<Position>(cfg),
                item::<Range>(cfg),
                item::<Severity>(cfg),
                item::<Diagnostic>(cfg),
                item::<FileDiagnostics>(cfg),
                item::<SharingMode>(cfg),
                item::<IgnoreFile>(cfg),
                item::<ContextPolicy>(cfg),
                item::<EditorEvent>(cfg),
            ],
        ),
        (
            "Per-frame snapshots (in)",
            vec![
                item::<SnapshotDocument>(cfg),
                item::<SnapshotActive>(cfg),
                item::<EditorSnapshot>(cfg),
                item::<SnapshotChanges>(cfg),
            ],
        ),
        (
            "Tool requests (out) and outcomes (in)",
            vec![
                item::<ToolRequest>(cfg),
                item::<ToolOutcome>(cfg),
                item::<OpenTab>(cfg),
                item::<ToolName>(cfg),
            ],
        ),
        (
            "The turn ledger",
            vec![
                item::<TurnId>(cfg),
                item::<ChangedBy>(cfg),
                item::<Hunk>(cfg),
                item::<FileContent>(cfg),
                item::<FileChange>(cfg),
                item::<Turn>(cfg),
                item::<TurnChange>(cfg),
                item::<FileWrite>(cfg),
                item::<UndoTarget>(cfg),
            ],
        ),
        (
            "Engine outputs",
            vec![
                item::<ConnId>(cfg),
                item::<ToolCallId>(cfg),
                item::<ClientInfo>(cfg),
                item::<CancelReason>(cfg),
                item::<CloseReason>(cfg),
                item::<SentInstead>(cfg),
                item::<SessionInfo>(cfg),
                item::<EngineEvent>(cfg),
                item::<Output>(cfg),
            ],
        ),
        (
            "Configuration",
            vec![
                item::<PathStyle>(cfg),
                item::<SessionPolicy>(cfg),
                item::<Routing>(cfg),
                item::<SessionChoice>(cfg),
                item::<ReadSource>(cfg),
                item::<ReadSources>(cfg),
                item::<ServerInfo>(cfg),
                item::<WsConfig>(cfg),
                item::<RpcLimits>(cfg),
                item::<Config>(cfg),
            ],
        ),
        (
            "The claude CLI's choice of IDE (discovery)",
            vec![
                item::<ClaudeEnv>(cfg),
                item::<Candidate>(cfg),
                item::<ClaudeStart>(cfg),
                item::<AutoConnectReason>(cfg),
                item::<AutoConnect>(cfg),
                item::<LockChoice>(cfg),
                item::<IdeTerminal>(cfg),
                item::<Verdict>(cfg),
            ],
        ),
    ]
}

/// The complete file, or what keeps the types from making one.
pub fn generate() -> Result<String, String> {
    // Ids, timestamps and millisecond values cross as JS numbers (the bindings convert them
    // so), not as `bigint`.
    let cfg = ts_rs::Config::new().with_large_int("number");
    let sections = sections(&cfg);
    let mut parsed = Vec::new();
    let mut rewriter = DocRewriter::default();
    for (heading, items) in &sections {
        let mut declarations = Vec::new();
        for item in items {
            let declaration = Declaration::parse(&item.decl)?;
            rewriter.keys.extend(declaration.keys());
            rewriter.types.insert(item.name.clone());
            declarations.push((item, declaration));
        }
        parsed.push((heading, declarations));
    }
    let mut problems = Vec::new();
    for (_, declarations) in &parsed {
        for (item, declaration) in declarations {
            for dep in &item.dependencies {
                if !rewriter.types.contains(dep) {
                    problems.push(format!(
                        "{} refers to {dep}, which is not declared: add it to types/src/declarations.rs",
                        item.name
                    ));
                }
            }
            if ALL_OPTIONAL.contains(&item.name.as_str()) {
                for key in declaration.required_keys() {
                    problems.push(format!(
                        "{}.{key} is required in TypeScript but has a serde default: give the field \
                         #[cfg_attr(feature = \"ts\", ts(as = \"Option<_>\", optional))]",
                        item.name
                    ));
                }
            }
        }
    }
    if !problems.is_empty() {
        return Err(problems.join("\n"));
    }
    let mut out = String::from(HEADER);
    for (heading, declarations) in parsed {
        out.push_str(&format!("\n// {}\n// {heading}\n", "-".repeat(95)));
        for (item, declaration) in declarations {
            out.push('\n');
            out.push_str(&declaration.print(item.docs.as_deref(), &rewriter));
        }
    }
    out.push_str(&format!(
        "\n// {}\n// The remote link's news (core's forms codec; no serde type)\n",
        "-".repeat(95)
    ));
    out.push_str(LINK_EVENTS);
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_referenced_type_is_declared_and_inputs_are_optional() {
        let text = generate().unwrap();
        for name in [
            "Config",
            "EditorEvent",
            "ToolOutcome",
            "Output",
            "EngineEvent",
            "ToolName",
        ] {
            assert!(text.contains(&format!("export type {name} =")), "{name}");
        }
        assert!(text.contains("  port?: number;"));
        assert!(text.contains("  toolDeadlineMs?: number | null;"));
    }
}
