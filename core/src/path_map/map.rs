//! The prefix pairs and the two directions of one path.

use std::fmt;

use crate::ide::{PathStyle, normalize_path};

/// Which side of a mapping a path is spelled for.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Side {
    /// Claude's machine (the far side of the link).
    Remote,
    /// The editor's machine.
    Local,
}

/// Why a path or a mapping was refused. The `Display` text is what claude (or the person
/// configuring) reads.
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub enum PathMapError {
    /// A `REMOTE=LOCAL` entry that does not parse: the entry, and why.
    BadEntry {
        /// The entry as given.
        entry: String,
        /// What is wrong with it.
        why: &'static str,
    },
    /// The path lies under no prefix of its side.
    Outside {
        /// The path as given.
        path: String,
        /// The side it was spelled for.
        side: Side,
        /// The mappings, `REMOTE=LOCAL`, for the message.
        mappings: String,
    },
}

impl fmt::Display for PathMapError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            PathMapError::BadEntry { entry, why } => {
                // Quoted plainly, not `{:?}`: the message needs no escapes, and the wasm module
                // no string Debug.
                write!(f, "path mapping \"{entry}\" (REMOTE=LOCAL): {why}")
            }
            PathMapError::Outside {
                path,
                side,
                mappings,
            } => {
                let other = match side {
                    Side::Remote => "the editor",
                    Side::Local => "claude",
                };
                write!(
                    f,
                    "{path} is outside every path mapping ({mappings}): {other} has no name for it"
                )
            }
        }
    }
}

impl std::error::Error for PathMapError {}

#[derive(Debug, Clone, PartialEq, Eq)]
struct Pair {
    /// The entry as given, for messages.
    entry: String,
    /// Claude's prefix, without a trailing `/` (the root `/` is the empty string).
    remote: String,
    /// The editor's prefix, normalized (a Windows path with `/` and an upper-case drive),
    /// without a trailing `/`.
    local: String,
}

/// `REMOTE=LOCAL` prefix pairs. The empty map maps nothing and is not used: every path stays
/// as it is.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct PathMap {
    pairs: Vec<Pair>,
    /// A refused entry: every path is then refused with its message (a map that does not
    /// parse must not let paths through unmapped).
    broken: Option<PathMapError>,
}

impl PathMap {
    /// Reads `REMOTE=LOCAL` entries (split at the first `=`; both sides absolute paths, a
    /// trailing `/` optional). An entry that does not parse is an error.
    pub fn parse<S: AsRef<str>>(entries: &[S]) -> Result<PathMap, PathMapError> {
        let mut pairs = Vec::with_capacity(entries.len());
        for entry in entries {
            let entry = entry.as_ref();
            let bad = |why| PathMapError::BadEntry {
                entry: entry.to_owned(),
                why,
            };
            let (remote, local) = entry.split_once('=').ok_or(bad("no `=`"))?;
            if !is_absolute(remote) || !is_absolute(local) {
                return Err(bad("both sides must be absolute paths"));
            }
            pairs.push(Pair {
                entry: entry.to_owned(),
                remote: trim(remote).to_owned(),
                local: trim(&normalize_path(local, PathStyle::Posix)).to_owned(),
            });
        }
        Ok(PathMap {
            pairs,
            broken: None,
        })
    }

    /// [`PathMap::parse`], or a map that refuses every path with the parse error (for a
    /// configuration that cannot fail where it is read, like the engine's).
    pub fn parse_or_refuse<S: AsRef<str>>(entries: &[S]) -> PathMap {
        PathMap::parse(entries).unwrap_or_else(|error| PathMap {
            pairs: Vec::new(),
            broken: Some(error),
        })
    }

    /// Whether the map does anything (an empty map leaves every path alone).
    pub fn is_active(&self) -> bool {
        !self.pairs.is_empty() || self.broken.is_some()
    }

    /// Claude's `path` as the editor spells it.
    pub fn to_local(&self, path: &str) -> Result<String, PathMapError> {
        self.map(path, Side::Remote)
    }

    /// The editor's `path` as claude spells it.
    pub fn to_remote(&self, path: &str) -> Result<String, PathMapError> {
        self.map(path, Side::Local)
    }

    /// Maps `path`, spelled for `side`, to the other side: the longest prefix of that side
    /// that `path` equals or continues with a `/` wins. A path with a `.` or `..` segment
    /// after its prefix is outside (it may leave the prefix it names).
    fn map(&self, path: &str, side: Side) -> Result<String, PathMapError> {
        if let Some(error) = &self.broken {
            return Err(error.clone());
        }
        let normalized;
        let path_ = match side {
            Side::Remote => path,
            Side::Local => {
                normalized = normalize_path(path, PathStyle::Posix);
                &normalized
            }
        };
        let mut best: Option<(&Pair, &str)> = None;
        for pair in &self.pairs {
            let (from, _) = ends(pair, side);
            let Some(rest) = path_.strip_prefix(from) else {
                continue;
            };
            let continues = rest.is_empty() || rest.starts_with('/');
            if continues && best.is_none_or(|(b, _)| ends(b, side).0.len() < from.len()) {
                best = Some((pair, rest));
            }
        }
        let (pair, rest) = best
            .filter(|(_, rest)| !rest.split('/').any(|s| s == "." || s == ".."))
            .ok_or_else(|| self.outside(path, side))?;
        let (_, to) = ends(pair, side);
        let mut out = String::with_capacity(to.len() + rest.len());
        out.push_str(to);
        out.push_str(rest);
        if out.is_empty() {
            out.push('/');
        }
        Ok(out)
    }

    fn outside(&self, path: &str, side: Side) -> PathMapError {
        let mut mappings = String::new();
        for pair in &self.pairs {
            if !mappings.is_empty() {
                mappings.push_str(", ");
            }
            mappings.push_str(&pair.entry);
        }
        PathMapError::Outside {
            path: path.to_owned(),
            side,
            mappings,
        }
    }
}

/// The pair's prefixes as (from, to) for a path spelled for `side`.
fn ends(pair: &Pair, side: Side) -> (&str, &str) {
    match side {
        Side::Remote => (&pair.remote, &pair.local),
        Side::Local => (&pair.local, &pair.remote),
    }
}

fn trim(prefix: &str) -> &str {
    prefix.strip_suffix('/').unwrap_or(prefix)
}

fn is_absolute(path: &str) -> bool {
    path.starts_with('/') || crate::ide::is_windows_absolute(path)
}
