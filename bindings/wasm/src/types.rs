//! TypeScript declarations of the JSON forms the `Engine` methods take and return (`Config`,
//! `EditorEvent`, `ToolOutcome`, `Output`, …): the same file the Node package ships, so both
//! packages describe the engine's serde forms with one text.

use wasm_bindgen::prelude::*;

#[wasm_bindgen(typescript_custom_section)]
const TS_TYPES: &'static str = include_str!("../../node/protocol.d.ts");
