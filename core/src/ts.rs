//! TypeScript declarations of the JSON forms (feature `ts`, for the generator in `types/`).
//!
//! Every other JSON form derives `ts_rs::TS` next to its serde derive, so the declarations
//! follow the same attributes; [`ToolName`] and [`ReadSources`] serialize through
//! hand-written impls and get hand-written declarations here, built from the same wire names.

use crate::ide::{ReadSource, ReadSources, ToolName};
use ts_rs::{Config, TS, TypeVisitor};

/// The union of the wire names, in `tools/list` order: `"openFile" | "openDiff" | ...`.
impl TS for ToolName {
    type WithoutGenerics = Self;
    type OptionInnerType = Self;

    fn docs() -> Option<String> {
        Some(ts_rs::format_docs(&[
            " A tool the server offers, by its wire name (`close_tab` is the one snake_case name).",
        ]))
    }

    fn name(_: &Config) -> String {
        "ToolName".to_owned()
    }

    fn inline(_: &Config) -> String {
        let names: Vec<String> = ToolName::ALL
            .iter()
            .map(|tool| format!("\"{}\"", tool.as_str()))
            .collect();
        names.join(" | ")
    }

    fn decl(cfg: &Config) -> String {
        format!("type ToolName = {};", Self::inline(cfg))
    }

    fn output_path() -> Option<std::path::PathBuf> {
        Some(std::path::PathBuf::from("ToolName.ts"))
    }
}

/// An object of one optional [`ReadSource`] per read tool, in catalog order:
/// `{ getDiagnostics?: ReadSource, ... }`.
impl TS for ReadSources {
    type WithoutGenerics = Self;
    type OptionInnerType = Self;

    fn docs() -> Option<String> {
        Some(ts_rs::format_docs(&[
            " The [`ReadSource`] of each read tool. Default: every one from the state. JSON form:",
            " `{\"getDiagnostics\": \"editor\"}` (camelCase tool names, every field optional, unknown",
            " fields refused).",
        ]))
    }

    fn name(_: &Config) -> String {
        "ReadSources".to_owned()
    }

    fn inline(cfg: &Config) -> String {
        let fields: String = ToolName::ALL
            .into_iter()
            .filter(|tool| tool.is_read())
            .map(|tool| {
                let name = tool.as_str();
                format!(
                    "\n/**\n * `{name}`.\n */\n{name}?: {}, ",
                    ReadSource::name(cfg)
                )
            })
            .collect();
        format!("{{ {fields}}}")
    }

    fn inline_flattened(cfg: &Config) -> String {
        Self::inline(cfg)
    }

    fn decl(cfg: &Config) -> String {
        format!("type ReadSources = {};", Self::inline(cfg))
    }

    fn decl_concrete(cfg: &Config) -> String {
        Self::decl(cfg)
    }

    fn visit_dependencies(visitor: &mut impl TypeVisitor) {
        visitor.visit::<ReadSource>();
    }

    fn output_path() -> Option<std::path::PathBuf> {
        Some(std::path::PathBuf::from("ReadSources.ts"))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn tool_name_declaration_lists_every_wire_name_as_serialized() {
        let decl = ToolName::decl(&Config::new());
        for tool in ToolName::ALL {
            let json = serde_json::to_string(&tool).unwrap();
            assert!(
                decl.contains(&format!(" {json}")),
                "{json} missing from {decl}"
            );
        }
        assert_eq!(decl.matches(" | ").count(), ToolName::ALL.len() - 1);
    }
}
