//! Which directories may hold the lock file (docs/protocol.md §1; idelink-core's "Security" docs).
//!
//! The lock file carries the token, so the directories above it must not be replaceable by
//! another local user: `<config>/ide/<port>.lock`, where `<config>` is `$CLAUDE_CONFIG_DIR`,
//! else `<home>/.claude`.
//! - the config directory must belong to the user (or to root, who can do anything anyway) and
//!   not be writable by group or others: anyone who can write it can rename `ide/` away and put
//!   their own in its place. A sticky directory (`/tmp`, mode 1777, holding a `--lock-dir` the
//!   user chose) is the exception: there only an entry's owner may rename or delete it;
//! - `ide/` must be a real directory (not a symbolic link) of the user; when its mode is looser
//!   than 0700 the host tightens it.
//!
//! The host gathers [`DirFacts`] from the directory it actually opened (`fstat` on the open
//! descriptor, so nothing can be swapped between the check and the use) and asks
//! [`judge_config_dir`] / [`judge_lock_dir`]. Ownership and modes are Unix notions: a host on
//! Windows, where the lock directory's ACL is set at creation, does not ask.

use std::fmt;

/// The superuser's uid.
const ROOT: u32 = 0;
/// The sticky bit (`S_ISVTX`): in such a directory only an entry's owner may rename or delete it.
const STICKY: u32 = 0o1000;

/// The name of the lock directory inside the config directory.
pub const LOCK_SUBDIR: &str = "ide";

/// Where the config directory is, as path components for the host to join with its own path
/// type: `$CLAUDE_CONFIG_DIR` when set and non-empty, else `<home>/.claude`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum ConfigDir {
    /// `$CLAUDE_CONFIG_DIR`, as given.
    FromEnv(String),
    /// `<home>/.claude`; holds the home directory.
    UnderHome(String),
}

impl ConfigDir {
    /// Finds the config directory from `$CLAUDE_CONFIG_DIR` and the home directory (`$HOME`,
    /// or the platform's equivalent), as the CLI does.
    pub fn locate(claude_config_dir: Option<&str>, home: Option<&str>) -> Result<Self, DirRefusal> {
        match (claude_config_dir.filter(|d| !d.is_empty()), home) {
            (Some(dir), _) => Ok(ConfigDir::FromEnv(dir.to_owned())),
            (None, Some(home)) if !home.is_empty() => Ok(ConfigDir::UnderHome(home.to_owned())),
            _ => Err(DirRefusal::NoConfigDir),
        }
    }

    /// The path components of the config directory, to be joined in order.
    pub fn components(&self) -> Vec<&str> {
        match self {
            ConfigDir::FromEnv(dir) => vec![dir],
            ConfigDir::UnderHome(home) => vec![home, ".claude"],
        }
    }
}

/// What a directory entry turned out to be.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum DirKind {
    /// A directory.
    Directory,
    /// A symbolic link (seen by a host that could only `lstat`, or an `O_NOFOLLOW` open that
    /// failed with `ELOOP`).
    Symlink,
    /// Anything else (a file, a socket, a device).
    Other,
}

/// What the host learnt about a directory it opened (or, where it cannot open one, stat'ed).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct DirFacts {
    /// Its kind.
    pub kind: DirKind,
    /// The owner's uid.
    pub owner: u32,
    /// The permission bits (`st_mode & 0o7777`).
    pub mode: u32,
}

/// What the host must do with a directory it may use.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum DirVerdict {
    /// Use it as it is.
    Use,
    /// Set its mode to this (`fchmod` on the open descriptor), then use it.
    Tighten(u32),
}

/// Which directory a refusal is about.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum DirRole {
    /// `$CLAUDE_CONFIG_DIR` or `~/.claude`.
    Config,
    /// `<config>/ide`.
    Lock,
}

impl fmt::Display for DirRole {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            DirRole::Config => "Claude config directory",
            DirRole::Lock => "lock directory",
        })
    }
}

