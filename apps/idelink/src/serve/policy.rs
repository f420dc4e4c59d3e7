//! `idelink serve`'s context policy: the user's `.idelink.toml` (docs/embedding.md, "Context
//! policy"), the `--context-mode` / `--paused` flags over it, and the workspace's ignore files.
//!
//! ```toml
//! [context]
//! mode = "selectionOnly"        # everything | selectionOnly | mentionsOnly
//! deny = ["secrets/", "*.sqlite", "!.env.example"]
//! gitignore = true              # .gitignore files and .git/info/exclude deny too (default)
//! paused = false
//! ```

use super::args::ServeArgs;
use idelink_core::SharingMode;
use idelink_core::policy::ContextPolicy;
use idelink_host::ignore_files::{MAX_WALK_DEPTH, MAX_WALK_ENTRIES, read_ignore_files};
use idelink_host::regular_file::read_regular_file;
use serde::Deserialize;
use std::path::Path;

/// The policy file's name in the workspace folder.
pub const POLICY_FILE: &str = ".idelink.toml";

/// The largest policy file read: a policy is a few lines; a bigger file is a mistake.
const MAX_POLICY_FILE_BYTES: u64 = 256 << 10;

/// The file's form: one `[context]` table, every key optional, unknown keys refused.
#[derive(Debug, Default, Deserialize)]
#[serde(deny_unknown_fields)]
struct PolicyFile {
    #[serde(default)]
    context: ContextTable,
}

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
struct ContextTable {
    #[serde(default)]
    mode: Option<String>,
    #[serde(default)]
    deny: Vec<String>,
    #[serde(default = "yes")]
    gitignore: bool,
    #[serde(default)]
    paused: bool,
}

impl Default for ContextTable {
    fn default() -> Self {
        ContextTable {
            mode: None,
            deny: Vec::new(),
            gitignore: true,
            paused: false,
        }
    }
}

fn yes() -> bool {
    true
}

/// What serve says at start about its policy, beside the policy itself.
pub struct LoadedPolicy {
    /// The policy for the engine.
    pub policy: ContextPolicy,
    /// Lines for the terminal (the file read, the ignore files, a walk cut short).
    pub notes: Vec<String>,
}

/// The policy for `folder`: the file (`--policy`, or `.idelink.toml` when present), the flags
/// over it, the ignore files unless turned off. The error says what is wrong and how to fix it.
pub fn load(args: &ServeArgs, folder: &Path) -> Result<LoadedPolicy, String> {
    let mut notes = Vec::new();
    let (path, required) = match &args.policy {
        Some(path) => (path.clone(), true),
        None => (folder.join(POLICY_FILE), false),
    };
    let table = match read(&path, required)? {
        Some(file) => {
            notes.push(format!("context policy from {}", path.display()));
            file.context
        }
        None => ContextTable::default(),
    };
    let mode = match &table.mode {
        None => SharingMode::Everything,
        Some(name) => SharingMode::parse(name).ok_or_else(|| {
            format!(
                "{}: [context] mode = {name:?} is not a mode: write \"everything\", \
                 \"selectionOnly\" or \"mentionsOnly\"",
                path.display()
            )
        })?,
    };
    let mut policy = ContextPolicy {
        deny: table.deny,
        mode: args.context_mode.map_or(mode, |m| m.mode()),
        paused: args.paused || table.paused,
        ..ContextPolicy::default()
    };
    if table.gitignore && !args.no_gitignore {
        let (files, cut) = read_ignore_files(folder);
        if !files.is_empty() {
            notes.push(format!(
                "{} ignore file(s) deny what they ignore (.git/info/exclude, .gitignore)",
                files.len()
            ));
        }
        if cut {
            notes.push(format!(
                "the search for nested .gitignore files stopped after {MAX_WALK_ENTRIES} entries \
                 or {MAX_WALK_DEPTH} levels: add deny globs to {POLICY_FILE} for what lies deeper"
            ));
        }
        policy.ignore_files = files;
    }
    Ok(LoadedPolicy { policy, notes })
}

/// One line on `folder`'s policy file for `idelink doctor`: the mode, the deny globs, whether
/// the ignore files deny; the error as `idelink serve` would give it.
pub fn summary(folder: &Path) -> Result<String, String> {
    let path = folder.join(POLICY_FILE);
    let (table, source) = match read(&path, false)? {
        Some(file) => (file.context, path.display().to_string()),
        None => (
            ContextTable::default(),
            format!("no {POLICY_FILE}: the defaults"),
        ),
    };
    let mode = table.mode.as_deref().unwrap_or("everything");
    if SharingMode::parse(mode).is_none() {
        return Err(format!(
            "{}: [context] mode = {mode:?} is not a mode",
            path.display()
        ));
    }
    let mut deny: Vec<&str> = idelink_core::policy::DEFAULT_DENY.to_vec();
    deny.extend(table.deny.iter().map(String::as_str));
    let (files, _) = if table.gitignore {
        read_ignore_files(folder)
    } else {
        (Vec::new(), false)
    };
    Ok(format!(
        "idelink shares {mode}{}; denies {}; {} ignore file(s) deny what they ignore ({source})",
        if table.paused { " (starts paused)" } else { "" },
        deny.join(" "),
        files.len()
    ))
}

/// The parsed file at `path`; `None` when it is absent and not `required`.
fn read(path: &Path, required: bool) -> Result<Option<PolicyFile>, String> {
    let bytes = match read_regular_file(path, MAX_POLICY_FILE_BYTES + 1) {
        Ok(bytes) => bytes,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound && !required => return Ok(None),
        Err(e) => {
            return Err(format!(
                "cannot read the context policy {}: {e} (give an existing file to --policy)",
                path.display()
            ));
        }
    };
    if bytes.len() as u64 > MAX_POLICY_FILE_BYTES {
        return Err(format!(
            "{} is over {MAX_POLICY_FILE_BYTES} bytes: a context policy is a few lines",
            path.display()
        ));
    }
    let text = String::from_utf8(bytes)
        .map_err(|_| format!("{} is not UTF-8 text: save it as UTF-8", path.display()))?;
    toml::from_str::<PolicyFile>(&text).map(Some).map_err(|e| {
        format!(
            "{} is not a valid context policy: {e}\nexpected:\n[context]\nmode = \
             \"selectionOnly\"  # everything | selectionOnly | mentionsOnly\ndeny = \
             [\"secrets/\"]\ngitignore = true\npaused = false",
            path.display()
        )
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn parse(text: &str) -> Result<PolicyFile, String> {
        toml::from_str::<PolicyFile>(text).map_err(|e| e.to_string())
    }

    #[test]
    fn the_file_reads_every_key_and_refuses_unknown_ones() {
        let file = parse(
            "[context]\nmode = \"selectionOnly\"\ndeny = [\"secrets/\"]\ngitignore = false\n",
        )
        .unwrap();
        assert_eq!(file.context.mode.as_deref(), Some("selectionOnly"));
        assert_eq!(file.context.deny, ["secrets/"]);
        assert!(!file.context.gitignore && !file.context.paused);
        let err = parse("[context]\nmod = \"x\"\n").err().unwrap_or_default();
        assert!(err.contains("unknown field `mod`"), "{err}");
        let err = parse("[context]\ndeny = \"secrets/\"\n")
            .err()
            .unwrap_or_default();
        assert!(err.contains("deny"), "{err}");
        assert!(
            parse("").unwrap().context.gitignore,
            "gitignore defaults on"
        );
    }
}
