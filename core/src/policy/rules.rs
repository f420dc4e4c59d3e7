//! The user's context policy as the host configures it: deny globs, the workspace's ignore
//! files, the sharing mode and the pause switch.

use serde::{Deserialize, Serialize};

/// The deny globs that always apply (before [`ContextPolicy::deny`], which can re-allow one
/// with a `!` pattern): environment files, private keys and certificates, SSH keys, the git
/// directory. Git's ignore syntax: a pattern without a slash matches a name at any depth.
pub const DEFAULT_DENY: &[&str] = &[".env*", "*.pem", "*.key", "id_*", ".git/"];

/// What the editor shares with clients unasked, beside what the deny rules keep back.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
pub enum SharingMode {
    /// Every `selection_changed` (the focused file, cursor moves, selections), every mention,
    /// every read answer: the protocol as the CLI expects it.
    #[default]
    Everything,
    /// Only real selections: a `selection_changed` goes out only while the active document
    /// has a selection whose range is not empty (start ≠ end); opening, focusing or moving
    /// the cursor in a file sends nothing of it, and the end of a selection sends "no file"
    /// so the client stops attaching it. The selection tools answer only such a selection,
    /// `getOpenEditors` lists no tab. Mentions pass.
    SelectionOnly,
    /// Only mentions (`at_mentioned`): no `selection_changed` carries a file, the selection
    /// tools answer "no selection", `getOpenEditors` lists no tab.
    MentionsOnly,
}

impl SharingMode {
    /// The JSON name (`everything`, `selectionOnly`, `mentionsOnly`).
    pub fn as_str(self) -> &'static str {
        match self {
            SharingMode::Everything => "everything",
            SharingMode::SelectionOnly => "selectionOnly",
            SharingMode::MentionsOnly => "mentionsOnly",
        }
    }

    /// The mode named `name` (its JSON name), if any.
    pub fn parse(name: &str) -> Option<SharingMode> {
        [
            SharingMode::Everything,
            SharingMode::SelectionOnly,
            SharingMode::MentionsOnly,
        ]
        .into_iter()
        .find(|mode| mode.as_str() == name)
    }
}

/// One ignore file's text, read by the host (core has no file system): a `.gitignore` with
/// `dir` the folder it lies in, or `.git/info/exclude` with `dir` the repository's root.
/// JSON `{"dir":"/w","text":"target/\n*.log\n"}`.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
pub struct IgnoreFile {
    /// The folder its patterns are relative to (an absolute path in the editor's spelling).
    pub dir: String,
    /// Its contents (git's ignore syntax: `#` comments, `!` negation, a trailing `/` for
    /// directories, `**`).
    pub text: String,
}

/// What may leave the engine about the editor (docs/protocol.md, "Context policy"): applied to
/// every `selection_changed`, every `at_mentioned` and every read tool's answer, from the state
/// or pulled from the editor. A denied file is absent from all of them (or "no file"): never its
/// name, never its text.
///
/// A path is denied when [`DEFAULT_DENY`] then [`deny`](Self::deny) (git's ignore syntax,
/// relative to the workspace folder that holds the path, or to the file system's root for a
/// path outside every folder; the last matching pattern decides, ASCII case folded) deny it,
/// or when the [`ignore_files`](Self::ignore_files) ignore it as git would (the deepest
/// file's last matching pattern decides; for the same folder, a later file in the list before
/// an earlier one; a path under an ignored folder stays ignored; case folded only for Windows
/// paths).
///
/// JSON: `{"deny":["secrets/"],"ignoreFiles":[{"dir":"/w","text":"target/\n"}],
/// "mode":"selectionOnly","paused":false}`, every field optional.
#[derive(Debug, Clone, PartialEq, Eq, Default, Serialize, Deserialize)]
#[serde(default, rename_all = "camelCase", deny_unknown_fields)]
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
pub struct ContextPolicy {
    /// Deny globs added after [`DEFAULT_DENY`] (a `!pattern` re-allows). Default: none.
    #[cfg_attr(feature = "ts", ts(as = "Option<_>", optional))]
    pub deny: Vec<String>,
    /// The workspace's ignore files, as the host read them: list `.git/info/exclude` first,
    /// then each `.gitignore` (root and nested). Default: none.
    #[cfg_attr(feature = "ts", ts(as = "Option<_>", optional))]
    pub ignore_files: Vec<IgnoreFile>,
    /// What is shared unasked. Default [`SharingMode::Everything`].
    #[cfg_attr(feature = "ts", ts(as = "Option<_>", optional))]
    pub mode: SharingMode,
    /// Nothing about the editor leaves the engine: "no file" is pushed once, mentions are
    /// dropped, the read tools answer as for an editor with nothing open (the workspace
    /// folders excepted: the lock file names them already). Default `false`.
    #[cfg_attr(feature = "ts", ts(as = "Option<_>", optional))]
    pub paused: bool,
}
