//! A remote link attached straight to an [`Engine`], sans-IO: every connection the bridge
//! opens on the link is an engine connection, as if the host had accepted a socket. The host
//! moves the link's stream bytes and calls this adapter at its pump points; every rule of
//! joining the two (accept, feed, credit, back-pressure, close, linger, keepalive, a dead link)
//! is here, once for every host.

use std::collections::VecDeque;

use super::end::{Link, LinkConfig, LinkConnId, LinkEvent, LinkRole};
use super::error::{LinkError, LinkFault};
use super::hello::Hello;
use super::ids::IdMap;
use crate::engine::{ConnId, Engine, Output};
use crate::host_rules::PumpPolicy;
use crate::time::Timestamp;

/// What the host hears of an attached link.
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub enum AttachEvent {
    /// The bridge said who it is (its port is accepted by the engine from now on).
    Hello(Hello),
    /// The link is dead; every connection it carried is closed in the engine. Write what
    /// [`LinkAttach::outbound`] still holds (a `Fault` that tells the bridge why), then close
    /// the stream.
    Dead(LinkFault),
}

/// One engine connection carried by the link.
struct Carried {
    link: LinkConnId,
    /// Feeding stopped: the engine holds too many unsent answer bytes for it.
    paused: bool,
    /// The engine closed it at this time: its last bytes are going out.
    closing_since: Option<Timestamp>,
}

/// An editor-side [`Link`] joined to an [`Engine`]: every connection the bridge opens on the
/// link is an engine connection, as if the host had accepted a socket.
///
/// ## Who calls what, in which order
///
/// The host owns the engine and the link's byte stream (a spawned bridge's stdout and stdin, or
/// any duplex stream). For every one of these inputs it calls the adapter, then drains the
/// engine:
///
/// - bytes read from the stream: [`LinkAttach::handle_stream_bytes`];
/// - the stream's end (EOF, a read error): [`LinkAttach::handle_stream_end`];
/// - the deadline of [`LinkAttach::poll_timeout`]: [`LinkAttach::handle_timeout`];
/// - the host ends the link: [`LinkAttach::shutdown`].
///
/// Draining the engine: every [`Engine::poll_output`] goes through [`LinkAttach::handle_output`]
/// first, which performs the outputs of the link's connections (`Transmit`, `CloseTransport`)
/// and hands back the others (events, and the outputs of the host's own sockets) for the host
/// to perform as usual. The host's other engine calls (editor events, tool outcomes, its own
/// sockets' bytes) drain the same way.
///
/// After each of these, the host writes [`LinkAttach::outbound`] to the stream (as much as it
/// takes) and reports it with [`LinkAttach::handle_sent`], reads [`LinkAttach::poll_event`]
/// (the bridge's hello, the link's end), and sleeps until the next stream input or the
/// earlier of [`LinkAttach::poll_timeout`] and the engine's own. The stream is read whenever
/// it has bytes: back-pressure is per connection, by the link's credit.
///
/// ## The rules
///
/// - An `Open` from the bridge is [`Engine::handle_accept`]; the bridge's hello names its
///   loopback port, which the engine then accepts in `Host` ([`Config::bridge_port`]).
/// - A connection's `Data` is fed to [`Engine::handle_bytes`] in pieces of the pump policy's
///   `read_chunk_bytes`, and credited back as it is fed. Like a socket host, the adapter stops
///   feeding a connection whose answers wait unsent at [`PumpPolicy::pause_reads_at_bytes`] and
///   resumes below [`PumpPolicy::resume_reads_below_bytes`]: its credit stops with it, so the
///   bridge stops reading that claude, and no other connection.
/// - The engine's bytes for a connection go out as `Data` within its credit; the rest waits for
///   the bridge's `Credit`.
/// - `CloseTransport`: the connection's input is dropped from then on, its last bytes go out,
///   then it is closed on the link and [`Engine::handle_closed`]; a connection whose bytes do not
///   go within the policy's `linger_ms` (a claude that does not read) is closed anyway.
/// - The bridge's `Close` (claude closed its socket): what it sent before is fed, then
///   [`Engine::handle_closed`]. A dead link closes every engine connection it carried.
///
/// [`Config::bridge_port`]: crate::Config::bridge_port
pub struct LinkAttach {
    link: Link,
    policy: PumpPolicy,
    by_link: IdMap<LinkConnId, ConnId>,
    carried: IdMap<ConnId, Carried>,
    events: VecDeque<AttachEvent>,
}

