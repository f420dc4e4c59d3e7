//! The hello each side sends first: the link version, then fields as `tag` u8, length u16
//! (big-endian), bytes. A field of a tag this version does not know is skipped (a newer peer may
//! add fields without a new link version); a known single-valued tag twice is a fault.

use std::fmt;

use super::error::LinkFault;
use super::frame::{FrameKind, HEADER_BYTES, Header, MAX_HELLO_BYTES};

/// The link version this build speaks. A peer with another version is refused with a fault
/// that names both, so the editor side can copy its own binary over.
pub const LINK_VERSION: u16 = 1;

/// The most workspace folders a hello carries. 256: far more than any workspace has, and it
/// bounds the lock the bridge writes.
pub const MAX_HELLO_FOLDERS: usize = 256;

const TAG_BINARY_VERSION: u8 = 1;
const TAG_TOKEN: u8 = 2;
const TAG_IDE_NAME: u8 = 3;
const TAG_FOLDER: u8 = 4;
const TAG_RUNNING_IN_WINDOWS: u8 = 5;
const TAG_PORT: u8 = 6;
const TAG_PID: u8 = 7;

/// Who a side is. The editor side fills `token`, `ide_name`, `folders` (as the far side sees
/// them: already mapped) and `running_in_windows`: what the bridge writes into its lock. The
/// bridge fills `port` (its loopback listener) and `pid` (the pid in its lock). Both fill
/// `binary_version` (the idelink release, so a side can tell the other is another build).
///
/// `Debug` prints the token as `<redacted>`.
#[derive(Clone, Default, PartialEq, Eq)]
pub struct Hello {
    /// The sender's idelink version, e.g. `0.9.0`.
    pub binary_version: String,
    /// The token the bridge writes into its lock (and the editor's engine checks).
    pub token: Option<String>,
    /// The lock's `ideName`.
    pub ide_name: Option<String>,
    /// The lock's `workspaceFolders`, as the far side spells them.
    pub folders: Vec<String>,
    /// The lock's `runningInWindows`.
    pub running_in_windows: bool,
    /// The bridge's loopback port.
    pub port: Option<u16>,
    /// The bridge's pid.
    pub pid: Option<u32>,
}

impl fmt::Debug for Hello {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Hello")
            .field("binary_version", &self.binary_version)
            .field("token", &self.token.as_ref().map(|_| "<redacted>"))
            .field("ide_name", &self.ide_name)
            .field("folders", &self.folders)
            .field("running_in_windows", &self.running_in_windows)
            .field("port", &self.port)
            .field("pid", &self.pid)
            .finish()
    }
}

impl Hello {
    /// The hello's payload (without the frame header), or `None` when it would exceed
    /// [`MAX_HELLO_BYTES`] or carry more than [`MAX_HELLO_FOLDERS`] folders. A text longer than a
    /// u16 length is cut at a character boundary (no real field comes near 64 KiB).
    pub fn encode(&self) -> Option<Vec<u8>> {
        if self.folders.len() > MAX_HELLO_FOLDERS {
            return None;
        }
        let mut out = Vec::with_capacity(64);
        out.extend_from_slice(&LINK_VERSION.to_be_bytes());
        text_field(&mut out, TAG_BINARY_VERSION, &self.binary_version);
        if let Some(token) = &self.token {
            text_field(&mut out, TAG_TOKEN, token);
        }
        if let Some(name) = &self.ide_name {
            text_field(&mut out, TAG_IDE_NAME, name);
        }
        for folder in &self.folders {
            text_field(&mut out, TAG_FOLDER, folder);
        }
        if self.running_in_windows {
            field(&mut out, TAG_RUNNING_IN_WINDOWS, &[1]);
        }
        if let Some(port) = self.port {
            field(&mut out, TAG_PORT, &port.to_be_bytes());
        }
        if let Some(pid) = self.pid {
            field(&mut out, TAG_PID, &pid.to_be_bytes());
        }
        (out.len() <= MAX_HELLO_BYTES).then_some(out)
    }

