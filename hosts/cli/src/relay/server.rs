//! The relay's event loop: two loopback listeners (claude's, and the page's HTTP port), their
//! connections, the page link's timers and the lock file, on one thread with mio.

use super::assets::Assets;
use super::files::Workspace;
use super::link::ToPage;
use super::page::{PageConn, Stage};
use crate::signals::StopFlag;
use idelink_core::lockfile::LockFile;
use idelink_core::{AuthToken, Timestamp};
use idelink_mio::lock::LockFileGuard;
use mio::net::{TcpListener, TcpStream};
use mio::{Events, Interest, Poll, Token, Waker};
use std::collections::BTreeMap;
use std::io;
use std::net::{Ipv4Addr, SocketAddr};
use std::path::PathBuf;
use std::sync::Arc;
use std::time::{Duration, Instant};

const CLAUDE_LISTENER: Token = Token(0);
const HTTP_LISTENER: Token = Token(1);
const WAKER: Token = Token(2);
/// Longest sleep: the stop flag and the lock file are checked at least this often.
const TICK: Duration = Duration::from_millis(250);
/// How often the lock file is checked for deletion while a page is linked.
const LOCK_CHECK: Duration = Duration::from_secs(1);
/// Bytes read from a socket at once; also the largest data message sent to the page.
pub(super) const READ_CHUNK: usize = 64 * 1024;

/// One claude connection: bytes the page sent for it wait in `out`.
pub(super) struct ClaudeConn {
    pub(super) stream: TcpStream,
    pub(super) out: Vec<u8>,
    /// The page asked to close it: close once `out` is written.
    pub(super) closing: bool,
    /// Everything went and our side is shut: read and discard until claude closes (closing
    /// with its unread bytes pending would reset our last bytes away), until this instant.
    pub(super) lingering_until: Option<Instant>,
    /// Reading stopped because the page link is backed up.
    pub(super) paused: bool,
}

/// What the lock file says, kept to write it whenever a page links.
pub(super) struct LockSpec {
    pub(super) dir: PathBuf,
    pub(super) ide_name: String,
    pub(super) workspace: String,
}

/// The whole relay state.
pub(super) struct Relay {
    pub(super) poll: Poll,
    pub(super) claude_listener: TcpListener,
    pub(super) claude_port: u16,
    pub(super) http_listener: TcpListener,
    pub(super) http_port: u16,
    pub(super) waker: Arc<Waker>,
    pub(super) claude: BTreeMap<usize, ClaudeConn>,
    pub(super) page: BTreeMap<usize, PageConn>,
    /// The page connection that is the authenticated link, if any.
    pub(super) link: Option<usize>,
    next_token: usize,
    pub(super) token: AuthToken,
    pub(super) secret: AuthToken,
    pub(super) lock_spec: LockSpec,
    pub(super) lock: Option<LockFileGuard>,
    lock_checked: Instant,
    origin: Instant,
    pub(super) workspace: Workspace,
    pub(super) assets: Assets,
    pub(super) read_buf: Box<[u8]>,
    /// Reused for every data message to the page.
    pub(super) scratch: Vec<u8>,
}

/// Listens on 127.0.0.1 at `port`, or an ephemeral port when None.
pub(super) fn bind(port: Option<u16>) -> io::Result<TcpListener> {
    TcpListener::bind(SocketAddr::from((Ipv4Addr::LOCALHOST, port.unwrap_or(0))))
}

impl Relay {
    /// Both listeners bound and registered; nothing is written to disk until a page links.
    pub(super) fn new(
        mut claude_listener: TcpListener,
        mut http_listener: TcpListener,
        lock_spec: LockSpec,
        workspace: Workspace,
        assets: Assets,
    ) -> io::Result<Relay> {
        let poll = Poll::new()?;
        poll.registry()
            .register(&mut claude_listener, CLAUDE_LISTENER, Interest::READABLE)?;
        poll.registry()
            .register(&mut http_listener, HTTP_LISTENER, Interest::READABLE)?;
        let waker = Arc::new(Waker::new(poll.registry(), WAKER)?);
        Ok(Relay {
            claude_port: claude_listener.local_addr()?.port(),
            http_port: http_listener.local_addr()?.port(),
            poll,
            claude_listener,
            http_listener,
            waker,
            claude: BTreeMap::new(),
            page: BTreeMap::new(),
            link: None,
            next_token: 3,
            token: AuthToken::from_entropy(entropy()?),
            secret: AuthToken::from_entropy(entropy()?),
            lock_spec,
            lock: None,
            lock_checked: Instant::now(),
            origin: Instant::now(),
            workspace,
            assets,
            read_buf: vec![0; READ_CHUNK].into_boxed_slice(),
            scratch: Vec::with_capacity(READ_CHUNK + 4),
        })
    }

