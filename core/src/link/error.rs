//! Why a link ended, and how a host misused it.

use std::fmt;

use super::frame::FrameKind;

/// The reason a `Fault` frame gives for an orderly end ([`super::Link::shutdown`]): the peer
/// reads it as [`LinkFault::PeerShutdown`], not as a fault.
pub const SHUTDOWN_REASON: &str = "shut down";

/// Why a link is dead. A fault the peer caused is also sent to it as a `Fault` frame naming the
/// rule it broke, so both ends say the same thing.
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub enum LinkFault {
    /// The stream ended (the far process exited, the pipe broke).
    Eof,
    /// Nothing arrived within the keepalive timeout after a ping.
    KeepaliveTimeout,
    /// The peer sent a `Fault` frame: its reason, as it wrote it (lossy UTF-8).
    PeerFault(String),
    /// The host ended the link ([`super::Link::shutdown`]).
    Shutdown,
    /// The peer's host ended the link in order: its `Fault` frame said [`SHUTDOWN_REASON`].
    PeerShutdown,
    /// A frame kind byte this link version does not define.
    UnknownFrameKind(u8),
    /// A per-connection frame on connection 0, or a link frame on another id.
    WrongConnectionId {
        /// The frame's kind.
        kind: FrameKind,
        /// The id it named.
        conn: u32,
    },
    /// A payload length outside the kind's range.
    BadLength {
        /// The frame's kind.
        kind: FrameKind,
        /// The length the header named, in bytes.
        len: usize,
    },
    /// The first frame was not a `Hello`, or a second `Hello` came.
    HelloOrder,
    /// The hello's payload does not parse (the reason).
    BadHello(&'static str),
    /// The peer speaks another link version.
    Version {
        /// This side's [`super::LINK_VERSION`].
        ours: u16,
        /// The peer's.
        theirs: u16,
    },
    /// An `Open` from the editor side, or one whose id is not larger than every id before.
    BadOpen(u32),
    /// A frame for a connection id never opened on this link.
    UnknownConnection(u32),
    /// `Data` beyond the credit this side granted for the connection.
    CreditExceeded(u32),
    /// `Credit` that would let this side send more than the window (the peer cannot have
    /// consumed bytes it was never sent).
    CreditOverflow(u32),
    /// More connections open at once than [`super::LinkConfig::max_connections`].
    TooManyConnections,
}

impl LinkFault {
    /// Whether the peer broke a rule (and so is told, with a `Fault` frame).
    pub const fn is_peer_violation(&self) -> bool {
        !matches!(
            self,
            LinkFault::Eof
                | LinkFault::KeepaliveTimeout
                | LinkFault::PeerFault(_)
                | LinkFault::Shutdown
                | LinkFault::PeerShutdown
        )
    }
}

impl fmt::Display for LinkFault {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            LinkFault::Eof => write!(f, "the link's stream ended"),
            LinkFault::KeepaliveTimeout => write!(f, "the link's peer stopped answering pings"),
            LinkFault::PeerFault(reason) => write!(f, "the link's peer ended it: {reason}"),
            LinkFault::Shutdown => write!(f, "the link was shut down"),
            LinkFault::PeerShutdown => write!(f, "the link's peer shut it down"),
            LinkFault::UnknownFrameKind(byte) => write!(f, "unknown frame kind 0x{byte:02x}"),
            LinkFault::WrongConnectionId { kind, conn } => {
                write!(f, "a {kind:?} frame may not name connection {conn}")
            }
            LinkFault::BadLength { kind, len } => {
                write!(f, "a {kind:?} frame may not carry {len} bytes")
            }
            LinkFault::HelloOrder => write!(f, "a hello must be the first frame, and only once"),
            LinkFault::BadHello(why) => write!(f, "bad hello: {why}"),
            LinkFault::Version { ours, theirs } => write!(
                f,
                "the peer speaks link version {theirs}, this side speaks {ours}: install the same idelink on both sides"
            ),
            LinkFault::BadOpen(conn) => write!(f, "connection {conn} may not be opened here"),
            LinkFault::UnknownConnection(conn) => {
                write!(f, "connection {conn} was never opened")
            }
            LinkFault::CreditExceeded(conn) => {
                write!(f, "connection {conn} sent more than its credit")
            }
            LinkFault::CreditOverflow(conn) => {
                write!(f, "connection {conn} was granted more than its window")
            }
            LinkFault::TooManyConnections => write!(f, "too many connections on the link"),
        }
    }
}

/// A host called the link wrongly; the call changed nothing.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[non_exhaustive]
pub enum LinkError {
    /// The id is not an open connection of this link.
    UnknownConnection(u32),
    /// Only the bridge side opens connections.
    NotBridge,
    /// The link is dead.
    Dead,
    /// More bytes reported sent, or consumed, than there were.
    Overrun,
    /// The hello exceeds the frame's cap (see [`super::Hello::encode`]).
    HelloTooLarge,
    /// [`super::LinkConfig::max_connections`] are open (or every id was used).
    TooManyConnections,
}

impl fmt::Display for LinkError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            LinkError::UnknownConnection(conn) => write!(f, "no open link connection {conn}"),
            LinkError::NotBridge => write!(f, "only the bridge side opens connections"),
            LinkError::Dead => write!(f, "the link is dead"),
            LinkError::Overrun => write!(f, "more bytes reported than the link holds"),
            LinkError::HelloTooLarge => write!(f, "the hello is too large to send"),
            LinkError::TooManyConnections => write!(f, "too many connections on the link"),
        }
    }
}

impl std::error::Error for LinkError {}
