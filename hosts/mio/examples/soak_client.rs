//! The load generator of `scripts/soak`: N concurrent clients, each connected once for the
//! whole run, each making calls at a steady rate until the time is up.
//!
//! ```sh
//! soak_client --port PORT --token TOKEN [--clients 100] [--seconds 60] [--rate 10]
//! ```
//!
//! Every client upgrades, initializes like the CLI, then loops: one call per `1/rate` seconds,
//! cycling through `ping`, `tools/list`, `getCurrentSelection`, `getDiagnostics` and
//! `openFile` (the one the editor answers), reading until its reply arrives and counting the
//! `selection_changed` pushes in between. A reply that is late by more than 10 s, malformed or
//! with the wrong id counts as an error and ends that client. The last line on stdout is a JSON
//! summary: calls sent and answered, errors, pushes received, latency percentiles.

use std::io::{self, Read, Write};
use std::net::TcpStream;
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::{Duration, Instant};

struct Options {
    port: u16,
    token: String,
    clients: usize,
    seconds: u64,
    rate: u32,
}

#[derive(Default)]
struct Tally {
    sent: u64,
    answered: u64,
    errors: Vec<String>,
    pushes: u64,
    latencies_us: Vec<u64>,
}

fn main() {
    let options = match parse(std::env::args().skip(1).collect()) {
        Ok(options) => options,
        Err(message) => {
            eprintln!(
                "soak_client: {message}\nusage: soak_client --port PORT --token TOKEN \
                 [--clients N] [--seconds S] [--rate CALLS_PER_SECOND_PER_CLIENT]"
            );
            std::process::exit(2);
        }
    };
    let start = Instant::now();
    let stop = Arc::new(AtomicBool::new(false));
    let end = start + Duration::from_secs(options.seconds);
    let options = Arc::new(options);
    let threads: Vec<_> = (0..options.clients)
        .map(|n| {
            let options = Arc::clone(&options);
            let stop = Arc::clone(&stop);
            std::thread::spawn(move || {
                let mut tally = Tally::default();
                if let Err(e) = client(n, &options, end, &stop, &mut tally) {
                    tally.errors.push(format!("client {n}: {e}"));
                }
                tally
            })
        })
        .collect();
    let mut total = Tally::default();
    for thread in threads {
        match thread.join() {
            Ok(tally) => {
                total.sent += tally.sent;
                total.answered += tally.answered;
                total.pushes += tally.pushes;
                total.errors.extend(tally.errors);
                total.latencies_us.extend(tally.latencies_us);
            }
            Err(_) => total.errors.push("a client thread panicked".to_owned()),
        }
    }
    stop.store(true, Ordering::Relaxed);
    total.latencies_us.sort_unstable();
    let percentile = |p: f64| -> u64 {
        let n = total.latencies_us.len();
        if n == 0 {
            return 0;
        }
        let at = ((n as f64 - 1.0) * p).round() as usize;
        total.latencies_us[at.min(n - 1)]
    };
    for error in total.errors.iter().take(10) {
        eprintln!("error: {error}");
    }
    let summary = serde_json::json!({
        "clients": options.clients,
        "seconds": options.seconds,
        "ratePerClient": options.rate,
        "callsSent": total.sent,
        "callsAnswered": total.answered,
        "errors": total.errors.len(),
        "selectionPushes": total.pushes,
        "latencyUs": {"p50": percentile(0.5), "p99": percentile(0.99), "max": percentile(1.0)},
        "elapsedMs": start.elapsed().as_millis() as u64,
    });
    println!("{summary}");
}

fn parse(args: Vec<String>) -> Result<Options, String> {
    let mut options = Options {
        port: 0,
        token: String::new(),
        clients: 100,
        seconds: 60,
        rate: 10,
    };
    let mut args = args.into_iter();
    while let Some(flag) = args.next() {
        let value = args.next().ok_or(format!("{flag} needs a value"))?;
        let number = || {
            value
                .parse::<u64>()
                .map_err(|_| format!("{flag}: not a number: {value}"))
        };
        match flag.as_str() {
            "--port" => options.port = u16::try_from(number()?).map_err(|e| e.to_string())?,
            "--token" => options.token = value,
            "--clients" => options.clients = number()? as usize,
            "--seconds" => options.seconds = number()?,
            "--rate" => {
                options.rate = u32::try_from(number()?.max(1)).map_err(|e| e.to_string())?
            }
            _ => return Err(format!("unknown flag {flag}")),
        }
    }
    if options.port == 0 || options.token.is_empty() {
        return Err("--port and --token are required".to_owned());
    }
    Ok(options)
}

const CALLS: [&str; 5] = [
    r#""method":"ping""#,
    r#""method":"tools/list""#,
    r#""method":"tools/call","params":{"name":"getCurrentSelection","arguments":{}}"#,
    r#""method":"tools/call","params":{"name":"getDiagnostics","arguments":{}}"#,
    r#""method":"tools/call","params":{"name":"openFile","arguments":{"filePath":"/soak/src/main.rs"}}"#,
];

