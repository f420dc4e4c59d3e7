//! The host: a loopback listener and its sockets, pumped into one [`Engine`].

use crate::sockets::SocketTable;
use idelink_core::host_rules::lock_life;
use idelink_core::{
    AuthToken, EditorEvent, Engine, EngineError, EngineEvent, Output, Timestamp, ToolCallId,
    ToolOutcome,
};
use idelink_core::{SessionChoice, SessionInfo, Snapshot, SnapshotChanges};
use idelink_host::lock::LockFileGuard;
use idelink_host::setup::ResumeOutcome;
use idelink_host::{HostConfig, HostError, setup};
use mio::net::TcpListener;
use mio::{Events, Poll, Token, Waker};
use std::io;
use std::path::Path;
use std::sync::Arc;
use std::time::{Duration, Instant};

const LISTENER: Token = Token(0);
const WAKER: Token = Token(usize::MAX);

mod link;
mod pump;

pub use link::OnLinkEvent;

/// A loopback server for the Claude Code IDE protocol, driven from the editor's own loop.
///
/// Its methods, in the order a loop uses them (as quinn-proto's `Connection` sorts its own):
/// - **start**: [`start`](Self::start) binds, mints the token and writes the lock file;
/// - **getters**: [`port`](Self::port), [`auth_token`](Self::auth_token),
///   [`lock_path`](Self::lock_path), [`engine`](Self::engine), [`waker`](Self::waker);
/// - **inputs from the editor**, applied at once, their effects sent on the next
///   [`poll`](Self::poll): [`handle_editor_event`](Self::handle_editor_event) (selection,
///   documents, diagnostics, folders, mentions), [`handle_snapshot`](Self::handle_snapshot) (the
///   whole visible state, once per frame), [`handle_tool_outcome`](Self::handle_tool_outcome)
///   (the editor's answer to an [`EngineEvent::ToolCall`]);
/// - **commands**: [`shutdown`](Self::shutdown);
/// - **poll**: [`poll`](Self::poll) waits for sockets and timers, serves them and hands over
///   the engine's events. Call it in a loop, and handle every event it returned before the next
///   call (a tool call is answered with `handle_tool_outcome`, now or later).
///
/// ```no_run
/// use idelink_mio::{Host, HostConfig};
/// use std::time::Duration;
///
/// let mut host = Host::start(HostConfig::new("My Editor", vec!["/home/me/project".into()]))?;
/// println!("listening on 127.0.0.1:{}", host.port());
/// let mut events = Vec::new();
/// loop {
///     host.poll(Some(Duration::from_millis(16)), &mut events)?; // once per frame
///     for event in events.drain(..) {
///         // idelink_core::EngineEvent::ToolCall { id, request, .. } => show it, later
///         // host.handle_tool_outcome(id, &outcome)
///         let _ = event;
///     }
/// }
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
pub struct Host {
    engine: Engine,
    poll: Poll,
    events: Events,
    listener: TcpListener,
    port: u16,
    sockets: SocketTable,
    waker: Arc<Waker>,
    lock: Option<LockFileGuard>,
    lock_checked: Timestamp,
    origin: Instant,
    read_buf: Box<[u8]>,
    token: AuthToken,
    resume: ResumeOutcome,
    /// Engine events produced since the last `poll` handed them over.
    parked: Vec<EngineEvent>,
    /// A remote link ([`attach_link`](Self::attach_link)).
    link: Option<link::Attached>,
}

impl Host {
    /// Binds 127.0.0.1, mints the token from OS entropy (or, with `HostConfig::resume`, takes
    /// back the last session's port and token: [`resume`](Self::resume) says which) and writes
    /// the lock file.
    pub fn start(config: HostConfig) -> Result<Host, HostError> {
        let setup::Listening {
            listener,
            token,
            resume,
        } = setup::listen(&config)?;
        let mut listener = TcpListener::from_std(listener);
        let port = listener.local_addr().map_err(HostError::Io)?.port();
        let poll = Poll::new().map_err(HostError::Io)?;
        poll.registry()
            .register(&mut listener, LISTENER, mio::Interest::READABLE)
            .map_err(HostError::Io)?;
        let waker = Arc::new(Waker::new(poll.registry(), WAKER).map_err(HostError::Io)?);
        let (engine_config, lock) = setup::engine_and_lock(&config, port, &token)?;
        Ok(Host {
            engine: Engine::new(engine_config, token.clone()),
            poll,
            events: Events::with_capacity(256),
            listener,
            port,
            sockets: SocketTable::new(config.pump),
            waker,
            lock,
            lock_checked: Timestamp::ZERO,
            origin: Instant::now(),
            read_buf: vec![0; config.pump.read_chunk_bytes.max(1)].into_boxed_slice(),
            token,
            resume,
            parked: Vec::new(),
            link: None,
        })
    }

    /// The port the CLI connects to.
    pub fn port(&self) -> u16 {
        self.port
    }

