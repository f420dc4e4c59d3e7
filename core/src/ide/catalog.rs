//! The tool catalog's `tools/list` descriptors (docs/protocol.md §3–§4), written from the
//! tool modules' names, descriptions and schemas ([`super::tools`]).

use serde::Serialize;
use serde::ser::Serializer;

use super::tools::Entry;
pub use super::tools::ToolName;
use crate::json::push_string;

/// The JSON array of tool descriptors that answers `tools/list`: each
/// `{"name","description","inputSchema":{"type":"object","properties":{..},"required"?:[..]}}`.
/// Never an `outputSchema` (it makes the CLI demand `structuredContent`). A tool that opts in
/// (`executeCode`) is listed only when `execute_code_enabled`. Extra arguments are tolerated, so no schema sets
/// `additionalProperties`.
pub fn tools_json(execute_code_enabled: bool) -> String {
    let mut out = Vec::with_capacity(4 << 10);
    out.push(b'[');
    let listed = ToolName::ALL
        .iter()
        .map(|tool| tool.entry())
        .filter(|entry| execute_code_enabled || !entry.opt_in);
    for (at, entry) in listed.enumerate() {
        if at > 0 {
            out.push(b',');
        }
        write_tool(&mut out, entry);
    }
    out.push(b']');
    // Escaping cuts and joins only at ASCII bytes: the text stays UTF-8, nothing is lost.
    String::from_utf8_lossy(&out).into_owned()
}

/// One tool's descriptor, as serde_json writes its serde form (the tests' `ToolSpec`):
/// `{"name","description","inputSchema":{"type":"object","properties":{..},"required"?:[..]}}`.
fn write_tool(out: &mut Vec<u8>, entry: &Entry) {
    out.extend_from_slice(b"{\"name\":");
    push_string(out, entry.name);
    out.extend_from_slice(b",\"description\":");
    push_string(out, entry.description);
    out.extend_from_slice(b",\"inputSchema\":{\"type\":\"object\",\"properties\":{");
    for (at, param) in entry.params.iter().enumerate() {
        if at > 0 {
            out.push(b',');
        }
        push_string(out, param.name);
        out.extend_from_slice(b":{\"type\":");
        push_string(out, param.kind);
        out.extend_from_slice(b",\"description\":");
        push_string(out, param.description);
        out.push(b'}');
    }
    out.push(b'}');
    let mut required = entry.params.iter().filter(|param| param.required);
    if let Some(first) = required.next() {
        out.extend_from_slice(b",\"required\":[");
        push_string(out, first.name);
        for param in required {
            out.push(b',');
            push_string(out, param.name);
        }
        out.push(b']');
    }
    out.extend_from_slice(b"}}");
}

/// One argument in a tool's input schema.
pub(crate) struct Param {
    pub(crate) name: &'static str,
    pub(crate) kind: &'static str,
    description: &'static str,
    pub(crate) required: bool,
}

pub(crate) const fn param(
    name: &'static str,
    kind: &'static str,
    description: &'static str,
) -> Param {
    Param {
        name,
        kind,
        description,
        required: false,
    }
}

pub(crate) const fn required(
    name: &'static str,
    kind: &'static str,
    description: &'static str,
) -> Param {
    Param {
        name,
        kind,
        description,
        required: true,
    }
}

impl Serialize for ToolName {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        serializer.serialize_str(self.as_str())
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde::ser::{SerializeMap, SerializeStruct};
    use serde_json::Value;

    /// One tool's descriptor as a serde form: the oracle of [`tools_json`].
    struct ToolSpec(&'static Entry);

    impl Serialize for ToolSpec {
        fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
            let mut desc = serializer.serialize_struct("Tool", 3)?;
            desc.serialize_field("name", self.0.name)?;
            desc.serialize_field("description", self.0.description)?;
            desc.serialize_field("inputSchema", &InputSchema(self.0.params))?;
            desc.end()
        }
    }

    struct InputSchema(&'static [Param]);

    impl Serialize for InputSchema {
        fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
            let mut schema = serializer.serialize_map(None)?;
            schema.serialize_entry("type", "object")?;
            schema.serialize_entry("properties", &Properties(self.0))?;
            let required: Vec<&str> = self
                .0
                .iter()
                .filter(|p| p.required)
                .map(|p| p.name)
                .collect();
            if !required.is_empty() {
                schema.serialize_entry("required", &required)?;
            }
            schema.end()
        }
    }

    struct Properties(&'static [Param]);

    impl Serialize for Properties {
        fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
            let mut props = serializer.serialize_map(Some(self.0.len()))?;
            for p in self.0 {
                props.serialize_entry(p.name, &PropertySchema(p))?;
            }
            props.end()
        }
    }

