//! What the page link's machine hands out: socket actions for its pump ([`PageOutput`]) and
//! what the relay must do ([`PageEvent`]), about connections named by the pump
//! ([`PageConnId`]).

use idelink_core::{AuthToken, Timestamp};

/// A browser connection, named by the pump (its socket's token). Older connections have
/// smaller ids: the budget evicts the smallest first.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
pub struct PageConnId(pub usize);

/// What the pump must do with a browser connection's socket.
#[derive(Debug, PartialEq, Eq)]
pub enum PageOutput {
    /// [`PageLink::outbound`](super::PageLink::outbound) holds bytes for `conn`: write what the socket takes and report it
    /// with [`PageLink::handle_sent`](super::PageLink::handle_sent).
    Transmit {
        /// The connection.
        conn: PageConnId,
    },
    /// `conn` was answered at `since` and closes: discard its input from now on, and close the
    /// socket at the peer's end of stream or when the pump policy's linger from `since` runs
    /// out (then report [`PageLink::handle_closed`](super::PageLink::handle_closed)).
    Linger {
        /// The connection.
        conn: PageConnId,
        /// When it was answered.
        since: Timestamp,
    },
    /// `conn`'s answer is all written: send our end of stream (TCP FIN), so the peer reads it
    /// all before it sees the end, and keep lingering.
    ShutdownWrite {
        /// The connection.
        conn: PageConnId,
    },
    /// Write `last` to `conn`'s socket, best effort, and close it now. The machine forgot it.
    Drop {
        /// The connection.
        conn: PageConnId,
        /// Its last bytes (a close frame), possibly none.
        last: Vec<u8>,
    },
}

/// What the page told the relay to do.
#[derive(Debug)]
pub enum PageEvent {
    /// A page linked: claude may now find the editor (write the lock with the token it holds).
    Linked {
        /// The claude token the page checks.
        auth_token: AuthToken,
        /// The token is new: close every claude connection made under the previous one.
        fresh: bool,
    },
    /// The linked page went (closed, lost, replaced or unlinked by a rotation): remove the lock,
    /// close every claude connection.
    Unlinked,
    /// A page's hello was refused for `reason` (tell the user).
    Refused {
        /// The close reason the page got.
        reason: &'static str,
    },
    /// The same tab reloaded and took the link over from the page that held it.
    Replaced,
    /// Bytes for claude connection `conn`.
    Data {
        /// The connection id.
        conn: u32,
        /// Its bytes.
        bytes: Vec<u8>,
    },
    /// Close claude connection `conn` once what was sent before is written.
    Close {
        /// The connection id.
        conn: u32,
    },
}
