//! TypeScript declarations of the JSON forms the `Engine` methods take and return (`Config`,
//! `EditorEvent`, `ToolOutcome`, `Output`, …), added to the declarations wasm-bindgen writes.
//! `protocol.d.ts` is generated from idelink-core's serde types by `cargo run -p
//! idelink-types`, which writes the same text into the Node package.

use wasm_bindgen::prelude::*;

#[wasm_bindgen(typescript_custom_section)]
const TS_TYPES: &'static str = include_str!("protocol.d.ts");
