//! The servers under test, each run as its own process so that its CPU time and memory are its
//! own: idelink's mio host, the tokio-tungstenite comparison server and the TCP echo floor.

use std::io::{self, BufRead, BufReader};
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};

/// A server the load client measures.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Kind {
    /// `idelink_mio::Host` (no lock file) answering from the engine.
    Idelink,
    /// tokio + tokio-tungstenite + serde_json `Value`, answering the same shapes.
    Tungstenite,
    /// A raw TCP echo of the same bytes (one mio thread, as the idelink host): the transport
    /// floor.
    Echo,
}

impl Kind {
    /// Every server, in report order.
    pub const ALL: [Kind; 3] = [Kind::Idelink, Kind::Tungstenite, Kind::Echo];

    /// The name results are reported under.
    pub fn name(self) -> &'static str {
        match self {
            Kind::Idelink => "idelink-mio",
            Kind::Tungstenite => "tokio-tungstenite",
            Kind::Echo => "tcp-echo",
        }
    }

    /// The example binary that runs it.
    fn binary(self) -> &'static str {
        match self {
            Kind::Idelink => "bench_server_idelink",
            Kind::Tungstenite => "bench_server_tungstenite",
            Kind::Echo => "bench_server_echo",
        }
    }

    /// The echo returns every byte, notifications included; the others answer requests only.
    pub fn echoes(self) -> bool {
        self == Kind::Echo
    }
}

/// A running server process; killed when dropped.
pub struct Server {
    kind: Kind,
    child: Child,
    port: u16,
    token: String,
}

impl Server {
    /// Starts `kind` from the example binaries in `bin_dir` and waits for it to print
    /// `<port> <token>`.
    pub fn start(kind: Kind, bin_dir: &Path) -> io::Result<Server> {
        let path = bin_dir.join(kind.binary());
        let mut child = Command::new(&path)
            .stdin(Stdio::null())
            .stdout(Stdio::piped())
            .stderr(Stdio::inherit())
            .spawn()
            .map_err(|e| io::Error::other(format!("cannot start {}: {e}", path.display())))?;
        let mut line = String::new();
        if let Some(stdout) = child.stdout.take() {
            BufReader::new(stdout).read_line(&mut line)?;
        }
        let mut words = line.split_whitespace();
        let port = words.next().and_then(|p| p.parse().ok());
        let token = words.next().unwrap_or("-").to_owned();
        let Some(port) = port else {
            let _ = child.kill();
            let _ = child.wait();
            return Err(io::Error::other(format!(
                "{} printed {line:?} instead of `<port> <token>`",
                path.display()
            )));
        };
        Ok(Server {
            kind,
            child,
            port,
            token,
        })
    }

    /// Which server this is.
    pub fn kind(&self) -> Kind {
        self.kind
    }

    /// Its process id (for `/proc`).
    pub fn pid(&self) -> u32 {
        self.child.id()
    }

    /// The loopback port it listens on.
    pub fn port(&self) -> u16 {
        self.port
    }

    /// The auth token it admits.
    pub fn token(&self) -> &str {
        &self.token
    }
}

impl Drop for Server {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

/// Where the example binaries are: `$IDELINK_BENCH_BIN_DIR`, else `examples/` beside the
/// `deps/` folder the running benchmark binary sits in.
pub fn bin_dir() -> io::Result<PathBuf> {
    if let Some(dir) = std::env::var_os("IDELINK_BENCH_BIN_DIR") {
        return Ok(PathBuf::from(dir));
    }
    let exe = std::env::current_exe()?;
    let profile_dir = exe.parent().and_then(Path::parent).ok_or_else(|| {
        io::Error::other(format!(
            "cannot locate the target folder from {}",
            exe.display()
        ))
    })?;
    let dir = profile_dir.join("examples");
    if dir.join(Kind::Idelink.binary()).exists() {
        Ok(dir)
    } else {
        Err(io::Error::other(format!(
            "no server binaries in {}: build them with \
             `cargo build --release -p idelink-benches --examples` (scripts/bench does)",
            dir.display()
        )))
    }
}
