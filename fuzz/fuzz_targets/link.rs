//! `link::Link` (the editor's end) fed an arbitrary byte stream cut at arbitrary points, with
//! its host consuming part of what each connection received between pieces.
//!
//! Oracles: no panic; the same events, output bytes and held bytes whether the stream arrives
//! whole or in pieces (split invariance, with the consumes only at the end); no connection
//! ever holds more than its window; a dead link reported every connection `Closed` before
//! `Dead`, and its output ends with a `Fault` frame exactly when the peer broke a rule.
#![no_main]

use idelink_core::Timestamp;
use idelink_core::link::{Hello, Link, LinkConfig, LinkEvent, LinkRole};
use libfuzzer_sys::fuzz_target;

/// A small window, so the credit rule is reachable with short inputs.
const WINDOW: u32 = 64;

/// The input's layout: `[n, cut_1 .. cut_n, stream ..]`; the cuts are the lengths of the first
/// pieces (0 counts as 1), the rest arrives as one piece. A seed is `[0]` followed by a bridge's
/// byte stream (its hello first).
fn parse(data: &[u8]) -> Option<(&[u8], &[u8])> {
    let (&n, rest) = data.split_first()?;
    rest.split_at_checked(usize::from(n))
}

#[derive(Debug, PartialEq, Eq)]
struct Outcome {
    events: Vec<LinkEvent>,
    out: Vec<u8>,
    held: Vec<(u32, Vec<u8>)>,
}

fn run<'a>(pieces: impl Iterator<Item = &'a [u8]>) -> Outcome {
    let config = LinkConfig {
        window_bytes: WINDOW,
        ..LinkConfig::default()
    };
    let hello = Hello {
        binary_version: "fuzz".into(),
        token: Some("t".into()),
        ..Hello::default()
    };
    let mut link = Link::new(LinkRole::Editor, config, &hello, Timestamp::ZERO).expect("fits");
    let mut events = Vec::new();
    for piece in pieces {
        link.handle_bytes(Timestamp::ZERO, piece);
        events.extend(std::iter::from_fn(|| link.poll_event()));
        for conn in link.connections().collect::<Vec<_>>() {
            let held = link.received(conn).expect("listed");
            assert!(held.len() <= WINDOW as usize, "{conn} holds {}", held.len());
        }
    }
    if let Some(LinkEvent::Dead(fault)) = events.last() {
        assert!(link.connections().next().is_none(), "dead with connections");
        let violation = fault.is_peer_violation();
        let fault_last = link.outbound().len() >= 9 && {
            let mut at = 0;
            let mut last = None;
            let out = link.outbound();
            while at + 9 <= out.len() {
                let len = u32::from_be_bytes([out[at + 5], out[at + 6], out[at + 7], out[at + 8]]);
                last = Some(out[at]);
                at += 9 + len as usize;
            }
            last == Some(8)
        };
        assert_eq!(violation, fault_last, "{fault}");
    }
    let held = link
        .connections()
        .map(|c| (c.get(), link.received(c).expect("listed").to_vec()))
        .collect();
    Outcome {
        events,
        out: link.outbound().to_vec(),
        held,
    }
}

fuzz_target!(|data: &[u8]| {
    let Some((cuts, stream)) = parse(data) else {
        return;
    };
    let whole = run(std::iter::once(stream));
    let mut pieces = Vec::new();
    let mut rest = stream;
    for &cut in cuts {
        let (piece, after) = rest.split_at(usize::from(cut.max(1)).min(rest.len()));
        pieces.push(piece);
        rest = after;
    }
    pieces.push(rest);
    assert_eq!(run(pieces.into_iter()), whole);
});
