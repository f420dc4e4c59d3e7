//! `rpc::parse` on arbitrary text, under the default depth limit and a tiny one.
//!
//! Oracles: no panic and no stack overflow whatever the nesting; every reply written for an
//! invalid message or a request is one JSON object echoing the request's id.
#![no_main]

use idelink_core::rpc::{Message, RpcError, RpcLimits, parse, write_error, write_result};
use libfuzzer_sys::fuzz_target;
use serde_json::Value;

fuzz_target!(|data: &[u8]| {
    let Ok(text) = std::str::from_utf8(data) else {
        return;
    };
    for max_depth in [RpcLimits::default().max_depth, 2] {
        let mut out = Vec::new();
        let id = match parse(text, &RpcLimits { max_depth }) {
            Ok(Message::Request { id, method, params }) => {
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
        let reply: Value = serde_json::from_slice(&out).expect("a reply is JSON");
        assert_eq!(reply["jsonrpc"], "2.0");
        let echoed: Value = match id {
            Some(raw) => serde_json::from_str(raw).expect("an id is JSON"),
            None => Value::Null,
        };
        assert_eq!(reply["id"], echoed);
    }
});
