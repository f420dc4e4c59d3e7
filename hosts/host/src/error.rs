//! Why a host could not start or rewrite its lock file.

use crate::lock::LockError;
use std::fmt;
use std::io;

/// Why the host could not start (or rewrite its lock); the message says what to do.
#[derive(Debug)]
#[non_exhaustive]
pub enum HostError {
    /// The run is headless or automated and the embedder did not opt in to serving.
    HeadlessNotEnabled,
    /// No port in the configured range could be bound on 127.0.0.1.
    Bind {
        /// What was tried.
        ports: String,
        /// The last OS error.
        source: io::Error,
    },
    /// The OS random source failed.
    Entropy(String),
    /// The lock file or its directory.
    Lock(LockError),
    /// Setting up the listener or the event loop failed.
    Io(io::Error),
}

impl fmt::Display for HostError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            HostError::HeadlessNotEnabled => write!(
                f,
                "not serving: this is a headless or automated run; set \
                 HostConfig::serve_when_headless to open the socket and write the lock anyway"
            ),
            // Windows words it "Only one usage of each socket address…": say it plainly.
            HostError::Bind { ports, source } if source.kind() == io::ErrorKind::AddrInUse => {
                write!(
                    f,
                    "cannot listen on 127.0.0.1 port {ports}: in use ({source})"
                )
            }
            HostError::Bind { ports, source } => {
                write!(f, "cannot listen on 127.0.0.1 port {ports}: {source}")
            }
            HostError::Entropy(e) => write!(f, "cannot mint the auth token: {e}"),
            HostError::Lock(e) => write!(f, "{e}"),
            HostError::Io(e) => write!(f, "cannot set up the event loop: {e}"),
        }
    }
}

impl std::error::Error for HostError {}

impl From<LockError> for HostError {
    fn from(e: LockError) -> Self {
        HostError::Lock(e)
    }
}
