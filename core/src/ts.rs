//! TypeScript declarations of the JSON forms (feature `ts`, for the generator in `types/`).
//!
//! Every other JSON form derives `ts_rs::TS` next to its serde derive, so the declarations
//! follow the same attributes; [`ToolName`] serializes through a hand-written impl and gets a
//! hand-written declaration here, built from the same wire names.

use crate::ide::ToolName;
use ts_rs::{Config, TS};

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