    /// The auth token in the lock file (for a test client, or to hand to a relay).
    pub fn auth_token(&self) -> &AuthToken {
        &self.token
    }

    /// The lock file, unless the host was configured without one.
    pub fn lock_path(&self) -> Option<&Path> {
        self.lock.as_ref().map(LockFileGuard::path)
    }

    /// Whether this host resumed the last session's port and token (`HostConfig::resume`), or
    /// started fresh and why; [`ResumeOutcome::Off`] when resume is off.
    pub fn resume(&self) -> &ResumeOutcome {
        &self.resume
    }

    /// The engine, for reading its editor state and configuration.
    pub fn engine(&self) -> &Engine {
        &self.engine
    }

    /// A handle that makes a blocked [`poll`](Self::poll) return, from any thread.
    pub fn waker(&self) -> Arc<Waker> {
        Arc::clone(&self.waker)
    }

    /// An editor event (selection, documents, diagnostics, a mention). A change of workspace
    /// folders also rewrites the lock file (core decides when: [`lock_life::rewritten_for`]).
    /// Bytes it leads to are written at once; events come with the next `poll`.
    pub fn handle_editor_event(&mut self, event: &EditorEvent) -> Result<(), HostError> {
        if let Some(lock) = self.lock.as_mut()
            && let Some(contents) = lock_life::rewritten_for(lock.lock(), event)
        {
            lock.rewrite(contents)?;
        }
        self.call(|engine, now| engine.handle_editor_event(now, event));
        Ok(())
    }

    /// The editor's whole visible state, once per frame (the engine's
    /// [`Engine::handle_snapshot`]): its difference from the previous snapshot acts as the
    /// equivalent editor events, and other workspace folders rewrite the lock file (core decides
    /// when: [`lock_life::rewritten_for_snapshot`]). An unchanged snapshot costs no allocation
    /// and writes nothing.
    pub fn handle_snapshot(
        &mut self,
        snapshot: &Snapshot<'_>,
    ) -> Result<SnapshotChanges, HostError> {
        if let Some(lock) = self.lock.as_mut()
            && let Some(contents) = lock_life::rewritten_for_snapshot(lock.lock(), snapshot)
        {
            lock.rewrite(contents)?;
        }
        Ok(self.call(|engine, now| engine.handle_snapshot(now, snapshot)))
    }

    /// The editor's outcome of a tool request from an [`EngineEvent::ToolCall`] (the engine's
    /// [`Engine::handle_tool_outcome`]); the reply is written at once.
    pub fn handle_tool_outcome(
        &mut self,
        id: ToolCallId,
        outcome: &ToolOutcome,
    ) -> Result<(), EngineError> {
        self.call(|engine, now| engine.handle_tool_outcome(now, id, outcome))
    }

    /// Every ready session, oldest first (the engine's [`Engine::sessions`]): its connection,
    /// the CLI's pid, its folders from `roots/list`, when it connected, whether it is chosen.
    pub fn sessions(&self) -> Vec<SessionInfo> {
        self.engine.sessions()
    }

    /// Chooses the session mentions go to, and under `Routing::Chosen` every push (the
    /// engine's [`Engine::choose_session`]); `None` chooses none. Bytes it leads to (mentions
    /// that waited for it) are written at once.
    pub fn choose_session(&mut self, choice: Option<SessionChoice>) -> Result<(), EngineError> {
        self.call(|engine, now| engine.choose_session(now, choice))
    }

    /// The host's answer to an [`EngineEvent::LedgerRead`] (the engine's
    /// [`Engine::handle_ledger_read`]); a held pre-edit answer is written at once.
    pub fn handle_ledger_read(
        &mut self,
        read: u64,
        content: &idelink_core::ledger::FileContent,
    ) -> Result<(), EngineError> {
        self.call(|engine, now| engine.handle_ledger_read(now, read, content))
    }

    /// An undo of the turn ledger ([`Engine::ledger_undo`]): its writes come as
    /// [`EngineEvent::LedgerWrite`]s with the next `poll`.
    pub fn ledger_undo(
        &mut self,
        target: &idelink_core::ledger::UndoTarget,
    ) -> Result<(), idelink_core::ledger::UndoRefused> {
        self.call(|engine, now| engine.ledger_undo(now, target))
    }

    /// The host carried out an [`EngineEvent::LedgerWrite`] ([`Engine::handle_ledger_written`]).
    pub fn handle_ledger_written(
        &mut self,
        write: u64,
        now_holds: &idelink_core::ledger::FileContent,
    ) -> Result<(), EngineError> {
        self.call(|engine, now| engine.handle_ledger_written(now, write, now_holds))
    }

    /// A file watcher saw `path` change ([`Engine::handle_file_seen`]).
    pub fn handle_file_seen(
        &mut self,
        path: &str,
        content: &idelink_core::ledger::FileContent,
        previous: &idelink_core::ledger::FileContent,
    ) {
        self.call(|engine, now| engine.handle_file_seen(now, path, content, previous));
    }