impl LinkAttach {
    /// An editor end of a link that starts by sending `hello` (what the bridge writes into its
    /// lock: the engine's token, the IDE's name, the folders as the far side sees them), its
    /// connections pumped by `policy`. `Err` when the hello is too large to send.
    pub fn new(
        hello: &Hello,
        config: LinkConfig,
        policy: PumpPolicy,
        now: Timestamp,
    ) -> Result<LinkAttach, LinkError> {
        Ok(LinkAttach {
            link: Link::new(LinkRole::Editor, config, hello, now)?,
            policy,
            by_link: IdMap::default(),
            carried: IdMap::default(),
            events: VecDeque::new(),
        })
    }

    /// The link itself (its peer's hello, whether it is dead, its connections).
    pub fn link(&self) -> &Link {
        &self.link
    }

    /// True when `conn` is one of the link's connections (its outputs are the adapter's).
    pub fn carries(&self, conn: ConnId) -> bool {
        self.carried.contains_key(&conn)
    }

    /// How many engine connections the link carries now.
    pub fn len(&self) -> usize {
        self.carried.len()
    }

    /// True when the link carries no connection.
    pub fn is_empty(&self) -> bool {
        self.carried.is_empty()
    }

    // ---- inputs from the stream and the clock ----

    /// Bytes the host read from the link's stream.
    pub fn handle_stream_bytes(&mut self, engine: &mut Engine, now: Timestamp, bytes: &[u8]) {
        self.link.handle_bytes(now, bytes);
        self.serve_link(engine, now);
    }

    /// The link's stream ended (EOF or a read error): every connection closes, the link dies.
    pub fn handle_stream_end(&mut self, engine: &mut Engine, now: Timestamp) {
        self.link.handle_eof();
        self.serve_link(engine, now);
    }

    /// The deadline from [`poll_timeout`](Self::poll_timeout) came (early or repeated calls are
    /// harmless): keepalive, and closing connections whose linger ran out.
    pub fn handle_timeout(&mut self, engine: &mut Engine, now: Timestamp) {
        self.link.handle_timeout(now);
        let expired: Vec<ConnId> = self
            .carried
            .iter()
            .filter(|(_, c)| {
                c.closing_since
                    .is_some_and(|t| self.policy.linger_expired(t, now))
            })
            .map(|(&conn, _)| conn)
            .collect();
        for conn in expired {
            self.forget(engine, now, conn);
        }
        self.serve_link(engine, now);
    }

    /// When [`handle_timeout`](Self::handle_timeout) is next due: the link's keepalive, or a
    /// closing connection's linger. `None` for a dead link.
    pub fn poll_timeout(&self) -> Option<Timestamp> {
        let keepalive = self.link.poll_timeout()?;
        let lingers = self.carried.values().filter_map(|c| c.closing_since);
        let linger = lingers.map(|t| self.policy.linger_deadline(t)).min();
        Some(linger.map_or(keepalive, |l| l.min(keepalive)))
    }

    /// The host ends the link: the bridge is told (and removes its lock), every connection it
    /// carried is closed in the engine at once. Give clients a close first with
    /// [`Engine::shutdown`] and a moment to flush, if they should hear one.
    pub fn shutdown(&mut self, engine: &mut Engine, now: Timestamp) {
        self.link.shutdown();
        self.serve_link(engine, now);
    }

    // ---- the engine's outputs ----

    /// One output from [`Engine::poll_output`]: a `Transmit` or `CloseTransport` of a link
    /// connection is performed here (`None`); anything else comes back for the host.
    pub fn handle_output(
        &mut self,
        engine: &mut Engine,
        now: Timestamp,
        output: Output,
    ) -> Option<Output> {
        match output {
            Output::Transmit { conn } if self.carries(conn) => self.flush(engine, now, conn),
            Output::CloseTransport { conn } if self.carries(conn) => {
                if let Some(c) = self.carried.get_mut(&conn) {
                    c.closing_since.get_or_insert(now);
                }
                self.flush(engine, now, conn);
            }
            other => return Some(other),
        }
        None
    }

    // ---- outputs to the host ----

    /// Bytes to write to the link's stream.
    pub fn outbound(&self) -> &[u8] {
        self.link.outbound()
    }

