//! The remote link's cost: `idelink serve --stdio --remote "idelink bridge"` with the bridge on
//! the same machine over a local pipe, against the same `serve` dialled directly on its own
//! loopback port, both measured in the same run, taking turns in every round.

use crate::cli::Scratch;
use crate::wire::{self, FrameReader};
use std::io::{self, Read, Write};
use std::net::TcpStream;
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

/// How long a `serve` (and its bridge) may take to write its lock.
const START_DEADLINE: Duration = Duration::from_secs(10);

/// The `idelink` binary: `$IDELINK_BENCH_CLI`, else `idelink` in the profile folder the running
/// benchmark binary's `deps/` folder sits in.
pub fn binary() -> io::Result<PathBuf> {
    if let Some(path) = std::env::var_os("IDELINK_BENCH_CLI") {
        return Ok(PathBuf::from(path));
    }
    let exe = std::env::current_exe()?;
    let path = exe
        .parent()
        .and_then(Path::parent)
        .map(|profile| profile.join("idelink"))
        .filter(|path| path.exists());
    path.ok_or_else(|| {
        io::Error::other(
            "no idelink binary: `cargo build --release -p idelink` (scripts/bench does)",
        )
    })
}

/// How claude reaches the engine.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Route {
    /// Through `idelink bridge` (its own port and lock) and the link over a local pipe.
    Bridge,
    /// The engine's own loopback port.
    Direct,
}

impl Route {
    /// Both, in the order they take turns.
    pub const ALL: [Route; 2] = [Route::Bridge, Route::Direct];

    /// The name in the results.
    pub fn name(self) -> &'static str {
        match self {
            Route::Bridge => "bridge",
            Route::Direct => "direct",
        }
    }
}

/// A running `idelink serve --stdio` (and its bridge), stdin held open.
pub struct Serve {
    child: Child,
    _scratch: Scratch,
    /// The port claude dials: the bridge's, or the engine's own.
    pub port: u16,
    /// The token in the lock claude reads.
    pub token: String,
}

impl Serve {
    /// Starts `serve` on a scratch workspace, reached by `route`, and waits for its lock.
    pub fn start(cli: &Path, route: Route) -> io::Result<Serve> {
        let scratch = Scratch::new(route.name())?;
        let far = scratch.locks().with_file_name("far-ide");
        std::fs::create_dir_all(&far)?;
        let mut command = Command::new(cli);
        command.args(["serve", "--stdio", "--lock-dir"]);
        command.arg(scratch.locks());
        if route == Route::Bridge {
            let bridge = format!(
                "exec '{}' bridge --lock-dir '{}'",
                cli.display(),
                far.display()
            );
            command.args(["--remote", &bridge]);
        }
        let child = command
            .arg(scratch.work())
            .stdin(Stdio::piped())
            .stdout(Stdio::null())
            .stderr(Stdio::null())
            .spawn()?;
        let locks = if route == Route::Bridge {
            far
        } else {
            scratch.locks()
        };
        let start = Instant::now();
        let (port, token) = loop {
            if let Some(found) = read_lock(&locks) {
                break found;
            }
            if start.elapsed() > START_DEADLINE {
                return Err(io::Error::other(format!(
                    "idelink serve ({}) wrote no lock within 10 s",
                    route.name()
                )));
            }
            std::thread::sleep(Duration::from_millis(2));
        };
        Ok(Serve {
            child,
            _scratch: scratch,
            port,
            token,
        })
    }

    /// An initialized session on it.
    pub fn session(&self) -> io::Result<Session> {
        let (mut stream, mut reader) = crate::client::upgrade_to(self.port, &self.token, false)?;
        stream.write_all(&wire::client_frame(wire::initialize()))?;
        answer(&mut reader, &mut stream, 0)?;
        stream.write_all(&wire::client_frame(wire::initialized()))?;
        Ok(Session {
            stream,
            reader,
            call: wire::client_frame(&wire::selection_call(1)),
        })
    }
}

impl Drop for Serve {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

/// A whole lock in `dir`: its port (the file's name) and token.
fn read_lock(dir: &Path) -> Option<(u16, String)> {
    let lock = std::fs::read_dir(dir)
        .ok()?
        .filter_map(Result::ok)
        .map(|entry| entry.path())
        .find(|path| path.extension().is_some_and(|e| e == "lock"))?;
    let port = lock.file_stem()?.to_str()?.parse().ok()?;
    let body: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(&lock).ok()?).ok()?;
    Some((port, body["authToken"].as_str()?.to_owned()))
}

