//! Which paths the turn ledger keeps, and how it spells them: the editor's paths (mapped back
//! through [`Config::path_map`](crate::Config::path_map) when one is set), only inside the
//! workspace folders. A path outside either is left out of the ledger, never guessed: the
//! CLI's call is answered as without the ledger, and the reason reported
//! ([`TurnChange::LeftOut`](crate::ledger::TurnChange::LeftOut)).

use super::Engine;
use crate::engine::sessions::holds;
use crate::ide::normalize_path;

impl Engine {
    /// The ledger's path for `path` as claude named it (normalized, claude's spelling), or
    /// why it is left out.
    pub(super) fn ledger_path_of_claudes(&self, path: &str) -> Result<String, String> {
        let local = if self.paths.is_active() {
            self.paths.to_local(path).map_err(|e| e.to_string())?
        } else {
            path.to_owned()
        };
        self.confined(local)
    }

    /// The ledger's path for `path` as the editor (or the host's watcher) spells it, or why
    /// it is left out.
    pub(super) fn ledger_path_of_editors(&self, path: &str) -> Result<String, String> {
        let normalized = normalize_path(path, self.config.path_style);
        if !self.paths.is_active() {
            return self.confined(normalized.into_owned());
        }
        // Through claude's spelling and back: the map's one spelling of the editor's path,
        // and a path claude has no name for is refused.
        let remote = self
            .paths
            .to_remote(&normalized)
            .map_err(|e| e.to_string())?;
        self.ledger_path_of_claudes(&remote)
    }

    /// `path` (the editor's) when it lies inside a workspace folder, whole components only
    /// and with no `.` or `..` segment (which could climb out of the folder it names). An
    /// engine told of no folder keeps every path: it has no workspace to confine to.
    fn confined(&self, path: String) -> Result<String, String> {
        let folders = self.ledger_folders();
        if folders.is_empty() {
            return Ok(path);
        }
        let climbs = path.split('/').any(|s| s == "." || s == "..");
        if !climbs && folders.iter().any(|folder| holds(folder, &path)) {
            return Ok(path);
        }
        Err(format!(
            "{path} is outside the workspace folders ({}): the ledger neither reads nor \
             writes it",
            folders.join(", ")
        ))
    }

    /// The workspace folders as they are now, in the editor's spelling.
    fn ledger_folders(&self) -> Vec<String> {
        let folders = self.service.state().workspace_folders();
        if !self.paths.is_active() {
            return folders.to_vec();
        }
        folders
            .iter()
            .filter_map(|folder| self.paths.to_local(folder).ok())
            .collect()
    }
}
