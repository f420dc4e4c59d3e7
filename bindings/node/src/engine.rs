//! The engine's entry points as free functions over a handle; `lib/engine.js` wraps them in
//! the JS `Engine` class. Each converts its arguments, makes the one engine call, and converts
//! the result. JSON arguments are stringified before the engine is borrowed, so no JS runs
//! while it is.

use crate::convert::{
    byte_count, conn_id, from_js_json, id_number, json_text, timestamp, tool_call_id,
};
use crate::error::{guard, throw};
use crate::registry::{insert, remove, with, with_link};
use idelink_core::{AuthToken, Config, EditorEvent, Engine, Output, SessionChoice, ToolOutcome};
use napi::bindgen_prelude::{BufferSlice, Either, Uint8ArraySlice, Unknown};
use napi::{Env, ValueType};
use napi_derive::napi;

/// A new engine for `config` (its JSON form; `undefined` or `null`: all defaults) admitting
/// clients that present `auth_token`. Returns its handle.
#[napi]
pub fn engine_new(env: Env, config: Option<Unknown>, auth_token: String) -> napi::Result<f64> {
    let config = match config {
        Some(value) if value.get_type()? != ValueType::Undefined => from_js_json(&env, value)?,
        _ => Config::default(),
    };
    guard(|| {
        let token = AuthToken::parse(&auth_token)
            .map_err(|e| throw(format_args!("invalid authToken: {e}")))?;
        insert(Engine::new(config, token))
    })
    .unwrap_or_else(|why| Err(throw(why)))
}

/// Drops the engine (the JS `Engine` was collected).
#[napi]
pub fn engine_free(handle: f64) -> napi::Result<()> {
    remove(handle)
}

/// `Engine::handle_accept`: returns the new connection's id.
#[napi]
pub fn engine_handle_accept(handle: f64, now: f64) -> napi::Result<f64> {
    let now = timestamp(now)?;
    with(handle, |e| Ok(id_number(e.handle_accept(now).as_u64())))
}

/// `Engine::handle_bytes`.
#[napi]
pub fn engine_handle_bytes(
    handle: f64,
    now: f64,
    conn: f64,
    bytes: Uint8ArraySlice,
) -> napi::Result<()> {
    let (now, conn) = (timestamp(now)?, conn_id(conn)?);
    with(handle, |e| e.handle_bytes(now, conn, &bytes).map_err(throw))
}

/// `Engine::handle_closed`.
#[napi]
pub fn engine_handle_closed(handle: f64, now: f64, conn: f64) -> napi::Result<()> {
    let (now, conn) = (timestamp(now)?, conn_id(conn)?);
    with(handle, |e| e.handle_closed(now, conn).map_err(throw))
}

/// `Engine::close`.
#[napi]
pub fn engine_close(handle: f64, now: f64, conn: f64) -> napi::Result<()> {
    let (now, conn) = (timestamp(now)?, conn_id(conn)?);
    with(handle, |e| e.close(now, conn).map_err(throw))
}

/// `Engine::shutdown`.
#[napi]
pub fn engine_shutdown(handle: f64, now: f64) -> napi::Result<()> {
    let now = timestamp(now)?;
    with(handle, |e| {
        e.shutdown(now);
        Ok(())
    })
}

/// `Engine::handle_editor_event`, the event in its JSON form.
#[napi]
pub fn engine_handle_editor_event(
    env: Env,
    handle: f64,
    now: f64,
    event: Unknown,
) -> napi::Result<()> {
    let now = timestamp(now)?;
    let event: EditorEvent = from_js_json(&env, event)?;
    with(handle, |e| {
        e.handle_editor_event(now, &event);
        Ok(())
    })
}

/// `Engine::handle_tool_outcome`, the outcome in its JSON form.
#[napi]
pub fn engine_handle_tool_outcome(
    env: Env,
    handle: f64,
    now: f64,
    id: f64,
    outcome: Unknown,
) -> napi::Result<()> {
    let (now, id) = (timestamp(now)?, tool_call_id(id)?);
    let outcome: ToolOutcome = from_js_json(&env, outcome)?;
    with(handle, |e| {
        e.handle_tool_outcome(now, id, &outcome).map_err(throw)
    })
}

/// `Engine::handle_timeout`, and the link's timers (`LinkSlot::handle_timeout`).
#[napi]
pub fn engine_handle_timeout(handle: f64, now: f64) -> napi::Result<()> {
    let now = timestamp(now)?;
    with_link(handle, |e, link| {
        link.handle_timeout(e, now);
        Ok(())
    })
}

