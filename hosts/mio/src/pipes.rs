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

pub use os::{LinkPipes, LinkStream};
