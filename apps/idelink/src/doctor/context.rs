//! What claude may see of the folder: idelink's context policy (the folder's `.idelink.toml`,
//! as `idelink serve` reads it) and the claude CLI's own `Read` deny rules
//! (`permissions.deny` in its settings files). The two combine (docs/protocol.md §10): a file
//! reaches the model only when idelink lets it leave the editor and the CLI lets it be attached.

use super::report::{Finding, Level};
use crate::serve::policy_summary;
use idelink_host::regular_file::read_regular_file;
use std::path::{Path, PathBuf};

/// The largest claude settings file read (a settings file is a few KiB).
const MAX_SETTINGS_BYTES: u64 = 4 << 20;

/// The findings for `dir`: idelink's policy, then the CLI's `Read` deny rules.
pub fn findings(dir: &str, config_dir: Option<&str>, home: Option<&str>) -> Vec<Finding> {
    let mut out = Vec::new();
    out.push(match policy_summary(Path::new(dir)) {
        Ok(summary) => Finding::new(Level::Info, "context policy", summary, None),
        Err(why) => Finding::new(
            Level::Warn,
            "context policy",
            why,
            Some("fix .idelink.toml: `idelink serve` refuses to start with it"),
        ),
    });
    let mut rules = Vec::new();
    for file in settings_files(dir, config_dir, home) {
        for rule in read_rules(&file) {
            rules.push(format!("{rule} ({})", file.display()));
        }
    }
    out.push(Finding::new(
        Level::Info,
        "claude Read rules",
        if rules.is_empty() {
            "no permissions.deny Read(...) rule in claude's settings: only idelink's policy \
             keeps files out of the IDE context"
                .to_owned()
        } else {
            format!(
                "claude also refuses to attach a selection or opened file these deny: {}",
                rules.join(", ")
            )
        },
        None,
    ));
    out
}

/// The CLI's settings files for `dir`, user first: `<config>/settings.json` (the config folder
/// is `CLAUDE_CONFIG_DIR`, else `~/.claude`), `<dir>/.claude/settings.json`,
/// `<dir>/.claude/settings.local.json`. Managed (enterprise) settings are not read.
fn settings_files(dir: &str, config_dir: Option<&str>, home: Option<&str>) -> Vec<PathBuf> {
    let user = config_dir
        .map(PathBuf::from)
        .or_else(|| home.map(|home| Path::new(home).join(".claude")));
    let project = Path::new(dir).join(".claude");
    user.map(|u| u.join("settings.json"))
        .into_iter()
        .chain([
            project.join("settings.json"),
            project.join("settings.local.json"),
        ])
        .collect()
}

/// The `Read(...)` entries of `permissions.deny` in the settings file `path` (none when it is
/// absent or not JSON).
fn read_rules(path: &Path) -> Vec<String> {
    let Ok(bytes) = read_regular_file(path, MAX_SETTINGS_BYTES) else {
        return Vec::new();
    };
    let Ok(settings) = serde_json::from_slice::<serde_json::Value>(&bytes) else {
        return Vec::new();
    };
    settings["permissions"]["deny"]
        .as_array()
        .into_iter()
        .flatten()
        .filter_map(|rule| rule.as_str())
        .filter(|rule| rule.starts_with("Read(") || *rule == "Read")
        .map(str::to_owned)
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn read_rules_come_from_permissions_deny() {
        let dir = std::env::temp_dir().join(format!("idelink-doctor-rules-{}", std::process::id()));
        std::fs::create_dir_all(dir.join(".claude")).unwrap();
        std::fs::write(
            dir.join(".claude/settings.json"),
            r#"{"permissions":{"deny":["Read(./.env)","Bash(rm:*)","Read(**/secrets/**)"]}}"#,
        )
        .unwrap();
        let rules = read_rules(&dir.join(".claude/settings.json"));
        assert_eq!(rules, ["Read(./.env)", "Read(**/secrets/**)"]);
        let found = findings(dir.to_str().unwrap(), None, None);
        assert!(found[1].message.contains("Read(./.env)"), "{:?}", found[1]);
        std::fs::remove_dir_all(&dir).unwrap();
    }
}
