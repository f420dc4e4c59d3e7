//! Core's discovery rules ([`idelink_core::discovery`]): the `claude` CLI's own choice of IDE,
//! so an extension can say "claude started in this folder would connect to port X": `discover`
//! (a `ClaudeStart` into a `Verdict`, read and written by core's codec) and `folderContains`. Every path is
//! put in NFC here first (core takes NFC; the CLI normalizes); the wasm fallback does the same
//! with the JS engine's `String.prototype.normalize`, so both answer alike.

use crate::convert::from_js_json;
use crate::error::{guard, throw};
use idelink_core::discovery::{self, ClaudeStart};
use idelink_core::forms;
use idelink_core::ide::PathStyle;
use napi::Env;
use napi::bindgen_prelude::Unknown;
use napi_derive::napi;
use unicode_normalization::UnicodeNormalization;

fn nfc(text: &str) -> String {
    text.nfc().collect()
}

/// Whether `cwd` is `folder` or lies under it (both in NFC), on a machine whose paths are
/// `pathStyle`.
#[napi]
pub fn folder_contains(folder: String, cwd: String, path_style: String) -> napi::Result<bool> {
    let style = PathStyle::from_name(&path_style).ok_or_else(|| {
        throw(format_args!(
            "pathStyle must be \"posix\" or \"windows\", got \"{path_style}\""
        ))
    })?;
    Ok(discovery::folder_contains(&nfc(&folder), &nfc(&cwd), style))
}

/// The CLI's whole decision for `start` (its `ClaudeStart` form), as the JSON text of its
/// `Verdict` (`index.js` parses it).
#[napi]
pub fn discover(env: Env, start: Unknown) -> napi::Result<String> {
    let mut start: ClaudeStart = from_js_json(&env, start)?;
    guard(|| {
        start.cwd = nfc(&start.cwd);
        for lock in &mut start.locks {
            for folder in &mut lock.workspace_folders {
                *folder = nfc(folder);
            }
        }
        Ok(forms::write(&discovery::discover(&start)))
    })
    .unwrap_or_else(|why| Err(throw(why)))
}
