//! A remote link attached to the host: an `idelink bridge`'s byte stream (a spawned process's
//! stdout and stdin) pumped into the host's engine through core's
//! [`LinkAttach`](idelink_core::link::LinkAttach), which holds every rule; this file moves the
//! stream's bytes at the host's pump points.

use super::Host;
use crate::pipes::{LinkPipes, LinkStream};
use idelink_core::Output;
use idelink_core::link::{AttachEvent, Hello, LinkAttach, LinkConfig};
use mio::Token;
use std::io;

/// The mio token of the link's input (and, on Unix, its output: one token each).
pub(super) const LINK_IN: Token = Token(usize::MAX - 1);
pub(super) const LINK_OUT: Token = Token(usize::MAX - 2);

/// What the host calls with the link's news: the bridge's hello, then its end.
pub type OnLinkEvent = Box<dyn FnMut(&AttachEvent) + Send>;

/// The attached link: core's adapter and the stream it is pumped over.
pub(super) struct Attached {
    attach: LinkAttach,
    stream: LinkStream,
    on_event: OnLinkEvent,
}

impl Host {
    /// Whether a remote link is attached (a second [`Host::attach_link`] is refused).
    pub fn has_link(&self) -> bool {
        self.link.is_some()
    }

    /// Attaches a remote link: `pipes` is the bridge's stream (its stdout to read, its stdin
    /// to write, and any bytes read from it already, such as a hello peeked to learn the
    /// bridge's port); `hello` is what the bridge writes into its lock (this host's token and
    /// name, the folders as the far side spells them). Each connection the bridge opens is
    /// then served by this host's engine as if accepted here; the bridge's port is accepted in
    /// `Host`. `on_event` hears the bridge's hello and the link's end (the host then drops the
    /// stream: the bridge removes its lock and exits). One link at a time: a second replaces
    /// nothing and is refused.
    pub fn attach_link(
        &mut self,
        hello: &Hello,
        pipes: LinkPipes,
        on_event: OnLinkEvent,
    ) -> io::Result<()> {
        if self.link.is_some() {
            return Err(io::Error::other("a link is attached already"));
        }
        let now = self.now();
        let policy = *self.sockets.policy();
        let attach = LinkAttach::new(hello, LinkConfig::default(), policy, now)
            .map_err(|e| io::Error::new(io::ErrorKind::InvalidInput, e))?;
        let (stream, read) =
            pipes.register(self.poll.registry(), (LINK_IN, LINK_OUT), &self.waker)?;
        self.link = Some(Attached {
            attach,
            stream,
            on_event,
        });
        if !read.is_empty() {
            self.with_link(|link, host| {
                let now = host.now();
                link.attach
                    .handle_stream_bytes(&mut host.engine, now, &read);
            });
        }
        self.write_link();
        Ok(())
    }

    /// Reads the link's stream until it would block or ends, feeding the adapter.
    pub(super) fn read_link(&mut self) {
        loop {
            let now = self.now();
            let Some(link) = self.link.as_mut() else {
                return;
            };
            match link.stream.read(&mut self.read_buf) {
                Ok(n) if n > 0 => {
                    let bytes = &self.read_buf[..n];
                    link.attach
                        .handle_stream_bytes(&mut self.engine, now, bytes);
                    self.drain();
                }
                Err(e) if e.kind() == io::ErrorKind::WouldBlock => return,
                Err(e) if e.kind() == io::ErrorKind::Interrupted => {}
                // The end of the stream, or a read error: the link is dead.
                _ => {
                    link.attach.handle_stream_end(&mut self.engine, now);
                    return self.drain();
                }
            }
        }
    }

    /// Writes what the link has for its stream, as much as the pipe takes; hands the link's
    /// news to `on_event`, and drops the stream of a dead link once its last bytes went (or
    /// the pipe broke).
    pub(super) fn write_link(&mut self) {
        let Some(link) = self.link.as_mut() else {
            return;
        };
        let mut broken = false;
        while !link.attach.outbound().is_empty() {
            match link.stream.write(link.attach.outbound()) {
                Ok(n) => {
                    let _ = link.attach.handle_sent(n);
                }
                Err(e) if e.kind() == io::ErrorKind::Interrupted => {}
                Err(e) if e.kind() == io::ErrorKind::WouldBlock => break,
                Err(_) => {
                    broken = true;
                    break;
                }
            }
        }
        while let Some(event) = link.attach.poll_event() {
            (link.on_event)(&event);
        }
        let dead = link.attach.link().dead().is_some();
        if broken && !dead {
            let now = self.now();
            if let Some(link) = self.link.as_mut() {
                link.attach.handle_stream_end(&mut self.engine, now);
            }
            // Drains the connections' closes, then comes back here to drop the stream.
            return self.drain();
        }
        if dead
            && (broken || link.attach.outbound().is_empty())
            && let Some(mut link) = self.link.take()
        {
            link.stream.deregister(self.poll.registry());
        }
    }

    /// The link's timers (keepalive, a closing connection's linger), when due.
    pub(super) fn link_timeout(&mut self) {
        let now = self.now();
        self.with_link(|link, host| {
            if link.attach.poll_timeout().is_some_and(|at| at <= now) {
                link.attach.handle_timeout(&mut host.engine, now);
            }
        });
    }

    /// When the link's timers are next due.
    pub(super) fn link_deadline(&self) -> Option<idelink_core::Timestamp> {
        self.link.as_ref()?.attach.poll_timeout()
    }

    /// Ends the link (the bridge hears why and removes its lock).
    pub(super) fn shutdown_link(&mut self) {
        let now = self.now();
        self.with_link(|link, host| link.attach.shutdown(&mut host.engine, now));
    }

    /// True while the link carries connections.
    pub(super) fn link_busy(&self) -> bool {
        self.link
            .as_ref()
            .is_some_and(|link| !link.attach.is_empty())
    }

    /// One engine output: the link's own are performed by the adapter (`None`).
    pub(super) fn link_output(&mut self, output: Output) -> Option<Output> {
        let now = self.now();
        match self.link.as_mut() {
            Some(link) => link.attach.handle_output(&mut self.engine, now, output),
            None => Some(output),
        }
    }

    /// Runs `f` on the link and the host, then drains the engine (which writes the link).
    fn with_link(&mut self, f: impl FnOnce(&mut Attached, &mut Host)) {
        if let Some(mut link) = self.link.take() {
            f(&mut link, self);
            self.link = Some(link);
            self.drain();
        }
    }
}
