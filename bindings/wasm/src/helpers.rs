//! Core's embedder helpers for JavaScript: the terminal environment that connects `claude` to a
//! port ([`idelink_core::terminal_env`]) and a language id from a file name
//! ([`idelink_core::language`]).

use crate::convert::{from_js, to_js};
use idelink_core::terminal_env::TerminalEnv;
use serde::Deserialize;
use serde::ser::{Serialize, SerializeMap, Serializer};
use wasm_bindgen::prelude::*;

/// The proxy bypass lists the terminal would inherit (`process.env`, or any object with them).
#[derive(Deserialize, Default)]
struct Inherited {
    no_proxy: Option<String>,
    #[serde(rename = "NO_PROXY")]
    no_proxy_upper: Option<String>,
}

/// The variables as one object whose keys keep core's order.
struct Variables(Vec<(&'static str, String)>);

impl Serialize for Variables {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        let mut map = serializer.serialize_map(Some(self.0.len()))?;
        for (name, value) in &self.0 {
            map.serialize_entry(name, value)?;
        }
        map.end()
    }
}

/// The variables a terminal exports so `claude` connects to `port`: `CLAUDE_CODE_SSE_PORT`,
/// `ENABLE_IDE_INTEGRATION`, `no_proxy` / `NO_PROXY` (what `inherited` lists, plus loopback),
/// and `FORCE_CODE_TERMINAL` when `forceCodeTerminal` is true.
#[wasm_bindgen(js_name = terminalEnv, unchecked_return_type = "Record<string, string>")]
pub fn terminal_env(
    port: u16,
    #[wasm_bindgen(unchecked_param_type = "{ no_proxy?: string; NO_PROXY?: string } | undefined")]
    inherited: JsValue,
    #[wasm_bindgen(js_name = forceCodeTerminal)] force_code_terminal: Option<bool>,
) -> Result<JsValue, JsError> {
    let inherited: Inherited = if inherited.is_undefined() || inherited.is_null() {
        Inherited::default()
    } else {
        from_js("inherited", &inherited)?
    };
    let env = TerminalEnv {
        no_proxy: inherited.no_proxy.as_deref(),
        no_proxy_upper: inherited.no_proxy_upper.as_deref(),
        force_code_terminal: force_code_terminal.unwrap_or(false),
        ..TerminalEnv::new(port)
    };
    to_js(&Variables(env.variables()))
}

/// The VS Code language id of a path or file name (`"rust"`, `"cpp"`, …), or `undefined`.
#[wasm_bindgen(js_name = languageId)]
pub fn language_id(path: &str) -> Option<String> {
    idelink_core::language::language_id(path).map(str::to_owned)
}