    /// The URL that opens the editor page, secret in the fragment (never sent over HTTP).
    pub(super) fn page_url(&self) -> String {
        format!(
            "http://127.0.0.1:{}/#secret={}",
            self.http_port,
            self.secret.as_str()
        )
    }

    /// Serves until `stop` is set, then closes everything and removes the lock.
    pub(super) fn run(&mut self, stop: &StopFlag) -> io::Result<()> {
        let mut events = Events::with_capacity(256);
        while !stop.stop_requested() {
            let timeout = self.next_wakeup().min(TICK);
            if let Err(e) = self.poll.poll(&mut events, Some(timeout)) {
                if e.kind() == io::ErrorKind::Interrupted {
                    continue;
                }
                return Err(e);
            }
            for event in events.iter() {
                match event.token() {
                    CLAUDE_LISTENER => self.accept_claude(),
                    HTTP_LISTENER => self.accept_page(),
                    WAKER => {}
                    Token(t) if self.claude.contains_key(&t) => {
                        if event.is_writable() {
                            self.claude_writable(t);
                        }
                        if event.is_readable() || event.is_read_closed() {
                            self.claude_readable(t);
                        }
                    }
                    Token(t) => self.page_ready(t),
                }
            }
            self.timers();
        }
        self.shutdown();
        Ok(())
    }

    /// The page link ended (closed, lost, or replaced): the lock goes, and every claude
    /// connection is closed, as its engine is gone.
    pub(super) fn unlink(&mut self) {
        self.link = None;
        if let Some(lock) = self.lock.take() {
            drop(lock);
            println!("page gone: lock removed, claude connections closed");
        }
        let ids: Vec<usize> = self.claude.keys().copied().collect();
        for id in ids {
            self.drop_claude(id);
        }
    }

    /// Writes the lock for the linked page; on failure the page and the terminal are told.
    pub(super) fn write_lock(&mut self) {
        let contents = LockFile {
            pid: std::process::id(),
            workspace_folders: vec![self.lock_spec.workspace.clone()],
            ide_name: self.lock_spec.ide_name.clone(),
            auth_token: self.token.as_str().to_owned(),
            running_in_windows: false,
        };
        match LockFileGuard::create(&self.lock_spec.dir, self.claude_port, contents) {
            Ok(guard) => {
                println!(
                    "page linked: claude can connect (lock {})",
                    guard.path().display()
                );
                self.lock = Some(guard);
                self.lock_checked = Instant::now();
            }
            Err(e) => {
                eprintln!("idelink: {e}");
                let message = format!("the relay could not write the lock file: {e}");
                self.send_page(&ToPage::Error { message: &message });
            }
        }
    }

    /// The host's monotonic clock for the link's WebSocket timers.
    pub(super) fn now(&self) -> Timestamp {
        let millis = u64::try_from(self.origin.elapsed().as_millis()).unwrap_or(u64::MAX);
        Timestamp::from_millis(millis)
    }

    /// A fresh token for a new connection.
    pub(super) fn next_token(&mut self) -> usize {
        let token = self.next_token;
        self.next_token += 1;
        token
    }

    fn next_wakeup(&self) -> Duration {
        let now = Instant::now();
        let page = self
            .page
            .values()
            .filter_map(|conn| match &conn.stage {
                Stage::Head { deadline } | Stage::Answered { deadline } => {
                    Some(deadline.saturating_duration_since(now))
                }
                Stage::Link(ws) => ws.poll_timeout().map(|at| {
                    Duration::from_millis(at.as_millis().saturating_sub(self.now().as_millis()))
                }),
            })
            .min();
        page.unwrap_or(TICK)
    }

    fn timers(&mut self) {
        self.page_timers();
        self.claude_timers();
        if self.lock.is_some() && self.lock_checked.elapsed() >= LOCK_CHECK {
            self.lock_checked = Instant::now();
            if let Some(Err(e)) = self.lock.as_mut().map(LockFileGuard::restore_if_missing) {
                eprintln!("idelink: cannot restore the lock file: {e}");
            }
        }
    }

    fn shutdown(&mut self) {
        self.close_link("the relay is stopping");
        self.unlink();
        println!("relay stopped");
    }
}

fn entropy() -> io::Result<[u8; 16]> {
    let mut bytes = [0u8; 16];
    getrandom::fill(&mut bytes).map_err(|e| io::Error::other(format!("OS entropy: {e}")))?;
    Ok(bytes)
}