    /// Closes every client (close code 1001) and gives them up to `grace` to finish, then
    /// removes the lock file. The host serves nothing afterwards.
    pub fn shutdown(&mut self, grace: Duration, events: &mut Vec<EngineEvent>) {
        self.call(Engine::shutdown);
        events.append(&mut self.parked);
        let until = Instant::now() + grace;
        while (!self.sockets.is_empty() || self.link_busy()) && Instant::now() < until {
            let left = until.saturating_duration_since(Instant::now());
            if self.poll(Some(left), events).is_err() {
                break;
            }
        }
        self.shutdown_link();
        events.append(&mut self.parked);
        self.lock = None;
    }

    /// Waits at most `timeout` (`None`: until something happens) for socket activity or the
    /// next deadline (the engine's, a closing socket's linger), serves it, and appends the
    /// engine's events to `events`. Call it in a loop: once per frame with a zero or small
    /// timeout, or from a dedicated thread. An `Err` is the poller's own failure (the host
    /// cannot go on); peers' faults never surface here.
    #[must_use = "an Err means the poller failed and the host serves nothing more"]
    pub fn poll(
        &mut self,
        timeout: Option<Duration>,
        events: &mut Vec<EngineEvent>,
    ) -> io::Result<()> {
        let now = self.now().as_millis();
        // The lock check is a deadline too, so a caller may poll with no timeout: an idle host
        // with no session then wakes for the lock check alone.
        let lock_check = self.lock.as_ref().map(|_| {
            self.lock_checked
                .add_millis(self.sockets.policy().lock_check_interval_ms)
        });
        let deadline = [
            self.engine.poll_timeout(),
            self.sockets.next_deadline(),
            self.link_deadline(),
            lock_check,
        ]
        .into_iter()
        .flatten()
        .min()
        .map(|at| Duration::from_millis(at.as_millis().saturating_sub(now)));
        let wait = [timeout, deadline].into_iter().flatten().min();
        match self.poll.poll(&mut self.events, wait) {
            Ok(()) => {}
            Err(e) if e.kind() == io::ErrorKind::Interrupted => {}
            Err(e) => return Err(e),
        }
        let mut ready = Vec::with_capacity(self.events.iter().count());
        for event in self.events.iter() {
            match event.token() {
                LISTENER | WAKER | link::LINK_IN | link::LINK_OUT => {
                    ready.push((event.token(), true, false));
                }
                token => {
                    let r = self.sockets.handle_event(event);
                    ready.push((token, r.readable, r.writable));
                }
            }
        }
        for (token, readable, writable) in ready {
            match token {
                LISTENER => self.accept(),
                // The link's reader thread wakes the poll on Windows; on Unix this finds nothing.
                WAKER | link::LINK_IN => self.read_link(),
                link::LINK_OUT => self.write_link(),
                Token(n) => {
                    let conn = idelink_core::ConnId::from_u64(n as u64);
                    if writable {
                        self.flush(conn);
                    }
                    if readable {
                        self.read(conn);
                    }
                }
            }
        }
        let now = self.now();
        if self.engine.poll_timeout().is_some_and(|at| at <= now) {
            self.engine.handle_timeout(now);
        }
        self.link_timeout();
        self.reap_lingering();
        self.check_lock();
        self.drain();
        events.append(&mut self.parked);
        Ok(())
    }

    /// Makes one engine call at the host's `now`, then performs what it led to.
    fn call<T>(&mut self, f: impl FnOnce(&mut Engine, Timestamp) -> T) -> T {
        let now = self.now();
        let result = f(&mut self.engine, now);
        self.drain();
        result
    }

    fn now(&self) -> Timestamp {
        let ms = u64::try_from(self.origin.elapsed().as_millis()).unwrap_or(u64::MAX);
        Timestamp::from_millis(ms)
    }

    /// Restores the lock file when someone deleted it and refreshes the resume record (as often
    /// as the pump policy says).
    fn check_lock(&mut self) {
        let now = self.now();
        let policy = self.sockets.policy();
        if self.lock.is_none() || !policy.lock_check_due(self.lock_checked, now) {
            return;
        }
        self.lock_checked = now;
        if let Some(lock) = self.lock.as_mut() {
            // A failure here is retried on the next check; the server keeps serving.
            let _ = lock.restore_if_missing();
            let _ = lock.refresh_record();
        }
    }

    /// Performs the engine's outputs: writes bytes, closes transports, and parks events until
    /// `poll` hands them over.
    fn drain(&mut self) {
        while let Some(output) = self.engine.poll_output() {
            let Some(output) = self.link_output(output) else {
                continue;
            };
            match output {
                Output::Transmit { conn } => self.flush(conn),
                Output::CloseTransport { conn } => self.close(conn),
                Output::Event(event) => self.parked.push(event),
                _ => {}
            }
        }
        self.write_link();
    }
}
