//! The engine task: owns the [`Engine`], the listener, the lock file and the connections, and
//! serves them in one `select!` loop (accepts, bytes in, commands from the editor, the
//! engine's deadline, closing connections' linger, the lock check).

use crate::conn::{Connection, Inbound};
use crate::events::EventSink;
use crate::host::{HostEvent, ToolReply};
use crate::link::{self, Attached};
use idelink_core::host_rules::{PumpPolicy, lock_life};
use idelink_core::link::{Hello, LinkAttach, LinkConfig};
use idelink_core::{
    AuthToken, ConnId, EditorEvent, EditorSnapshot, Engine, EngineEvent, Output, SnapshotChanges,
    Timestamp, ToolCallId, ToolOutcome,
};
use idelink_host::lock::LockFileGuard;
use idelink_host::{HostConfig, HostError, ResumeOutcome, setup};
use std::collections::HashMap;
use std::path::Path;
use std::time::Duration;
use tokio::net::TcpListener;
use tokio::sync::{mpsc, oneshot};
use tokio::time::Instant;

/// At most this many chunks read and not yet handed to the engine, over all connections: a
/// bound on input held in flight, so the pump policy's count of unsent answers keeps up with
/// what was read.
const INBOUND_CHUNKS: usize = 8;

/// After a failed accept (out of descriptors, say), accepting waits this long instead of
/// spinning on the same error; the sockets already open are served meanwhile.
const ACCEPT_RETRY: Duration = Duration::from_millis(100);

/// What the editor's handles send the engine task.
pub(crate) enum Command {
    Editor {
        event: EditorEvent,
        done: oneshot::Sender<Result<(), HostError>>,
    },
    Snapshot {
        snapshot: EditorSnapshot,
        done: oneshot::Sender<Result<SnapshotChanges, HostError>>,
    },
    /// A [`ToolReply`]'s answer, which nobody waits for.
    Outcome {
        id: ToolCallId,
        outcome: ToolOutcome,
    },
    Shutdown {
        grace: Duration,
    },
    /// Any other engine call (`Host::on_engine`), its answer sent by the closure.
    Call(EngineCall),
    /// Attach a remote link (`src/link.rs`).
    Attach {
        hello: Hello,
        input: link::Input,
        output: link::Output,
        done: oneshot::Sender<Result<link::LinkEvents, HostError>>,
    },
}

/// An engine call made on the engine task at its `now`.
pub(crate) type EngineCall = Box<dyn FnOnce(&mut Engine, Timestamp) + Send>;

pub(crate) struct Server {
    engine: Engine,
    listener: TcpListener,
    port: u16,
    token: AuthToken,
    resume: ResumeOutcome,
    lock: Option<LockFileGuard>,
    policy: PumpPolicy,
    origin: Instant,
    conns: HashMap<ConnId, Connection>,
    inbound_tx: mpsc::Sender<Inbound>,
    inbound: mpsc::Receiver<Inbound>,
    events: EventSink,
    commands_tx: mpsc::UnboundedSender<Command>,
    commands: mpsc::UnboundedReceiver<Command>,
    /// Set by a shutdown: stop serving once every connection is gone or at this instant.
    stop_at: Option<Instant>,
    /// Set by a failed accept: accept again from this instant.
    accept_after: Option<Instant>,
    /// A remote link (`Host::attach_link`).
    link: Option<Attached>,
}

impl Server {
    /// Binds, mints the token and writes the lock file (the mio host's rules and calls).
    pub(crate) fn bind(
        config: HostConfig,
        events: EventSink,
        commands_tx: mpsc::UnboundedSender<Command>,
        commands: mpsc::UnboundedReceiver<Command>,
    ) -> Result<Server, HostError> {
        let setup::Listening {
            listener,
            token,
            resume,
        } = setup::listen(&config)?;
        let listener = TcpListener::from_std(listener).map_err(HostError::Io)?;
        let port = listener.local_addr().map_err(HostError::Io)?.port();
        let (engine_config, lock) = setup::engine_and_lock(&config, port, &token)?;
        let (inbound_tx, inbound) = mpsc::channel(INBOUND_CHUNKS);
        Ok(Server {
            engine: Engine::new(engine_config, token.clone()),
            listener,
            port,
            token,
            resume,
            lock,
            policy: config.pump,
            origin: Instant::now(),
            conns: HashMap::new(),
            inbound_tx,
            inbound,
            events,
            commands_tx,
            commands,
            stop_at: None,
            accept_after: None,
            link: None,
        })
    }

    pub(crate) fn port(&self) -> u16 {
        self.port
    }

    pub(crate) fn token(&self) -> &AuthToken {
        &self.token
    }

    pub(crate) fn resume(&self) -> &ResumeOutcome {
        &self.resume
    }

    pub(crate) fn lock_path(&self) -> Option<&Path> {
        self.lock.as_ref().map(LockFileGuard::path)
    }

