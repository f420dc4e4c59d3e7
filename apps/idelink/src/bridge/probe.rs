//! `--remote-shell`'s one question to the far side, and what follows from its answer: what
//! the far side runs (`uname -s`, `uname -m`), the POSIX `cksum` of the copy in its cache, and
//! the `idelink` on its PATH (its `cksum`; its `--version` when that is not this very binary).
//! [`plan`] decides from it which idelink runs the bridge: one that is this very binary (on
//! PATH, then in the cache) as it is; else a copy of this one; else, where this build cannot
//! run, a PATH idelink of this same version (another build of it); else nothing.

use super::BINARY_VERSION;
use crate::env_cmd::sh_quoted;
use crate::terminal::inert;
use std::error::Error;

/// The far side's folder for idelink's copies: the user's own cache (XDG's rule), never a
/// shared folder such as /tmp.
pub const FAR_DIR: &str = "\"${XDG_CACHE_HOME:-$HOME/.cache}/idelink/bin\"";

/// The prefix of every line the scripts print (anything else on stdout, say a login
/// script's greeting, is not theirs and is skipped).
pub const MARK: &str = "idelink-remote ";

/// The probe: answers `os`, `machine`, `have` (the cache copy's `cksum`, or `none`) and, when
/// an `idelink` is on PATH, `path`, `path-sum` and, unless its sum is `sum` (this binary's),
/// `path-version` (the first line of its `--version`).
pub fn probe_script(sum: &str) -> String {
    format!(
        "{{ b={FAR_DIR}/idelink-{BINARY_VERSION}; \
         printf '{MARK}os %s\\n{MARK}machine %s\\n' \"$(uname -s)\" \"$(uname -m)\"; \
         if [ -f \"$b\" ]; then printf '{MARK}have %s\\n' \"$(cksum < \"$b\")\"; \
         else echo '{MARK}have none'; fi; \
         p=$(command -v idelink 2>/dev/null); \
         case \"$p\" in /*) s=$(cksum < \"$p\"); \
           printf '{MARK}path %s\\n{MARK}path-sum %s\\n' \"$p\" \"$s\"; \
           [ \"$s\" = '{sum}' ] || printf '{MARK}path-version %s\\n' \
             \"$(\"$p\" --version 2>/dev/null | head -n 1)\";; esac; }}\n"
    )
}

/// What the far side said about itself.
#[derive(Debug, PartialEq, Eq)]
pub struct Probe {
    /// `uname -s`.
    pub os: String,
    /// `uname -m`.
    pub machine: String,
    /// `cksum` of its copy of this version, when it has one.
    pub have: Option<String>,
    /// The `idelink` on its PATH, when there is one.
    pub path: Option<FarIdelink>,
}

/// An `idelink` on the far side's PATH.
#[derive(Debug, PartialEq, Eq)]
pub struct FarIdelink {
    /// Its absolute path.
    pub path: String,
    /// Its `cksum`.
    pub sum: String,
    /// The first line of its `--version` (`idelink 0.9.0`), asked only when it is not this
    /// very binary.
    pub version: Option<String>,
}

impl Probe {
    /// The probe's lines (without [`MARK`]), by their keys.
    pub fn parse(lines: &[String]) -> Result<Probe, Box<dyn Error>> {
        let field = |key: &str| {
            lines
                .iter()
                .find_map(|l| l.strip_prefix(key))
                .map(str::trim)
                .map(str::to_owned)
        };
        let (Some(os), Some(machine)) = (field("os "), field("machine ")) else {
            return Err(
                "the far shell did not answer `uname`: is PREFIX a command that runs \
                        `sh` there (`ssh -T host`, `docker exec -i box`)?"
                    .into(),
            );
        };
        let path = match (field("path "), field("path-sum ")) {
            (Some(path), Some(sum)) => Some(FarIdelink {
                path,
                sum,
                version: field("path-version ").filter(|v| !v.is_empty()),
            }),
            _ => None,
        };
        Ok(Probe {
            os,
            machine,
            have: field("have ").filter(|have| have != "none"),
            path,
        })
    }
}

/// Which idelink runs the bridge.
#[derive(Debug, PartialEq, Eq)]
pub enum Plan {
    /// The PATH idelink, which is this very binary.
    ThisOnPath(String),
    /// The cache's copy, which is this very binary.
    Cached,
    /// A copy of this binary, to be made (any PATH idelink is another build).
    Copy,
    /// The PATH idelink, another build of this version, for a far side this build cannot run on.
    SameVersionOnPath(String),
    /// None: this build cannot run there and no idelink of this version is there.
    Refuse,
}

/// What to run, from what the far side said, this binary's `cksum` (`sum`) and whether this
/// build runs there (`runs`).
pub fn plan(probe: &Probe, sum: &str, runs: bool) -> Plan {
    let path = probe.path.as_ref();
    if let Some(far) = path.filter(|far| far.sum == sum) {
        return Plan::ThisOnPath(far.path.clone());
    }
    if runs && probe.have.as_deref() == Some(sum) {
        return Plan::Cached;
    }
    if runs {
        return Plan::Copy;
    }
    let this_version = format!("idelink {BINARY_VERSION}");
    match path.filter(|far| far.version.as_deref() == Some(this_version.as_str())) {
        Some(far) => Plan::SameVersionOnPath(far.path.clone()),
        None => Plan::Refuse,
    }
}

/// The line that starts the PATH idelink at `path` as the bridge.
pub fn exec_path(path: &str) -> String {
    format!("exec {} bridge\n", sh_quoted(path))
}

/// The line that starts the cache's copy as the bridge.
pub fn exec_cached() -> String {
    format!("exec {FAR_DIR}/idelink-{BINARY_VERSION} bridge\n")
}

