//! Shared by the real-socket suites: a [`Host`] served from its own thread, and the shared
//! test client (`tests/client`) made strict: every wait has its deadline (no sleeps), and any
//! failure fails the test.
#![allow(
    dead_code,
    reason = "shared by several test crates; each one uses a subset of the helpers"
)]

use idelink_core::{
    EditorEvent, EngineError, EngineEvent, SessionChoice, SessionInfo, ToolCallId, ToolOutcome,
};
use idelink_mio::{Host, HostConfig, HostError, LockPlacement};
use mio::Waker;
use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::mpsc::{self, Receiver, Sender};
use std::thread::JoinHandle;
use std::time::Duration;

/// How long any single wait may take before the test fails. Generous: it is a deadline for a
/// hung server, not a timing assertion.
pub const DEADLINE: Duration = Duration::from_secs(10);

/// A fresh directory under the system temp dir, removed on drop.
pub struct TempDir(PathBuf);

impl TempDir {
    /// A new empty directory whose name contains `name`.
    pub fn new(name: &str) -> TempDir {
        static NEXT: AtomicU64 = AtomicU64::new(0);
        let n = NEXT.fetch_add(1, Ordering::Relaxed);
        let dir = std::env::temp_dir().join(format!("idelink-{name}-{}-{n}", std::process::id()));
        let _ = std::fs::remove_dir_all(&dir);
        std::fs::create_dir_all(&dir).unwrap();
        TempDir(dir)
    }

    /// The directory.
    pub fn path(&self) -> &Path {
        &self.0
    }
}

impl Drop for TempDir {
    fn drop(&mut self) {
        #[cfg(unix)]
        let _ = make_writable(&self.0);
        let _ = std::fs::remove_dir_all(&self.0);
    }
}

/// Restores owner write permission on `dir` and its direct subdirectories (tests make some
/// read-only), so they can be removed.
#[cfg(unix)]
fn make_writable(dir: &Path) -> std::io::Result<()> {
    use std::os::unix::fs::PermissionsExt;
    for entry in std::fs::read_dir(dir)?.flatten() {
        let meta = entry.path().symlink_metadata()?;
        if meta.is_dir() {
            std::fs::set_permissions(entry.path(), std::fs::Permissions::from_mode(0o700))?;
        }
    }
    Ok(())
}

/// A default test configuration: workspace `<dir>/w`, lock in `<dir>/ide`.
pub fn config(dir: &TempDir) -> HostConfig {
    let workspace = dir.path().join("w");
    std::fs::create_dir_all(&workspace).unwrap();
    let mut config = HostConfig::new(
        "idelink-test",
        vec![workspace.to_string_lossy().into_owned()],
    );
    config.lock = LockPlacement::At(dir.path().join("ide"));
    config
}

enum Command {
    Answer(ToolCallId, ToolOutcome, Sender<Result<(), EngineError>>),
    Editor(EditorEvent),
    Choose(Option<SessionChoice>, Sender<Result<(), EngineError>>),
    Sessions(Sender<Vec<SessionInfo>>),
    Stop,
}

/// A host running on its own thread. Events come out of [`next_event`](Self::next_event);
/// answers and editor events go in through the host thread.
pub struct Served {
    /// The port the host listens on.
    pub port: u16,
    /// The auth token.
    pub token: String,
    /// The lock file, if any.
    pub lock_path: Option<PathBuf>,
    events: Receiver<EngineEvent>,
    commands: Sender<Command>,
    waker: Arc<Waker>,
    thread: Option<JoinHandle<()>>,
}

impl Served {
    /// Starts a host with `config` on a new thread.
    pub fn start(config: HostConfig) -> Served {
        Served::try_start(config).unwrap()
    }

    /// Starts a host with `config`, or returns why it could not start.
    pub fn try_start(config: HostConfig) -> Result<Served, HostError> {
        let (started_tx, started_rx) = mpsc::channel();
        let (events_tx, events) = mpsc::channel();
        let (commands, commands_rx) = mpsc::channel::<Command>();
        let thread = std::thread::spawn(move || {
            let mut host = match Host::start(config) {
                Ok(host) => host,
                Err(e) => return started_tx.send(Err(e)).unwrap(),
            };
            let info = (
                host.port(),
                host.auth_token().as_str().to_owned(),
                host.lock_path().map(Path::to_owned),
                host.waker(),
            );
            started_tx.send(Ok(info)).unwrap();
            let mut events = Vec::new();
            loop {
                host.poll(Some(Duration::from_millis(100)), &mut events)
                    .unwrap();
                for event in events.drain(..) {
                    let _ = events_tx.send(event);
                }
                while let Ok(command) = commands_rx.try_recv() {
                    match command {
                        Command::Answer(id, outcome, reply) => {
                            let _ = reply.send(host.handle_tool_outcome(id, &outcome));
                        }
                        Command::Editor(event) => host.handle_editor_event(&event).unwrap(),
                        Command::Choose(choice, reply) => {
                            let _ = reply.send(host.choose_session(choice));
                        }
                        Command::Sessions(reply) => {
                            let _ = reply.send(host.sessions());
                        }
                        Command::Stop => {
                            host.shutdown(Duration::from_secs(1), &mut events);
                            for event in events.drain(..) {
                                let _ = events_tx.send(event);
                            }
                            return;
                        }
                    }
                }
            }
        });
        let (port, token, lock_path, waker) = started_rx.recv().unwrap()?;
        Ok(Served {
            port,
            token,
            lock_path,
            events,
            commands,
            waker,
            thread: Some(thread),
        })
    }

