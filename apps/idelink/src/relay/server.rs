//! The relay's event loop: two loopback listeners (claude's, and the page's HTTP port), the
//! terminal's commands and the lock file, on one thread with mio. The state lives in three
//! owners that do not know each other: [`ClaudeConns`], [`PagePump`] (the page link's machine
//! and its sockets) and [`LinkLock`]; this loop carries what one tells it to the others.
//!
//! The loop owns the relay's one clock: each turn reads it once, after the wait, and hands
//! that [`Timestamp`] to every call of the turn; deadlines come back as `Timestamp`s too.

use super::claude::ClaudeConns;
use super::console::{self, Command};
use super::descriptors::{self, Spare};
use super::lock::LinkLock;
use super::page::PagePump;
use super::page_link::PageEvent;
use crate::signals::StopFlag;
use idelink_core::host_rules::PumpPolicy;
use idelink_core::ws::close_code;
use idelink_core::{AuthToken, Timestamp};
use mio::net::{TcpListener, TcpStream};
use mio::{Events, Interest, Poll, Token, Waker};
use std::io;
use std::net::{Ipv4Addr, SocketAddr};
use std::sync::Arc;
use std::sync::mpsc::Receiver;
use std::time::{Duration, Instant};

/// Which listener to accept from.
#[derive(Debug, Clone, Copy)]
enum Listener {
    Claude,
    Page,
}

impl Listener {
    /// This listener, of claude's and the page's.
    fn of<'a>(self, claude: &'a TcpListener, page: &'a TcpListener) -> &'a TcpListener {
        match self {
            Listener::Claude => claude,
            Listener::Page => page,
        }
    }
}

const CLAUDE_LISTENER: Token = Token(0);
const HTTP_LISTENER: Token = Token(1);
const WAKER: Token = Token(2);
/// Longest sleep: the stop flag and the lock file are checked at least this often.
const TICK: Duration = Duration::from_millis(250);

/// Listens on 127.0.0.1 at `port`, or an ephemeral port when None.
pub fn bind(port: Option<u16>) -> io::Result<TcpListener> {
    TcpListener::bind(SocketAddr::from((Ipv4Addr::LOCALHOST, port.unwrap_or(0))))
}

/// The relay: its listeners and the three owners of its state.
pub struct Relay {
    poll: Poll,
    claude_listener: TcpListener,
    http_listener: TcpListener,
    waker: Arc<Waker>,
    next_token: usize,
    claude: ClaudeConns,
    page: PagePump,
    lock: LinkLock,
    /// The origin of the relay's clock.
    epoch: Instant,
    /// The descriptor given up to shed a connection when none is left.
    spare: Spare,
    /// An accept failed for want of resources: try both listeners again at the next tick.
    accept_later: bool,
}

impl Relay {
    /// Both listeners registered; `page` and `lock` built by the caller around the same ports;
    /// claude's sockets pumped by `policy`. Nothing is written to disk until a page links.
    pub fn new(
        policy: PumpPolicy,
        poll: Poll,
        mut claude_listener: TcpListener,
        mut http_listener: TcpListener,
        page: PagePump,
        lock: LinkLock,
    ) -> io::Result<Relay> {
        poll.registry()
            .register(&mut claude_listener, CLAUDE_LISTENER, Interest::READABLE)?;
        poll.registry()
            .register(&mut http_listener, HTTP_LISTENER, Interest::READABLE)?;
        let waker = Arc::new(Waker::new(poll.registry(), WAKER)?);
        Ok(Relay {
            poll,
            claude_listener,
            http_listener,
            waker,
            next_token: 3,
            claude: ClaudeConns::new(policy),
            page,
            lock,
            epoch: Instant::now(),
            spare: Spare::new(),
            accept_later: false,
        })
    }

    /// Wakes the loop from another thread (signals, the terminal).
    pub fn waker(&self) -> Arc<Waker> {
        Arc::clone(&self.waker)
    }

    /// Serves until `stop` is set, then closes everything and removes the lock.
    pub fn run(&mut self, stop: &StopFlag) -> io::Result<()> {
        let commands = console::start(self.waker())?;
        let mut events = Events::with_capacity(256);
        while !stop.stop_requested() {
            let now = self.now();
            let timeout = [self.page.next_deadline(), self.claude.next_deadline()]
                .into_iter()
                .flatten()
                .map(|at| Duration::from_millis(at.millis_since(now)))
                .fold(TICK, Duration::min);
            if let Err(e) = self.poll.poll(&mut events, Some(timeout)) {
                if e.kind() == io::ErrorKind::Interrupted {
                    continue;
                }
                return Err(e);
            }
            let now = self.now();
            for event in events.iter() {
                match event.token() {
                    CLAUDE_LISTENER => self.accept_claude(now),
                    HTTP_LISTENER => self.accept_page(now),
                    WAKER => self.commands(now, &commands),
                    Token(t) if self.claude.contains(t) => {
                        let registry = self.poll.registry();
                        self.claude.ready(registry, now, event, &mut self.page);
                        self.page.set_downstream(now, self.claude.unread());
                    }
                    Token(t) if self.page.contains(t) => {
                        self.page.ready(now, event);
                        let registry = self.poll.registry();
                        self.claude.resume(registry, now, &mut self.page);
                    }
                    // A late event of a connection already gone.
                    Token(_) => {}
                }
                self.page_events(now);
            }
            if std::mem::take(&mut self.accept_later) {
                self.accept_claude(now);
                self.accept_page(now);
            }
            self.page.timers(now);
            self.claude.timers(self.poll.registry(), now);
            self.page_events(now);
            self.lock.check(now);
        }
        let now = self.now();
        self.page
            .close_link(now, close_code::GOING_AWAY, "the relay is stopping");
        self.page_events(now);
        println!("relay stopped");
        Ok(())
    }

