//! The engine's edges, mapped: a tool request to the editor's paths, an editor event and a
//! pulled answer to claude's.

use super::map::{PathMap, PathMapError};
use crate::engine::EngineEvent;
use crate::ide::{EditorEvent, ToolOutcome, ToolRequest};
use crate::policy::ContextPolicy;

impl PathMap {
    /// `request` (claude's paths) with the editor's paths. A path outside every mapping is
    /// the error, whose text answers claude's call.
    pub fn request_to_local(&self, mut request: ToolRequest) -> Result<ToolRequest, PathMapError> {
        match &mut request {
            ToolRequest::OpenFile { path, .. }
            | ToolRequest::SaveDocument { path }
            | ToolRequest::CheckDocumentDirty { path }
            | ToolRequest::GetDiagnostics { path: Some(path) } => *path = self.to_local(path)?,
            ToolRequest::OpenDiff {
                old_file_path,
                new_file_path,
                ..
            } => {
                *old_file_path = self.to_local(old_file_path)?;
                *new_file_path = self.to_local(new_file_path)?;
            }
            ToolRequest::ExecuteCode { .. }
            | ToolRequest::GetDiagnostics { path: None }
            | ToolRequest::GetCurrentSelection
            | ToolRequest::GetLatestSelection
            | ToolRequest::GetOpenEditors
            | ToolRequest::GetWorkspaceFolders => {}
        }
        Ok(request)
    }

    /// `event` (the editor's paths) with claude's paths, or `None` when it names a path
    /// outside every mapping (claude has no name for that file: the event is withheld). A
    /// folder list keeps the folders that map.
    pub fn event_to_remote(&self, event: &EditorEvent) -> Option<EditorEvent> {
        let mut event = event.clone();
        match &mut event {
            EditorEvent::DocumentOpened { path, .. }
            | EditorEvent::DocumentClosed { path }
            | EditorEvent::DocumentActivated { path }
            | EditorEvent::DocumentDirtyChanged { path, .. }
            | EditorEvent::DocumentSaved { path }
            | EditorEvent::SelectionChanged { path, .. }
            | EditorEvent::DiagnosticsChanged { path, .. }
            | EditorEvent::Mention { path, .. } => *path = self.to_remote(path).ok()?,
            EditorEvent::WorkspaceFoldersChanged { folders } => *folders = self.folders(folders),
            // The engine maps a policy's ignore files itself (`policy_to_remote`), whether
            // it comes in this event or through `Engine::set_policy`.
            EditorEvent::NoDocumentActive
            | EditorEvent::ProposalDiagnosticsChanged { .. }
            | EditorEvent::PolicyChanged { .. }
            | EditorEvent::SharingPaused { .. } => {}
        }
        Some(event)
    }

    /// `event` (the engine's, claude's paths) with the editor's paths where it names files
    /// for the editor: the file a client's write replaced, the files the context policy
    /// withheld. Those came from the editor or from a request already mapped, so they map
    /// back; one that does not keeps claude's spelling (a report, never a path to act on).
    pub fn engine_event_to_local(&self, mut event: EngineEvent) -> EngineEvent {
        let local = |path: &mut String| {
            if let Ok(mapped) = self.to_local(path) {
                *path = mapped;
            }
        };
        match &mut event {
            EngineEvent::FileReplaced { path, .. } => local(path),
            EngineEvent::ContextWithheld { paths, .. } => paths.iter_mut().for_each(local),
            _ => {}
        }
        event
    }

    /// `outcome` (a pulled read's answer, the editor's paths) with claude's paths: entries
    /// outside every mapping are dropped, a selection outside is no selection.
    pub fn outcome_to_remote(&self, outcome: &ToolOutcome) -> ToolOutcome {
        let mut outcome = outcome.clone();
        match &mut outcome {
            ToolOutcome::Diagnostics { files } => {
                files.retain_mut(|file| self.keep(&mut file.path))
            }
            ToolOutcome::OpenEditors { tabs } => tabs.retain_mut(|tab| self.keep(&mut tab.path)),
            ToolOutcome::WorkspaceFolders { folders } => *folders = self.folders(folders),
            ToolOutcome::Selection { path, .. } => {
                if !self.keep(path) {
                    outcome = ToolOutcome::NoSelection;
                }
            }
            ToolOutcome::FileOpened { .. }
            | ToolOutcome::DiffSaved { .. }
            | ToolOutcome::DiffRejected
            | ToolOutcome::DiffRefused { .. }
            | ToolOutcome::DocumentSaved
            | ToolOutcome::CodeExecuted { .. }
            | ToolOutcome::Failed { .. }
            | ToolOutcome::NoSelection
            | ToolOutcome::DocumentDirty { .. }
            | ToolOutcome::DocumentNotOpen => {}
        }
        outcome
    }

    /// `policy` (its ignore files in the editor's folders) as the engine applies it to
    /// claude's paths: each ignore file's folder as claude spells it; one whose folder maps
    /// nowhere covers no path claude can name, and is left out. Deny globs are relative to
    /// the workspace folders, and stay as they are.
    pub fn policy_to_remote(&self, policy: &ContextPolicy) -> ContextPolicy {
        let mut policy = policy.clone();
        if self.is_active() {
            policy
                .ignore_files
                .retain_mut(|file| self.keep(&mut file.dir));
        }
        policy
    }

    /// The editor's `folders` that map, as claude spells them (the far lock's folders).
    pub fn folders(&self, folders: &[String]) -> Vec<String> {
        folders
            .iter()
            .filter_map(|folder| self.to_remote(folder).ok())
            .collect()
    }

    /// Rewrites `path` to claude's; `false` when it maps nowhere.
    fn keep(&self, path: &mut String) -> bool {
        match self.to_remote(path) {
            Ok(mapped) => {
                *path = mapped;
                true
            }
            Err(_) => false,
        }
    }
}
