//! The editor's side of the host: the [`Host`] handle, the [`Events`] it receives and the
//! [`ToolReply`] oneshot of each tool call.

use crate::events::{self, Events};
use crate::server::{Command, Server};
use idelink_core::{
    AuthToken, CloseReason, ConnId, EditorEvent, EngineError, EngineEvent, ToolCallId, ToolOutcome,
    ToolRequest,
};
use idelink_core::{EditorSnapshot, SessionChoice, SessionInfo, SnapshotChanges};
use idelink_host::{HostConfig, HostError, ResumeOutcome};
use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::time::Duration;
use tokio::sync::{mpsc, oneshot};
use tokio::task::JoinHandle;

/// What the host hands the editor, in the engine's order. Three kinds only (a match needs no
/// catch-all): tool calls, with their oneshot, every other engine event, and the count of
/// connections that closed before they authenticated.
#[derive(Debug)]
pub enum HostEvent {
    /// The editor must carry out `request` and answer through `reply` (once, from any task,
    /// now or later). A [`EngineEvent::ToolCallCancelled`] with this `id` means the answer is no
    /// longer wanted (the client left, the diff tab was closed or replaced).
    ToolCall {
        /// The call's id (as in the cancellation, and for [`Host::handle_tool_outcome`]).
        id: ToolCallId,
        /// The client that asked.
        conn: ConnId,
        /// What to do.
        request: ToolRequest,
        /// The request's file is one the context policy denies: the review can say so
        /// ([`EngineEvent::ToolCall`]'s `context_denied`).
        context_denied: bool,
        /// The oneshot that answers it.
        reply: ToolReply,
    },
    /// Every other engine event: `Connected`, `SessionReady`, `ToolCallCancelled`,
    /// `ToolServed`, and `Closed` for a connection that was `Connected`.
    Engine(EngineEvent),
    /// Connections closed before they authenticated (no `Connected`: refused upgrades,
    /// handshake timeouts and evictions, sockets that hung up before upgrading), folded into
    /// one event so that any number of them holds one place in the queue: `count` closes since
    /// the previous `HandshakesClosed`, counted until this one was received; `last` is the
    /// latest one's reason. For a status line ("3,000 unauthenticated connections closed"),
    /// nothing to do.
    HandshakesClosed {
        /// How many.
        count: u64,
        /// Why the latest one closed.
        last: CloseReason,
    },
}

/// Answers one tool call. Consumed by [`send`](Self::send); dropped unanswered, it leaves the
/// call to the engine's deadline.
#[derive(Debug)]
pub struct ToolReply {
    id: ToolCallId,
    commands: mpsc::UnboundedSender<Command>,
}

impl ToolReply {
    pub(crate) fn new(id: ToolCallId, commands: mpsc::UnboundedSender<Command>) -> Self {
        ToolReply { id, commands }
    }

    /// The call this answers.
    pub fn id(&self) -> ToolCallId {
        self.id
    }

    /// Sends the editor's outcome; the client gets its answer at once. An answer to a call the
    /// engine cancelled or already answered (its deadline) is dropped: use
    /// [`Host::handle_tool_outcome`] to learn about it.
    pub fn send(self, outcome: ToolOutcome) {
        let _ = self.commands.send(Command::Outcome {
            id: self.id,
            outcome,
        });
    }
}

/// A running host. Cheap to clone: every clone talks to the same engine task.
///
/// Methods, in the order an editor uses them: [`start`](Self::start); getters
/// [`port`](Self::port), [`auth_token`](Self::auth_token), [`lock_path`](Self::lock_path),
/// [`resume`](Self::resume);
/// inputs [`handle_editor_event`](Self::handle_editor_event),
/// [`handle_tool_outcome`](Self::handle_tool_outcome); the command
/// [`shutdown`](Self::shutdown).
#[derive(Clone)]
pub struct Host {
    inner: Arc<Inner>,
}

struct Inner {
    port: u16,
    token: AuthToken,
    lock_path: Option<PathBuf>,
    resume: ResumeOutcome,
    commands: mpsc::UnboundedSender<Command>,
    task: std::sync::Mutex<Option<JoinHandle<()>>>,
}

impl Host {
    /// Binds 127.0.0.1, mints the token, writes the lock file and spawns the engine task on the
    /// current tokio runtime (call it from inside one: it panics otherwise, as `tokio::spawn`
    /// does). Refuses a headless run that did not opt in, as the mio host does.
    pub fn start(config: HostConfig) -> Result<(Host, Events), HostError> {
        let (events_tx, events) = events::channel();
        let (commands, commands_rx) = mpsc::unbounded_channel();
        let server = Server::bind(config, events_tx, commands.clone(), commands_rx)?;
        let (port, token) = (server.port(), server.token().clone());
        let lock_path = server.lock_path().map(Path::to_owned);
        let resume = server.resume().clone();
        let task = tokio::spawn(server.run());
        let inner = Inner {
            port,
            token,
            lock_path,
            resume,
            commands,
            task: std::sync::Mutex::new(Some(task)),
        };
        Ok((
            Host {
                inner: Arc::new(inner),
            },
            events,
        ))
    }

    /// The port the CLI connects to.
    pub fn port(&self) -> u16 {
        self.inner.port
    }

