//! Core's embedder helpers for C: the terminal environment that connects `claude` to a port
//! (`idelink_core::terminal_env`) and a language id from a file name
//! (`idelink_core::language`).

use crate::args::{json, owned_string, place, text};
use crate::guard::guard;
use crate::status::IdelinkStatus;
use idelink_core::forms::{self, Variables};
use idelink_core::terminal_env::TerminalEnv;
use serde::Deserialize;
use std::ffi::c_char;

/// What the terminal inherits, and the opt-in: this binding's own form (the JS faces take
/// the opt-in as an argument), read with serde.
#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct Inherited {
    no_proxy: Option<String>,
    #[serde(rename = "NO_PROXY")]
    no_proxy_upper: Option<String>,
    #[serde(rename = "forceCodeTerminal", default)]
    force_code_terminal: bool,
}

/// The environment a terminal exports so the `claude` started in it connects to `port`:
/// `*env_json` receives a JSON object (`{"CLAUDE_CODE_SSE_PORT":"4242",
/// "ENABLE_IDE_INTEGRATION":"true","no_proxy":"…","NO_PROXY":"…"}`, plus
/// `"FORCE_CODE_TERMINAL":"true"` when asked). `inherited_json` is
/// `{"no_proxy":…,"NO_PROXY":…,"forceCodeTerminal":false}` (every field optional): the
/// inherited bypass lists are kept and loopback is added.
///
/// **Ownership:** the text is library-owned: free it with `idelink_string_free`.
/// **Threads:** any thread.
///
/// # Safety
/// `inherited_json` is NUL-terminated; `env_json` points to writable storage for one pointer.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn idelink_terminal_env(
    port: u16,
    inherited_json: *const c_char,
    env_json: *mut *mut c_char,
) -> IdelinkStatus {
    guard(|| {
        // SAFETY: the caller's obligations, stated above.
        let inherited: Inherited = unsafe { json(inherited_json, "inherited_json") }?;
        // SAFETY: the caller's obligations, stated above.
        let out = unsafe { place(env_json, "env_json") }?;
        let env = TerminalEnv {
            no_proxy: inherited.no_proxy.as_deref(),
            no_proxy_upper: inherited.no_proxy_upper.as_deref(),
            force_code_terminal: inherited.force_code_terminal,
            ..TerminalEnv::new(port)
        };
        *out = owned_string(forms::write(&Variables(env.variables())));
        Ok(())
    })
}

/// The VS Code language id of a path or file name (`"rust"`, `"cpp"`, …): `*language_id`
/// receives it, or NULL when the name says nothing known.
///
/// **Ownership:** the text is library-owned: free it with `idelink_string_free`.
/// **Threads:** any thread.
///
/// # Safety
/// `path` is NUL-terminated; `language_id` points to writable storage for one pointer.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn idelink_language_id(
    path: *const c_char,
    language_id: *mut *mut c_char,
) -> IdelinkStatus {
    guard(|| {
        // SAFETY: the caller's obligations, stated above.
        let path = unsafe { text(path, "path") }?;
        // SAFETY: the caller's obligations, stated above.
        let out = unsafe { place(language_id, "language_id") }?;
        *out = idelink_core::language::language_id(path)
            .map_or(std::ptr::null_mut(), |id| owned_string(id.to_owned()));
        Ok(())
    })
}
