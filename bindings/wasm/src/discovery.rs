//! Core's discovery rules ([`idelink_core::discovery`]): the `claude` CLI's own choice of IDE,
//! so a page or a Node program can say "claude started in this folder would connect to port
//! X". The same two functions and answers as the Node binding's
//! (`bindings/node/src/discovery.rs`): `discover` (a `ClaudeStart` into a `Verdict`, their
//! JSON forms in `protocol.d.ts`) and `folderContains`. Paths are put in NFC with the JS
//! engine's own `String.prototype.normalize` (core takes NFC), so the module carries no
//! Unicode tables. `ClaudeStart` is read and `Verdict` written by core's codec
//! ([`crate::json`]), as every other form.

use crate::convert::host_error;
use crate::json;
use idelink_core::discovery::{self, ClaudeStart};
use idelink_core::ide::PathStyle;
use wasm_bindgen::JsCast;
use wasm_bindgen::prelude::*;

#[wasm_bindgen]
extern "C" {
    /// A JS string, for `String.prototype.normalize`.
    #[wasm_bindgen(js_name = String)]
    type JsText;
    #[wasm_bindgen(method, js_name = normalize)]
    fn normalize(this: &JsText, form: &str) -> String;
}

fn nfc(text: &str) -> String {
    JsValue::from_str(text)
        .unchecked_into::<JsText>()
        .normalize("NFC")
}

fn style(name: &str) -> Result<PathStyle, JsError> {
    PathStyle::from_name(name).ok_or_else(|| {
        host_error(format_args!(
            "pathStyle must be \"posix\" or \"windows\", got \"{name}\""
        ))
    })
}

/// Whether `cwd` is `folder` or lies under it (both in NFC), on a machine whose paths are
/// `pathStyle`.
#[wasm_bindgen(js_name = folderContains)]
pub fn folder_contains(
    folder: &str,
    cwd: &str,
    #[wasm_bindgen(js_name = pathStyle, unchecked_param_type = "PathStyle")] path_style: &str,
) -> Result<bool, JsError> {
    Ok(discovery::folder_contains(
        &nfc(folder),
        &nfc(cwd),
        style(path_style)?,
    ))
}

/// The CLI's whole decision for `start`: whether it looks for an IDE, the lock it takes, the
/// IDE terminal rule, and the port it connects to.
#[wasm_bindgen(js_name = discover, unchecked_return_type = "Verdict")]
pub fn discover(
    #[wasm_bindgen(unchecked_param_type = "ClaudeStart")] start: JsValue,
) -> Result<JsValue, JsError> {
    let mut start: ClaudeStart = json::read(&start)?;
    start.cwd = nfc(&start.cwd);
    for lock in &mut start.locks {
        for folder in &mut lock.workspace_folders {
            *folder = nfc(folder);
        }
    }
    Ok(json::write(&discovery::discover(&start)))
}