/// Why a directory may not hold the lock file; the message says how to fix it.
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub enum DirRefusal {
    /// Neither `CLAUDE_CONFIG_DIR` nor a home directory is known.
    NoConfigDir,
    /// The directory is a symbolic link (it could point anywhere).
    Symlink {
        /// Which directory.
        role: DirRole,
        /// Its path.
        dir: String,
    },
    /// The path exists but is not a directory.
    NotADirectory {
        /// Which directory.
        role: DirRole,
        /// Its path.
        dir: String,
    },
    /// The directory belongs to another user.
    OwnedByOther {
        /// Which directory.
        role: DirRole,
        /// Its path.
        dir: String,
        /// The owner's uid.
        owner: u32,
        /// This user's uid.
        me: u32,
    },
    /// The config directory is writable by group or others.
    WritableByOthers {
        /// Its path.
        dir: String,
        /// Its permission bits.
        mode: u32,
    },
}

impl fmt::Display for DirRefusal {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            DirRefusal::NoConfigDir => write!(
                f,
                "cannot find the Claude config directory: set CLAUDE_CONFIG_DIR or HOME"
            ),
            DirRefusal::Symlink { role, dir } => write!(
                f,
                "refusing {role} {dir}: it is a symbolic link; remove it or point \
                 CLAUDE_CONFIG_DIR at a real directory"
            ),
            DirRefusal::NotADirectory { role, dir } => write!(
                f,
                "{role} {dir} is not a directory; move it away or point CLAUDE_CONFIG_DIR \
                 elsewhere"
            ),
            DirRefusal::OwnedByOther {
                role,
                dir,
                owner,
                me,
            } => write!(
                f,
                "refusing {role} {dir}: it belongs to uid {owner}, not to this user (uid {me}); \
                 point CLAUDE_CONFIG_DIR at a directory of your own"
            ),
            DirRefusal::WritableByOthers { dir, mode } => write!(
                f,
                "refusing Claude config directory {dir}: it is writable by group or others \
                 (mode {mode:04o}), so another user could replace its ide folder; fix it with: \
                 chmod go-w {dir}"
            ),
        }
    }
}

impl std::error::Error for DirRefusal {}

/// May the config directory at `dir` (described by `facts`) hold `ide/`? The user `me` (or root)
/// must own it, and nobody else may write it unless it is sticky; it is never changed by the
/// host (it is the user's).
pub fn judge_config_dir(dir: &str, facts: DirFacts, me: u32) -> Result<DirVerdict, DirRefusal> {
    let owner = if facts.owner == ROOT { me } else { facts.owner };
    check_kind_and_owner(DirRole::Config, dir, DirFacts { owner, ..facts }, me)?;
    if facts.mode & 0o022 != 0 && facts.mode & STICKY == 0 {
        return Err(DirRefusal::WritableByOthers {
            dir: dir.to_owned(),
            mode: facts.mode,
        });
    }
    Ok(DirVerdict::Use)
}

/// May `ide/` at `dir` (described by `facts`) hold the lock file? It must be a real directory
/// of `me`; a mode looser than 0700 is tightened.
pub fn judge_lock_dir(dir: &str, facts: DirFacts, me: u32) -> Result<DirVerdict, DirRefusal> {
    check_kind_and_owner(DirRole::Lock, dir, facts, me)?;
    Ok(if facts.mode & 0o077 != 0 {
        DirVerdict::Tighten(0o700)
    } else {
        DirVerdict::Use
    })
}