    /// The auth token in the lock file.
    pub fn auth_token(&self) -> &AuthToken {
        &self.inner.token
    }

    /// The lock file, unless the host was configured without one.
    pub fn lock_path(&self) -> Option<&Path> {
        self.inner.lock_path.as_deref()
    }

    /// Whether this host resumed the last session's port and token (`HostConfig::resume`), or
    /// started fresh and why; [`ResumeOutcome::Off`] when resume is off.
    pub fn resume(&self) -> &ResumeOutcome {
        &self.inner.resume
    }

    /// An editor event (selection, documents, diagnostics, folders, a mention), applied in the
    /// order sent; resolves once the engine applied it (and the lock was rewritten when the
    /// folders changed). An `Err` is the lock rewrite's failure, or [`HostError::Io`] when the
    /// host has stopped.
    pub async fn handle_editor_event(&self, event: EditorEvent) -> Result<(), HostError> {
        let (done, result) = oneshot::channel();
        self.command(Command::Editor { event, done })?;
        result.await.map_err(|_| stopped())?
    }

    /// The editor's whole visible state at once (the engine's `handle_snapshot`): its
    /// difference from the previous snapshot is applied as the equivalent editor events, and
    /// other workspace folders rewrite the lock file. Resolves with what changed once applied;
    /// an `Err` as for [`handle_editor_event`](Self::handle_editor_event). The snapshot crosses
    /// the channel owned: an editor that publishes every frame and wants no allocation calls
    /// `Engine::handle_snapshot` through `idelink-mio` or the engine directly.
    pub async fn handle_snapshot(
        &self,
        snapshot: EditorSnapshot,
    ) -> Result<SnapshotChanges, HostError> {
        let (done, result) = oneshot::channel();
        self.command(Command::Snapshot { snapshot, done })?;
        result.await.map_err(|_| stopped())?
    }

    /// Answers the tool call `id` (an alternative to its [`ToolReply`]); an `Err` says the
    /// engine did not take it (unknown, cancelled, already answered).
    pub async fn handle_tool_outcome(
        &self,
        id: ToolCallId,
        outcome: ToolOutcome,
    ) -> Result<(), EngineError> {
        self.on_engine(move |engine, now| engine.handle_tool_outcome(now, id, &outcome))
            .await
            .unwrap_or(Err(EngineError::UnknownToolCall(id)))
    }

    /// Every ready session, oldest first (the engine's `sessions`): its connection, the CLI's
    /// pid, its folders from `roots/list`, when it connected, whether it is chosen. An `Err`
    /// ([`HostError::Io`]) when the host has stopped.
    pub async fn sessions(&self) -> Result<Vec<SessionInfo>, HostError> {
        self.on_engine(|engine, _| engine.sessions()).await
    }

    /// Chooses the session mentions go to, and under `Routing::Chosen` every push (the
    /// engine's `choose_session`); `None` chooses none. An `Err` says the engine refused it
    /// (a connection that is not a session), or, as `UnknownConnection`, that the host stopped.
    pub async fn choose_session(&self, choice: Option<SessionChoice>) -> Result<(), EngineError> {
        let refused = match choice {
            Some(SessionChoice::Conn { conn }) => EngineError::UnknownConnection(conn),
            _ => EngineError::UnknownConnection(ConnId::from_u64(0)),
        };
        self.on_engine(move |engine, now| engine.choose_session(now, choice))
            .await
            .unwrap_or(Err(refused))
    }

    /// Closes every client (close code 1001), gives them up to `grace` to finish, removes the
    /// lock file and waits for the engine task to end. The events receiver then yields `None`.
    pub async fn shutdown(&self, grace: Duration) {
        let _ = self.inner.commands.send(Command::Shutdown { grace });
        let task = self
            .inner
            .task
            .lock()
            .map(|mut task| task.take())
            .unwrap_or(None);
        if let Some(task) = task {
            let _ = task.await;
        }
    }

    fn command(&self, command: Command) -> Result<(), HostError> {
        self.inner.commands.send(command).map_err(|_| stopped())
    }

    /// Sends `command` to the engine task and waits for its answer on `result`.
    pub(crate) async fn on_server<T>(
        &self,
        command: Command,
        result: oneshot::Receiver<Result<T, HostError>>,
    ) -> Result<T, HostError> {
        self.command(command)?;
        result.await.unwrap_or_else(|_| Err(stopped()))
    }

    /// Runs `call` on the engine task, in order with every other input; resolves with its
    /// result, or [`HostError::Io`] when the host has stopped.
    pub(crate) async fn on_engine<T: Send + 'static>(
        &self,
        call: impl FnOnce(&mut idelink_core::Engine, idelink_core::Timestamp) -> T + Send + 'static,
    ) -> Result<T, HostError> {
        let (done, result) = oneshot::channel();
        self.command(Command::Call(Box::new(move |engine, now| {
            let _ = done.send(call(engine, now));
        })))?;
        result.await.map_err(|_| stopped())
    }
}

impl Drop for Inner {
    /// The last handle is gone: stop the task (it closes the clients and removes the lock).
    fn drop(&mut self) {
        let _ = self.commands.send(Command::Shutdown {
            grace: Duration::ZERO,
        });
    }
}

fn stopped() -> HostError {
    HostError::Io(std::io::Error::other("the host has stopped"))
}
