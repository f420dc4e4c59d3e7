//! Paths against git's ignore rules, matched by gitoxide: `gix-ignore` parses the pattern
//! lines and `gix-glob`'s wildmatch matches them (git's own semantics, with no regex engine in
//! the wasm module). This file decides only what git leaves to the caller that walks a tree:
//! which list applies to a path, relative to which folder, and the rule that a path under an
//! ignored folder is ignored (gitignore(5): "It is not possible to re-include a file if a
//! parent directory of that file is excluded").

use gix_glob::pattern::Case;
use gix_glob::wildmatch::Mode;

use super::rules::{ContextPolicy, DEFAULT_DENY, IgnoreFile};
use crate::ide::{PathStyle, normalize_path};

/// One list of patterns and the folder they are relative to.
struct PatternList {
    /// The folder, normalized, with no trailing `/`; `None` for the deny globs (relative to
    /// the workspace folder holding the path, or to the root).
    dir: Option<String>,
    patterns: Vec<gix_glob::Pattern>,
    case: Case,
}

impl PatternList {
    fn parse(dir: Option<String>, text: &[u8], case: Case) -> Self {
        let patterns = gix_ignore::parse(text, false)
            .map(|(pattern, _line, _kind)| pattern)
            .collect();
        PatternList {
            dir,
            patterns,
            case,
        }
    }

    /// `Some(true)` when the last pattern matching `relative` ignores it, `Some(false)` when
    /// it re-includes it (`!`), `None` when none matches.
    fn verdict(&self, relative: &str, is_dir: bool) -> Option<bool> {
        let basename = relative.rfind('/').map(|at| at + 1);
        self.patterns.iter().rev().find_map(|pattern| {
            pattern
                .matches_repo_relative_path(
                    relative.as_bytes().into(),
                    basename,
                    Some(is_dir),
                    self.case,
                    // git's wildmatch for ignore files: `*` does not cross `/`.
                    Mode::NO_MATCH_SLASH_LITERAL,
                )
                .then(|| !pattern.is_negative())
        })
    }
}

/// The compiled deny rules of a [`ContextPolicy`] for one workspace.
pub(crate) struct PathMatcher {
    deny: PatternList,
    /// The ignore files in the policy's order, each with its folder's depth: the deepest
    /// folder's file decides, then the later one in the list (no sort: a sort's code is a few
    /// KiB of the wasm module).
    ignore: Vec<(usize, PatternList)>,
    /// The workspace folders (the deepest one holding a path is its base).
    folders: Vec<String>,
}

impl PathMatcher {
    /// Compiles `policy` for `folders` (normalized) of an editor spelling paths in `style`
    /// (the ignore files' folders are normalized here); Windows folds case in the ignore files
    /// as git does there (`core.ignoreCase`).
    pub(crate) fn new(policy: &ContextPolicy, folders: &[String], style: PathStyle) -> Self {
        let windows = style == PathStyle::Windows;
        let mut deny_text = Vec::new();
        for line in DEFAULT_DENY
            .iter()
            .copied()
            .chain(policy.deny.iter().map(String::as_str))
        {
            deny_text.extend_from_slice(line.as_bytes());
            deny_text.push(b'\n');
        }
        let case = if windows { Case::Fold } else { Case::Sensitive };
        let ignore = policy
            .ignore_files
            .iter()
            .map(|IgnoreFile { dir, text }| {
                let dir = trim_dir(&normalize_path(dir, style));
                let depth = dir.matches('/').count();
                (depth, PatternList::parse(Some(dir), text.as_bytes(), case))
            })
            .collect();
        PathMatcher {
            deny: PatternList::parse(None, &deny_text, Case::Fold),
            ignore,
            folders: folders.iter().map(|f| trim_dir(f)).collect(),
        }
    }

    /// Whether the file at `path` (normalized) is denied.
    pub(crate) fn denies(&self, path: &str) -> bool {
        let base = self
            .folders
            .iter()
            .filter(|folder| under(path, folder))
            .max_by_key(|folder| folder.len())
            .map_or_else(|| root_of(path), String::as_str);
        let relative = relative_to(path, base);
        decided(relative, |prefix, is_dir| self.deny.verdict(prefix, is_dir))
            || decided(path, |prefix, is_dir| {
                // The deepest file's verdict; of equals, the later file's (`max_by_key`
                // keeps the last).
                self.ignore
                    .iter()
                    .filter_map(|(depth, list)| {
                        let dir = list.dir.as_deref()?;
                        let verdict = under(prefix, dir)
                            .then(|| list.verdict(relative_to(prefix, dir), is_dir))
                            .flatten()?;
                        Some((*depth, verdict))
                    })
                    .max_by_key(|(depth, _)| *depth)
                    .map(|(_, verdict)| verdict)
            })
    }
}

/// Whether `path` is strictly inside `dir`.
fn under(path: &str, dir: &str) -> bool {
    path.len() > dir.len()
        && path.starts_with(dir)
        && (dir.ends_with('/') || path.as_bytes()[dir.len()] == b'/')
}

/// `path` (inside `dir`, or `dir` the root it starts with) relative to `dir`.
fn relative_to<'p>(path: &'p str, dir: &str) -> &'p str {
    let rest = path.get(dir.len()..).unwrap_or("");
    rest.strip_prefix('/').unwrap_or(rest)
}