    /// Reads a hello payload. A version other than [`LINK_VERSION`] is
    /// [`LinkFault::Version`], whatever follows it.
    pub fn parse(payload: &[u8]) -> Result<Hello, LinkFault> {
        let (version, mut rest) = payload
            .split_first_chunk::<2>()
            .ok_or(LinkFault::BadHello("no version"))?;
        let theirs = u16::from_be_bytes(*version);
        if theirs != LINK_VERSION {
            return Err(LinkFault::Version {
                ours: LINK_VERSION,
                theirs,
            });
        }
        let mut hello = Hello::default();
        let mut seen = 0u32;
        while let Some((&tag, after)) = rest.split_first() {
            let (len, after) = after
                .split_first_chunk::<2>()
                .ok_or(LinkFault::BadHello("a field is cut short"))?;
            let (value, after) = after
                .split_at_checked(usize::from(u16::from_be_bytes(*len)))
                .ok_or(LinkFault::BadHello("a field is cut short"))?;
            rest = after;
            if tag != TAG_FOLDER && tag < 32 {
                let bit = 1u32 << tag;
                if seen & bit != 0 {
                    return Err(LinkFault::BadHello("a field appears twice"));
                }
                seen |= bit;
            }
            match tag {
                TAG_BINARY_VERSION => hello.binary_version = text(value)?,
                TAG_TOKEN => hello.token = Some(text(value)?),
                TAG_IDE_NAME => hello.ide_name = Some(text(value)?),
                TAG_FOLDER => {
                    if hello.folders.len() == MAX_HELLO_FOLDERS {
                        return Err(LinkFault::BadHello("too many folders"));
                    }
                    hello.folders.push(text(value)?);
                }
                TAG_RUNNING_IN_WINDOWS => {
                    hello.running_in_windows = match value {
                        [0] => false,
                        [1] => true,
                        _ => return Err(LinkFault::BadHello("runningInWindows is not 0 or 1")),
                    }
                }
                TAG_PORT => {
                    let port = value
                        .try_into()
                        .map_err(|_| LinkFault::BadHello("a port is two bytes"))?;
                    hello.port = Some(u16::from_be_bytes(port));
                }
                TAG_PID => {
                    let pid = value
                        .try_into()
                        .map_err(|_| LinkFault::BadHello("a pid is four bytes"))?;
                    hello.pid = Some(u32::from_be_bytes(pid));
                }
                _ => {}
            }
        }
        Ok(hello)
    }
}

/// The hello frame at the start of a peer's stream, and its length in bytes: `Ok(None)` until
/// it is whole. For a host that must know the peer before it builds its own end (the editor
/// side learns the bridge's port before it starts its engine); it then hands the same bytes to
/// [`super::Link::handle_bytes`], which reads the hello again.
pub fn peek_hello(stream: &[u8]) -> Result<Option<(Hello, usize)>, LinkFault> {
    let Some(header) = Header::parse(stream)? else {
        return Ok(None);
    };
    if header.kind != FrameKind::Hello {
        return Err(LinkFault::HelloOrder);
    }
    let end = HEADER_BYTES + header.len;
    match stream.get(HEADER_BYTES..end) {
        Some(payload) => Ok(Some((Hello::parse(payload)?, end))),
        None => Ok(None),
    }
}

fn text(value: &[u8]) -> Result<String, LinkFault> {
    std::str::from_utf8(value)
        .map(str::to_owned)
        .map_err(|_| LinkFault::BadHello("a text field is not UTF-8"))
}

fn text_field(out: &mut Vec<u8>, tag: u8, value: &str) {
    let mut end = value.len().min(usize::from(u16::MAX));
    while !value.is_char_boundary(end) {
        end -= 1;
    }
    field(out, tag, &value.as_bytes()[..end]);
}

fn field(out: &mut Vec<u8>, tag: u8, value: &[u8]) {
    out.push(tag);
    let len = u16::try_from(value.len()).expect("fields are cut to u16::MAX");
    out.extend_from_slice(&len.to_be_bytes());
    out.extend_from_slice(value);
}
