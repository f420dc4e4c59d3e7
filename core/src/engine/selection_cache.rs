//! The selection tools' answers, rendered once per state of the editor rather than once per
//! call: the CLI (and any other client) may ask for the selection far more often than it
//! changes.

use crate::ide::answer::Answer;
use crate::ide::{self, EditorState, ToolName};
use crate::policy::gate::Gate;

/// Rendered `getCurrentSelection` / `getLatestSelection` results (the `{"content":[…]}` JSON),
/// valid until the editor state changes. Buffers keep their capacity, so steady traffic does
/// not allocate.
#[derive(Default)]
pub(crate) struct SelectionCache {
    current: Rendered,
    latest: Rendered,
}

#[derive(Default)]
struct Rendered {
    json: Vec<u8>,
    valid: bool,
    /// The file the context policy kept out of this answer, counted again at each serving.
    withheld: Option<String>,
}

impl SelectionCache {
    /// Forgets every rendered answer: call whenever the editor state may have changed.
    pub(crate) fn invalidate(&mut self) {
        self.current.valid = false;
        self.latest.valid = false;
    }

    /// The result JSON answering `tool` from `state` as `gate` lets it out, rendered now
    /// unless it is still valid; `None` for a tool that is not a selection tool. Invalidate
    /// when the policy changes too.
    pub(crate) fn get(
        &mut self,
        tool: ToolName,
        state: &EditorState,
        gate: &mut Gate,
    ) -> Option<&[u8]> {
        let rendered = match tool {
            ToolName::GetCurrentSelection => &mut self.current,
            ToolName::GetLatestSelection => &mut self.latest,
            _ => return None,
        };
        if rendered.valid {
            if let Some(path) = &rendered.withheld {
                gate.withheld_read(path);
            }
        } else {
            rendered.json.clear();
            let answer = ide::selection_answer(tool, state)?;
            rendered.withheld = match &answer {
                Answer::Selection(selection) if gate.hides_selection(selection) => {
                    Some(selection.file_path.clone())
                }
                _ => None,
            };
            let answer = gate.screen(tool, answer);
            answer.write_result(&mut rendered.json);
            rendered.valid = true;
        }
        Some(&rendered.json)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::ide::{EditorEvent, PathStyle, ToolPlan, plan_tool_call};

    fn planned(tool: ToolName, state: &EditorState) -> String {
        match plan_tool_call(tool, None, state, false) {
            ToolPlan::Reply(result) => serde_json::to_string(&result).unwrap_or_default(),
            other => format!("{other:?}"),
        }
    }

    fn cached(answers: &mut SelectionCache, tool: ToolName, state: &EditorState) -> String {
        let mut gate = Gate::new(Default::default(), &[], PathStyle::Posix);
        let json = answers.get(tool, state, &mut gate).unwrap_or_default();
        String::from_utf8_lossy(json).into_owned()
    }

    #[test]
    fn answers_follow_the_state_once_invalidated() {
        let mut state = EditorState::new(PathStyle::Posix, vec![]);
        let mut answers = SelectionCache::default();
        let tools = [ToolName::GetCurrentSelection, ToolName::GetLatestSelection];
        let events = [
            r#"{"type":"documentActivated","path":"/w/a.rs"}"#,
            r#"{"type":"selectionChanged","path":"/w/a.rs","text":"fn","selection":{"start":{"line":1,"character":0},"end":{"line":1,"character":2}}}"#,
            r#"{"type":"documentActivated","path":"/w/b.rs"}"#,
            r#"{"type":"documentClosed","path":"/w/b.rs"}"#,
        ];
        for event in events {
            for tool in tools {
                assert_eq!(cached(&mut answers, tool, &state), planned(tool, &state));
            }
            let event: EditorEvent = serde_json::from_str(event).unwrap_or_else(|e| panic!("{e}"));
            let _ = state.apply(&event);
            let stale = cached(&mut answers, ToolName::GetCurrentSelection, &state);
            assert_ne!(stale, planned(ToolName::GetCurrentSelection, &state));
            answers.invalidate();
        }
        for tool in tools {
            assert_eq!(cached(&mut answers, tool, &state), planned(tool, &state));
        }
    }

    #[test]
    fn other_tools_are_not_answered() {
        let state = EditorState::new(PathStyle::Posix, vec![]);
        let mut answers = SelectionCache::default();
        for tool in ToolName::ALL {
            let selection = matches!(
                tool,
                ToolName::GetCurrentSelection | ToolName::GetLatestSelection
            );
            let mut gate = Gate::new(Default::default(), &[], PathStyle::Posix);
            assert_eq!(answers.get(tool, &state, &mut gate).is_some(), selection);
        }
    }
}
