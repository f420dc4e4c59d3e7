//! The `Engine` class: one method per core input or output, converting and nothing else.

use crate::convert::{
    byte_count, conn_id, host_error, id_number, millis_number, timestamp, tool_call_id,
    whole_number,
};
use crate::json;
use crate::link_slot::Slot;
use idelink_core::AuthToken;
use idelink_core::ledger::{FileContent, UndoTarget};
use idelink_core::{Config, EditorEvent, EditorSnapshot, SessionChoice, ToolOutcome};
use wasm_bindgen::prelude::*;

/// One protocol endpoint (one port, one token, any number of client connections). Feed it
/// transport and editor inputs, then drain `pollOutput()` until it returns `null` and wake it
/// at `pollTimeout()`; see `idelink_core::Engine` for the run loop.
#[wasm_bindgen]
pub struct Engine {
    pub(crate) inner: idelink_core::Engine,
    /// The remote link beside the engine, if one is attached (`link.rs`; the Node module only).
    pub(crate) link: Slot,
}

#[wasm_bindgen]
impl Engine {
    /// An engine for `config` (the core `Config` JSON form: camelCase, every field optional,
    /// unknown fields refused) that admits clients presenting `authToken`. Throws on a
    /// malformed config or token.
    #[wasm_bindgen(constructor)]
    pub fn new(
        #[wasm_bindgen(unchecked_param_type = "Config")] config: JsValue,
        #[wasm_bindgen(js_name = authToken)] auth_token: &str,
    ) -> Result<Engine, JsError> {
        let config = json::read::<Config>(&config)?;
        let token = AuthToken::parse(auth_token)
            .map_err(|e| host_error(format_args!("invalid authToken: {e}")))?;
        Ok(Engine {
            inner: idelink_core::Engine::new(config, token),
            link: Default::default(),
        })
    }

    /// A transport connection was accepted; returns its id (numbers count from 1).
    #[wasm_bindgen(js_name = handleAccept)]
    pub fn handle_accept(&mut self, now: f64) -> Result<f64, JsError> {
        let conn = self.inner.handle_accept(timestamp(now)?);
        Ok(id_number(conn.as_u64()))
    }

    /// Bytes arrived on `conn`. Throws for an unknown connection.
    #[wasm_bindgen(js_name = handleBytes)]
    pub fn handle_bytes(&mut self, now: f64, conn: f64, bytes: &[u8]) -> Result<(), JsError> {
        let (now, conn) = (timestamp(now)?, conn_id(conn)?);
        self.inner
            .handle_bytes(now, conn, bytes)
            .map_err(host_error)
    }

    /// `conn`'s transport is gone (end of stream, error, or the close the engine asked for).
    /// Throws for an unknown connection.
    #[wasm_bindgen(js_name = handleClosed)]
    pub fn handle_closed(&mut self, now: f64, conn: f64) -> Result<(), JsError> {
        let (now, conn) = (timestamp(now)?, conn_id(conn)?);
        self.inner.handle_closed(now, conn).map_err(host_error)
    }

    /// Asks for `conn` to be closed (an open client gets close code 1001). Throws for an
    /// unknown connection.
    pub fn close(&mut self, now: f64, conn: f64) -> Result<(), JsError> {
        let (now, conn) = (timestamp(now)?, conn_id(conn)?);
        self.inner.close(now, conn).map_err(host_error)
    }

    /// Closes every connection (the editor is going away).
    pub fn shutdown(&mut self, now: f64) -> Result<(), JsError> {
        self.inner.shutdown(timestamp(now)?);
        Ok(())
    }

    /// An editor event in its JSON form (`{type: "selectionChanged", ...}`). Throws when the
    /// object is not a valid event.
    #[wasm_bindgen(js_name = handleEditorEvent)]
    pub fn handle_editor_event(
        &mut self,
        now: f64,
        #[wasm_bindgen(unchecked_param_type = "EditorEvent")] event: JsValue,
    ) -> Result<(), JsError> {
        let now = timestamp(now)?;
        let event = json::read::<EditorEvent>(&event)?;
        self.inner.handle_editor_event(now, &event);
        Ok(())
    }