    fn command(&self, command: Command) {
        self.commands.send(command).unwrap();
        self.waker.wake().unwrap();
    }

    /// The next event, failing the test when none comes by the deadline.
    pub fn next_event(&self) -> EngineEvent {
        self.events
            .recv_timeout(DEADLINE)
            .expect("an event by the deadline")
    }

    /// Skips events until one matches `wanted`, which it returns.
    pub fn wait_for(&self, what: &str, wanted: impl Fn(&EngineEvent) -> bool) -> EngineEvent {
        loop {
            let event = self
                .events
                .recv_timeout(DEADLINE)
                .unwrap_or_else(|_| panic!("no {what} by the deadline"));
            if wanted(&event) {
                return event;
            }
        }
    }

    /// The events received so far that were not consumed (does not wait).
    pub fn drain_events(&self) -> Vec<EngineEvent> {
        self.events.try_iter().collect()
    }

    /// Answers a tool call through `Host::handle_tool_outcome`.
    pub fn answer(&self, id: ToolCallId, outcome: ToolOutcome) -> Result<(), EngineError> {
        let (tx, rx) = mpsc::channel();
        self.command(Command::Answer(id, outcome, tx));
        rx.recv_timeout(DEADLINE).unwrap()
    }

    /// Chooses a session through `Host::choose_session`.
    pub fn choose(&self, choice: Option<SessionChoice>) -> Result<(), EngineError> {
        let (tx, rx) = mpsc::channel();
        self.command(Command::Choose(choice, tx));
        rx.recv_timeout(DEADLINE).unwrap()
    }

    /// The session list through `Host::sessions`.
    pub fn sessions(&self) -> Vec<SessionInfo> {
        let (tx, rx) = mpsc::channel();
        self.command(Command::Sessions(tx));
        rx.recv_timeout(DEADLINE).unwrap()
    }

    /// Feeds an editor event through `Host::handle_editor_event`.
    pub fn editor(&self, event: EditorEvent) {
        self.command(Command::Editor(event));
    }

    /// Shuts the host down and joins its thread; fails the test if the host thread panicked.
    pub fn stop(mut self) {
        self.command(Command::Stop);
        let thread = self.thread.take().unwrap();
        if let Err(panic) = thread.join() {
            std::panic::resume_unwind(panic);
        }
    }
}

impl Drop for Served {
    fn drop(&mut self) {
        if let Some(thread) = self.thread.take() {
            let _ = self.commands.send(Command::Stop);
            let _ = self.waker.wake();
            let _ = thread.join();
        }
    }
}

/// The upgrade request the CLI sends, with `token`, and `extra` header lines (each ending in
/// CRLF) before the blank line.
pub fn upgrade_request(port: u16, token: &str, extra: &str) -> Vec<u8> {
    format!(
        "GET / HTTP/1.1\r\nHost: 127.0.0.1:{port}\r\nConnection: Upgrade\r\nUpgrade: websocket\r\n\
         Sec-WebSocket-Version: 13\r\nSec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==\r\n\
         Sec-WebSocket-Protocol: mcp\r\nX-Claude-Code-Ide-Authorization: {token}\r\n\
         User-Agent: claude-code/2.1.332 (external, cli)\r\n{extra}\r\n"
    )
    .into_bytes()
}

/// An upgrade request with every header given explicitly (`name: value` lines, CRLF each).
pub fn raw_request(headers: &str) -> Vec<u8> {
    format!("GET / HTTP/1.1\r\n{headers}\r\n").into_bytes()
}

/// The 101 the host answers the CLI's request with.
pub const RESPONSE_101: &str = "HTTP/1.1 101 Switching Protocols\r\nUpgrade: websocket\r\n\
    Connection: Upgrade\r\nSec-WebSocket-Accept: s3pPLMBiTxaQ9kYGzzhZRbK+xOo=\r\n\
    Sec-WebSocket-Protocol: mcp\r\n\r\n";

