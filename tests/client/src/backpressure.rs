//! The back-pressure scenario every host must pass (issue 13): a client that pipelines
//! `tools/call` requests and does not read its answers. A host that keeps reading such a client
//! queues answers without bound; one that follows core's pump policy stops reading it once the
//! unsent answers reach the pause mark, so the client's writes stall, and serves it again,
//! every answer in order, once it reads.
//!
//! The scenario measures nothing itself: the caller compares the server process's peak memory
//! growth with [`PEAK_GROWTH_BOUND_BYTES`], the one bound every host is held to (the mio host
//! in-process, Node `startHost` through the `backpressure` binary, the relay).

use crate::Client;
use serde_json::json;
use std::io::{self, Write};
use std::time::Duration;

/// The peak memory a host may grow by while a client pipelines without reading: the default
/// pause mark (8 MiB of unsent answers) plus the queue's growth slack (a doubling buffer may
/// hold 16 MiB), one read's worth of answers, and a runtime's own buffers and garbage.
pub const PEAK_GROWTH_BOUND_BYTES: u64 = 64 << 20;

/// How long the client's writes must make no progress before it concludes that the server
/// stopped reading it. A deadline, not a measurement: a slow machine only waits longer.
pub const STALL: Duration = Duration::from_secs(2);

/// The client gives up pipelining after this many request bytes even if the server keeps
/// reading (an unbounded server then holds far more than the bound, or closes the client).
pub const MAX_REQUEST_BYTES: usize = 256 << 20;

/// What the scenario saw.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Report {
    /// Requests written before the server stopped reading (and the one cut short, finished
    /// afterwards).
    pub requests: u64,
    /// Request bytes written before the writes stalled.
    pub request_bytes: usize,
    /// Answer bytes read afterwards (all of them, in order).
    pub answer_bytes: usize,
}

/// Runs the scenario against the server at `port`: initializes, pipelines
/// `tools/call getWorkspaceFolders` until the writes stall for [`STALL`], then reads every
/// answer and checks that each arrives once, in order. An `Err` says what went wrong (the server
/// closed the client, an answer is missing or out of order, the writes never stalled).
pub fn pipeline_without_reading(port: u16, token: &str) -> io::Result<Report> {
    let mut client = Client::connect_initialized(port, token)?;
    let first_id = client.next_id;
    client.stream.set_write_timeout(Some(STALL))?;
    let mut batch = Vec::with_capacity(64 << 10);
    let mut request_bytes = 0;
    let rest = loop {
        // A batch of whole frames; `ends` marks where each one ends.
        batch.clear();
        let mut ends = Vec::new();
        while batch.len() < 60 << 10 {
            let id = client.next_id;
            client.next_id += 1;
            let call = json!({"jsonrpc": "2.0", "id": id, "method": "tools/call",
                "params": {"name": "getWorkspaceFolders", "arguments": {}}});
            crate::push_client_frame(0x81, call.to_string().as_bytes(), &mut batch);
            ends.push(batch.len());
        }
        let mut written = 0;
        while written < batch.len() {
            match client.stream.write(&batch[written..]) {
                Ok(0) => return Err(io::Error::other("the server closed the connection")),
                Ok(n) => written += n,
                Err(e)
                    if matches!(
                        e.kind(),
                        io::ErrorKind::WouldBlock | io::ErrorKind::TimedOut
                    ) =>
                {
                    break;
                }
                Err(e) if e.kind() == io::ErrorKind::Interrupted => {}
                Err(e) => return Err(e),
            }
        }
        request_bytes += written;
        if written < batch.len() {
            // Stalled: the frames not begun are never sent; the one cut short is finished later.
            let whole = ends
                .iter()
                .position(|&end| end > written)
                .unwrap_or(ends.len());
            let started = if whole < ends.len() && (whole == 0 || ends[whole - 1] < written) {
                whole + 1
            } else {
                whole
            };
            let unsent = ends.len() - started;
            client.next_id -= unsent as u64;
            let end = if started == 0 { 0 } else { ends[started - 1] };
            break batch[written..end].to_vec();
        }
        if request_bytes >= MAX_REQUEST_BYTES {
            return Err(io::Error::other(format!(
                "the server read {request_bytes} request bytes without stalling the client: \
                 it does not pause a client that does not read"
            )));
        }
    };
    let requests = client.next_id - first_id;
    let answer_bytes = client.read_answers(first_id, requests, rest)?;
    Ok(Report {
        requests,
        request_bytes,
        answer_bytes,
    })
}

impl Client {
    /// Reads the answers to ids `first..first + count`, in order, while finishing the write of
    /// `rest` (the request the stall cut short) whenever the server takes it. Returns the answer
    /// bytes read.
    fn read_answers(&mut self, first: u64, count: u64, mut rest: Vec<u8>) -> io::Result<usize> {
        let mut bytes = 0;
        for id in first..first + count {
            if !rest.is_empty() {
                self.stream.set_nonblocking(true)?;
                let wrote = self.stream.write(&rest);
                self.stream.set_nonblocking(false)?;
                match wrote {
                    Ok(n) => drop(rest.drain(..n)),
                    Err(e) if e.kind() == io::ErrorKind::WouldBlock => {}
                    Err(e) => return Err(e),
                }
            }
            let text = loop {
                match self.next_frame()? {
                    crate::Frame::Text(text) => break text,
                    crate::Frame::Ping(payload) => self.send_frame(0xA, true, &payload)?,
                    crate::Frame::Close(code, reason) => {
                        return Err(io::Error::other(format!("closed: {code:?} {reason}")));
                    }
                    _ => {}
                }
            };
            bytes += text.len();
            let answer: serde_json::Value = serde_json::from_str(&text)
                .map_err(|e| io::Error::other(format!("server sent bad JSON {text}: {e}")))?;
            if answer.get("id") != Some(&json!(id)) || answer.get("result").is_none() {
                return Err(io::Error::other(format!(
                    "expected the answer to {id}, got {answer}"
                )));
            }
        }
        Ok(bytes)
    }
}

/// The peak resident memory of this process so far (`VmHWM`), in bytes; Linux only.
pub fn peak_rss_bytes() -> io::Result<u64> {
    status_field("VmHWM:")
}

/// The resident memory of this process now (`VmRSS`), in bytes; Linux only.
pub fn rss_bytes() -> io::Result<u64> {
    status_field("VmRSS:")
}

fn status_field(name: &str) -> io::Result<u64> {
    let status = std::fs::read_to_string("/proc/self/status")?;
    let line = status
        .lines()
        .find(|line| line.starts_with(name))
        .ok_or_else(|| io::Error::other(format!("no {name} in /proc/self/status")))?;
    let kib: u64 = line[name.len()..]
        .trim()
        .trim_end_matches("kB")
        .trim()
        .parse()
        .map_err(|e| io::Error::other(format!("{line}: {e}")))?;
    Ok(kib * 1024)
}