    /// The relay's clock: milliseconds since the relay started.
    fn now(&self) -> Timestamp {
        let millis = u64::try_from(self.epoch.elapsed().as_millis()).unwrap_or(u64::MAX);
        Timestamp::from_millis(millis)
    }

    /// Accepts every connection waiting on claude's port.
    fn accept_claude(&mut self, now: Timestamp) {
        while let Some(stream) = self.accept_one(now, Listener::Claude) {
            let token = self.next_token();
            let registry = self.poll.registry();
            self.claude
                .accept(registry, now, stream, token, &mut self.page);
        }
    }

    /// Accepts every connection waiting on the page port.
    fn accept_page(&mut self, now: Timestamp) {
        while let Some(stream) = self.accept_one(now, Listener::Page) {
            let token = self.next_token();
            self.page.accept(now, stream, token);
        }
    }

    /// The next connection waiting on `which`, or None once none is (or the listener fails:
    /// then it is tried again at the next tick, as readiness may not be signalled again).
    /// Without a descriptor for it, the oldest connection that has not proven anything yet is
    /// closed to make one (the page port's first, then claude's); with none of those, it is
    /// accepted and closed at once from the spare descriptor.
    fn accept_one(&mut self, now: Timestamp, which: Listener) -> Option<TcpStream> {
        loop {
            match which
                .of(&self.claude_listener, &self.http_listener)
                .accept()
            {
                Ok((stream, _)) => return Some(stream),
                Err(e) if e.kind() == io::ErrorKind::WouldBlock => return None,
                Err(e) if descriptors::exhausted(&e) => {
                    let registry = self.poll.registry();
                    let freed = self.page.evict_oldest_pending(now)
                        || (self.claude).evict_oldest_unanswered(registry, now, &mut self.page);
                    let listener = which.of(&self.claude_listener, &self.http_listener);
                    if !freed && !self.spare.shed(listener) {
                        tracing::warn!("no descriptor left to accept a connection");
                        self.accept_later = true;
                        return None;
                    }
                }
                Err(e)
                    if matches!(
                        e.kind(),
                        io::ErrorKind::ConnectionAborted
                            | io::ErrorKind::ConnectionReset
                            | io::ErrorKind::Interrupted
                    ) => {}
                Err(e) => {
                    tracing::warn!("accept failed: {e}");
                    self.accept_later = true;
                    return None;
                }
            }
        }
    }

    /// Carries out what the page asked for, until it asks for nothing more (handing claude the
    /// page's bytes can resume reading the page, which can ask for more).
    fn page_events(&mut self, now: Timestamp) {
        loop {
            let events = self.page.take_events();
            if events.is_empty() {
                return;
            }
            self.carry_out(now, events);
        }
    }

    fn carry_out(&mut self, now: Timestamp, events: Vec<PageEvent>) {
        for event in events {
            let registry = self.poll.registry();
            match event {
                PageEvent::Linked { auth_token, fresh } => {
                    if fresh {
                        // Made under a token that no longer opens anything.
                        self.claude.close_all(registry);
                    }
                    if let Err(message) = self.lock.write(now, &auth_token) {
                        eprintln!("idelink: {message}");
                        self.page.report(now, &message);
                    }
                }
                PageEvent::Unlinked => {
                    self.lock.remove();
                    self.claude.close_all(registry);
                }
                PageEvent::Refused { reason } => println!("a page was refused the link: {reason}"),
                PageEvent::Replaced => println!("the page reloaded: the link moves to it"),
                PageEvent::Data { conn, bytes } => {
                    (self.claude).write(registry, now, conn, &bytes, &mut self.page);
                    self.page.set_downstream(now, self.claude.unread());
                }
                PageEvent::Close { conn } => {
                    (self.claude).close(registry, now, conn, &mut self.page);
                }
            }
        }
    }

    /// Carries out the terminal's commands.
    fn commands(&mut self, now: Timestamp, commands: &Receiver<Command>) {
        while let Ok(command) = commands.try_recv() {
            match command {
                Command::Rotate => match super::entropy() {
                    Ok(entropy) => {
                        self.page.rotate(now, AuthToken::from_entropy(entropy));
                        println!("link secret rotated; open {}", self.page.machine().url());
                        for url in self.page.machine().allowed_urls() {
                            println!("or open {url}");
                        }
                    }
                    Err(e) => eprintln!("idelink: cannot rotate the link secret: {e}"),
                },
            }
        }
    }

    /// A fresh token for a new connection.
    fn next_token(&mut self) -> usize {
        let token = self.next_token;
        self.next_token += 1;
        token
    }
}
