//! A remote link attached to the engine task: an `idelink bridge`'s byte stream (any
//! `AsyncRead` + `AsyncWrite`, such as a `tokio::process::Child`'s stdout and stdin) pumped
//! through core's [`LinkAttach`], which holds every rule; a reader task feeds the engine task
//! the stream's bytes, a writer task writes what the link queued.

use crate::conn::Inbound;
use crate::host::Host;
use crate::server::Command;
use idelink_core::link::{AttachEvent, Hello, LinkAttach};
use idelink_host::HostError;
use tokio::io::{AsyncRead, AsyncReadExt, AsyncWrite, AsyncWriteExt};
use tokio::sync::{mpsc, oneshot};
use tokio::task::JoinHandle;

/// A link's stream, boxed for the engine task.
pub(crate) type Input = Box<dyn AsyncRead + Unpin + Send>;
pub(crate) type Output = Box<dyn AsyncWrite + Unpin + Send>;

/// The news of an attached link: the bridge's hello, then the link's end (after which the
/// receiver yields `None`).
pub type LinkEvents = mpsc::UnboundedReceiver<AttachEvent>;

impl Host {
    /// Attaches a remote link: `input` is what the bridge writes (a spawned bridge's stdout),
    /// `output` what it reads (its stdin); `hello` is what the bridge writes into its lock (this
    /// host's token and name, the folders as the far side spells them). Each connection the
    /// bridge opens is then served by this host's engine as if accepted here, the bridge's port
    /// accepted in `Host`. Refused while another link is attached or once the host stopped.
    pub async fn attach_link(
        &self,
        hello: Hello,
        input: impl AsyncRead + Unpin + Send + 'static,
        output: impl AsyncWrite + Unpin + Send + 'static,
    ) -> Result<LinkEvents, HostError> {
        let (done, result) = oneshot::channel();
        let attach = Command::Attach {
            hello,
            input: Box::new(input),
            output: Box::new(output),
            done,
        };
        self.on_server(attach, result).await
    }
}

/// The engine task's attached link.
pub(crate) struct Attached {
    pub(crate) attach: LinkAttach,
    writer: mpsc::UnboundedSender<Vec<u8>>,
    events: mpsc::UnboundedSender<AttachEvent>,
    reader: JoinHandle<()>,
}

impl Attached {
    /// Spawns the stream's reader (feeding `inbound`) and writer; returns the link and the
    /// receiver of its news.
    pub(crate) fn spawn(
        attach: LinkAttach,
        mut input: Input,
        mut output: Output,
        read_chunk_bytes: usize,
        inbound: mpsc::Sender<Inbound>,
    ) -> (Attached, LinkEvents) {
        let reader = tokio::spawn(async move {
            let mut buf = vec![0u8; read_chunk_bytes.max(1)];
            loop {
                let read = match input.read(&mut buf).await {
                    Ok(0) | Err(_) => None,
                    Ok(n) => Some(buf[..n].to_vec()),
                };
                let end = read.is_none();
                if inbound.send(Inbound::Link(read)).await.is_err() || end {
                    return;
                }
            }
        });
        let (writer, mut queue) = mpsc::unbounded_channel::<Vec<u8>>();
        // Not aborted: it writes what was queued (the fault that says why, too) and closes the
        // stream once the link is gone, even after the engine task ended.
        tokio::spawn(async move {
            while let Some(bytes) = queue.recv().await {
                if output.write_all(&bytes).await.is_err() {
                    return;
                }
            }
            let _ = output.shutdown().await;
        });
        let (events, receiver) = mpsc::unbounded_channel();
        let link = Attached {
            attach,
            writer,
            events,
            reader,
        };
        (link, receiver)
    }

    /// Hands what the link queued to the writer (the link's credit bounds what is in flight
    /// per connection) and its news to the editor. True once the link is dead.
    pub(crate) fn flush(&mut self) -> bool {
        let bytes = self.attach.outbound().to_vec();
        if !bytes.is_empty() {
            let _ = self.attach.handle_sent(bytes.len());
            let _ = self.writer.send(bytes);
        }
        while let Some(event) = self.attach.poll_event() {
            let _ = self.events.send(event);
        }
        self.attach.link().dead().is_some()
    }
}

impl Drop for Attached {
    fn drop(&mut self) {
        self.reader.abort();
    }
}