/// A masked client frame with first header byte `first` and the shortest length encoding.
pub fn frame(first: u8, payload: &[u8]) -> Vec<u8> {
    idelink_test_client::client_frame(first, payload)
}

/// The unmasked close frame the server sends with `code` and `reason`.
pub fn server_close(code: u16, reason: &str) -> Vec<u8> {
    let mut out = vec![0x88, 2 + reason.len() as u8];
    out.extend_from_slice(&code.to_be_bytes());
    out.extend_from_slice(reason.as_bytes());
    out
}

/// The shared real-socket client (`tests/client`), strict: any socket error, deadline or
/// malformed server frame fails the test. It adds no socket code of its own.
pub struct Client(idelink_test_client::Client);

impl Client {
    /// Connects to the host on 127.0.0.1.
    pub fn connect(port: u16) -> Client {
        Client(idelink_test_client::Client::connect_raw(port).unwrap())
    }

    /// Connects, upgrades with the right token and checks the exact 101.
    pub fn upgraded(served: &Served) -> Client {
        let mut client = Client::connect(served.port);
        client.send(&upgrade_request(served.port, &served.token, ""));
        assert_eq!(client.read_head(), RESPONSE_101);
        client
    }

    /// [`upgraded`](Self::upgraded), then `initialize` and `notifications/initialized`.
    pub fn initialized(served: &Served) -> Client {
        let mut client = Client::upgraded(served);
        client.send_text(
            r#"{"jsonrpc":"2.0","id":0,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"claude-code","version":"2.1.332"}}}"#,
        );
        let answer = client.read_text();
        assert!(
            answer
                .starts_with(r#"{"jsonrpc":"2.0","id":0,"result":{"protocolVersion":"2025-11-25""#),
            "{answer}"
        );
        client.send_text(r#"{"jsonrpc":"2.0","method":"notifications/initialized"}"#);
        client
    }

    /// Writes all of `bytes`.
    pub fn send(&mut self, bytes: &[u8]) {
        self.0.send_raw(bytes).unwrap();
    }

    /// Sends one masked text frame.
    pub fn send_text(&mut self, text: &str) {
        self.0.send_text(text).unwrap();
    }

    /// Writes as much of `bytes` as the peer takes; false once it stops taking them.
    pub fn try_send(&mut self, bytes: &[u8]) -> bool {
        self.0.try_send(bytes)
    }

    /// Reads an HTTP response head (through the blank line) and returns it.
    pub fn read_head(&mut self) -> String {
        self.0.read_response_head().unwrap()
    }

    /// Reads until the server closes; returns every byte not consumed yet. Fails the test if
    /// the server does not close by the deadline, or resets the connection.
    pub fn read_to_eof(&mut self) -> Vec<u8> {
        self.0.read_to_end().unwrap()
    }

    /// Reads one server frame: (first header byte, payload). Server frames are unmasked.
    pub fn read_frame(&mut self) -> (u8, Vec<u8>) {
        self.0.next_raw_frame().unwrap()
    }

    /// Reads the next text frame (answering nothing else: any other frame fails the test).
    pub fn read_text(&mut self) -> String {
        let (first, payload) = self.read_frame();
        assert_eq!(
            first, 0x81,
            "expected a text frame, got {first:#x} {payload:?}"
        );
        String::from_utf8(payload).unwrap()
    }

    /// Sends a request and returns the reply text.
    pub fn call(&mut self, request: &str) -> String {
        self.send_text(request);
        self.read_text()
    }

    /// `tools/call` of `name` with `arguments` (JSON) as request `id`; returns the reply.
    pub fn tool(&mut self, id: u32, name: &str, arguments: &str) -> String {
        self.call(&tool_request(id, name, arguments))
    }

    /// Closes our side for writing (the peer reads EOF).
    pub fn shutdown_write(&self) {
        self.0.shutdown_write().unwrap();
    }

    /// Drops the connection abruptly (RST when data is unread).
    pub fn vanish(self) {
        self.0.vanish();
    }
}

/// A `tools/call` request.
pub fn tool_request(id: u32, name: &str, arguments: &str) -> String {
    format!(
        r#"{{"jsonrpc":"2.0","id":{id},"method":"tools/call","params":{{"name":"{name}","arguments":{arguments}}}}}"#
    )
}

/// Proves the host still serves: a new client upgrades, initializes and gets `ping` answered.
pub fn assert_still_served(served: &Served) {
    let mut client = Client::initialized(served);
    assert_eq!(
        client.call(r#"{"jsonrpc":"2.0","id":"still","method":"ping"}"#),
        r#"{"jsonrpc":"2.0","id":"still","result":{}}"#
    );
    client.send(&frame(0x88, &1000u16.to_be_bytes()));
    assert_eq!(client.read_to_eof(), [0x88, 0x02, 0x03, 0xE8]);
}
