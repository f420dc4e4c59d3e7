//! The session list, the choice, and where the push path asks the routing rule
//! ([`sessions::recipients`]) which ready clients a push goes to.

use crate::engine::connection::Connection;
use crate::engine::error::EngineError;
use crate::engine::output::{ConnId, EngineEvent};
use crate::engine::sessions::{self, Chosen, Routing, SessionChoice, SessionInfo};
use crate::time::Timestamp;

use super::Engine;

impl Engine {
    /// Every ready session (one that receives pushes), oldest first: its connection, pid,
    /// folders, when it connected, and whether it is the chosen one.
    pub fn sessions(&self) -> Vec<SessionInfo> {
        let chosen = self.chosen();
        self.conns
            .iter()
            .filter_map(|(conn, c)| {
                let client = c.client().filter(|client| client.is_ready())?;
                Some(SessionInfo {
                    conn,
                    pid: client.pid(),
                    folders: client.roots().folders().map(<[String]>::to_vec),
                    connected_at: client.connected_at().as_millis(),
                    chosen: chosen == Some(Chosen::Conn(conn)),
                })
            })
            .collect()
    }

    /// The session the host chose, as it chose it ([`choose_session`](Self::choose_session)).
    pub fn session_choice(&self) -> Option<SessionChoice> {
        self.choice
    }

    /// Chooses the session that mentions go to (under every rule) and, under
    /// [`Routing::Chosen`](crate::engine::Routing::Chosen), every push; `None` chooses none
    /// (back to the rule alone). A connection must be a live session (else
    /// `UnknownConnection`, and nothing changes); when it leaves, the choice is cleared. A
    /// pid is kept until changed: the CLI that carries it is the chosen session whenever it is
    /// connected, so the choice can come before the client does. Mentions queued for want of
    /// a recipient are routed again by the new choice (and stay queued, with their expiry,
    /// when it picks no one). Reports `SessionsChanged`.
    pub fn choose_session(
        &mut self,
        now: Timestamp,
        choice: Option<SessionChoice>,
    ) -> Result<(), EngineError> {
        self.advance(now);
        if let Some(SessionChoice::Conn { conn }) = choice
            && !self.conns.get(conn).is_some_and(Connection::is_session)
        {
            return Err(EngineError::UnknownConnection(conn));
        }
        self.choice = choice;
        self.report_sessions();
        for (expires, mention) in self.pushes.take_queued() {
            self.push_mention(expires, mention);
        }
        Ok(())
    }

    /// The chosen session among the ready ones: its connection, `Absent` when the choice
    /// names no ready client, `None` when nothing is chosen.
    pub(super) fn chosen(&self) -> Option<Chosen> {
        let ready = |conn: ConnId| self.conns.get(conn).is_some_and(Connection::is_ready);
        Some(match self.choice? {
            SessionChoice::Conn { conn } if ready(conn) => Chosen::Conn(conn),
            SessionChoice::Pid { pid } => self
                .conns
                .iter()
                .rev()
                .find(|(_, c)| c.is_ready() && c.client().and_then(|c| c.pid()) == Some(pid))
                .map_or(Chosen::Absent, |(conn, _)| Chosen::Conn(conn)),
            SessionChoice::Conn { .. } => Chosen::Absent,
        })
    }

    /// The ready clients the push of `file` (`None`: a push naming no file) goes to, by the
    /// configured rule and the choice; `mention` for `at_mentioned`: the one place the push
    /// path asks the routing rule. The list is the table's reused one: hand it to `send_to`.
    pub(super) fn recipients(&mut self, file: Option<&str>, mention: bool) -> Vec<ConnId> {
        let chosen = self.chosen();
        let routing = self.config.routing;
        let workspace = &self.config.workspace_folders;
        self.conns.take_ids(|conn, c| {
            let folders = c.client().and_then(|client| client.roots().folders());
            c.is_ready()
                && sessions::routes(routing, chosen, file, mention, workspace, conn, folders)
        })
    }

    /// True when the current selection (of the active file) goes to the ready client `conn`
    /// by the rule and the choice.
    pub(super) fn selection_routes_to(&self, conn: ConnId) -> bool {
        if self.config.routing == Routing::Broadcast {
            return true;
        }
        let Some(c) = self.conns.get(conn) else {
            return false;
        };
        let folders = c.client().and_then(|client| client.roots().folders());
        let file = self.service.state().active_path();
        let (routing, workspace) = (self.config.routing, &self.config.workspace_folders);
        sessions::routes(
            routing,
            self.chosen(),
            file,
            false,
            workspace,
            conn,
            folders,
        )
    }

    /// A ready session left: a choice of its connection is cleared; the list is reported.
    pub(super) fn session_left(&mut self, conn: ConnId) {
        let was_chosen = self.choice == Some(SessionChoice::Conn { conn });
        if was_chosen {
            self.choice = None;
        }
        if was_chosen || self.config.keeps_session_list() {
            self.report_sessions();
        }
    }

    /// Reports the session list as it is now, when the engine keeps it.
    pub(super) fn session_list_changed(&mut self) {
        if self.config.keeps_session_list() {
            self.report_sessions();
        }
    }

    /// Reports the session list as it is now.
    fn report_sessions(&mut self) {
        let sessions = self.sessions();
        self.conns.event(EngineEvent::SessionsChanged { sessions });
    }
}
