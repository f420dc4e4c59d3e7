//! Tests over the catalog: what every tool module must provide, then each tool's behaviour.

use std::path::Path;

use serde_json::value::RawValue;

use super::{CATALOG, READ_NAMES, ToolName};
use crate::ide::{EditorState, PathStyle, ReadSource, ToolPlan, plan};

mod reads;
mod writes;

/// Every transcript vector's text, one per file.
fn vectors() -> Vec<String> {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("../tests/vectors");
    let mut all = Vec::new();
    for entry in std::fs::read_dir(dir).unwrap() {
        let path = entry.unwrap().path();
        if path.extension().is_some_and(|ext| ext == "json") {
            all.push(std::fs::read_to_string(path).unwrap());
        }
    }
    all
}

/// The tools of the requests the vectors expect the engine to hand to the editor (their
/// `toolCall` events).
fn pulled_in_vectors(vectors: &[String]) -> Vec<String> {
    fn walk(value: &serde_json::Value, found: &mut Vec<String>) {
        match value {
            serde_json::Value::Object(map) => {
                if map.get("event").and_then(|e| e.as_str()) == Some("toolCall")
                    && let Some(tool) = map["request"]["tool"].as_str()
                {
                    found.push(tool.to_owned());
                }
                map.values().for_each(|v| walk(v, found));
            }
            serde_json::Value::Array(items) => items.iter().for_each(|v| walk(v, found)),
            _ => {}
        }
    }
    let mut found = Vec::new();
    for text in vectors {
        walk(&serde_json::from_str(text).unwrap(), &mut found);
    }
    found
}

/// What a tool must provide, checked for every entry of the catalog: a wire name that parses
/// back to it, a description and a schema with unique argument names of JSON types, a plan
/// for a call without arguments that neither panics nor is refused for a reason other than
/// its own arguments, a pulled request exactly when it is a read tool (whose request is its
/// own), and a transcript vector that calls it (and, for a read tool, one that pulls it).
#[test]
fn every_tool_provides_what_a_tool_must() {
    let vectors = vectors();
    let pulled = pulled_in_vectors(&vectors);
    let state = EditorState::new(PathStyle::Posix, vec!["/w".into()]);
    let empty = RawValue::from_string("{}".to_owned()).unwrap();
    for tool in ToolName::ALL {
        let entry = tool.entry();
        let name = entry.name;
        assert_eq!(ToolName::parse(name), Some(tool), "{name}");
        assert!(!entry.description.is_empty(), "{name}: no description");
        for (i, param) in entry.params.iter().enumerate() {
            assert!(
                entry.params[..i].iter().all(|p| p.name != param.name),
                "{name}: argument {} listed twice",
                param.name
            );
            assert!(
                matches!(param.kind, "string" | "boolean" | "number" | "object"),
                "{name}: argument {} of type {}",
                param.name,
                param.kind
            );
        }
        let planned = |source| {
            plan(tool, Some(&empty), &state, source, true).map_reply(|a| a.to_tool_result())
        };
        let from_state = planned(ReadSource::State);
        if let ToolPlan::InvalidArguments(why) = &from_state {
            assert!(
                entry
                    .params
                    .iter()
                    .any(|p| p.required && why.contains(p.name)),
                "{name}: refused without a required argument: {why}"
            );
        }
        match (entry.read, planned(ReadSource::Editor)) {
            (true, ToolPlan::Request(request)) => {
                assert_eq!(request.tool(), tool, "{name}: pulls another tool");
                assert!(request.is_read(), "{name}");
            }
            (true, ToolPlan::InvalidArguments(why)) => assert!(
                entry
                    .params
                    .iter()
                    .any(|p| p.required && why.contains(p.name)),
                "{name}: pull refused: {why}"
            ),
            (true, other) => panic!("{name}: a read tool pulled as {other:?}"),
            (false, other) => assert_eq!(
                other, from_state,
                "{name}: no read tool, yet pulling changes its plan"
            ),
        }
        let call = format!(r#"\"method\":\"tools/call\",\"params\":{{\"name\":\"{name}\""#);
        assert!(
            vectors.iter().any(|vector| vector.contains(&call)),
            "{name}: no transcript vector calls it"
        );
        if entry.read {
            assert!(
                pulled.iter().any(|tool| tool == name),
                "{name}: no transcript vector pulls it from the editor"
            );
        }
    }
}

#[test]
fn only_execute_code_opts_in_and_only_reads_are_pulled() {
    let opted: Vec<&str> = CATALOG
        .iter()
        .filter(|e| e.opt_in)
        .map(|e| e.name)
        .collect();
    assert_eq!(opted, ["executeCode"]);
    assert_eq!(
        READ_NAMES,
        [
            "getDiagnostics",
            "getCurrentSelection",
            "getLatestSelection",
            "getOpenEditors",
            "getWorkspaceFolders",
            "checkDocumentDirty",
        ]
    );
}
