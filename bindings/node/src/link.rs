//! An engine's remote link (`idelink_core::link::LinkSlot`, core's `LinkAttach` holding every
//! rule), as `engine_link_*` functions over the engine's handle: `lib/host.js` moves the
//! stream's bytes (a spawned `idelink bridge`'s stdout and stdin) and calls these at its pump
//! points. The engine's `pollOutput`, `pollTimeout` and `handleTimeout` include the link's.

use crate::convert::{byte_count, timestamp};
use crate::error::throw;
use crate::host_rules::policy;
use crate::registry::with_link;
use idelink_core::forms;
use napi::bindgen_prelude::{BufferSlice, Uint8ArraySlice};
use napi_derive::napi;

/// Attaches a link whose hello gives the bridge `auth_token` (this engine's), `ide_name` and
/// the config's folders as the far side spells them (through `pathMap`); its connections are
/// pumped by the policy pausing at `pause_reads_at_bytes` (the default when absent). Throws
/// while a live link is attached, or for a `pathMap` that does not parse.
#[napi]
pub fn engine_link_attach(
    handle: f64,
    now: f64,
    auth_token: String,
    ide_name: String,
    pause_reads_at_bytes: Option<f64>,
) -> napi::Result<()> {
    let (now, policy) = (timestamp(now)?, policy(pause_reads_at_bytes)?);
    with_link(handle, |e, link| {
        link.attach(e, now, &auth_token, &ide_name, policy)
            .map_err(throw)
    })
}

/// Bytes read from the link's stream.
#[napi]
pub fn engine_link_bytes(handle: f64, now: f64, bytes: Uint8ArraySlice) -> napi::Result<()> {
    let now = timestamp(now)?;
    with_link(handle, |e, link| {
        link.handle_stream_bytes(e, now, &bytes);
        Ok(())
    })
}

/// The link's stream ended (EOF, a read error).
#[napi]
pub fn engine_link_end(handle: f64, now: f64) -> napi::Result<()> {
    let now = timestamp(now)?;
    with_link(handle, |e, link| {
        link.handle_stream_end(e, now);
        Ok(())
    })
}

/// The host ends the link (the bridge hears why and removes its lock).
#[napi]
pub fn engine_link_shutdown(handle: f64, now: f64) -> napi::Result<()> {
    let now = timestamp(now)?;
    with_link(handle, |e, link| {
        link.shutdown(e, now);
        Ok(())
    })
}

/// How many bytes the link has for its stream.
#[napi]
pub fn engine_link_outbound_length(handle: f64) -> napi::Result<f64> {
    with_link(handle, |_, link| Ok(link.outbound().len() as f64))
}

/// Copies the start of the link's bytes for its stream into `target` (as much as fits);
/// returns the number copied. The caller sizes `target` with `engine_link_outbound_length`.
#[napi]
pub fn engine_link_outbound_into(handle: f64, mut target: BufferSlice) -> napi::Result<f64> {
    with_link(handle, |_, link| {
        let bytes = link.outbound();
        let n = bytes.len().min(target.len());
        target[..n].copy_from_slice(&bytes[..n]);
        Ok(n as f64)
    })
}

/// The first `n` of those bytes were written to the stream. Throws for more than it holds.
#[napi]
pub fn engine_link_sent(handle: f64, n: f64) -> napi::Result<()> {
    let n = byte_count(n)?;
    with_link(handle, |_, link| link.handle_sent(n).map_err(throw))
}

/// The link's next news as the JSON text of its form (`{"event":"linkHello",…}`, then
/// `{"event":"linkEnded","fault":…,"message":…}`), or `null`.
#[napi]
pub fn engine_link_poll_event(handle: f64) -> napi::Result<Option<String>> {
    with_link(handle, |_, link| {
        Ok(link.poll_event().map(|e| forms::write(&e)))
    })
}
