//! `rpc::parse` on arbitrary text, under the default depth limit and a tiny one.
//!
//! Oracles: no panic and no stack overflow whatever the nesting; every reply written for an
//! invalid message or a request is one JSON-RPC object echoing the request's id byte for byte
//! (checked on raw tokens: an id like `1e999` is valid JSON though no f64 holds it).
#![no_main]

use idelink_core::rpc::{Message, RpcError, RpcLimits, parse, write_error, write_result};
use idelink_fuzz::server_message;
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    let Ok(text) = std::str::from_utf8(data) else {
        return;
    };
    for max_depth in [RpcLimits::default().max_depth, 2] {
        let mut out = Vec::new();
        let id = match parse(text, &RpcLimits { max_depth }) {
            Ok(Message::Request {
                id, method, params, ..
            }) => {
                assert!(params.is_none_or(|p| p.get().starts_with(['{', '['])));
                let _ = method;
                write_result(&mut out, id, &serde_json::json!({}));
                Some(id.as_raw().get())
            }
            Ok(Message::Notification { .. } | Message::Response { .. }) => None,
            Err(invalid) => {
                if invalid.reply {
                    write_error(&mut out, invalid.id, &invalid.error);
                    assert!(matches!(
                        invalid.error.code,
                        RpcError::PARSE_ERROR | RpcError::INVALID_REQUEST
                    ));
                }
                invalid.id.map(|id| id.as_raw().get())
            }
        };
        if out.is_empty() {
            continue;
        }
        let reply = server_message(&out);
        assert_eq!(
            reply.id.map(|raw| raw.get()),
            id,
            "the id is echoed as sent"
        );
    }
});