    /// The host wrote the first `n` bytes of [`outbound`](Self::outbound).
    pub fn handle_sent(&mut self, n: usize) -> Result<(), LinkError> {
        self.link.handle_sent(n)
    }

    /// The next thing the host should hear, in order.
    #[must_use]
    pub fn poll_event(&mut self) -> Option<AttachEvent> {
        self.events.pop_front()
    }

    // ---- internals ----

    /// Performs the link's events on the engine.
    fn serve_link(&mut self, engine: &mut Engine, now: Timestamp) {
        while let Some(event) = self.link.poll_event() {
            match event {
                LinkEvent::Hello(hello) => {
                    if let Some(port) = hello.port {
                        engine.accept_bridge_port(port);
                    }
                    self.events.push_back(AttachEvent::Hello(hello));
                }
                LinkEvent::Opened(link) => {
                    let conn = engine.handle_accept(now);
                    self.by_link.insert(link, conn);
                    let carried = Carried {
                        link,
                        paused: false,
                        closing_since: None,
                    };
                    self.carried.insert(conn, carried);
                }
                LinkEvent::Readable(link) => {
                    if let Some(&conn) = self.by_link.get(&link) {
                        self.feed(engine, now, conn, false);
                    }
                }
                LinkEvent::Writable(link) => {
                    if let Some(&conn) = self.by_link.get(&link) {
                        self.flush(engine, now, conn);
                    }
                }
                LinkEvent::Closed(link) => {
                    if let Some(&conn) = self.by_link.get(&link) {
                        // What claude sent before it closed is served (at most a window).
                        self.feed(engine, now, conn, true);
                        self.forget(engine, now, conn);
                    }
                }
                LinkEvent::Dead(fault) => self.events.push_back(AttachEvent::Dead(fault)),
            }
        }
    }

    /// Feeds what the link received for `conn` to the engine, a read's worth at a time, while
    /// the engine's unsent answers for it stay under the pause mark (`all`: regardless, for a
    /// connection claude closed). A closing connection's input is dropped.
    fn feed(&mut self, engine: &mut Engine, now: Timestamp, conn: ConnId, all: bool) {
        let Some(c) = self.carried.get_mut(&conn) else {
            return;
        };
        let link = c.link;
        loop {
            let Ok(held) = self.link.received(link) else {
                return;
            };
            if held.is_empty() {
                return;
            }
            if c.closing_since.is_some() {
                let _ = self.link.consume(link, held.len());
                return;
            }
            if !all && !self.policy.may_read(engine.outbound(conn).len()) {
                c.paused = true;
                return;
            }
            let n = held.len().min(self.policy.read_chunk_bytes.max(1));
            // The ids are the adapter's own: the engine knows every carried connection.
            let _ = engine.handle_bytes(now, conn, &held[..n]);
            let _ = self.link.consume(link, n);
        }
    }

    /// Sends the engine's bytes for `conn` within its credit; then finishes a closing
    /// connection whose bytes all went, or resumes feeding a paused one.
    fn flush(&mut self, engine: &mut Engine, now: Timestamp, conn: ConnId) {
        let Some(c) = self.carried.get(&conn) else {
            return;
        };
        let link = c.link;
        loop {
            let pending = engine.outbound(conn);
            if pending.is_empty() {
                break;
            }
            match self.link.send(link, pending) {
                Ok(0) => break,
                Ok(n) => {
                    let _ = engine.handle_sent(conn, n);
                }
                // Claude's side closed or the link died: its close is on its way to us.
                Err(_) => break,
            }
        }
        let unsent = engine.outbound(conn).len();
        let Some(c) = self.carried.get_mut(&conn) else {
            return;
        };
        if c.closing_since.is_some() && unsent == 0 {
            self.forget(engine, now, conn);
        } else if c.paused && self.policy.may_resume(unsent) {
            c.paused = false;
            self.feed(engine, now, conn, false);
        }
    }

    /// `conn` is done (its last bytes went, its linger ran out, claude closed it, or the link
    /// died): closed on the link (which tells the bridge unless the bridge closed it first;
    /// a dead link has nothing to tell), then in the engine.
    fn forget(&mut self, engine: &mut Engine, now: Timestamp, conn: ConnId) {
        if let Some(c) = self.carried.remove(&conn) {
            self.by_link.remove(&c.link);
            let _ = self.link.close(c.link);
            let _ = engine.handle_closed(now, conn);
        }
    }
}

#[cfg(test)]
mod tests;