    /// Serves until a shutdown finishes; then removes the lock file (the guard drops).
    pub(crate) async fn run(mut self) {
        let mut lock_check = tokio::time::interval(Duration::from_millis(
            self.policy.lock_check_interval_ms.max(1),
        ));
        lock_check.set_missed_tick_behavior(tokio::time::MissedTickBehavior::Delay);
        loop {
            let carried = self.link.as_ref().is_some_and(|l| !l.attach.is_empty());
            if let Some(stop_at) = self.stop_at
                && ((self.conns.is_empty() && !carried) || Instant::now() >= stop_at)
            {
                let now = self.now();
                if let Some(link) = self.link.as_mut() {
                    link.attach.shutdown(&mut self.engine, now);
                }
                self.drain();
                break;
            }
            let wake = self.next_deadline();
            tokio::select! {
                accepted = self.listener.accept(),
                    if self.stop_at.is_none() && self.accept_after.is_none() =>
                {
                    match accepted {
                        Ok((stream, _)) => self.accept(stream),
                        Err(_) => self.accept_after = Some(Instant::now() + ACCEPT_RETRY),
                    }
                }
                Some(inbound) = self.inbound.recv() => self.inbound(inbound),
                Some(command) = self.commands.recv() => self.command(command),
                () = sleep_until(wake), if wake.is_some() => self.timers(),
                _ = lock_check.tick(), if self.lock.is_some() => self.check_lock(),
            }
            self.drain();
        }
        self.conns.clear();
        self.lock = None;
    }

    fn now(&self) -> Timestamp {
        let ms = u64::try_from(self.origin.elapsed().as_millis()).unwrap_or(u64::MAX);
        Timestamp::from_millis(ms)
    }

    fn instant(&self, at: Timestamp) -> Instant {
        self.origin + Duration::from_millis(at.as_millis())
    }

    /// The engine's deadline, the earliest linger of a closing connection, the end of a
    /// shutdown's grace, or the accept retry.
    fn next_deadline(&self) -> Option<Instant> {
        let engine = self.engine.poll_timeout().map(|at| self.instant(at));
        let linger = self
            .conns
            .values()
            .filter_map(Connection::closing_since)
            .map(|since| self.instant(self.policy.linger_deadline(since)))
            .min();
        let link = self.link.as_ref().and_then(|l| l.attach.poll_timeout());
        let link = link.map(|at| self.instant(at));
        [engine, linger, link, self.stop_at, self.accept_after]
            .into_iter()
            .flatten()
            .min()
    }

    fn accept(&mut self, stream: tokio::net::TcpStream) {
        let now = self.now();
        let conn = self.engine.handle_accept(now);
        let connection = Connection::spawn(conn, stream, self.policy, self.inbound_tx.clone());
        self.conns.insert(conn, connection);
    }

    fn inbound(&mut self, inbound: Inbound) {
        let now = self.now();
        match inbound {
            Inbound::Bytes(conn, bytes) => {
                let open = self
                    .conns
                    .get(&conn)
                    .is_some_and(|c| c.closing_since().is_none());
                if open {
                    let _ = self.engine.handle_bytes(now, conn, &bytes);
                }
            }
            Inbound::Gone(conn) => self.forget(conn),
            Inbound::Written(conn) => self.transmit(conn, false),
            Inbound::Link(read) => {
                if let Some(link) = self.link.as_mut() {
                    match read {
                        Some(bytes) => {
                            link.attach
                                .handle_stream_bytes(&mut self.engine, now, &bytes)
                        }
                        None => link.attach.handle_stream_end(&mut self.engine, now),
                    }
                }
            }
        }
    }

    fn command(&mut self, command: Command) {
        let now = self.now();
        match command {
            Command::Editor { event, done } => {
                let mut result = Ok(());
                if let Some(lock) = self.lock.as_mut()
                    && let Some(contents) = lock_life::rewritten_for(lock.lock(), &event)
                {
                    result = lock.rewrite(contents).map_err(HostError::from);
                }
                self.engine.handle_editor_event(now, &event);
                let _ = done.send(result);
            }
            Command::Snapshot { snapshot, done } => {
                let result = snapshot.with_view(|view| {
                    let mut rewritten = Ok(());
                    if let Some(lock) = self.lock.as_mut()
                        && let Some(contents) = lock_life::rewritten_for_snapshot(lock.lock(), view)
                    {
                        rewritten = lock.rewrite(contents).map_err(HostError::from);
                    }
                    let changes = self.engine.handle_snapshot(now, view);
                    rewritten.map(|()| changes)
                });
                let _ = done.send(result);
            }
            Command::Outcome { id, outcome } => {
                let _ = self.engine.handle_tool_outcome(now, id, &outcome);
            }
            Command::Call(call) => call(&mut self.engine, now),
            Command::Attach {
                hello,
                input,
                output,
                done,
            } => {
                let _ = done.send(self.attach(&hello, input, output, now));
            }
            Command::Shutdown { grace } => {
                if self.stop_at.is_none() {
                    self.engine.shutdown(now);
                    self.stop_at = Some(Instant::now() + grace);
                }
            }
        }
    }

