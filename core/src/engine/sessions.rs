//! Session identity and routing: what the engine knows of each client (its pid from
//! `ide_connected`, its folders from `roots/list`) and the rule that picks which ready
//! clients a push goes to. The rules are here; the push path asks them in one place
//! (`machine/route.rs`).

use serde::{Deserialize, Serialize};

use super::output::ConnId;
use super::writer::Writer;
use crate::ide::{self, PathStyle};
use crate::json;
use crate::time::Timestamp;

/// The most folders kept of one client's `roots/list` answer; the rest are ignored. The CLI
/// answers its project folder and its `--add-dir` folders: a handful.
pub const MAX_SESSION_ROOTS: usize = 64;

/// Which ready clients receive `selection_changed` and `at_mentioned`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
pub enum Routing {
    /// Every ready client (the behaviour before routing existed).
    #[default]
    Broadcast,
    /// The clients one of whose folders holds the file; a client whose folders are not known
    /// (it did not answer `roots/list`) counts the engine's workspace folders as its own, and
    /// with none configured holds every file. A push naming no file (the active document
    /// closed) goes to every ready client.
    Roots,
    /// The chosen session ([`Engine::choose_session`](crate::Engine::choose_session)) alone;
    /// while none is chosen, every ready client.
    Chosen,
}

/// The session a host picks ([`Engine::choose_session`](crate::Engine::choose_session)): a
/// connection, or the CLI process whose `ide_connected` named this pid (a session that has
/// not connected yet is chosen when it does: `idelink claude` binds the child it starts).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase", rename_all_fields = "camelCase", tag = "by")]
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
pub enum SessionChoice {
    /// This connection.
    Conn {
        /// The connection.
        conn: ConnId,
    },
    /// The client whose `ide_connected` carried this pid (the newest, if several).
    Pid {
        /// The CLI's process id.
        pid: u32,
    },
}

/// One client session, as [`Engine::sessions`](crate::Engine::sessions) lists it.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[serde(rename_all = "camelCase")]
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
pub struct SessionInfo {
    /// The connection.
    pub conn: ConnId,
    /// The CLI's process id from `ide_connected`, once it came.
    #[cfg_attr(feature = "ts", ts(optional = nullable))]
    pub pid: Option<u32>,
    /// Its folders (normalized paths) from `roots/list`; `null` until it answered (or when it
    /// does not declare the capability, or the engine does not ask).
    #[cfg_attr(feature = "ts", ts(optional = nullable))]
    pub folders: Option<Vec<String>>,
    /// When the upgrade completed, in the host's milliseconds.
    #[cfg_attr(feature = "ts", ts(type = "number"))]
    pub connected_at: u64,
    /// True for the session pushes are routed to by the choice.
    pub chosen: bool,
}

/// What the engine learned of one client's folders, and its `roots/list` in flight.
#[derive(Debug, Default)]
pub(crate) struct SessionRoots {
    /// The client declared the `roots` capability in `initialize`.
    declared: bool,
    /// The folders of its last good answer.
    folders: Option<Vec<String>>,
    /// Our `roots/list` in flight: its id and deadline.
    asked: Option<(u64, Timestamp)>,
    /// `list_changed` came while a request was in flight: ask again after its answer.
    again: bool,
    /// The last id used; ours count from 1 per connection (the client's ids are its own).
    last_id: u64,
}

impl SessionRoots {
    /// `initialize` said whether the client answers `roots/list`.
    pub(crate) fn declare(&mut self, declared: bool) {
        self.declared = declared;
    }

    /// The folders of the last good answer.
    pub(crate) fn folders(&self) -> Option<&[String]> {
        self.folders.as_deref()
    }

    /// Writes a `roots/list` request to `writer` unless one is in flight (then the answer is
    /// followed by another) or the client did not declare the capability.
    pub(crate) fn ask(&mut self, now: Timestamp, timeout_ms: u64, writer: &mut Writer) {
        if !self.declared {
            return;
        }
        if self.asked.is_some() {
            self.again = true;
            return;
        }
        self.last_id += 1;
        writer.roots_list_request(self.last_id);
        self.asked = Some((self.last_id, now.add_millis(timeout_ms)));
    }

