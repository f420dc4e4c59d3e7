//! The `Config` form: every field optional (the defaults of [`Config::new`] with port 0),
//! unknown fields refused, in `ws`, `rpc`, `serverInfo` and `reads` too.

use super::FormError;
use super::read::{Field, Val, set};
use crate::Config;
use crate::engine::SessionPolicy;
use crate::ide::{PathStyle, ReadSource, ReadSources, ToolName};
use crate::mcp::ServerInfo;
use crate::rpc::RpcLimits;
use crate::ws::WsConfig;

/// The fields of [`Config`], one line each.
const CONFIG: &[Field<Config>] = &[
    ("port", |c, v| {
        set(&mut c.port, v.integer(u16::MAX.into()).map(|n| n as u16))
    }),
    ("serverInfo", |c, v| set(&mut c.server_info, server_info(v))),
    ("workspaceFolders", |c, v| {
        set(&mut c.workspace_folders, v.strings())
    }),
    ("pathStyle", |c, v| set(&mut c.path_style, path_style(v))),
    ("maxHeadBytes", |c, v| set(&mut c.max_head_bytes, v.usize())),
    ("handshakeTimeoutMs", |c, v| {
        set(&mut c.handshake_timeout_ms, v.u64())
    }),
    ("ws", |c, v| set(&mut c.ws, ws(v))),
    ("rpc", |c, v| set(&mut c.rpc, rpc(v))),
    ("maxConnections", |c, v| {
        set(&mut c.max_connections, v.usize())
    }),
    ("maxHandshakes", |c, v| {
        set(&mut c.max_handshakes, v.usize())
    }),
    ("maxOutboundBytes", |c, v| {
        set(&mut c.max_outbound_bytes, v.usize())
    }),
    ("maxPendingCalls", |c, v| {
        set(&mut c.max_pending_calls, v.usize())
    }),
    ("maxPendingProposalBytes", |c, v| {
        set(&mut c.max_pending_proposal_bytes, v.usize())
    }),
    ("maxTotalPendingProposalBytes", |c, v| {
        set(&mut c.max_total_pending_proposal_bytes, v.usize())
    }),
    ("maxDocuments", |c, v| set(&mut c.max_documents, v.usize())),
    ("maxDiagnostics", |c, v| {
        set(&mut c.max_diagnostics, v.usize())
    }),
    ("maxQueuedMentions", |c, v| {
        set(&mut c.max_queued_mentions, v.usize())
    }),
    ("sessionPolicy", |c, v| {
        set(&mut c.session_policy, session_policy(v))
    }),
    ("readyDelayMs", |c, v| set(&mut c.ready_delay_ms, v.u64())),
    ("selectionDebounceMs", |c, v| {
        set(&mut c.selection_debounce_ms, v.u64())
    }),
    ("mentionTtlMs", |c, v| set(&mut c.mention_ttl_ms, v.u64())),
    ("reads", |c, v| set(&mut c.reads, reads(v))),
    ("toolDeadlineMs", |c, v| {
        set(&mut c.tool_deadline_ms, v.nullable(|v| v.u64()))
    }),
    ("diffDeadlineMs", |c, v| {
        set(&mut c.diff_deadline_ms, v.nullable(|v| v.u64()))
    }),
    ("executeCode", |c, v| set(&mut c.execute_code, v.boolean())),
];

/// The fields of [`WsConfig`].
const WS: &[Field<WsConfig>] = &[
    ("maxMessageBytes", |c, v| {
        set(&mut c.max_message_bytes, v.usize())
    }),
    ("maxFragments", |c, v| set(&mut c.max_fragments, v.usize())),
    ("keepaliveIntervalMs", |c, v| {
        set(&mut c.keepalive_interval_ms, v.u64())
    }),
    ("keepaliveTimeoutMs", |c, v| {
        set(&mut c.keepalive_timeout_ms, v.u64())
    }),
    ("closeTimeoutMs", |c, v| {
        set(&mut c.close_timeout_ms, v.u64())
    }),
    ("acceptBinary", |c, v| {
        set(&mut c.accept_binary, v.boolean())
    }),
];

/// The fields of [`RpcLimits`].
const RPC: &[Field<RpcLimits>] = &[("maxDepth", |c, v| set(&mut c.max_depth, v.usize()))];

/// A `Config` in its JSON form.
pub(super) fn config(v: Val<'_>) -> Result<Config, FormError> {
    let mut config = Config::default();
    v.object()?.fill(CONFIG, &mut config)?;
    Ok(config)
}

fn ws(v: Val<'_>) -> Result<WsConfig, FormError> {
    let mut ws = WsConfig::default();
    v.object()?.fill(WS, &mut ws)?;
    Ok(ws)
}

fn rpc(v: Val<'_>) -> Result<RpcLimits, FormError> {
    let mut rpc = RpcLimits::default();
    v.object()?.fill(RPC, &mut rpc)?;
    Ok(rpc)
}

/// `{name, version}`, both required, nothing else.
fn server_info(v: Val<'_>) -> Result<ServerInfo, FormError> {
    let o = v.object()?;
    o.each_known(&["name", "version"], |name, _| {
        Ok(matches!(name, "name" | "version"))
    })?;
    Ok(ServerInfo {
        name: o.req("name", |v| v.string())?,
        version: o.req("version", |v| v.string())?,
    })
}

fn path_style(v: Val<'_>) -> Result<PathStyle, FormError> {
    const STYLES: [PathStyle; 2] = [PathStyle::Posix, PathStyle::Windows];
    Ok(STYLES[v.one_of(&["posix", "windows"])?])
}

fn session_policy(v: Val<'_>) -> Result<SessionPolicy, FormError> {
    const POLICIES: [SessionPolicy; 2] = [SessionPolicy::Multi, SessionPolicy::Single];
    Ok(POLICIES[v.one_of(&["multi", "single"])?])
}

/// `{"getDiagnostics": "editor", ...}`: a source per read tool (the catalog says which),
/// every one optional, any other name refused.
fn reads(v: Val<'_>) -> Result<ReadSources, FormError> {
    let reads: Vec<ToolName> = ToolName::ALL.into_iter().filter(|t| t.is_read()).collect();
    let names: Vec<&str> = reads.iter().map(|tool| tool.as_str()).collect();
    let mut sources = ReadSources::default();
    v.object()?.each_known(&names, |name, value| {
        let Some(tool) = reads.iter().find(|tool| tool.as_str() == name) else {
            return Ok(false);
        };
        const SOURCES: [ReadSource; 2] = [ReadSource::State, ReadSource::Editor];
        sources.set(*tool, SOURCES[value.one_of(&["state", "editor"])?]);
        Ok(true)
    })?;
    Ok(sources)
}
