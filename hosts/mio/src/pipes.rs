//! A remote link's byte stream in a mio loop: the two pipes of a spawned bridge (its stdout
//! and stdin), or a bridge's own stdin and stdout. [`Host::attach_link`](crate::Host::attach_link)
//! pumps one into its engine; the `idelink bridge` command pumps its own with the same type.
//!
//! On Unix the pipes are non-blocking mio sources of the loop's poll. On Windows, where mio
//! cannot poll an anonymous pipe, a thread reads and wakes the poll with the loop's
//! [`Waker`](mio::Waker) and another writes; the stream's calls are the same.

#[cfg(unix)]
#[path = "pipes/unix.rs"]
mod os;
#[cfg(windows)]
#[path = "pipes/windows.rs"]
mod os;

pub use os::LinkStream;

/// A pipe end as the OS names it: a file descriptor on Unix, a handle on Windows.
#[cfg(unix)]
pub type PipeEnd = std::os::fd::OwnedFd;
/// A pipe end as the OS names it: a file descriptor on Unix, a handle on Windows.
#[cfg(windows)]
pub type PipeEnd = std::os::windows::io::OwnedHandle;

/// A remote link's byte stream, for [`Host::attach_link`](crate::Host::attach_link) or any mio
/// loop ([`register`](Self::register)): the pipe the bridge writes (a child's stdout) and the
/// one it reads (its stdin).
pub struct LinkPipes {
    input: PipeEnd,
    output: PipeEnd,
    read: Vec<u8>,
}

impl LinkPipes {
    /// The stream `input` (read here) and `output` (written here): a
    /// [`ChildStdout`](std::process::ChildStdout) and [`ChildStdin`](std::process::ChildStdin),
    /// [`std::io::pipe`]'s ends, or any pipe descriptors (Unix) or handles (Windows).
    pub fn new(input: impl Into<PipeEnd>, output: impl Into<PipeEnd>) -> LinkPipes {
        LinkPipes {
            input: input.into(),
            output: output.into(),
            read: Vec::new(),
        }
    }

    /// Bytes already read from `input` (a hello peeked before attaching): the link reads them
    /// first.
    pub fn already_read(self, read: Vec<u8>) -> LinkPipes {
        LinkPipes { read, ..self }
    }
}
