//! The turn ledger over stdio (`serve --stdio --ledger`, docs/sidecar.md, "The turn ledger"):
//! the editor's requests that answer the engine's `ledgerRead` and `ledgerWrite` events,
//! report a watcher's change, read the ledger and undo. Each is one call of the host's.

use idelink_core::ledger::{FileContent, UndoTarget};
use idelink_core::rpc::RpcError;
use idelink_mio::Host;
use serde::de::DeserializeOwned;
use serde_json::Value;
use serde_json::value::RawValue;

/// `idelink/ledgerRead {read, content}`: the file's content for the `ledgerRead` event `read`.
#[derive(serde::Deserialize)]
#[serde(deny_unknown_fields)]
struct Read {
    read: u64,
    content: FileContent,
}

/// `idelink/ledgerWritten {write, nowHolds}`: what the file holds after the write `write`.
#[derive(serde::Deserialize)]
#[serde(deny_unknown_fields, rename_all = "camelCase")]
struct Written {
    write: u64,
    now_holds: FileContent,
}

/// `idelink/fileSeen {path, content, previous}`: a change the editor's watcher saw.
#[derive(serde::Deserialize)]
#[serde(deny_unknown_fields)]
struct Seen {
    path: String,
    content: FileContent,
    previous: FileContent,
}

/// `idelink/ledgerUndo {target}`: what to undo.
#[derive(serde::Deserialize)]
#[serde(deny_unknown_fields)]
struct Undo {
    target: UndoTarget,
}

/// Answers the ledger request `method`: its result, or the error the editor gets (-32602 for
/// malformed params, an unknown read or write, or a refused undo with its reason; -32601 for
/// a method this module does not have).
pub(super) fn request(
    host: &mut Host,
    method: &str,
    params: Option<&RawValue>,
) -> Result<Value, RpcError> {
    let refused =
        |e: &dyn std::fmt::Display| RpcError::new(RpcError::INVALID_PARAMS, e.to_string());
    match method {
        "idelink/ledger" => {
            let turns: Vec<_> = host.engine().ledger().turns().collect();
            serde_json::to_value(turns).map_err(|e| refused(&e))
        }
        "idelink/ledgerRead" => {
            let Read { read, content } =
                params_of(method, params, "{\"read\": N, \"content\": {\"kind\": …}}")?;
            host.handle_ledger_read(read, &content)
                .map_err(|e| refused(&e))?;
            Ok(Value::Null)
        }
        "idelink/ledgerWritten" => {
            let Written { write, now_holds } = params_of(
                method,
                params,
                "{\"write\": N, \"nowHolds\": {\"kind\": …}}",
            )?;
            host.handle_ledger_written(write, &now_holds)
                .map_err(|e| refused(&e))?;
            Ok(Value::Null)
        }
        "idelink/fileSeen" => {
            let Seen {
                path,
                content,
                previous,
            } = params_of(
                method,
                params,
                "{\"path\": \"…\", \"content\": {\"kind\": …}, \"previous\": {\"kind\": …}}",
            )?;
            host.handle_file_seen(&path, &content, &previous);
            Ok(Value::Null)
        }
        "idelink/ledgerUndo" => {
            let Undo { target } = params_of(
                method,
                params,
                "{\"target\": {\"undo\": \"hunk\"|\"file\"|\"turn\", …}}",
            )?;
            host.ledger_undo(&target).map_err(|e| refused(&e))?;
            Ok(Value::Null)
        }
        other => Err(RpcError::new(
            RpcError::METHOD_NOT_FOUND,
            format!("unknown method: {other} (see docs/sidecar.md)"),
        )),
    }
}

/// `params` read as `T`; the error names the method and the shape it needs.
fn params_of<T: DeserializeOwned>(
    method: &str,
    params: Option<&RawValue>,
    shape: &str,
) -> Result<T, RpcError> {
    serde_json::from_str(params.map_or("null", RawValue::get)).map_err(|e| {
        RpcError::new(
            RpcError::INVALID_PARAMS,
            format!("{method} needs {shape}: {e}"),
        )
    })
}
