//! The loopback scenarios: each drives one server process and reports client-side rates and
//! latencies with the server's own CPU time and memory.

use crate::cli::IdleSample;
use crate::client::{self, Client};
use crate::procfs;
use crate::servers::{Kind, Server};
use crate::wire;
use std::io::{self, Write};
use std::path::Path;
use std::sync::Barrier;
use std::time::{Duration, Instant};

/// Calls made in a timed run, how long it took, and what it cost the server.
#[derive(Debug, Clone, Default)]
pub struct Load {
    /// Calls answered.
    pub calls: u64,
    /// Wall time of the run.
    pub seconds: f64,
    /// Each call's latency in microseconds (empty for pipelined runs).
    pub latencies_us: Vec<f64>,
    /// CPU time the server process used during the run.
    pub server_cpu_seconds: f64,
}

impl Load {
    /// Calls per second.
    pub fn rate(&self) -> f64 {
        self.calls as f64 / self.seconds
    }

    /// Server CPU microseconds per call.
    pub fn cpu_us_per_call(&self) -> f64 {
        self.server_cpu_seconds * 1e6 / self.calls.max(1) as f64
    }
}

/// Runs `work` against `server`, measuring the server's CPU time over it.
fn with_cpu(server: &Server, work: impl FnOnce() -> io::Result<Load>) -> io::Result<Load> {
    let before = procfs::cpu_seconds(server.pid())?;
    let mut load = work()?;
    load.server_cpu_seconds = procfs::cpu_seconds(server.pid())? - before;
    Ok(load)
}

/// One client making calls one after another for `duration` (after a short warm-up).
pub fn sequential(server: &Server, duration: Duration) -> io::Result<Load> {
    let mut client = Client::connect(server)?;
    for _ in 0..500 {
        client.round_trip()?;
    }
    with_cpu(server, || {
        let mut latencies = Vec::with_capacity(200_000);
        let start = Instant::now();
        while start.elapsed() < duration {
            let sent = Instant::now();
            client.round_trip()?;
            latencies.push(sent.elapsed().as_nanos() as f64 / 1e3);
        }
        Ok(Load {
            calls: latencies.len() as u64,
            seconds: start.elapsed().as_secs_f64(),
            latencies_us: latencies,
            server_cpu_seconds: 0.0,
        })
    })
}

/// `clients` clients, each keeping `depth` calls outstanding, for `duration`.
pub fn pipelined(
    server: &Server,
    clients: usize,
    depth: usize,
    duration: Duration,
) -> io::Result<Load> {
    let mut connected = (0..clients)
        .map(|_| Client::connect(server))
        .collect::<io::Result<Vec<_>>>()?;
    with_cpu(server, || {
        let barrier = Barrier::new(clients);
        let start = Instant::now();
        let counts = std::thread::scope(|scope| {
            let runs: Vec<_> = connected
                .iter_mut()
                .map(|client| {
                    let barrier = &barrier;
                    scope.spawn(move || -> io::Result<u64> {
                        barrier.wait();
                        let until = Instant::now() + duration;
                        for _ in 0..depth {
                            client.send_call()?;
                        }
                        let mut answered = 0;
                        while Instant::now() < until {
                            client.recv_answer()?;
                            answered += 1;
                            client.send_call()?;
                        }
                        for _ in 0..depth {
                            client.recv_answer()?;
                            answered += 1;
                        }
                        Ok(answered)
                    })
                })
                .collect();
            runs.into_iter()
                .map(|run| run.join().unwrap_or_else(|_| Err(panicked())))
                .collect::<io::Result<Vec<u64>>>()
        })?;
        Ok(Load {
            calls: counts.iter().sum(),
            seconds: start.elapsed().as_secs_f64(),
            latencies_us: Vec::new(),
            server_cpu_seconds: 0.0,
        })
    })
}

/// `clients` clients at once, each making calls one after another, for `duration`.
pub fn concurrent(server: &Server, clients: usize, duration: Duration) -> io::Result<Load> {
    let mut connected = (0..clients)
        .map(|_| Client::connect(server))
        .collect::<io::Result<Vec<_>>>()?;
    with_cpu(server, || {
        let barrier = Barrier::new(clients);
        let start = Instant::now();
        let latencies = std::thread::scope(|scope| {
            let runs: Vec<_> = connected
                .iter_mut()
                .map(|client| {
                    let barrier = &barrier;
                    scope.spawn(move || -> io::Result<Vec<f64>> {
                        barrier.wait();
                        let until = Instant::now() + duration;
                        let mut latencies = Vec::with_capacity(20_000);
                        while Instant::now() < until {
                            let sent = Instant::now();
                            client.round_trip()?;
                            latencies.push(sent.elapsed().as_nanos() as f64 / 1e3);
                        }
                        Ok(latencies)
                    })
                })
                .collect();
            runs.into_iter()
                .map(|run| run.join().unwrap_or_else(|_| Err(panicked())))
                .collect::<io::Result<Vec<Vec<f64>>>>()
        })?;
        let latencies: Vec<f64> = latencies.into_iter().flatten().collect();
        Ok(Load {
            calls: latencies.len() as u64,
            seconds: start.elapsed().as_secs_f64(),
            latencies_us: latencies,
            server_cpu_seconds: 0.0,
        })
    })
}

/// Upgrades (connect, request with the token, 101 read, close) one after another, at most
/// `max` of them or for `duration`; `calls` counts upgrades. Each connection is closed with a
/// reset (SO_LINGER 0), so thousands of them leave no TIME_WAIT sockets that would slow the
/// connects of whichever server is measured next.
pub fn handshakes(server: &Server, max: u32, duration: Duration) -> io::Result<Load> {
    repeat(server, max, duration, || {
        let (stream, _) = client::upgrade(server)?;
        socket2::SockRef::from(&stream).set_linger(Some(Duration::ZERO))
    })
}

