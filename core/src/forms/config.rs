//! The `Config` form: every field optional (the defaults of [`Config::new`] with port 0),
//! unknown fields refused, in `ws`, `rpc`, `serverInfo` and `reads` too.

use super::FormError;
use super::read::{Val, set, strings, u64, usize};
use crate::Config;
use crate::engine::{Routing, SessionPolicy};
use crate::ide::{PathStyle, ReadSource, ReadSources, ToolName};
use crate::mcp::ServerInfo;
use crate::policy::{ContextPolicy, IgnoreFile, SharingMode};
use crate::rpc::RpcLimits;
use crate::ws::WsConfig;

/// A field of a settings form: its JSON name and where its value goes.
type Field<T> = (&'static str, fn(&mut T) -> Slot<'_>);

/// Where a field's value goes, by its type: one reader per type ([`Slot::set`]), so a field
/// costs the wasm module a few bytes, not a reader of its own.
enum Slot<'c> {
    U16(&'c mut u16),
    Usize(&'c mut usize),
    U64(&'c mut u64),
    OptU64(&'c mut Option<u64>),
    Bool(&'c mut bool),
    Strings(&'c mut Vec<String>),
    ServerInfo(&'c mut ServerInfo),
    PathStyle(&'c mut PathStyle),
    SessionPolicy(&'c mut SessionPolicy),
    Ws(&'c mut WsConfig),
    Rpc(&'c mut RpcLimits),
    Reads(&'c mut ReadSources),
    Routing(&'c mut Routing),
    Policy(&'c mut ContextPolicy),
    IgnoreFiles(&'c mut Vec<IgnoreFile>),
    SharingMode(&'c mut SharingMode),
}

/// The fields of [`Config`], one line each.
const CONFIG: &[Field<Config>] = &[
    ("port", |c| Slot::U16(&mut c.port)),
    ("serverInfo", |c| Slot::ServerInfo(&mut c.server_info)),
    ("workspaceFolders", |c| {
        Slot::Strings(&mut c.workspace_folders)
    }),
    ("pathStyle", |c| Slot::PathStyle(&mut c.path_style)),
    ("maxHeadBytes", |c| Slot::Usize(&mut c.max_head_bytes)),
    ("handshakeTimeoutMs", |c| {
        Slot::U64(&mut c.handshake_timeout_ms)
    }),
    ("ws", |c| Slot::Ws(&mut c.ws)),
    ("rpc", |c| Slot::Rpc(&mut c.rpc)),
    ("maxConnections", |c| Slot::Usize(&mut c.max_connections)),
    ("maxHandshakes", |c| Slot::Usize(&mut c.max_handshakes)),
    ("maxOutboundBytes", |c| {
        Slot::Usize(&mut c.max_outbound_bytes)
    }),
    ("maxClientMessageBytes", |c| {
        Slot::Usize(&mut c.max_client_message_bytes)
    }),
    ("maxPendingCalls", |c| Slot::Usize(&mut c.max_pending_calls)),
    ("maxPendingProposalBytes", |c| {
        Slot::Usize(&mut c.max_pending_proposal_bytes)
    }),
    ("maxTotalPendingProposalBytes", |c| {
        Slot::Usize(&mut c.max_total_pending_proposal_bytes)
    }),
    ("maxDocuments", |c| Slot::Usize(&mut c.max_documents)),
    ("maxDiagnostics", |c| Slot::Usize(&mut c.max_diagnostics)),
    ("maxQueuedMentions", |c| {
        Slot::Usize(&mut c.max_queued_mentions)
    }),
    ("sessionPolicy", |c| {
        Slot::SessionPolicy(&mut c.session_policy)
    }),
    ("readyDelayMs", |c| Slot::U64(&mut c.ready_delay_ms)),
    ("startupWindowMs", |c| Slot::U64(&mut c.startup_window_ms)),
    ("selectionDebounceMs", |c| {
        Slot::U64(&mut c.selection_debounce_ms)
    }),
    ("mentionTtlMs", |c| Slot::U64(&mut c.mention_ttl_ms)),
    ("reads", |c| Slot::Reads(&mut c.reads)),
    ("toolDeadlineMs", |c| Slot::OptU64(&mut c.tool_deadline_ms)),
    ("diffDeadlineMs", |c| Slot::OptU64(&mut c.diff_deadline_ms)),
    ("executeCode", |c| Slot::Bool(&mut c.execute_code)),
    ("routing", |c| Slot::Routing(&mut c.routing)),
    ("sessionList", |c| Slot::Bool(&mut c.session_list)),
    ("rootsTimeoutMs", |c| Slot::U64(&mut c.roots_timeout_ms)),
    ("policy", |c| Slot::Policy(&mut c.policy)),
    ("pathMap", |c| Slot::Strings(&mut c.path_map)),
    ("bridgePort", |c| Slot::U16(&mut c.bridge_port)),
    ("ledger", |c| Slot::Bool(&mut c.ledger)),
    ("maxLedgerBytes", |c| Slot::Usize(&mut c.max_ledger_bytes)),
    ("maxLedgerFileBytes", |c| {
        Slot::Usize(&mut c.max_ledger_file_bytes)
    }),
    ("ledgerReadDeadlineMs", |c| {
        Slot::U64(&mut c.ledger_read_deadline_ms)
    }),
];

/// The fields of [`ContextPolicy`] (also [`EditorEvent::PolicyChanged`](crate::EditorEvent)'s).
const POLICY: &[Field<ContextPolicy>] = &[
    ("deny", |c| Slot::Strings(&mut c.deny)),
    ("ignoreFiles", |c| Slot::IgnoreFiles(&mut c.ignore_files)),
    ("mode", |c| Slot::SharingMode(&mut c.mode)),
    ("paused", |c| Slot::Bool(&mut c.paused)),
];

/// The fields of [`WsConfig`].
const WS: &[Field<WsConfig>] = &[
    ("maxMessageBytes", |c| Slot::Usize(&mut c.max_message_bytes)),
    ("maxFragments", |c| Slot::Usize(&mut c.max_fragments)),
    ("keepaliveIntervalMs", |c| {
        Slot::U64(&mut c.keepalive_interval_ms)
    }),
    ("keepaliveTimeoutMs", |c| {
        Slot::U64(&mut c.keepalive_timeout_ms)
    }),
    ("closeTimeoutMs", |c| Slot::U64(&mut c.close_timeout_ms)),
    ("acceptBinary", |c| Slot::Bool(&mut c.accept_binary)),
];

/// The fields of [`RpcLimits`].
const RPC: &[Field<RpcLimits>] = &[("maxDepth", |c| Slot::Usize(&mut c.max_depth))];

impl Slot<'_> {
    /// Reads `v` into the slot.
    fn set(self, v: Val<'_>) -> Result<(), FormError> {
        match self {
            Slot::U16(slot) => set(slot, v.integer(u16::MAX.into()).map(|n| n as u16)),
            Slot::Usize(slot) => set(slot, usize(v)),
            Slot::U64(slot) => set(slot, u64(v)),
            Slot::OptU64(slot) => set(slot, v.nullable(u64)),
            Slot::Bool(slot) => set(slot, v.boolean()),
            Slot::Strings(slot) => set(slot, strings(v)),
            Slot::ServerInfo(slot) => set(slot, server_info(v)),
            Slot::PathStyle(slot) => set(slot, path_style(v)),
            Slot::SessionPolicy(slot) => set(slot, session_policy(v)),
            Slot::Ws(slot) => fill(v, WS, slot),
            Slot::Rpc(slot) => fill(v, RPC, slot),
            Slot::Reads(slot) => set(slot, reads(v)),
            Slot::Routing(slot) => set(slot, routing(v)),
            Slot::Policy(slot) => fill(v, POLICY, slot),
            Slot::IgnoreFiles(slot) => set(slot, v.list(ignore_file)),
            Slot::SharingMode(slot) => set(slot, sharing_mode(v)),
        }
    }
}

/// Sets the fields of `target` that object `v` gives, by the table `fields`; an unknown name
/// or one given twice is refused (serde's `deny_unknown_fields` and `default`).
fn fill<T>(v: Val<'_>, fields: &[Field<T>], target: &mut T) -> Result<(), FormError> {
    let names: Vec<&str> = fields.iter().map(|(name, _)| *name).collect();
    v.object()?
        .each_known(
            &names,
            &mut |name, value| match fields.iter().find(|(known, _)| *known == name) {
                Some((_, slot)) => slot(target).set(value).map(|()| true),
                None => Ok(false),
            },
        )
}

/// A `Config` in its JSON form.
pub(super) fn config(v: Val<'_>) -> Result<Config, FormError> {
    let mut config = Config::default();
    fill(v, CONFIG, &mut config)?;
    Ok(config)
}

/// A `ContextPolicy` in its JSON form: every field optional, unknown ones refused.
pub(super) fn context_policy(v: Val<'_>) -> Result<ContextPolicy, FormError> {
    let mut policy = ContextPolicy::default();
    fill(v, POLICY, &mut policy)?;
    Ok(policy)
}

/// `{dir, text}`, both required, nothing else.
fn ignore_file(v: Val<'_>) -> Result<IgnoreFile, FormError> {
    let (dir, text) = two_strings(v, ["dir", "text"])?;
    Ok(IgnoreFile { dir, text })
}

/// An object of exactly the two string members `names`, both required.
fn two_strings(v: Val<'_>, names: [&str; 2]) -> Result<(String, String), FormError> {
    let o = v.object()?;
    o.each_known(&names, &mut |name, _| Ok(names.contains(&name)))?;
    Ok((o.string(names[0])?, o.string(names[1])?))
}

fn sharing_mode(v: Val<'_>) -> Result<SharingMode, FormError> {
    const MODES: [SharingMode; 3] = [
        SharingMode::Everything,
        SharingMode::SelectionOnly,
        SharingMode::MentionsOnly,
    ];
    Ok(MODES[v.one_of(&["everything", "selectionOnly", "mentionsOnly"])?])
}

/// `{name, version}`, both required, nothing else.
fn server_info(v: Val<'_>) -> Result<ServerInfo, FormError> {
    let (name, version) = two_strings(v, ["name", "version"])?;
    Ok(ServerInfo { name, version })
}

pub(super) fn path_style(v: Val<'_>) -> Result<PathStyle, FormError> {
    const STYLES: [PathStyle; 2] = [PathStyle::Posix, PathStyle::Windows];
    Ok(STYLES[v.one_of(&["posix", "windows"])?])
}

fn session_policy(v: Val<'_>) -> Result<SessionPolicy, FormError> {
    const POLICIES: [SessionPolicy; 2] = [SessionPolicy::Multi, SessionPolicy::Single];
    Ok(POLICIES[v.one_of(&["multi", "single"])?])
}

fn routing(v: Val<'_>) -> Result<Routing, FormError> {
    const RULES: [Routing; 3] = [Routing::Broadcast, Routing::Roots, Routing::Chosen];
    Ok(RULES[v.one_of(&["broadcast", "roots", "chosen"])?])
}

/// `{"getDiagnostics": "editor", ...}`: a source per read tool (the catalog says which),
/// every one optional, any other name refused.
fn reads(v: Val<'_>) -> Result<ReadSources, FormError> {
    let reads: Vec<ToolName> = ToolName::ALL.into_iter().filter(|t| t.is_read()).collect();
    let names: Vec<&str> = reads.iter().map(|tool| tool.as_str()).collect();
    let mut sources = ReadSources::default();
    v.object()?.each_known(&names, &mut |name, value| {
        let Some(tool) = reads.iter().find(|tool| tool.as_str() == name) else {
            return Ok(false);
        };
        const SOURCES: [ReadSource; 2] = [ReadSource::State, ReadSource::Editor];
        sources.set(*tool, SOURCES[value.one_of(&["state", "editor"])?]);
        Ok(true)
    })?;
    Ok(sources)
}
