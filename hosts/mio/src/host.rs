//! The host: a loopback listener and its sockets, pumped into one [`Engine`].

use crate::config::{HostConfig, LockPlacement, PortChoice};
use crate::lock::{LockError, LockFileGuard, default_lock_dir};
use idelink_core::lockfile::LockFile;
use idelink_core::{
    AuthToken, ConnId, EditorEvent, Engine, EngineError, Event, Output, Timestamp, ToolCallId,
    ToolOutcome,
};
use mio::net::{TcpListener, TcpStream};
use mio::{Events, Interest, Poll, Token, Waker};
use std::collections::BTreeMap;
use std::fmt;
use std::io::{self, Read, Write};
use std::net::{Ipv4Addr, SocketAddr};
use std::path::Path;
use std::sync::Arc;
use std::time::{Duration, Instant};

const LISTENER: Token = Token(0);
const WAKER: Token = Token(usize::MAX);
/// How long a connection the engine closed may take to flush its last bytes.
const LINGER: Duration = Duration::from_secs(2);
/// How often the lock file is checked for deletion.
const LOCK_CHECK: Duration = Duration::from_secs(1);

/// Why the host could not start (or rewrite its lock); the message says what to do.
#[derive(Debug)]
#[non_exhaustive]
pub enum HostError {
    /// The run is headless or automated and the embedder did not opt in to serving.
    HeadlessNotEnabled,
    /// No port in the configured range could be bound on 127.0.0.1.
    Bind {
        /// What was tried.
        ports: String,
        /// The last OS error.
        source: io::Error,
    },
    /// The OS random source failed.
    Entropy(String),
    /// The lock file or its directory.
    Lock(LockError),
    /// Setting up the poller failed.
    Io(io::Error),
}

impl fmt::Display for HostError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            HostError::HeadlessNotEnabled => write!(
                f,
                "not serving: this is a headless or automated run; set \
                 HostConfig::serve_when_headless to open the socket and write the lock anyway"
            ),
            HostError::Bind { ports, source } => {
                write!(f, "cannot listen on 127.0.0.1 port {ports}: {source}")
            }
            HostError::Entropy(e) => write!(f, "cannot mint the auth token: {e}"),
            HostError::Lock(e) => write!(f, "{e}"),
            HostError::Io(e) => write!(f, "cannot set up the event loop: {e}"),
        }
    }
}

impl std::error::Error for HostError {}

impl From<LockError> for HostError {
    fn from(e: LockError) -> Self {
        HostError::Lock(e)
    }
}

/// One accepted socket.
struct Socket {
    stream: TcpStream,
    /// The socket's send buffer is full: wait for a writable event.
    write_blocked: bool,
    /// Reading stopped because the client does not read its answers (back-pressure).
    reads_paused: bool,
    /// The engine asked to close: flush, then drop, by this instant.
    closing_since: Option<Instant>,
}

/// A loopback server for the Claude Code IDE protocol, driven from the editor's own loop.
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
///         // idelink_core::Event::ToolCall { id, request, .. } => show it, later host.answer(id, &outcome)
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
    sockets: BTreeMap<ConnId, Socket>,
    waker: Arc<Waker>,
    lock: Option<LockFileGuard>,
    lock_checked: Instant,
    origin: Instant,
    read_buf: Box<[u8]>,
    pause_reads_at_bytes: usize,
    token: AuthToken,
    /// Engine events produced since the last `poll` handed them over.
    parked: Vec<Event>,
}