/// Whole sessions as short as the protocol allows, one after another: connect, upgrade,
/// `initialize` and its answer, a close frame and the server's close frame back, then a reset.
/// Three round trips after the connect (for the echo floor: the same three messages echoed).
pub fn session_handshakes(server: &Server, max: u32, duration: Duration) -> io::Result<Load> {
    let initialize = wire::client_frame(wire::initialize());
    let mut close = Vec::new();
    idelink_test_client::push_client_frame(0x88, &1000u16.to_be_bytes(), &mut close);
    repeat(server, max, duration, || {
        let (mut stream, mut reader) = client::upgrade(server)?;
        stream.write_all(&initialize)?;
        reader.read_frame(&mut stream)?;
        stream.write_all(&close)?;
        let frame = reader.read_frame(&mut stream)?;
        if frame.opcode != 8 {
            return Err(io::Error::other(format!(
                "{}: answered a close with opcode {}",
                server.kind().name(),
                frame.opcode
            )));
        }
        socket2::SockRef::from(&stream).set_linger(Some(Duration::ZERO))
    })
}

/// `once` after a warm-up, at most `max` times or for `duration`, with the server's CPU time.
fn repeat(
    server: &Server,
    max: u32,
    duration: Duration,
    mut once: impl FnMut() -> io::Result<()>,
) -> io::Result<Load> {
    for _ in 0..20 {
        once()?;
    }
    with_cpu(server, || {
        let start = Instant::now();
        let mut done = 0u64;
        let mut latencies = Vec::new();
        while done < u64::from(max) && start.elapsed() < duration {
            let began = Instant::now();
            once()?;
            latencies.push(began.elapsed().as_nanos() as f64 / 1e3);
            done += 1;
        }
        Ok(Load {
            calls: done,
            seconds: start.elapsed().as_secs_f64(),
            latencies_us: latencies,
            server_cpu_seconds: 0.0,
        })
    })
}

/// One call carrying a large argument against a fresh server process.
#[derive(Debug, Clone, Copy)]
pub struct BigCall {
    /// From the first byte written to the answer read.
    pub seconds: f64,
    /// The server's resident set just before the call.
    pub rss_before: u64,
    /// The server's peak resident set during the call.
    pub peak_rss: u64,
    /// CPU time the server process used for the call.
    pub server_cpu_seconds: f64,
}

/// Starts a fresh `kind` server, connects, and makes one `openDiff` call whose file contents
/// are `bytes` long (the editor rejects it at once; the echo floor returns every byte).
pub fn big_argument(kind: Kind, bin_dir: &Path, bytes: usize) -> io::Result<BigCall> {
    big_call(
        kind,
        bin_dir,
        &wire::client_frame(&wire::open_diff_call(1, bytes)),
    )
}

/// Starts a fresh `kind` server, connects, and makes one `checkDocumentDirty` call on a path
/// `bytes` long: as big a message in, and the same bytes out inside a JSON string (the echo
/// floor returns the request).
pub fn big_answer(kind: Kind, bin_dir: &Path, bytes: usize) -> io::Result<BigCall> {
    big_call(
        kind,
        bin_dir,
        &wire::client_frame(&wire::dirty_call(1, bytes)),
    )
}

/// One call of `frame` against a fresh `kind` server.
fn big_call(kind: Kind, bin_dir: &Path, frame: &[u8]) -> io::Result<BigCall> {
    let server = Server::start(kind, bin_dir)?;
    let mut client = Client::connect(&server)?;
    let (rss_before, _) = procfs::rss_bytes(server.pid())?;
    procfs::reset_peak_rss(server.pid())?;
    let cpu_before = procfs::cpu_seconds(server.pid())?;
    let took = client.big_call(frame)?;
    let server_cpu_seconds = procfs::cpu_seconds(server.pid())? - cpu_before;
    let (_, peak_rss) = procfs::rss_bytes(server.pid())?;
    Ok(BigCall {
        seconds: took.as_secs_f64(),
        rss_before,
        peak_rss,
        server_cpu_seconds,
    })
}

/// Idle cost of one server: wakeups per minute and CPU milliseconds over the idle period.
#[derive(Debug, Clone, Copy)]
pub struct IdleCost {
    /// Context switches of all its threads, per minute.
    pub wakeups_per_minute: f64,
    /// CPU time over the period, in milliseconds.
    pub cpu_ms: f64,
}

/// Idle subjects: one process each, measured side by side over the same period (idle, they
/// hardly compete): `(label, pid)`.
pub fn idle(subjects: &[(String, u32)], period: Duration) -> io::Result<Vec<IdleCost>> {
    // Let the sessions' opening exchanges and the ready delay pass first.
    std::thread::sleep(Duration::from_secs(1));
    let before = subjects
        .iter()
        .map(|(_, pid)| IdleSample::take(*pid))
        .collect::<io::Result<Vec<_>>>()?;
    let start = Instant::now();
    std::thread::sleep(period);
    let seconds = start.elapsed().as_secs_f64();
    subjects
        .iter()
        .zip(&before)
        .map(|((_, pid), before)| {
            let (wakeups_per_minute, cpu_ms) = IdleSample::take(*pid)?.since(before, seconds);
            Ok(IdleCost {
                wakeups_per_minute,
                cpu_ms,
            })
        })
        .collect()
}

fn panicked() -> io::Error {
    io::Error::other("a client thread panicked")
}