/// Reads frames up to the answer to call `id` (past notifications, pings and the engine's own
/// requests such as `roots/list`, left unanswered); returns its payload's length (an error
/// answer, as an error).
fn answer(reader: &mut FrameReader, stream: &mut TcpStream, id: u64) -> io::Result<usize> {
    let result = format!(r#"{{"jsonrpc":"2.0","id":{id},"result""#);
    let error = format!(r#"{{"jsonrpc":"2.0","id":{id},"error""#);
    loop {
        let frame = reader.read_frame(stream)?;
        let payload = reader.payload(frame);
        match frame.opcode {
            1 if payload.starts_with(result.as_bytes()) => return Ok(frame.len()),
            1 if payload.starts_with(error.as_bytes()) => {
                let text = String::from_utf8_lossy(payload).into_owned();
                return Err(io::Error::other(format!("call {id} failed: {text}")));
            }
            8 => return Err(io::Error::other("the server closed the WebSocket")),
            _ => {}
        }
    }
}

/// The floor of what the bridge adds to a round trip, in microseconds per round trip made
/// within `duration` (after a warm-up): `bytes` written through one more process and read back,
/// over a pipe each way (`cat`). Through the bridge a call goes claude → bridge (TCP) → editor
/// (pipe) and back; directly claude → editor (TCP): the difference is at least one such trip.
pub fn pipe_echo_round_trips(bytes: usize, duration: Duration) -> io::Result<Vec<f64>> {
    let mut cat = Command::new("cat")
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .spawn()?;
    let (Some(mut input), Some(mut output)) = (cat.stdin.take(), cat.stdout.take()) else {
        return Err(io::Error::other("cat has no pipes"));
    };
    let message = vec![b'x'; bytes];
    let mut echoed = vec![0; bytes];
    let mut trip = || -> io::Result<()> {
        input.write_all(&message)?;
        output.read_exact(&mut echoed)
    };
    for _ in 0..200 {
        trip()?;
    }
    let mut latencies = Vec::with_capacity(100_000);
    let start = Instant::now();
    while start.elapsed() < duration {
        let sent = Instant::now();
        trip()?;
        latencies.push(sent.elapsed().as_nanos() as f64 / 1e3);
    }
    drop(input);
    cat.wait()?;
    Ok(latencies)
}

/// One initialized client of a [`Serve`].
pub struct Session {
    stream: TcpStream,
    reader: FrameReader,
    call: Vec<u8>,
}

impl Session {
    /// The bytes of one small call as the client writes them.
    pub fn call_bytes(&self) -> usize {
        self.call.len()
    }

    /// Microseconds of each `tools/call getCurrentSelection` round trip made within `duration`
    /// (after a warm-up).
    pub fn round_trips(&mut self, duration: Duration) -> io::Result<Vec<f64>> {
        for _ in 0..200 {
            self.stream.write_all(&self.call)?;
            answer(&mut self.reader, &mut self.stream, 1)?;
        }
        let mut latencies = Vec::with_capacity(100_000);
        let start = Instant::now();
        while start.elapsed() < duration {
            let sent = Instant::now();
            self.stream.write_all(&self.call)?;
            answer(&mut self.reader, &mut self.stream, 1)?;
            latencies.push(sent.elapsed().as_nanos() as f64 / 1e3);
        }
        Ok(latencies)
    }

    /// One `checkDocumentDirty` with a `bytes`-long path (as many bytes back inside a JSON
    /// string): MiB per second of the bytes in and out, from the first written to the last
    /// read.
    pub fn big_answer(&mut self, bytes: usize) -> io::Result<f64> {
        let frame = wire::client_frame(&wire::dirty_call(2, bytes));
        let mut writer = self.stream.try_clone()?;
        let start = Instant::now();
        let answered = std::thread::scope(|scope| {
            let written = scope.spawn(move || writer.write_all(&frame));
            let answered = answer(&mut self.reader, &mut self.stream, 2);
            let written = written
                .join()
                .unwrap_or_else(|_| Err(io::Error::other("the writer thread panicked")));
            written.and(answered)
        })?;
        if answered < bytes {
            return Err(io::Error::other(format!(
                "a {answered}-byte answer to a {bytes}-byte path"
            )));
        }
        let moved = (bytes + answered) as f64 / f64::from(1u32 << 20);
        Ok(moved / start.elapsed().as_secs_f64())
    }
}