    struct PropertySchema<'a>(&'a Param);

    impl Serialize for PropertySchema<'_> {
        fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
            let mut prop = serializer.serialize_struct("Property", 2)?;
            prop.serialize_field("type", self.0.kind)?;
            prop.serialize_field("description", self.0.description)?;
            prop.end()
        }
    }

    #[test]
    fn tools_json_is_what_serde_json_writes_for_the_descriptors() {
        for execute_code_enabled in [false, true] {
            let listed: Vec<ToolSpec> = ToolName::ALL
                .iter()
                .map(|tool| ToolSpec(tool.entry()))
                .filter(|spec| execute_code_enabled || !spec.0.opt_in)
                .collect();
            assert_eq!(
                tools_json(execute_code_enabled),
                serde_json::to_string(&listed).unwrap()
            );
        }
    }

    fn listed(execute_code_enabled: bool) -> Vec<Value> {
        match serde_json::from_str(&tools_json(execute_code_enabled)).unwrap() {
            Value::Array(tools) => tools,
            other => panic!("not an array: {other}"),
        }
    }

    fn descriptor(name: &str) -> String {
        let tool = listed(true)
            .into_iter()
            .find(|t| t["name"] == name)
            .unwrap();
        serde_json::to_string(&tool).unwrap()
    }

    #[test]
    fn wire_names_round_trip() {
        let names: Vec<&str> = ToolName::ALL.iter().map(|t| t.as_str()).collect();
        assert_eq!(
            names,
            [
                "openFile",
                "openDiff",
                "close_tab",
                "closeAllDiffTabs",
                "getDiagnostics",
                "getCurrentSelection",
                "getLatestSelection",
                "getOpenEditors",
                "getWorkspaceFolders",
                "checkDocumentDirty",
                "saveDocument",
                "executeCode",
            ]
        );
        for tool in ToolName::ALL {
            assert_eq!(ToolName::parse(tool.as_str()), Some(tool));
        }
        for unknown in ["", "closeTab", "OPENFILE", "openfile", "openFile "] {
            assert_eq!(ToolName::parse(unknown), None, "{unknown}");
        }
    }

    #[test]
    fn catalog_lists_every_tool_in_order() {
        let names: Vec<Value> = listed(true).iter().map(|t| t["name"].clone()).collect();
        let expected: Vec<Value> = ToolName::ALL.iter().map(|t| t.as_str().into()).collect();
        assert_eq!(names, expected);
    }

    #[test]
    fn execute_code_is_listed_only_when_enabled() {
        let off = listed(false);
        assert_eq!(off.len(), 11);
        assert!(off.iter().all(|t| t["name"] != "executeCode"));
        assert_eq!(listed(true).len(), 12);
    }

    #[test]
    fn descriptors_have_an_object_schema_and_never_an_output_schema() {
        for tool in listed(true) {
            let keys: Vec<&String> = tool.as_object().unwrap().keys().collect();
            assert_eq!(keys, ["description", "inputSchema", "name"], "{tool}");
            assert_eq!(tool["inputSchema"]["type"], "object");
            assert!(tool["inputSchema"]["properties"].is_object());
        }
    }

    #[test]
    fn descriptors_are_byte_exact() {
        let json = tools_json(false);
        assert!(json.starts_with(
            r#"[{"name":"openFile","description":"Open a file in the editor, optionally selecting a range of its text","inputSchema":{"type":"object","properties":{"filePath":{"type":"string","description":"Absolute path of the file to open"},"preview":{"type":"boolean","#
        ));
        assert!(json.contains(
            r#"{"name":"openDiff","description":"Show a proposed change to a file as a diff and wait until the user accepts or rejects it","inputSchema":{"type":"object","properties":{"old_file_path":{"type":"string","description":"Absolute path of the current file"},"new_file_path":{"type":"string","description":"Absolute path the new contents are for"},"new_file_contents":{"type":"string","description":"The complete proposed contents of the file"},"tab_name":{"type":"string","description":"Unique name of the diff tab"}},"required":["old_file_path","new_file_path","new_file_contents","tab_name"]}}"#
        ));
        assert!(json.contains(
            r#"{"name":"getDiagnostics","description":"Get the language diagnostics (errors, warnings, infos, hints) the editor shows, for one file or for every file that has any","inputSchema":{"type":"object","properties":{"uri":{"type":"string","description":"file:// URI of one file; leave out for all files"}}}}"#
        ));
        assert!(json.ends_with(
            r#"{"name":"saveDocument","description":"Save an open document","inputSchema":{"type":"object","properties":{"filePath":{"type":"string","description":"Absolute path of the document"}},"required":["filePath"]}}]"#
        ));
        assert_eq!(
            descriptor("close_tab"),
            r#"{"description":"Close a tab by its name; unknown or already closed tabs are fine","inputSchema":{"properties":{"tab_name":{"description":"Name of the tab to close","type":"string"}},"required":["tab_name"],"type":"object"},"name":"close_tab"}"#
        );
        assert!(tools_json(true).ends_with(
            r#"{"name":"executeCode","description":"Run code in the editor's kernel or runtime for the active notebook or file and return its output. The user confirms every call. State persists between calls, so avoid changing it unless the user asks","inputSchema":{"type":"object","properties":{"code":{"type":"string","description":"The code to run"}},"required":["code"]}}]"#
        ));
    }

    #[test]
    fn no_argument_tools_have_empty_properties_and_no_required() {
        assert!(tools_json(false).contains(
            r#"{"name":"getOpenEditors","description":"List the open editor tabs in tab order","inputSchema":{"type":"object","properties":{}}}"#
        ));
    }
}