fn client(
    n: usize,
    options: &Options,
    end: Instant,
    stop: &AtomicBool,
    tally: &mut Tally,
) -> io::Result<()> {
    let mut stream = TcpStream::connect(("127.0.0.1", options.port))?;
    stream.set_read_timeout(Some(Duration::from_secs(10)))?;
    stream.set_nodelay(true)?;
    let port = options.port;
    let request = format!(
        "GET / HTTP/1.1\r\nHost: 127.0.0.1:{port}\r\nConnection: Upgrade\r\nUpgrade: websocket\r\n\
         Sec-WebSocket-Version: 13\r\nSec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==\r\n\
         Sec-WebSocket-Protocol: mcp\r\nX-Claude-Code-Ide-Authorization: {}\r\n\r\n",
        options.token
    );
    stream.write_all(request.as_bytes())?;
    let mut reader = Reader::default();
    let head = reader.head(&mut stream)?;
    if !head.starts_with("HTTP/1.1 101 ") {
        return Err(io::Error::other(format!("not upgraded: {head}")));
    }
    let init = r#"{"jsonrpc":"2.0","id":0,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"soak","version":"1"}}}"#;
    send_text(&mut stream, init)?;
    reader.reply(&mut stream, 0, tally)?;
    send_text(
        &mut stream,
        r#"{"jsonrpc":"2.0","method":"notifications/initialized"}"#,
    )?;
    let interval = Duration::from_secs(1) / options.rate;
    // Spread the clients over one interval so the calls do not come in bursts.
    let mut next = Instant::now() + interval * (n as u32 % 100) / 100;
    let mut id: u64 = 0;
    while next < end && !stop.load(Ordering::Relaxed) {
        std::thread::sleep(next.saturating_duration_since(Instant::now()));
        next += interval;
        id += 1;
        let call = CALLS[(id as usize + n) % CALLS.len()];
        let sent = Instant::now();
        send_text(
            &mut stream,
            &format!(r#"{{"jsonrpc":"2.0","id":{id},{call}}}"#),
        )?;
        tally.sent += 1;
        reader.reply(&mut stream, id, tally)?;
        tally.answered += 1;
        tally.latencies_us.push(sent.elapsed().as_micros() as u64);
    }
    stream.write_all(&idelink_test_client::client_frame(
        0x88,
        &1000u16.to_be_bytes(),
    ))?;
    Ok(())
}

fn send_text(stream: &mut TcpStream, text: &str) -> io::Result<()> {
    stream.write_all(&idelink_test_client::client_frame(0x81, text.as_bytes()))
}

#[derive(Default)]
struct Reader {
    buf: Vec<u8>,
}

impl Reader {
    fn fill(&mut self, stream: &mut TcpStream) -> io::Result<()> {
        let mut chunk = [0u8; 16384];
        let n = stream.read(&mut chunk)?;
        if n == 0 {
            return Err(io::Error::new(
                io::ErrorKind::UnexpectedEof,
                "server closed",
            ));
        }
        self.buf.extend_from_slice(&chunk[..n]);
        Ok(())
    }

    fn head(&mut self, stream: &mut TcpStream) -> io::Result<String> {
        loop {
            if let Some(end) = self.buf.windows(4).position(|w| w == b"\r\n\r\n") {
                let head: Vec<u8> = self.buf.drain(..end + 4).collect();
                return Ok(String::from_utf8_lossy(&head).into_owned());
            }
            self.fill(stream)?;
        }
    }

    /// Reads frames until the reply to `id`; answers pings, counts pushes.
    fn reply(&mut self, stream: &mut TcpStream, id: u64, tally: &mut Tally) -> io::Result<()> {
        loop {
            let Some((first, payload)) = self.frame(stream)? else {
                continue;
            };
            match first & 0x0F {
                0x9 => stream.write_all(&idelink_test_client::client_frame(0x8A, &payload))?,
                0x1 => {
                    let message: serde_json::Value = serde_json::from_slice(&payload)
                        .map_err(|e| io::Error::other(format!("reply is not JSON: {e}")))?;
                    if message["method"] == "selection_changed" {
                        tally.pushes += 1;
                    } else if message["id"] == id && message.get("result").is_some() {
                        return Ok(());
                    } else {
                        return Err(io::Error::other(format!("unexpected reply: {message}")));
                    }
                }
                other => return Err(io::Error::other(format!("unexpected opcode {other:#x}"))),
            }
        }
    }

    /// One complete server frame, or None after reading more bytes.
    fn frame(&mut self, stream: &mut TcpStream) -> io::Result<Option<(u8, Vec<u8>)>> {
        let parsed = match (self.buf.first(), self.buf.get(1)) {
            (Some(&first), Some(&second)) => {
                let (len, at): (usize, usize) = match second & 0x7F {
                    126 if self.buf.len() >= 4 => (
                        usize::from(u16::from_be_bytes([self.buf[2], self.buf[3]])),
                        4,
                    ),
                    127 if self.buf.len() >= 10 => {
                        let mut bytes = [0u8; 8];
                        bytes.copy_from_slice(&self.buf[2..10]);
                        (u64::from_be_bytes(bytes) as usize, 10)
                    }
                    126 | 127 => (usize::MAX, 0),
                    len => (usize::from(len), 2),
                };
                let complete =
                    at > 0 && at.checked_add(len).is_some_and(|end| self.buf.len() >= end);
                complete.then_some((first, at, len))
            }
            _ => None,
        };
        match parsed {
            Some((first, at, len)) => {
                let payload = self.buf[at..at + len].to_vec();
                self.buf.drain(..at + len);
                Ok(Some((first, payload)))
            }
            None => self.fill(stream).map(|()| None),
        }
    }
}
