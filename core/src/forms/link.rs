//! The news of an attached remote link (`link::AttachEvent`) as a face's host event, with no
//! serde form in core: `{"event":"linkHello",…}` when the bridge said who it is, then
//! `{"event":"linkEnded","fault":"eof","message":"…"}` when the link ended. The hello's token
//! is never written (a bridge sends none; an editor's log must not hold one either).

use super::host::write_strings;
use super::write::Object;
use crate::json::push_u64;
use crate::link::{AttachEvent, Hello, LinkFault};

pub(super) fn attach_event(out: &mut Vec<u8>, event: &AttachEvent) {
    match event {
        AttachEvent::Hello(hello) => write_hello(out, hello),
        AttachEvent::Dead(fault) => Object::new(out)
            .str("event", "linkEnded")
            .str("fault", fault_kind(fault))
            .str("message", &fault.to_string())
            .end(),
    }
}

/// The bridge's hello: its version, port and pid (`null` when it sent none), its folders and
/// `runningInWindows`.
fn write_hello(out: &mut Vec<u8>, hello: &Hello) {
    Object::new(out)
        .str("event", "linkHello")
        .str("binaryVersion", &hello.binary_version)
        .nullable("port", hello.port, |out, port| push_u64(out, port.into()))
        .nullable("pid", hello.pid, |out, pid| push_u64(out, pid.into()))
        .with("folders", |out| write_strings(out, &hello.folders))
        .bool("runningInWindows", hello.running_in_windows)
        .end();
}

/// Why the link ended, for a program: `eof` (the bridge exited or its transport closed),
/// `keepaliveTimeout`, `peerFault` (the bridge said why: see `message`), `shutdown` (ended in order, by
/// this side or the bridge: see `message`), `version` (another link version: install the same idelink on both sides), or
/// `protocol` (the peer broke the link's framing; `message` says how).
fn fault_kind(fault: &LinkFault) -> &'static str {
    match fault {
        LinkFault::Eof => "eof",
        LinkFault::KeepaliveTimeout => "keepaliveTimeout",
        LinkFault::PeerFault(_) => "peerFault",
        LinkFault::Shutdown | LinkFault::PeerShutdown => "shutdown",
        LinkFault::Version { .. } => "version",
        _ => "protocol",
    }
}
