//! Core's editor helper for JavaScript: a language id from a file name
//! ([`idelink_core::language`]), for the `languageId` of a `documentOpened` event.

use wasm_bindgen::prelude::*;

/// The VS Code language id of a path or file name (`"rust"`, `"cpp"`, …), or `undefined`.
#[wasm_bindgen(js_name = languageId)]
pub fn language_id(path: &str) -> Option<String> {
    idelink_core::language::language_id(path).map(str::to_owned)
}