/// How the PATH idelink is named for a person: its path and, when known, its version.
pub fn described(far: &FarIdelink) -> String {
    let version = far
        .version
        .as_deref()
        .map_or_else(|| "no version said".to_owned(), |v| inert::line(v, 60));
    format!("{} ({version})", inert::line(&far.path, 200))
}

/// Whether this build (`os`, `arch` as Rust names them) runs where `uname -s` says
/// `their_os` and `uname -m` says `their_machine`.
pub fn platform_matches(os: &str, arch: &str, their_os: &str, their_machine: &str) -> bool {
    let os_matches = match os {
        "linux" => their_os == "Linux",
        "macos" => their_os == "Darwin",
        "freebsd" => their_os == "FreeBSD",
        _ => false,
    };
    let arch_matches = match arch {
        "x86_64" => matches!(their_machine, "x86_64" | "amd64"),
        "aarch64" => matches!(their_machine, "aarch64" | "arm64"),
        other => their_machine == other,
    };
    os_matches && arch_matches
}

#[cfg(test)]
mod tests {
    use super::*;

    fn lines(items: &[&str]) -> Vec<String> {
        items.iter().map(|s| (*s).to_owned()).collect()
    }

    fn probe(have: Option<&str>, path: Option<(&str, Option<&str>)>) -> Probe {
        Probe {
            os: "Linux".into(),
            machine: "x86_64".into(),
            have: have.map(str::to_owned),
            path: path.map(|(sum, version)| FarIdelink {
                path: "/usr/bin/idelink".into(),
                sum: sum.into(),
                version: version.map(str::to_owned),
            }),
        }
    }

    #[test]
    fn a_build_runs_only_on_its_own_system_and_architecture() {
        assert!(platform_matches("linux", "x86_64", "Linux", "x86_64"));
        assert!(platform_matches("linux", "aarch64", "Linux", "aarch64"));
        assert!(platform_matches("macos", "aarch64", "Darwin", "arm64"));
        assert!(!platform_matches("linux", "x86_64", "Linux", "aarch64"));
        assert!(!platform_matches("linux", "x86_64", "Darwin", "x86_64"));
        assert!(!platform_matches("windows", "x86_64", "Linux", "x86_64"));
    }

    #[test]
    fn the_probe_answer_is_read_by_its_keys() {
        let parsed = Probe::parse(&lines(&["os Linux", "machine x86_64", "have 12 34"]));
        assert_eq!(
            parsed.map_err(|e| e.to_string()),
            Ok(probe(Some("12 34"), None))
        );
        let none = lines(&["machine x86_64", "os Linux", "have none"]);
        assert_eq!(Probe::parse(&none).ok().and_then(|p| p.have), None);
        assert!(Probe::parse(&[]).is_err());
        let on_path = lines(&[
            "os Linux",
            "machine x86_64",
            "have none",
            "path /usr/bin/idelink",
            "path-sum 5 6",
            "path-version idelink 0.1.0",
        ]);
        assert_eq!(
            Probe::parse(&on_path).map_err(|e| e.to_string()),
            Ok(probe(None, Some(("5 6", Some("idelink 0.1.0")))))
        );
        // A version line that says nothing (a `--version` that failed) is no version.
        let silent = lines(&[
            "os Linux",
            "machine x86_64",
            "path /usr/bin/idelink",
            "path-sum 5 6",
            "path-version ",
        ]);
        let far = Probe::parse(&silent).ok().and_then(|p| p.path);
        assert_eq!(far.map(|f| f.version), Some(None));
    }

    #[test]
    fn this_very_binary_is_used_where_it_is_else_copied_else_the_same_version() {
        let ours = "1 2";
        let version = format!("idelink {BINARY_VERSION}");
        let path = || "/usr/bin/idelink".to_owned();
        // This binary on PATH wins over the cache, even where the platform check fails.
        assert_eq!(
            plan(&probe(Some(ours), Some((ours, None))), ours, true),
            Plan::ThisOnPath(path())
        );
        assert_eq!(
            plan(&probe(None, Some((ours, None))), ours, false),
            Plan::ThisOnPath(path())
        );
        assert_eq!(
            plan(
                &probe(Some(ours), Some(("7 8", Some("idelink 0.0.1")))),
                ours,
                true
            ),
            Plan::Cached
        );
        // Another build on PATH, even of this version, and a damaged cache copy: copied.
        assert_eq!(plan(&probe(Some("3 4"), None), ours, true), Plan::Copy);
        assert_eq!(
            plan(&probe(None, Some(("7 8", Some(&version)))), ours, true),
            Plan::Copy
        );
        // Where this build cannot run: the same version only.
        assert_eq!(
            plan(&probe(None, Some(("7 8", Some(&version)))), ours, false),
            Plan::SameVersionOnPath(path())
        );
        assert_eq!(
            plan(
                &probe(None, Some(("7 8", Some("idelink 0.0.1")))),
                ours,
                false
            ),
            Plan::Refuse
        );
        assert_eq!(plan(&probe(Some(ours), None), ours, false), Plan::Refuse);
    }

    #[test]
    fn the_probe_asks_the_version_only_of_another_binary() {
        let script = probe_script("1 2");
        assert!(script.contains("[ \"$s\" = '1 2' ] || printf"), "{script}");
        assert!(script.contains("command -v idelink"), "{script}");
    }

    #[test]
    fn a_path_idelink_is_started_quoted() {
        assert_eq!(
            exec_path("/opt/it's/idelink"),
            "exec '/opt/it'\\''s/idelink' bridge\n"
        );
    }
}
