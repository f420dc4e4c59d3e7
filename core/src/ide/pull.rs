//! Pull reads: a read tool the [`ReadSources`] send to the editor instead of answering from
//! the [`EditorState`](super::EditorState). The call becomes a [`ToolRequest`](super::ToolRequest) with its
//! arguments parsed, the editor answers with a typed [`ToolOutcome`](super::ToolOutcome), and the answer is the
//! same `Answer` as the state's (written straight into the reply by the same code): for the
//! same editor state, a pulled read and a pushed one give the same bytes. Each read tool's
//! request and answer are its module's ([`super::tools`]).
//!
//! For an editor that already answers such queries on demand (a buffer store, a language
//! server's `for_uri`), pulling saves keeping a copy of that state in the engine.

use std::borrow::Cow;
use std::fmt;

use serde::de::{self, Deserializer, MapAccess, Visitor};
use serde::ser::{SerializeStruct, Serializer};
use serde::{Deserialize, Serialize};

use super::catalog::ToolName;
use super::tools::READ_NAMES;

/// Where a read tool's answer comes from.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
pub enum ReadSource {
    /// The engine answers at once from the editor events it was fed (push).
    #[default]
    State,
    /// The engine hands the call to the editor as a [`ToolRequest`](super::ToolRequest) and answers with its
    /// [`ToolOutcome`](super::ToolOutcome), or with an error when the editor misses `tool_deadline_ms` (pull).
    Editor,
}

/// The [`ReadSource`] of each read tool, keyed by its [`ToolName`]. Default: every one from
/// the state. JSON form: `{"getDiagnostics": "editor"}` (the read tools' wire names, every
/// field optional, unknown fields refused); written with every read tool, in catalog order.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct ReadSources {
    /// Bit `tool as usize` set: that read tool is pulled from the editor.
    editor: u32,
}

impl ReadSources {
    /// Every read tool from `source`.
    pub fn all(source: ReadSource) -> Self {
        let mut sources = ReadSources::default();
        for tool in ToolName::ALL {
            sources.set(tool, source);
        }
        sources
    }

    /// Where `tool` is answered from; [`ReadSource::State`] for every tool that is no read
    /// tool (those are not the state's to answer either way).
    pub fn source(&self, tool: ToolName) -> ReadSource {
        if self.editor & bit(tool) != 0 {
            ReadSource::Editor
        } else {
            ReadSource::State
        }
    }

    /// Answers read tool `tool` from `source`; a tool that is no read tool stays with the
    /// state.
    pub fn set(&mut self, tool: ToolName, source: ReadSource) {
        match source {
            ReadSource::Editor if tool.is_read() => self.editor |= bit(tool),
            _ => self.editor &= !bit(tool),
        }
    }
}

// Every tool has its bit in a `u32`.
const _: () = assert!(ToolName::ALL.len() <= 32);

/// The bit of `tool` in [`ReadSources`].
fn bit(tool: ToolName) -> u32 {
    1 << tool as u32
}

impl Serialize for ReadSources {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        let mut map = serializer.serialize_struct("ReadSources", READ_NAMES.len())?;
        for tool in ToolName::ALL.into_iter().filter(|tool| tool.is_read()) {
            map.serialize_field(tool.as_str(), &self.source(tool))?;
        }
        map.end()
    }
}

impl<'de> Deserialize<'de> for ReadSources {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        deserializer.deserialize_struct("ReadSources", READ_NAMES, SourcesVisitor)
    }
}

/// Reads [`ReadSources`] as serde's derive did for a struct of one optional field per read
/// tool with `deny_unknown_fields`: the same messages for an unknown or repeated name.
struct SourcesVisitor;

impl<'de> Visitor<'de> for SourcesVisitor {
    type Value = ReadSources;

    fn expecting(&self, formatter: &mut fmt::Formatter) -> fmt::Result {
        formatter.write_str("struct ReadSources")
    }

    fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<ReadSources, A::Error> {
        let mut sources = ReadSources::default();
        let mut seen = 0u32;
        while let Some(name) = map.next_key::<Cow<'de, str>>()? {
            let Some(tool) = ToolName::parse(&name).filter(|tool| tool.is_read()) else {
                return Err(de::Error::unknown_field(&name, READ_NAMES));
            };
            if seen & bit(tool) != 0 {
                return Err(de::Error::duplicate_field(tool.as_str()));
            }
            seen |= bit(tool);
            sources.set(tool, map.next_value()?);
        }
        Ok(sources)
    }
}

#[cfg(test)]
mod tests;
