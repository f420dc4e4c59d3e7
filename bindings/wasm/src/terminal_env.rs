//! Core's terminal environment ([`idelink_core::terminal_env`]) for a host that starts
//! terminals: the variables that connect `claude` to a port. A page has no processes to start
//! (behind `idelink relay` the relay's lock file is what claude finds), so this is in the Node
//! module only (feature `node`).

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
