//! Core's embedder helpers for Node: the terminal environment that connects `claude` to a port
//! ([`idelink_core::terminal_env`]) and a language id from a file name
//! ([`idelink_core::language`]). `index.js` turns the variable pairs into a plain object.

use idelink_core::terminal_env::TerminalEnv;
use napi_derive::napi;

/// The variables a terminal exports so `claude` connects to `port`, as `[name, value]` pairs in
/// core's order; `noProxy` / `noProxyUpper` are the inherited `no_proxy` / `NO_PROXY`.
#[napi]
pub fn terminal_env_pairs(
    port: u16,
    no_proxy: Option<String>,
    no_proxy_upper: Option<String>,
    force_code_terminal: bool,
) -> Vec<Vec<String>> {
    let env = TerminalEnv {
        no_proxy: no_proxy.as_deref(),
        no_proxy_upper: no_proxy_upper.as_deref(),
        force_code_terminal,
        ..TerminalEnv::new(port)
    };
    env.variables()
        .into_iter()
        .map(|(name, value)| vec![name.to_owned(), value])
        .collect()
}

/// The VS Code language id for a path or file name, or `null` when unknown.
#[napi]
pub fn language_id(path: String) -> Option<&'static str> {
    idelink_core::language::language_id(&path)
}
