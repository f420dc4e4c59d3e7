//! The editor's event queue: every tool call and session event in the engine's order, with the
//! closes of connections that never authenticated folded into one counted event.
//!
//! Any local process can connect to the loopback port and hang up without the token; the
//! engine reports each such socket's end (`EngineEvent::Closed` with no `EngineEvent::Connected` before
//! it). Queued one by one, 3,000 connect/hang-ups are 3,000 events held until the editor reads
//! them, and an editor busy elsewhere holds them all. Here they are counted instead: the first
//! such close queues one [`HostEvent::HandshakesClosed`], and every later one until the editor
//! receives it only adds to its count. What the queue holds from unauthenticated sockets is one
//! event, however many came; tool calls and the events of authenticated connections are never
//! folded, dropped or reordered.

use crate::host::HostEvent;
use idelink_core::{CloseReason, ConnId, EngineEvent};
use std::collections::HashSet;
use std::sync::{Arc, Mutex, MutexGuard, PoisonError};
use tokio::sync::mpsc;
use tokio::sync::mpsc::error::TryRecvError;

/// What the queue holds: an event, or the place of the pending handshake-close count.
enum Queued {
    Event(HostEvent),
    HandshakesClosed,
}

/// The handshake-stage closes not yet handed to the editor: their count and the latest one's
/// reason. `Some` exactly while a [`Queued::HandshakesClosed`] is in the queue (a further close
/// only counts).
#[derive(Default)]
struct Tally {
    pending: Option<(u64, CloseReason)>,
}

fn lock(tally: &Mutex<Tally>) -> MutexGuard<'_, Tally> {
    tally.lock().unwrap_or_else(PoisonError::into_inner)
}

/// The engine task's end of the queue.
pub(crate) struct EventSink {
    queue: mpsc::UnboundedSender<Queued>,
    tally: Arc<Mutex<Tally>>,
    /// Connections the engine reported `Connected` (authenticated) and not yet `Closed`: their
    /// close is reported as it is. Bounded by the engine's live connections.
    authenticated: HashSet<ConnId>,
}

/// The receiving end of the host's events. `None` from [`recv`](Self::recv) means the host
/// stopped.
pub struct Events {
    queue: mpsc::UnboundedReceiver<Queued>,
    tally: Arc<Mutex<Tally>>,
}

/// A new queue: the engine task's sink and the editor's receiver.
pub(crate) fn channel() -> (EventSink, Events) {
    let (queue, receiver) = mpsc::unbounded_channel();
    let tally = Arc::new(Mutex::new(Tally::default()));
    let sink = EventSink {
        queue,
        tally: Arc::clone(&tally),
        authenticated: HashSet::new(),
    };
    (
        sink,
        Events {
            queue: receiver,
            tally,
        },
    )
}

impl EventSink {
    /// Queues `event`, unless it is the close of a connection that never authenticated: that
    /// one is counted into the pending [`HostEvent::HandshakesClosed`] (queued if none is).
    pub(crate) fn send(&mut self, event: HostEvent) {
        match &event {
            HostEvent::Engine(EngineEvent::Connected { conn, .. }) => {
                self.authenticated.insert(*conn);
            }
            HostEvent::Engine(EngineEvent::Closed { conn, reason })
                if !self.authenticated.remove(conn) =>
            {
                let mut tally = lock(&self.tally);
                match &mut tally.pending {
                    Some((count, last)) => {
                        *count = count.saturating_add(1);
                        *last = reason.clone();
                    }
                    None => {
                        tally.pending = Some((1, reason.clone()));
                        let _ = self.queue.send(Queued::HandshakesClosed);
                    }
                }
                return;
            }
            _ => {}
        }
        let _ = self.queue.send(Queued::Event(event));
    }
}

impl Events {
    /// The next event, waiting for one; `None` once the host stopped and every event was
    /// received.
    pub async fn recv(&mut self) -> Option<HostEvent> {
        loop {
            let queued = self.queue.recv().await?;
            if let Some(event) = self.take(queued) {
                return Some(event);
            }
        }
    }

    /// The next event if one is queued, without waiting.
    pub fn try_recv(&mut self) -> Result<HostEvent, TryRecvError> {
        loop {
            let queued = self.queue.try_recv()?;
            if let Some(event) = self.take(queued) {
                return Ok(event);
            }
        }
    }

    /// How many events are queued (a pending handshake-close count is one).
    pub fn len(&self) -> usize {
        self.queue.len()
    }

    /// True when no event is queued.
    pub fn is_empty(&self) -> bool {
        self.queue.is_empty()
    }

    /// The event `queued` stands for: for a handshake-close place, the count taken now (the
    /// sink queues a place only with a count pending, so `None` is never returned in practice).
    fn take(&self, queued: Queued) -> Option<HostEvent> {
        match queued {
            Queued::Event(event) => Some(event),
            Queued::HandshakesClosed => lock(&self.tally)
                .pending
                .take()
                .map(|(count, last)| HostEvent::HandshakesClosed { count, last }),
        }
    }
}
