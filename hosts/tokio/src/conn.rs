//! One client socket: a reader task that feeds the engine task, and a writer task that writes
//! what the engine queued. Their shared [`Backlog`] is core's pump policy at work: the bytes
//! handed to the writer and not yet written; the reader stops reading at the pause mark and
//! reads again below the resume mark.

use idelink_core::host_rules::PumpPolicy;
use idelink_core::{ConnId, Timestamp};
use std::sync::Arc;
use std::sync::atomic::{AtomicUsize, Ordering};
use tokio::io::{AsyncReadExt, AsyncWriteExt};
use tokio::net::TcpStream;
use tokio::net::tcp::{OwnedReadHalf, OwnedWriteHalf};
use tokio::sync::{Notify, mpsc};
use tokio::task::JoinHandle;

/// What a connection's tasks tell the engine task.
#[derive(Debug)]
pub(crate) enum Inbound {
    /// Bytes read from the socket.
    Bytes(ConnId, Vec<u8>),
    /// The socket is gone: EOF, an error, or the flush after the engine's close finished (or
    /// its linger ran out).
    Gone(ConnId),
    /// The writer wrote everything it was handed: the engine task may hand it more.
    Written(ConnId),
    /// Bytes read from an attached link's stream (`None`: its end).
    Link(Option<Vec<u8>>),
}

/// What the engine task tells a connection's writer.
enum Outbound {
    Bytes(Vec<u8>),
    /// Write what is queued, then close, within the linger.
    Close,
}

/// The bytes handed to the writer and not yet written, and the signal that they went down.
struct Backlog {
    unsent: AtomicUsize,
    drained: Notify,
}

/// The engine task's handle on one connection.
pub(crate) struct Connection {
    outbound: mpsc::UnboundedSender<Outbound>,
    backlog: Arc<Backlog>,
    reader: JoinHandle<()>,
    writer: JoinHandle<()>,
    /// When the engine closed it (its linger runs from then).
    closing_since: Option<Timestamp>,
}

impl Connection {
    /// Splits `stream` and spawns its reader and writer.
    pub(crate) fn spawn(
        conn: ConnId,
        stream: TcpStream,
        policy: PumpPolicy,
        inbound: mpsc::Sender<Inbound>,
    ) -> Connection {
        let _ = stream.set_nodelay(true);
        let (read, write) = stream.into_split();
        let backlog = Arc::new(Backlog {
            unsent: AtomicUsize::new(0),
            drained: Notify::new(),
        });
        let (outbound, queue) = mpsc::unbounded_channel();
        let reader = tokio::spawn(read_loop(
            conn,
            read,
            policy,
            Arc::clone(&backlog),
            inbound.clone(),
        ));
        let writer = tokio::spawn(write_loop(
            conn,
            write,
            queue,
            Arc::clone(&backlog),
            inbound,
        ));
        Connection {
            outbound,
            backlog,
            reader,
            writer,
            closing_since: None,
        }
    }

    /// The bytes handed to the writer and not yet written.
    pub(crate) fn unsent(&self) -> usize {
        self.backlog.unsent.load(Ordering::Acquire)
    }

    /// Queues `bytes` for the socket (counted in the backlog until written).
    pub(crate) fn send(&self, bytes: Vec<u8>) {
        self.backlog.unsent.fetch_add(bytes.len(), Ordering::AcqRel);
        let _ = self.outbound.send(Outbound::Bytes(bytes));
    }

    /// The engine closed the connection at `now`: its input is discarded from now on, its last
    /// bytes flushed, then it reports [`Inbound::Gone`]. The engine task drops it when the
    /// linger runs out first ([`closing_since`](Self::closing_since)).
    pub(crate) fn close(&mut self, now: Timestamp) {
        self.reader.abort();
        self.closing_since.get_or_insert(now);
        let _ = self.outbound.send(Outbound::Close);
    }

    /// When the engine closed it, if it did.
    pub(crate) fn closing_since(&self) -> Option<Timestamp> {
        self.closing_since
    }
}

impl Drop for Connection {
    /// Forgotten by the engine task (the peer left, the flush finished or the linger ran out):
    /// both tasks stop and the socket is dropped.
    fn drop(&mut self) {
        self.reader.abort();
        self.writer.abort();
    }
}

async fn read_loop(
    conn: ConnId,
    mut read: OwnedReadHalf,
    policy: PumpPolicy,
    backlog: Arc<Backlog>,
    inbound: mpsc::Sender<Inbound>,
) {
    let mut buf = vec![0u8; policy.read_chunk_bytes.max(1)];
    loop {
        if !policy.may_read(backlog.unsent.load(Ordering::Acquire)) {
            // Paused: wait until the writer brings the backlog under the resume mark.
            while !policy.may_resume(backlog.unsent.load(Ordering::Acquire)) {
                backlog.drained.notified().await;
            }
        }
        match read.read(&mut buf).await {
            Ok(0) | Err(_) => break,
            Ok(n) => {
                if inbound
                    .send(Inbound::Bytes(conn, buf[..n].to_vec()))
                    .await
                    .is_err()
                {
                    return;
                }
            }
        }
    }
    let _ = inbound.send(Inbound::Gone(conn)).await;
}

async fn write_loop(
    conn: ConnId,
    mut write: OwnedWriteHalf,
    mut queue: mpsc::UnboundedReceiver<Outbound>,
    backlog: Arc<Backlog>,
    inbound: mpsc::Sender<Inbound>,
) {
    while let Some(item) = queue.recv().await {
        match item {
            Outbound::Bytes(bytes) => {
                let written = write.write_all(&bytes).await;
                let before = backlog.unsent.fetch_sub(bytes.len(), Ordering::AcqRel);
                backlog.drained.notify_one();
                if written.is_err() {
                    break;
                }
                if before == bytes.len() && inbound.send(Inbound::Written(conn)).await.is_err() {
                    return;
                }
            }
            Outbound::Close => {
                // Everything queued before the close has been written (the queue is in order).
                let _ = write.shutdown().await;
                break;
            }
        }
    }
    let _ = inbound.send(Inbound::Gone(conn)).await;
}