    /// The editor's whole visible state, once per frame, in its JSON form (`{documents,
    /// active, diagnostics, workspaceFolders}`): its difference from the previous snapshot
    /// acts as the equivalent editor events (nothing when nothing changed; one push when the
    /// caret moved). Returns what changed (`workspaceFolders: true` means the lock file's
    /// folders need rewriting). Throws when the object is not a valid snapshot.
    #[wasm_bindgen(js_name = handleSnapshot, unchecked_return_type = "SnapshotChanges")]
    pub fn handle_snapshot(
        &mut self,
        now: f64,
        #[wasm_bindgen(unchecked_param_type = "EditorSnapshot")] snapshot: JsValue,
    ) -> Result<JsValue, JsError> {
        let now = timestamp(now)?;
        let snapshot = json::read::<EditorSnapshot>(&snapshot)?;
        let changes = snapshot.with_view(|view| self.inner.handle_snapshot(now, view));
        Ok(json::write(&changes))
    }

    /// The editor's answer to tool request `id` (`{outcome: "diffSaved", finalText}`, ...).
    /// Throws when the id is unknown, answered or cancelled, or the outcome does not fit.
    #[wasm_bindgen(js_name = handleToolOutcome)]
    pub fn handle_tool_outcome(
        &mut self,
        now: f64,
        id: f64,
        #[wasm_bindgen(unchecked_param_type = "ToolOutcome")] outcome: JsValue,
    ) -> Result<(), JsError> {
        let now = timestamp(now)?;
        let id = tool_call_id(id)?;
        let outcome = json::read::<ToolOutcome>(&outcome)?;
        self.inner
            .handle_tool_outcome(now, id, &outcome)
            .map_err(host_error)
    }

    /// The deadline from `pollTimeout()` came (early or repeated calls are harmless); an
    /// attached link's timers too.
    #[wasm_bindgen(js_name = handleTimeout)]
    pub fn handle_timeout(&mut self, now: f64) -> Result<(), JsError> {
        self.link.handle_timeout(&mut self.inner, timestamp(now)?);
        Ok(())
    }

    /// Every ready session, oldest first (`[{conn, pid, folders, connectedAt, chosen}]`);
    /// `sessionsChanged` events report each change when the config keeps the list.
    #[wasm_bindgen(unchecked_return_type = "SessionInfo[]")]
    pub fn sessions(&self) -> JsValue {
        json::write(&self.inner.sessions())
    }

    /// Chooses the session mentions go to (and, with `routing: "chosen"`, every push):
    /// `{by: "conn", conn}` or `{by: "pid", pid}`; `null` chooses none. Throws for a
    /// connection that is not a session, or a malformed choice.
    #[wasm_bindgen(js_name = chooseSession)]
    pub fn choose_session(
        &mut self,
        now: f64,
        #[wasm_bindgen(unchecked_param_type = "SessionChoice | null")] choice: JsValue,
    ) -> Result<(), JsError> {
        let now = timestamp(now)?;
        let choice = match choice.is_null() || choice.is_undefined() {
            true => None,
            false => Some(json::read::<SessionChoice>(&choice)?),
        };
        self.inner.choose_session(now, choice).map_err(host_error)
    }

    /// The turn ledger (`ledger: true` in the config): every turn held, oldest first
    /// (`[{id, conn, startedMs, closed, files: [{path, changedBy, baseline, current, hunks,
    /// ...}]}]`); `turnChanged` events report each change.
    #[wasm_bindgen(unchecked_return_type = "Turn[]")]
    pub fn ledger(&self) -> JsValue {
        json::write(self.inner.ledger())
    }

    /// The host's answer to a `ledgerRead` event's `read`: what the file holds now
    /// (`{kind: "text", text}`, `{kind: "missing"}`, ...). Throws for an unknown read (never
    /// asked, answered, or past `ledgerReadDeadlineMs`) or a malformed content.
    #[wasm_bindgen(js_name = handleLedgerRead)]
    pub fn handle_ledger_read(
        &mut self,
        now: f64,
        read: f64,
        #[wasm_bindgen(unchecked_param_type = "FileContent")] content: JsValue,
    ) -> Result<(), JsError> {
        let (now, read) = (timestamp(now)?, whole_number(read, "read")?);
        let content = json::read::<FileContent>(&content)?;
        self.inner
            .handle_ledger_read(now, read, &content)
            .map_err(host_error)
    }