impl Host {
    /// Binds 127.0.0.1, mints the token from OS entropy and writes the lock file.
    pub fn start(config: HostConfig) -> Result<Host, HostError> {
        if config.headless && !config.serve_when_headless {
            return Err(HostError::HeadlessNotEnabled);
        }
        let mut entropy = [0u8; 16];
        getrandom::fill(&mut entropy).map_err(|e| HostError::Entropy(e.to_string()))?;
        let token = AuthToken::from_entropy(entropy);
        let mut listener = bind(config.port)?;
        let port = listener.local_addr().map_err(HostError::Io)?.port();
        let poll = Poll::new().map_err(HostError::Io)?;
        poll.registry()
            .register(&mut listener, LISTENER, Interest::READABLE)
            .map_err(HostError::Io)?;
        let waker = Arc::new(Waker::new(poll.registry(), WAKER).map_err(HostError::Io)?);
        let mut engine_config = config.engine;
        engine_config.port = port;
        engine_config.workspace_folders = config.workspace_folders.clone();
        let lock = match &config.lock {
            LockPlacement::None => None,
            placement => {
                let dir = match placement {
                    LockPlacement::At(dir) => dir.clone(),
                    _ => default_lock_dir()?,
                };
                let contents = LockFile {
                    pid: config.pid,
                    workspace_folders: config.workspace_folders,
                    ide_name: config.ide_name,
                    auth_token: token.as_str().to_owned(),
                    running_in_windows: config.running_in_windows,
                };
                Some(LockFileGuard::create(&dir, port, contents)?)
            }
        };
        Ok(Host {
            engine: Engine::new(engine_config, token.clone()),
            poll,
            events: Events::with_capacity(256),
            listener,
            port,
            sockets: BTreeMap::new(),
            waker,
            lock,
            lock_checked: Instant::now(),
            origin: Instant::now(),
            read_buf: vec![0; 64 * 1024].into_boxed_slice(),
            pause_reads_at_bytes: config.pause_reads_at_bytes,
            token,
            parked: Vec::new(),
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

    /// The engine, for reading its editor state and configuration.
    pub fn engine(&self) -> &Engine {
        &self.engine
    }

    /// A handle that makes a blocked [`poll`](Self::poll) return, from any thread.
    pub fn waker(&self) -> Arc<Waker> {
        Arc::clone(&self.waker)
    }

    /// Waits at most `timeout` (`None`: until something happens) for socket activity or the
    /// engine's next deadline, serves it, and appends the engine's events to `events`. Call it
    /// in a loop: once per frame with a zero or small timeout, or from a dedicated thread.
    pub fn poll(&mut self, timeout: Option<Duration>, events: &mut Vec<Event>) -> io::Result<()> {
        let deadline = self.engine.poll_timeout().map(|at| {
            let now = self.now().as_millis();
            Duration::from_millis(at.as_millis().saturating_sub(now))
        });
        let linger = self.sockets.values().any(|s| s.closing_since.is_some());
        let wait = [timeout, deadline, linger.then_some(LINGER)]
            .into_iter()
            .flatten()
            .min();
        match self.poll.poll(&mut self.events, wait) {
            Ok(()) => {}
            Err(e) if e.kind() == io::ErrorKind::Interrupted => {}
            Err(e) => return Err(e),
        }
        let ready: Vec<(Token, bool, bool)> = self
            .events
            .iter()
            .map(|e| {
                let closed = e.is_read_closed() || e.is_error();
                (e.token(), e.is_readable() || closed, e.is_writable())
            })
            .collect();
        for (token, readable, writable) in ready {
            match token {
                LISTENER => self.accept(),
                WAKER => {}
                Token(n) => {
                    let conn = ConnId::from_u64(n as u64);
                    if writable {
                        if let Some(socket) = self.sockets.get_mut(&conn) {
                            socket.write_blocked = false;
                        }
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
        self.reap_lingering();
        self.check_lock();
        self.drain();
        events.append(&mut self.parked);
        Ok(())
    }

    /// An editor event (selection, documents, diagnostics, a mention). A change of workspace
    /// folders also rewrites the lock file. Events it leads to come with the next `poll`.
    pub fn handle_editor_event(&mut self, event: &EditorEvent) -> Result<(), HostError> {
        if let (EditorEvent::WorkspaceFoldersChanged { folders }, Some(lock)) =
            (event, self.lock.as_mut())
        {
            let mut contents = lock.lock().clone();
            contents.workspace_folders = folders.clone();
            lock.rewrite(contents)?;
        }
        let now = self.now();
        self.engine.handle_editor_event(now, event);
        self.drain();
        Ok(())
    }

    /// The editor's answer to a tool request from an [`Event::ToolCall`]; sent at once.
    pub fn answer(&mut self, id: ToolCallId, outcome: &ToolOutcome) -> Result<(), EngineError> {
        let now = self.now();
        self.engine.handle_tool_outcome(now, id, outcome)?;
        self.drain();
        Ok(())
    }

    /// Closes every client (close code 1001) and gives them up to `grace` to finish, then
    /// removes the lock file. The host serves nothing afterwards.
    pub fn shutdown(&mut self, grace: Duration, events: &mut Vec<Event>) {
        let now = self.now();
        self.engine.shutdown(now);
        self.drain();
        events.append(&mut self.parked);
        let until = Instant::now() + grace;
        while !self.sockets.is_empty() && Instant::now() < until {
            let left = until.saturating_duration_since(Instant::now());
            if self.poll(Some(left), events).is_err() {
                break;
            }
        }
        self.lock = None;
    }

    fn now(&self) -> Timestamp {
        let ms = u64::try_from(self.origin.elapsed().as_millis()).unwrap_or(u64::MAX);
        Timestamp::from_millis(ms)
    }

    fn accept(&mut self) {
        loop {
            match self.listener.accept() {
                Ok((mut stream, _)) => {
                    // Answers are small and latency matters more than packet count.
                    let _ = stream.set_nodelay(true);
                    let conn = self.engine.handle_accept(self.now());
                    let token = Token(conn.as_u64() as usize);
                    let registered = self.poll.registry().register(
                        &mut stream,
                        token,
                        Interest::READABLE | Interest::WRITABLE,
                    );
                    if registered.is_err() {
                        let _ = self.engine.handle_closed(self.now(), conn);
                        continue;
                    }
                    self.sockets.insert(
                        conn,
                        Socket {
                            stream,
                            write_blocked: false,
                            reads_paused: false,
                            closing_since: None,
                        },
                    );
                    self.drain();
                }
                Err(e) if e.kind() == io::ErrorKind::WouldBlock => return,
                Err(e) if e.kind() == io::ErrorKind::Interrupted => {}
                // Out of descriptors, or the peer reset before accept: try again on the next
                // readiness event rather than spin.
                Err(_) => return,
            }
        }
    }

    /// Reads until the socket would block (mio is edge-triggered), feeding the engine.
    fn read(&mut self, conn: ConnId) {
        loop {
            let Some(socket) = self.sockets.get_mut(&conn) else {
                return;
            };
            if socket.closing_since.is_some() {
                // Discard: the engine is done with this connection. The socket stays until its
                // last bytes are flushed (`flush` drops it then) or the linger runs out: input
                // arriving meanwhile, or the peer's end of stream, must not cut that short.
                match socket.stream.read(&mut self.read_buf) {
                    Ok(0) if self.engine.outbound(conn).is_empty() => {
                        return self.drop_socket(conn);
                    }
                    Ok(0) => return,
                    Ok(_) => continue,
                    Err(e) if e.kind() == io::ErrorKind::WouldBlock => return,
                    Err(e) if e.kind() == io::ErrorKind::Interrupted => continue,
                    Err(_) => return self.drop_socket(conn),
                }
            }
            if self.engine.outbound(conn).len() >= self.pause_reads_at_bytes {
                socket.reads_paused = true;
                return;
            }
            match socket.stream.read(&mut self.read_buf) {
                Ok(0) => return self.transport_gone(conn),
                Ok(n) => {
                    let now = self.now();
                    let _ = self.engine.handle_bytes(now, conn, &self.read_buf[..n]);
                    self.drain();
                }
                Err(e) if e.kind() == io::ErrorKind::WouldBlock => return,
                Err(e) if e.kind() == io::ErrorKind::Interrupted => {}
                Err(_) => return self.transport_gone(conn),
            }
        }
    }

    /// Writes what the socket takes of the connection's outbound bytes.
    fn flush(&mut self, conn: ConnId) {
        let Some(socket) = self.sockets.get_mut(&conn) else {
            return;
        };
        while !socket.write_blocked {
            let pending = self.engine.outbound(conn);
            if pending.is_empty() {
                break;
            }
            match socket.stream.write(pending) {
                Ok(0) => break,
                Ok(n) => {
                    let _ = self.engine.handle_sent(conn, n);
                }
                Err(e) if e.kind() == io::ErrorKind::WouldBlock => socket.write_blocked = true,
                Err(e) if e.kind() == io::ErrorKind::Interrupted => {}
                Err(_) => {
                    let closing = socket.closing_since.is_some();
                    return if closing {
                        self.drop_socket(conn)
                    } else {
                        self.transport_gone(conn)
                    };
                }
            }
        }
        let drained = self.engine.outbound(conn).is_empty();
        if drained && socket.closing_since.is_some() {
            return self.drop_socket(conn);
        }
        let resume =
            socket.reads_paused && self.engine.outbound(conn).len() < self.pause_reads_at_bytes / 2;
        if resume {
            socket.reads_paused = false;
            self.read(conn);
        }
    }

    /// The peer went away (EOF or a socket error) before the engine closed it.
    fn transport_gone(&mut self, conn: ConnId) {
        if let Some(mut socket) = self.sockets.remove(&conn) {
            let _ = self.poll.registry().deregister(&mut socket.stream);
        }
        let _ = self.engine.handle_closed(self.now(), conn);
        self.drain();
    }

    /// The engine closed the connection and its bytes are flushed (or the linger ran out).
    fn drop_socket(&mut self, conn: ConnId) {
        if let Some(mut socket) = self.sockets.remove(&conn) {
            let _ = socket.stream.shutdown(std::net::Shutdown::Both);
            let _ = self.poll.registry().deregister(&mut socket.stream);
        }
        let _ = self.engine.handle_closed(self.now(), conn);
    }

    fn reap_lingering(&mut self) {
        let expired: Vec<ConnId> = self
            .sockets
            .iter()
            .filter(|(_, s)| s.closing_since.is_some_and(|t| t.elapsed() >= LINGER))
            .map(|(id, _)| *id)
            .collect();
        for conn in expired {
            self.drop_socket(conn);
        }
    }

    /// Restores the lock file when someone deleted it (at most once a second).
    fn check_lock(&mut self) {
        if self.lock_checked.elapsed() < LOCK_CHECK {
            return;
        }
        self.lock_checked = Instant::now();
        if let Some(lock) = self.lock.as_mut() {
            // A failure here is retried on the next check; the server keeps serving.
            let _ = lock.restore_if_missing();
        }
    }

    /// Performs the engine's outputs: writes bytes, closes transports, and parks events until
    /// `poll` hands them over.
    fn drain(&mut self) {
        while let Some(output) = self.engine.poll_output() {
            match output {
                Output::Transmit { conn } => self.flush(conn),
                Output::CloseTransport { conn } => {
                    if let Some(socket) = self.sockets.get_mut(&conn) {
                        socket.closing_since = Some(Instant::now());
                    }
                    self.flush(conn);
                }
                Output::Event(event) => self.parked.push(event),
                _ => {}
            }
        }
    }
}

fn bind(choice: PortChoice) -> Result<TcpListener, HostError> {
    let (first, last) = match choice {
        PortChoice::Ephemeral => (0, 0),
        PortChoice::Fixed(port) => (port, port),
        PortChoice::Range(first, last) => (first, last),
    };
    let mut last_error = io::Error::new(io::ErrorKind::InvalidInput, "empty port range");
    for port in first..=last {
        let addr = SocketAddr::from((Ipv4Addr::LOCALHOST, port));
        match TcpListener::bind(addr) {
            Ok(listener) => return Ok(listener),
            Err(e) => last_error = e,
        }
    }
    Err(HostError::Bind {
        ports: if first == last {
            first.to_string()
        } else {
            format!("{first}-{last}")
        },
        source: last_error,
    })
}
