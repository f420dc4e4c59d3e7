//! The page port's pump: moves bytes between the browser sockets and the sans-IO
//! [`PageLink`] machine, and carries out its [`PageOutput`]s. The sockets are `idelink_mio`'s
//! [`SocketTable`] under core's pump policy (reads pause while a page does not take its bytes,
//! measured on [`PageLink::unsent`]; answered connections linger); every decision about a
//! connection is the machine's. claude's side reaches the page through [`Uplink`].

use super::claude::Uplink;
use super::link::ToPage;
use super::page_link::{PageConnId, PageEvent, PageLink, PageOutput};
use idelink_core::host_rules::PumpPolicy;
use idelink_core::{AuthToken, Timestamp};
use idelink_mio::sockets::{Read, SocketTable, Write};
use mio::event::Event;
use mio::net::TcpStream;
use mio::{Registry, Token};

/// The browser sockets and the machine they feed.
pub struct PagePump {
    registry: Registry,
    table: SocketTable,
    machine: PageLink,
    read_buf: Box<[u8]>,
}

impl PagePump {
    /// Pumps `machine`'s connections by `policy`, registering them with `registry`.
    pub fn new(policy: PumpPolicy, registry: Registry, machine: PageLink) -> Self {
        PagePump {
            registry,
            table: SocketTable::new(policy),
            machine,
            read_buf: vec![0; policy.read_chunk_bytes].into_boxed_slice(),
        }
    }

    /// The machine (its URLs).
    pub fn machine(&self) -> &PageLink {
        &self.machine
    }

    /// What the relay must do, since the last call.
    pub fn take_events(&mut self) -> Vec<PageEvent> {
        self.machine.take_events()
    }

    /// Whether `token` is a browser connection.
    pub fn contains(&self, token: usize) -> bool {
        self.table.contains(Token(token))
    }

    /// Takes a new browser connection under `token` at `now` (the machine first evicts the
    /// oldest pending ones past their budget).
    pub fn accept(&mut self, now: Timestamp, stream: TcpStream, token: usize) {
        let conn = PageConnId(token);
        self.machine.handle_accept(now, conn);
        self.drain(now);
        if self
            .table
            .insert(&self.registry, Token(token), stream)
            .is_err()
        {
            self.machine.handle_closed(conn);
            return;
        }
        self.read(now, conn);
    }

    /// Closes the oldest browser connection that does not hold the link, at once; false when
    /// there is none.
    pub fn evict_oldest_pending(&mut self, now: Timestamp) -> bool {
        let evicted = self.machine.evict_oldest_pending();
        self.drain(now);
        evicted
    }

    /// Handles a readiness event of a browser connection at `now`.
    pub fn ready(&mut self, now: Timestamp, event: &Event) {
        let conn = PageConnId(event.token().0);
        let ready = self.table.handle_event(event);
        if ready.writable {
            self.flush(now, conn);
        }
        if ready.readable {
            self.read(now, conn);
        }
    }

    /// Claude's unread answers changed to `bytes`: reading the link pauses at the pump policy's
    /// mark and resumes below its resume mark, as for any connection whose answers back up.
    pub fn set_downstream(&mut self, now: Timestamp, bytes: usize) {
        self.machine.handle_downstream(bytes);
        if let Some(link) = self.machine.link()
            && self.table.resume(Token(link.0), self.machine.unsent(link))
        {
            self.read(now, link);
        }
    }

    /// The user asked for a new link URL at `now`: a fresh secret, the linked page unlinked.
    pub fn rotate(&mut self, now: Timestamp, secret: AuthToken) {
        self.machine.rotate(now, secret);
        self.drain(now);
    }

    /// Closes the link (if any) with a close frame, best effort, and drops it.
    pub fn close_link(&mut self, now: Timestamp, code: u16, reason: &str) {
        self.machine.close_link(now, code, reason);
        self.drain(now);
    }

    /// Tells the linked page about a problem of the relay's (an error answering no request).
    pub fn report(&mut self, now: Timestamp, message: &str) {
        self.machine.report(message);
        self.drain(now);
    }

    /// The next deadline of a browser connection: the machine's, or a linger.
    pub fn next_deadline(&self) -> Option<Timestamp> {
        let machine = self.machine.poll_timeout();
        machine.into_iter().chain(self.table.next_deadline()).min()
    }

    /// Runs the deadlines due at `now`: the lingers that ran out, then the machine's.
    pub fn timers(&mut self, now: Timestamp) {
        for token in self.table.expired(now) {
            self.gone(PageConnId(token.0));
        }
        self.machine.handle_timeout(now);
        self.drain(now);
    }

    /// Reads `conn` until it would block (or pauses), feeding the machine.
    fn read(&mut self, now: Timestamp, conn: PageConnId) {
        loop {
            let unsent = self.machine.unsent(conn);
            match self.table.read(Token(conn.0), &mut self.read_buf, unsent) {
                Read::Data(n) => {
                    self.machine.handle_bytes(now, conn, &self.read_buf[..n]);
                    self.drain(now);
                }
                Read::WouldBlock | Read::Paused => return,
                Read::Gone => {
                    self.gone(conn);
                    return;
                }
            }
        }
    }

    /// Carries out the machine's socket actions.
    fn drain(&mut self, now: Timestamp) {
        while let Some(output) = self.machine.poll_output() {
            match output {
                PageOutput::Transmit { conn } => self.flush(now, conn),
                PageOutput::Linger { conn, since } => self.table.close(Token(conn.0), since),
                PageOutput::ShutdownWrite { conn } => {
                    if self.table.shutdown_write(Token(conn.0)).is_err() {
                        self.gone(conn);
                    }
                }
                PageOutput::Drop { conn, last } => {
                    let _ = self.table.write(Token(conn.0), &last);
                    self.table.remove(&self.registry, Token(conn.0));
                }
            }
        }
    }

    /// Writes what `conn` has queued; reads a paused connection again once its queue drained.
    fn flush(&mut self, now: Timestamp, conn: PageConnId) {
        let token = Token(conn.0);
        match self.table.write(token, self.machine.outbound(conn)) {
            Write::Sent(n) => self.machine.handle_sent(conn, n),
            Write::Gone => {
                self.gone(conn);
                return;
            }
        }
        if self.table.resume(token, self.machine.unsent(conn)) {
            self.read(now, conn);
        }
    }

    /// `conn`'s socket ended or failed: closed, and the machine told.
    fn gone(&mut self, conn: PageConnId) {
        self.table.remove(&self.registry, Token(conn.0));
        self.machine.handle_closed(conn);
    }
}

impl Uplink for PagePump {
    fn linked(&self) -> bool {
        self.machine.link().is_some()
    }

    fn queued(&self) -> usize {
        self.machine
            .link()
            .map_or(0, |link| self.machine.outbound(link).len())
    }

    fn send(&mut self, now: Timestamp, message: &ToPage) {
        self.machine.send_text(&message.to_json());
        self.drain(now);
    }

    fn send_binary(&mut self, now: Timestamp, message: &[u8]) {
        self.machine.send_binary(message);
        self.drain(now);
    }
}