    /// The host carried out (or refused, on a conflict) a `ledgerWrite` event's `write`:
    /// `nowHolds` is what the file holds afterwards. Throws for an unknown write.
    #[wasm_bindgen(js_name = handleLedgerWritten)]
    pub fn handle_ledger_written(
        &mut self,
        now: f64,
        write: f64,
        #[wasm_bindgen(js_name = nowHolds, unchecked_param_type = "FileContent")]
        now_holds: JsValue,
    ) -> Result<(), JsError> {
        let (now, write) = (timestamp(now)?, whole_number(write, "write")?);
        let now_holds = json::read::<FileContent>(&now_holds)?;
        self.inner
            .handle_ledger_written(now, write, &now_holds)
            .map_err(host_error)
    }

    /// The host's file watcher saw `path` change with no call announcing it (a Bash `sed`):
    /// `content` now, `previous` before. Throws for a malformed content.
    #[wasm_bindgen(js_name = handleFileSeen)]
    pub fn handle_file_seen(
        &mut self,
        now: f64,
        path: &str,
        #[wasm_bindgen(unchecked_param_type = "FileContent")] content: JsValue,
        #[wasm_bindgen(unchecked_param_type = "FileContent")] previous: JsValue,
    ) -> Result<(), JsError> {
        let now = timestamp(now)?;
        let content = json::read::<FileContent>(&content)?;
        let previous = json::read::<FileContent>(&previous)?;
        self.inner.handle_file_seen(now, path, &content, &previous);
        Ok(())
    }

    /// Undoes a hunk, a file or a turn (`{undo: "file", turn, path}`, ...): the writes come
    /// as `ledgerWrite` events. Throws with the reason when it is refused (claude changed the
    /// file since, an unknown turn) or the target is malformed.
    #[wasm_bindgen(js_name = ledgerUndo)]
    pub fn ledger_undo(
        &mut self,
        now: f64,
        #[wasm_bindgen(unchecked_param_type = "UndoTarget")] target: JsValue,
    ) -> Result<(), JsError> {
        let now = timestamp(now)?;
        let target = json::read::<UndoTarget>(&target)?;
        self.inner.ledger_undo(now, &target).map_err(host_error)
    }

    /// The next output (`{kind: "transmit", conn}`, `{kind: "closeTransport", conn}` or
    /// `{kind: "event", event: ..., ...}`), or `null` when there is nothing more. An attached
    /// link's own outputs are performed on the way, at `now`: required while a link is live.
    #[wasm_bindgen(js_name = pollOutput, unchecked_return_type = "Output | null")]
    pub fn poll_output(&mut self, now: Option<f64>) -> Result<JsValue, JsError> {
        let now = now.map(timestamp).transpose()?;
        let output = self
            .link
            .poll_output_at(&mut self.inner, now)
            .map_err(host_error)?;
        Ok(output.map_or(JsValue::NULL, |out| json::write(&out)))
    }

    /// When `handleTimeout` is next due, in the same milliseconds as `now`, if ever (the
    /// engine's deadline or an attached link's, the earlier).
    #[wasm_bindgen(js_name = pollTimeout)]
    pub fn poll_timeout(&self) -> Option<f64> {
        self.link.poll_timeout(&self.inner).map(millis_number)
    }

    /// A copy of `conn`'s unsent bytes (empty for an unknown connection). Send a prefix, then
    /// report its length with `handleSent`.
    pub fn outbound(&self, conn: f64) -> Result<Vec<u8>, JsError> {
        Ok(self.inner.outbound(conn_id(conn)?).to_vec())
    }

    /// How many unsent bytes `conn` holds, without copying them (for back-pressure).
    #[wasm_bindgen(js_name = outboundLength)]
    pub fn outbound_length(&self, conn: f64) -> Result<f64, JsError> {
        Ok(self.inner.outbound(conn_id(conn)?).len() as f64)
    }

    /// The first `n` bytes of `outbound(conn)` were sent. Throws for an unknown connection or
    /// more bytes than were buffered.
    #[wasm_bindgen(js_name = handleSent)]
    pub fn handle_sent(&mut self, conn: f64, n: f64) -> Result<(), JsError> {
        let conn = conn_id(conn)?;
        let n = byte_count(n)?;
        self.inner.handle_sent(conn, n).map_err(host_error)
    }
}
