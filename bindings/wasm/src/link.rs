//! An engine's remote link (`idelink_core::link::LinkSlot`, core's `LinkAttach` holding every
//! rule): a JS host (the npm package `idelink` on this module) moves the stream's bytes, a
//! spawned `idelink bridge`'s stdout and stdin, and calls these at its pump points. The
//! engine's `pollOutput`, `pollTimeout` and `handleTimeout` include the link's.

use crate::convert::{byte_count, host_error, timestamp};
use crate::engine::Engine;
use crate::host_rules::policy;
use crate::json;
use wasm_bindgen::prelude::*;

#[wasm_bindgen]
impl Engine {
    /// Attaches a link whose hello gives the bridge `authToken` (this engine's), `ideName` and
    /// the config's folders as the far side spells them (through `pathMap`); its connections
    /// are pumped by the policy pausing at `pauseReadsAtBytes` (the default when absent).
    /// Throws while a live link is attached, or for a `pathMap` that does not parse.
    #[wasm_bindgen(js_name = attachLink)]
    pub fn attach_link(
        &mut self,
        now: f64,
        #[wasm_bindgen(js_name = authToken)] auth_token: &str,
        #[wasm_bindgen(js_name = ideName)] ide_name: &str,
        #[wasm_bindgen(js_name = pauseReadsAtBytes)] pause: Option<f64>,
    ) -> Result<(), JsError> {
        let (now, policy) = (timestamp(now)?, policy(pause)?);
        self.link
            .attach(&self.inner, now, auth_token, ide_name, policy)
            .map_err(host_error)
    }

    /// Bytes read from the link's stream.
    #[wasm_bindgen(js_name = handleLinkBytes)]
    pub fn handle_link_bytes(&mut self, now: f64, bytes: &[u8]) -> Result<(), JsError> {
        let now = timestamp(now)?;
        self.link.handle_stream_bytes(&mut self.inner, now, bytes);
        Ok(())
    }

    /// The link's stream ended (EOF, a read error).
    #[wasm_bindgen(js_name = handleLinkEnd)]
    pub fn handle_link_end(&mut self, now: f64) -> Result<(), JsError> {
        self.link
            .handle_stream_end(&mut self.inner, timestamp(now)?);
        Ok(())
    }

    /// The host ends the link (the bridge hears why and removes its lock).
    #[wasm_bindgen(js_name = shutdownLink)]
    pub fn shutdown_link(&mut self, now: f64) -> Result<(), JsError> {
        self.link.shutdown(&mut self.inner, timestamp(now)?);
        Ok(())
    }

    /// A copy of the bytes the link has for its stream. Write a prefix, then report its length
    /// with `handleLinkSent`.
    #[wasm_bindgen(js_name = linkOutbound)]
    pub fn link_outbound(&self) -> Vec<u8> {
        self.link.outbound().to_vec()
    }

    /// How many bytes the link has for its stream, without copying them.
    #[wasm_bindgen(js_name = linkOutboundLength)]
    pub fn link_outbound_length(&self) -> f64 {
        self.link.outbound().len() as f64
    }

    /// The first `n` bytes of `linkOutbound()` were written. Throws for more than it holds.
    #[wasm_bindgen(js_name = handleLinkSent)]
    pub fn handle_link_sent(&mut self, n: f64) -> Result<(), JsError> {
        self.link.handle_sent(byte_count(n)?).map_err(host_error)
    }

    /// The link's next news (`{event: "linkHello", ...}`, then `{event: "linkEnded", fault,
    /// message}`), or `null`.
    #[wasm_bindgen(js_name = pollLinkEvent, unchecked_return_type = "LinkEvent | null")]
    pub fn poll_link_event(&mut self) -> JsValue {
        self.link
            .poll_event()
            .map_or(JsValue::NULL, |event| json::write(&event))
    }
}
