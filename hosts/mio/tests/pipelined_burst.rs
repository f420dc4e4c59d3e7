//! Caps hold per reply, not per read (issue 12 §4), on a real socket: a client with 20
//! documents open in the editor writes 5,000 `getOpenEditors` calls in one write (~10 MB of
//! answers) before reading any, under a 64 KiB outbound cap. The engine stops serving that
//! client's input while its answers wait and resumes as the host writes them, so the client
//! gets every answer, in order, and stays connected (before: closed at the first check).

mod common;

use common::{Served, TempDir, config};
use idelink_core::EditorEvent;
use idelink_test_client::{Client, client_frame};

const CALLS: u64 = 5_000;
const DOCUMENTS: usize = 20;

#[test]
fn five_thousand_pipelined_calls_are_all_answered_under_a_small_cap() {
    let dir = TempDir::new("burst");
    let mut config = config(&dir);
    config.engine.max_outbound_bytes = 64 << 10;
    let served = Served::start(config);
    for i in 0..DOCUMENTS {
        let path = format!("/home/user/project/src/some/deeper/module_{i:04}/file.rs");
        served.editor(EditorEvent::DocumentOpened {
            path,
            language_id: Some("rust".into()),
            is_dirty: false,
            is_untitled: false,
        });
    }
    let mut client = Client::connect_initialized(served.port, &served.token).unwrap();
    // The editor events went in before this call: its answer lists every document.
    let first = client
        .call_tool("getOpenEditors", serde_json::json!({}))
        .unwrap();
    let listed = first["result"]["content"][0]["text"].as_str().unwrap();
    assert_eq!(listed.matches("\"uri\"").count(), DOCUMENTS, "{listed}");

    let base = 1_000;
    let burst: Vec<u8> = (base..base + CALLS)
        .flat_map(|id| {
            let call = serde_json::json!({"jsonrpc": "2.0", "id": id, "method": "tools/call",
                "params": {"name": "getOpenEditors", "arguments": {}}});
            client_frame(0x81, call.to_string().as_bytes())
        })
        .collect();
    client.send_raw(&burst).unwrap();
    for id in base..base + CALLS {
        let answer = client.next_json().unwrap();
        assert_eq!(answer["id"], id, "answers come in order");
        assert!(answer["result"]["content"].is_array(), "{answer}");
    }
    let ping = client.call("ping", serde_json::json!({})).unwrap();
    assert_eq!(ping["result"], serde_json::json!({}));
    served.stop();
}
