//! The 0.1.0 names kept as deprecated aliases still name the same items, so code written for
//! 0.1 compiles (docs/embedding.md, "One name per concept").
#![allow(deprecated)]

use idelink_core::{EngineEvent, Event};

fn connected(event: &Event) -> bool {
    matches!(event, Event::Connected { .. })
}

#[test]
fn event_is_engine_event() {
    let same: fn(&EngineEvent) -> bool = connected;
    assert!(!same(&EngineEvent::ToolServed {
        conn: idelink_core::ConnId::from_u64(1),
        tool: idelink_core::ide::ToolName::GetOpenEditors,
    }));
}