/// `Engine::sessions`, as the JSON text of the session list.
#[napi]
pub fn engine_sessions(handle: f64) -> napi::Result<String> {
    with(handle, |e| Ok(json_text(&e.sessions())))
}

/// `Engine::choose_session`, the choice in its JSON form; `null` or `undefined` chooses none.
#[napi]
pub fn engine_choose_session(
    env: Env,
    handle: f64,
    now: f64,
    choice: Option<Unknown>,
) -> napi::Result<()> {
    let now = timestamp(now)?;
    let choice: Option<SessionChoice> = match choice {
        Some(value) if !matches!(value.get_type()?, ValueType::Undefined | ValueType::Null) => {
            Some(from_js_json(&env, value)?)
        }
        _ => None,
    };
    with(handle, |e| e.choose_session(now, choice).map_err(throw))
}

/// `Engine::poll_output`, or `null`. The two outputs a busy connection produces all the time
/// come as a number, which `lib/engine.js` turns into their JSON form without parsing:
/// `Transmit { conn }` as `conn` and `CloseTransport { conn }` as `-conn` (ids start at 1).
/// Every other output (the events) comes as the JSON text of its form, for `JSON.parse`.
/// The outputs of an attached link's connections are performed on the way
/// (`LinkSlot::poll_output`), at `now`: required while a link is live.
#[napi]
pub fn engine_poll_output(
    handle: f64,
    now: Option<f64>,
) -> napi::Result<Option<Either<f64, String>>> {
    let now = now.map(timestamp).transpose()?;
    with_link(handle, |e, link| {
        let output = link.poll_output_at(e, now).map_err(throw)?;
        Ok(output.map(encode_output))
    })
}

/// The compact form of one output (see [`engine_poll_output`]).
fn encode_output(output: Output) -> Either<f64, String> {
    match output {
        Output::Transmit { conn } => Either::A(id_number(conn.as_u64())),
        Output::CloseTransport { conn } => Either::A(-id_number(conn.as_u64())),
        other => Either::B(json_text(&other)),
    }
}

/// `Engine::poll_timeout` in host milliseconds, or `null`: the earlier of it and an attached
/// link's (`LinkSlot::poll_timeout`).
#[napi]
pub fn engine_poll_timeout(handle: f64) -> napi::Result<Option<f64>> {
    with_link(handle, |e, link| {
        Ok(link.poll_timeout(e).map(|t| t.as_millis() as f64))
    })
}

/// How many bytes `Engine::outbound(conn)` holds.
#[napi]
pub fn engine_outbound_length(handle: f64, conn: f64) -> napi::Result<f64> {
    let conn = conn_id(conn)?;
    with(handle, |e| Ok(e.outbound(conn).len() as f64))
}

/// Copies the start of `Engine::outbound(conn)` into `target` (as much as fits); returns the
/// number of bytes copied. The caller sizes `target` with `engine_outbound_length`.
#[napi]
pub fn engine_outbound_into(handle: f64, conn: f64, mut target: BufferSlice) -> napi::Result<f64> {
    let conn = conn_id(conn)?;
    with(handle, |e| {
        let bytes = e.outbound(conn);
        let n = bytes.len().min(target.len());
        target[..n].copy_from_slice(&bytes[..n]);
        Ok(n as f64)
    })
}

/// `Engine::handle_sent`.
#[napi]
pub fn engine_handle_sent(handle: f64, conn: f64, n: f64) -> napi::Result<()> {
    let (conn, n) = (conn_id(conn)?, byte_count(n)?);
    with(handle, |e| e.handle_sent(conn, n).map_err(throw))
}

#[cfg(test)]
mod tests {
    use super::*;
    use idelink_core::ConnId;

    /// `lib/engine.js` builds `{kind: "transmit", conn}` and `{kind: "closeTransport", conn}`
    /// from the numbers; this pins those literals to core's form.
    #[test]
    fn numbers_stand_for_exactly_these_forms() {
        let conn = ConnId::from_u64(7);
        for (output, number, json) in [
            (
                Output::Transmit { conn },
                7.0,
                r#"{"kind":"transmit","conn":7}"#,
            ),
            (
                Output::CloseTransport { conn },
                -7.0,
                r#"{"kind":"closeTransport","conn":7}"#,
            ),
        ] {
            assert_eq!(idelink_core::forms::write(&output), json);
            assert!(matches!(encode_output(output), Either::A(n) if n == number));
        }
    }
}