    /// The engine's deadline, closing connections whose linger ran out, the accept retry.
    fn timers(&mut self) {
        if self.accept_after.is_some_and(|at| Instant::now() >= at) {
            self.accept_after = None;
        }
        let now = self.now();
        if self.engine.poll_timeout().is_some_and(|at| at <= now) {
            self.engine.handle_timeout(now);
        }
        if let Some(link) = self.link.as_mut()
            && link.attach.poll_timeout().is_some_and(|at| at <= now)
        {
            link.attach.handle_timeout(&mut self.engine, now);
        }
        let expired: Vec<ConnId> = self
            .conns
            .iter()
            .filter(|(_, c)| {
                c.closing_since()
                    .is_some_and(|since| self.policy.linger_expired(since, now))
            })
            .map(|(conn, _)| *conn)
            .collect();
        for conn in expired {
            self.forget(conn);
        }
    }

    /// Restores the lock file when someone deleted it and refreshes the resume record. A
    /// failure is retried on the next check.
    fn check_lock(&mut self) {
        if let Some(lock) = self.lock.as_mut() {
            let _ = lock.restore_if_missing();
            let _ = lock.refresh_record();
        }
    }

    /// The socket is gone: drop it and tell the engine.
    fn forget(&mut self, conn: ConnId) {
        if self.conns.remove(&conn).is_some() {
            let _ = self.engine.handle_closed(self.now(), conn);
        }
    }

    /// Hands the connection's outbound bytes to its writer, unless its writer already holds
    /// the pump policy's pause mark (then they stay in the engine, whose `max_outbound_bytes`
    /// cap applies, until the writer reports [`Inbound::Written`]); `all` hands them over
    /// regardless (before a close).
    fn transmit(&mut self, conn: ConnId, all: bool) {
        let Some(connection) = self.conns.get(&conn) else {
            return;
        };
        if !all && !self.policy.may_read(connection.unsent()) {
            return;
        }
        let bytes = self.engine.outbound(conn).to_vec();
        if bytes.is_empty() {
            return;
        }
        let _ = self.engine.handle_sent(conn, bytes.len());
        connection.send(bytes);
    }

    /// Attaches a remote link, unless one is attached or the host is stopping.
    fn attach(
        &mut self,
        hello: &Hello,
        input: link::Input,
        output: link::Output,
        now: Timestamp,
    ) -> Result<link::LinkEvents, HostError> {
        if self.link.is_some() || self.stop_at.is_some() {
            return Err(HostError::Io(std::io::Error::other(
                "a link is attached already, or the host is stopping",
            )));
        }
        let attach = LinkAttach::new(hello, LinkConfig::default(), self.policy, now)
            .map_err(|e| HostError::Io(std::io::Error::other(e)))?;
        let chunk = self.policy.read_chunk_bytes;
        let (link, events) = Attached::spawn(attach, input, output, chunk, self.inbound_tx.clone());
        self.link = Some(link);
        Ok(events)
    }

    /// Performs the engine's outputs: bytes to the writers, closes, events to the editor; the
    /// link's connections' outputs are the link's.
    fn drain(&mut self) {
        let now = self.now();
        while let Some(output) = self.engine.poll_output() {
            let output = match self.link.as_mut() {
                Some(link) => match link.attach.handle_output(&mut self.engine, now, output) {
                    Some(output) => output,
                    None => continue,
                },
                None => output,
            };
            match output {
                Output::Transmit { conn } => self.transmit(conn, false),
                Output::CloseTransport { conn } => {
                    // Its last bytes go to the writer ahead of the close, whatever its backlog.
                    self.transmit(conn, true);
                    let now = self.now();
                    if let Some(connection) = self.conns.get_mut(&conn) {
                        connection.close(now);
                    }
                }
                Output::Event(EngineEvent::ToolCall {
                    id,
                    conn,
                    request,
                    context_denied,
                }) => {
                    let reply = ToolReply::new(id, self.commands_tx.clone());
                    self.events.send(HostEvent::ToolCall {
                        id,
                        conn,
                        request,
                        context_denied,
                        reply,
                    });
                }
                Output::Event(event) => self.events.send(HostEvent::Engine(event)),
                _ => {}
            }
        }
        // A dead link is dropped once its last bytes are with the writer, which then closes
        // the stream.
        if self.link.as_mut().is_some_and(Attached::flush) {
            self.link = None;
        }
    }
}

async fn sleep_until(at: Option<Instant>) {
    if let Some(at) = at {
        tokio::time::sleep_until(at).await;
    }
}