    /// The client's reply with raw id `id`: true when it answered our request with a good
    /// list that changed the folders. A reply to no request of ours, an error, or an answer
    /// that is not a list of roots changes nothing; any reply to ours ends it.
    pub(crate) fn answered(
        &mut self,
        now: Timestamp,
        timeout_ms: u64,
        id: &str,
        outcome: Result<&str, &str>,
        style: PathStyle,
        writer: &mut Writer,
    ) -> bool {
        let Some((asked, _)) = self.asked else {
            return false;
        };
        if !id.bytes().all(|b| b.is_ascii_digit()) || id.parse() != Ok(asked) {
            return false;
        }
        self.asked = None;
        let folders = outcome.ok().and_then(|result| roots_of(result, style));
        let changed = folders.is_some() && folders != self.folders;
        if changed {
            self.folders = folders;
        }
        if std::mem::take(&mut self.again) {
            self.ask(now, timeout_ms, writer);
        }
        changed
    }

    /// Gives up on a request whose deadline passed at `now`: the folders stay as they were;
    /// a later `list_changed` asks again.
    pub(crate) fn timeout(&mut self, now: Timestamp) {
        if self.asked.is_some_and(|(_, deadline)| deadline <= now) {
            self.asked = None;
            self.again = false;
        }
    }

    /// The deadline of the request in flight.
    pub(crate) fn deadline(&self) -> Option<Timestamp> {
        self.asked.map(|(_, deadline)| deadline)
    }
}

/// The folders of a `roots/list` result (MCP: `{"roots": [{"uri": "file:///…", "name"?}]}`),
/// as normalized paths, in order, without repeats, at most [`MAX_SESSION_ROOTS`]; a root
/// whose `uri` is not a local `file://` URI is skipped (MCP: roots MUST be `file://` URIs).
/// `None` when the result is not an object with a `roots` array.
pub(crate) fn roots_of(result: &str, style: PathStyle) -> Option<Vec<String>> {
    let roots = json::members(result)
        .filter(|m| m.name.text().is_ok_and(|name| name == "roots"))
        .last()?
        .value;
    if !result.starts_with('{') || !roots.starts_with('[') {
        return None;
    }
    let mut folders: Vec<String> = Vec::new();
    for root in json::elements(roots) {
        let Some(uri) = json::members(root)
            .filter(|m| m.name.text().is_ok_and(|name| name == "uri"))
            .last()
            .filter(|m| m.value.starts_with('"'))
            .and_then(|m| json::decode(m.value).ok())
        else {
            continue;
        };
        let Some(path) = ide::path_from_uri(&uri, style) else {
            continue;
        };
        let path = ide::normalize_path(&path, style);
        let path = trim_separator(&path);
        if !folders.iter().any(|known| known == path) && folders.len() < MAX_SESSION_ROOTS {
            folders.push(path.to_owned());
        }
    }
    Some(folders)
}

/// `path` without a trailing `/` (a root keeps its own: `/`, `C:/`).
fn trim_separator(path: &str) -> &str {
    match path.strip_suffix('/') {
        Some(rest) if !rest.is_empty() && !rest.ends_with(':') => rest,
        _ => path,
    }
}

/// True when `folder` holds `path` (both normalized): the folder itself or below it, whole
/// components only (`/a` holds `/a/b`, not `/ab`).
pub(crate) fn holds(folder: &str, path: &str) -> bool {
    let folder = trim_separator(folder);
    match path.strip_prefix(folder) {
        Some(rest) => rest.is_empty() || rest.starts_with('/') || folder.ends_with('/'),
        None => false,
    }
}

/// True when the push of `file` (`None`: a push naming no file) goes to the ready client
/// `conn` with `folders` under `routing`, with `chosen` the chosen session as the engine sees
/// it (`None`: none chosen) and `workspace` the engine's folders. A mention (`mention`) goes
/// to the chosen session alone whenever one is chosen, under every rule. Never inlined: the
/// push path asks it from three places, and one copy is enough (the wasm module's size).
#[inline(never)]
pub(crate) fn routes(
    routing: Routing,
    chosen: Option<Chosen>,
    file: Option<&str>,
    mention: bool,
    workspace: &[String],
    conn: ConnId,
    folders: Option<&[String]>,
) -> bool {
    if chosen.is_some() && (mention || routing == Routing::Chosen) {
        return chosen == Some(Chosen::Conn(conn));
    }
    match (routing, file) {
        (Routing::Roots, Some(file)) => {
            let folders = folders.unwrap_or(workspace);
            folders.is_empty() || folders.iter().any(|folder| holds(folder, file))
        }
        _ => true,
    }
}

/// The chosen session as the routing sees it: a connection, or a pid no connection carries
/// yet (then no one is chosen-and-ready: the push waits or goes nowhere).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Chosen {
    /// This connection is the chosen session.
    Conn(ConnId),
    /// The chosen pid has no connection yet.
    Absent,
}

#[cfg(test)]
mod tests;
