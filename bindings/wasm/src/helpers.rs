//! Core's embedder helpers for JavaScript: the terminal environment that connects `claude` to a
//! port ([`idelink_core::terminal_env`]) and a language id from a file name
//! ([`idelink_core::language`]).

use crate::json;
use idelink_core::forms::{Inherited, Variables};
use idelink_core::terminal_env::TerminalEnv;
use wasm_bindgen::prelude::*;

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
    let inherited = if inherited.is_undefined() || inherited.is_null() {
        Inherited::default()
    } else {
        json::read::<Inherited>(&inherited)?
    };
    let env = TerminalEnv {
        no_proxy: inherited.no_proxy.as_deref(),
        no_proxy_upper: inherited.no_proxy_upper.as_deref(),
        force_code_terminal: force_code_terminal.unwrap_or(false),
        ..TerminalEnv::new(port)
    };
    Ok(json::write(&Variables(env.variables())))
}

/// The VS Code language id of a path or file name (`"rust"`, `"cpp"`, …), or `undefined`.
#[wasm_bindgen(js_name = languageId)]
pub fn language_id(path: &str) -> Option<String> {
    idelink_core::language::language_id(path).map(str::to_owned)
}