/// `dir` without its trailing `/` (a root keeps it: `/`, `C:/`).
fn trim_dir(dir: &str) -> String {
    let trimmed = dir.trim_end_matches('/');
    if trimmed.is_empty() || trimmed.ends_with(':') {
        format!("{trimmed}/")
    } else {
        trimmed.to_owned()
    }
}

/// The root a path outside every workspace folder is matched from: `/`, or `C:/`; empty for
/// a relative path.
fn root_of(path: &str) -> &str {
    // `get`: `at` is a `/`, a char boundary, and no index panic is linked in.
    path.find('/').and_then(|at| path.get(..=at)).unwrap_or("")
}

/// git's decision for the file `path`: `verdict` is asked of each folder on the way down
/// (prefixes of `path`, as directories), then of the file; an ignored folder decides for
/// everything under it, and no matching pattern means not ignored.
fn decided(path: &str, verdict: impl Fn(&str, bool) -> Option<bool>) -> bool {
    let folders = path
        .match_indices('/')
        .filter_map(|(at, _)| path.get(..at))
        .filter(|prefix| !prefix.is_empty() && !prefix.ends_with(':'));
    for folder in folders {
        if verdict(folder, true) == Some(true) {
            return true;
        }
    }
    verdict(path, false) == Some(true)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn policy(deny: &[&str], ignore: &[(&str, &str)]) -> ContextPolicy {
        ContextPolicy {
            deny: deny.iter().map(|d| (*d).to_owned()).collect(),
            ignore_files: ignore
                .iter()
                .map(|(dir, text)| IgnoreFile {
                    dir: (*dir).to_owned(),
                    text: (*text).to_owned(),
                })
                .collect(),
            ..ContextPolicy::default()
        }
    }

    fn matcher(deny: &[&str], ignore: &[(&str, &str)]) -> PathMatcher {
        PathMatcher::new(&policy(deny, ignore), &["/w".to_owned()], PathStyle::Posix)
    }

    #[test]
    fn the_defaults_deny_secrets_anywhere_in_or_out_of_the_workspace() {
        let m = matcher(&[], &[]);
        for denied in [
            "/w/.env",
            "/w/.env.local",
            "/w/sub/.env",
            "/w/certs/server.pem",
            "/w/tls.KEY",
            "/home/u/.ssh/id_ed25519",
            "/home/u/.ssh/id_rsa.pub",
            "/w/.git/config",
            "/w/vendor/lib/.git/HEAD",
            "/other/.ENV",
        ] {
            assert!(m.denies(denied), "{denied}");
        }
        for allowed in [
            "/w/src/main.rs",
            "/w/environment.rs",
            "/w/.gitignore",
            "/w/keys.rs",
            "/w/my_id_card.txt",
            "/w/.github/workflows/ci.yml",
        ] {
            assert!(!m.denies(allowed), "{allowed}");
        }
    }

    #[test]
    fn user_globs_add_to_and_re_allow_from_the_defaults() {
        let m = matcher(&["secrets/", "/local.toml", "!.env.example"], &[]);
        assert!(m.denies("/w/secrets/a.txt"));
        assert!(m.denies("/w/deep/secrets/a.txt"));
        assert!(m.denies("/w/local.toml"));
        assert!(!m.denies("/w/sub/local.toml"), "anchored to the folder");
        assert!(!m.denies("/w/.env.example"));
        assert!(m.denies("/w/.env"));
    }

    #[test]
    fn ignore_files_follow_git_precedence_and_folder_rules() {
        let m = matcher(
            &[],
            &[
                ("/w", "excluded.txt\n"),
                ("/w", "target/\n*.log\n!keep.log\nbuild/\n!build/out.txt\n"),
                ("/w/sub", "!*.log\n/only-here\n"),
            ],
        );
        assert!(m.denies("/w/excluded.txt"), "info/exclude, listed first");
        assert!(m.denies("/w/target/debug/app"));
        assert!(m.denies("/w/x/y.log"));
        assert!(!m.denies("/w/keep.log"));
        assert!(!m.denies("/w/sub/z.log"), "the deeper file decides");
        assert!(m.denies("/w/sub/only-here"));
        assert!(!m.denies("/w/only-here"));
        assert!(
            m.denies("/w/build/out.txt"),
            "no re-include under an ignored folder"
        );
        assert!(!m.denies("/w/src/lib.rs"));
        assert!(
            !m.denies("/elsewhere/target/x"),
            "outside the file's folder"
        );
    }

    #[test]
    fn windows_paths_fold_case_in_ignore_files() {
        let p = policy(&[], &[(r"c:\w", "Target/\n")]);
        let m = PathMatcher::new(&p, &["C:/w".to_owned()], PathStyle::Windows);
        assert!(m.denies("C:/w/target/x"));
        assert!(m.denies("C:/w/.Env"));
        assert!(m.denies("D:/keys/id_rsa"));
        let posix = PathMatcher::new(&policy(&[], &[("/w", "Target/\n")]), &[], PathStyle::Posix);
        assert!(!posix.denies("/w/target/x"));
        assert!(posix.denies("/w/Target/x"));
    }
}