fn check_kind_and_owner(
    role: DirRole,
    dir: &str,
    facts: DirFacts,
    me: u32,
) -> Result<(), DirRefusal> {
    let dir = || dir.to_owned();
    match facts.kind {
        DirKind::Directory => {}
        DirKind::Symlink => return Err(DirRefusal::Symlink { role, dir: dir() }),
        DirKind::Other => return Err(DirRefusal::NotADirectory { role, dir: dir() }),
    }
    if facts.owner != me {
        return Err(DirRefusal::OwnedByOther {
            role,
            dir: dir(),
            owner: facts.owner,
            me,
        });
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn dir(mode: u32, owner: u32) -> DirFacts {
        DirFacts {
            kind: DirKind::Directory,
            owner,
            mode,
        }
    }

    #[test]
    fn the_config_dir_comes_from_the_env_or_home() {
        let at = |c, h| ConfigDir::locate(c, h).map(|d| d.components().join("|"));
        assert_eq!(at(Some("/cfg"), Some("/home/u")), Ok("/cfg".into()));
        assert_eq!(at(None, Some("/home/u")), Ok("/home/u|.claude".into()));
        assert_eq!(at(Some(""), Some("/home/u")), Ok("/home/u|.claude".into()));
        assert_eq!(at(None, None), Err(DirRefusal::NoConfigDir));
        assert_eq!(at(None, Some("")), Err(DirRefusal::NoConfigDir));
    }

    #[test]
    fn a_config_dir_others_can_write_is_refused_with_the_fix() {
        assert_eq!(
            judge_config_dir("/c", dir(0o755, 7), 7),
            Ok(DirVerdict::Use)
        );
        assert_eq!(
            judge_config_dir("/c", dir(0o700, 7), 7),
            Ok(DirVerdict::Use)
        );
        assert_eq!(
            judge_config_dir("/tmp", dir(0o1777, 7), 7),
            Ok(DirVerdict::Use)
        );
        assert_eq!(
            judge_config_dir("/tmp", dir(0o1777, 0), 7),
            Ok(DirVerdict::Use)
        );
        for mode in [0o775, 0o757, 0o777, 0o2777] {
            let err = judge_config_dir("/c", dir(mode, 7), 7).unwrap_err();
            assert_eq!(
                err,
                DirRefusal::WritableByOthers {
                    dir: "/c".into(),
                    mode
                }
            );
            assert!(
                err.to_string().ends_with("fix it with: chmod go-w /c"),
                "{err}"
            );
        }
    }

    #[test]
    fn a_dir_of_another_user_is_refused() {
        for judge in [judge_config_dir, judge_lock_dir] {
            let err = judge("/c", dir(0o700, 1001), 1000).unwrap_err();
            let expected = DirRefusal::OwnedByOther {
                role: err_role(&err),
                dir: "/c".into(),
                owner: 1001,
                me: 1000,
            };
            assert_eq!(err, expected);
            let message = err.to_string();
            assert!(message.contains("belongs to uid 1001, not to this user (uid 1000)"));
        }
        assert_eq!(
            judge_config_dir("/c", dir(0o755, 0), 1000),
            Ok(DirVerdict::Use)
        );
        assert!(
            judge_lock_dir("/c/ide", dir(0o700, 0), 1000).is_err(),
            "ide/ must be ours"
        );
    }

    fn err_role(err: &DirRefusal) -> DirRole {
        match err {
            DirRefusal::OwnedByOther { role, .. } => *role,
            other => panic!("not an ownership refusal: {other}"),
        }
    }

    #[test]
    fn the_lock_dir_is_a_real_directory_tightened_to_0700() {
        assert_eq!(
            judge_lock_dir("/c/ide", dir(0o700, 7), 7),
            Ok(DirVerdict::Use)
        );
        assert_eq!(
            judge_lock_dir("/c/ide", dir(0o755, 7), 7),
            Ok(DirVerdict::Tighten(0o700))
        );
        let link = DirFacts {
            kind: DirKind::Symlink,
            ..dir(0o777, 7)
        };
        let err = judge_lock_dir("/c/ide", link, 7).unwrap_err();
        assert_eq!(
            err.to_string(),
            "refusing lock directory /c/ide: it is a symbolic link; remove it or point \
             CLAUDE_CONFIG_DIR at a real directory"
        );
        let file = DirFacts {
            kind: DirKind::Other,
            ..dir(0o600, 7)
        };
        assert!(matches!(
            judge_config_dir("/c", file, 7),
            Err(DirRefusal::NotADirectory {
                role: DirRole::Config,
                ..
            })
        ));
    }
}
