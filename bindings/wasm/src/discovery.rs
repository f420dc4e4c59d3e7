//! Core's discovery rules ([`idelink_core::discovery`]): the `claude` CLI's own choice of IDE,
//! so a page or a Node program can say "claude started in this folder would connect to port
//! X". The same two functions and answers as the Node binding's
//! (`bindings/node/src/discovery.rs`): `discover` (a `ClaudeStart` into a `Verdict`, their
//! JSON forms in `protocol.d.ts`) and `folderContains`. Paths are put in NFC with the JS
//! engine's own `String.prototype.normalize` (core takes NFC), so the module carries no
//! Unicode tables. The two cost the module about 8 KB (measured with
//! `bindings/wasm/build.sh`: the rules themselves about 2.5 KB before wasm-opt, reading the
//! `ClaudeStart` and building the `Verdict` the rest; flat arguments cost more).

use crate::convert::host_error;
use crate::js::{Built, Obj};
use idelink_core::discovery::{
    self, AutoConnect, Candidate, ClaudeEnv, ClaudeStart, LockChoice, Verdict,
};
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

fn candidate(lock: &Obj) -> Result<Candidate, JsError> {
    lock.deny_unknown(&["port", "workspaceFolders"])?;
    let folders = lock
        .strings("workspaceFolders")?
        .ok_or_else(|| lock.error("missing field `workspaceFolders`"))?;
    Ok(Candidate {
        port: lock.integer("port", u64::from(u16::MAX))? as u16,
        workspace_folders: folders.iter().map(|f| nfc(f)).collect(),
    })
}

/// `start` (its `ClaudeStart` form), every path in NFC.
fn claude_start(value: JsValue) -> Result<ClaudeStart, JsError> {
    let start = Obj::root("start", value)?;
    start.deny_unknown(&[
        "cwd",
        "pathStyle",
        "locks",
        "env",
        "autoConnectConfig",
        "ideFlag",
    ])?;
    let path_style = match start.opt_string("pathStyle")? {
        Some(name) => style(&name)?,
        None => PathStyle::Posix,
    };
    let mut env = ClaudeEnv::default();
    if let Some(vars) = start.object("env")? {
        let read = |i: usize| vars.opt_string(ClaudeEnv::NAMES[i]);
        env = ClaudeEnv {
            auto_connect_ide: read(0)?,
            sse_port: read(1)?,
            ide_skip_valid_check: read(2)?,
            force_code_terminal: read(3)?,
            term_program: read(4)?,
            terminal_emulator: read(5)?,
        };
    }
    Ok(ClaudeStart {
        cwd: nfc(&start.string("cwd")?),
        path_style,
        locks: start.required_list("locks", candidate)?,
        env,
        auto_connect_config: start.opt_bool("autoConnectConfig")?.unwrap_or(false),
        ide_flag: start.opt_bool("ideFlag")?.unwrap_or(false),
    })
}

/// `verdict` in its JSON form (`Verdict`).
fn verdict_object(verdict: &Verdict) -> JsValue {
    let auto = match verdict.auto_connect {
        AutoConnect::Disabled => Built::new().str("state", "disabled"),
        AutoConnect::On { reason } => Built::new()
            .str("state", "on")
            .str("reason", reason.as_str()),
        AutoConnect::NotRequested => Built::new().str("state", "notRequested"),
    };
    let choice = match &verdict.choice {
        LockChoice::One { port } => Built::new().str("kind", "one").num("port", *port),
        LockChoice::None => Built::new().str("kind", "none"),
        LockChoice::Ambiguous { ports } => {
            let ports: Vec<JsValue> = ports.iter().map(|&p| JsValue::from(p)).collect();
            Built::new()
                .str("kind", "ambiguous")
                .value("ports", &JsValue::from(ports))
        }
    };
    Built::new()
        .value("autoConnect", &auto.done())
        .value("choice", &choice.done())
        .opt_str("ideTerminal", verdict.ide_terminal.map(|t| t.as_str()))
        .bool("ancestorRule", verdict.ancestor_rule)
        .value(
            "connectsTo",
            &verdict.connects_to.map_or(JsValue::NULL, JsValue::from),
        )
        .done()
}

/// The CLI's whole decision for `start`: whether it looks for an IDE, the lock it takes, the
/// IDE terminal rule, and the port it connects to.
#[wasm_bindgen(js_name = discover, unchecked_return_type = "Verdict")]
pub fn discover(
    #[wasm_bindgen(unchecked_param_type = "ClaudeStart")] start: JsValue,
) -> Result<JsValue, JsError> {
    Ok(verdict_object(&discovery::discover(&claude_start(start)?)))
}
