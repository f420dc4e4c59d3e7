//! `idelink serve` options.

use crate::stdio::StdioFraming;
use crate::terminal::DiffPolicy;
use clap::ValueEnum;
use idelink_core::ide::ToolName;
use idelink_core::{ReadSource, ReadSources, Routing, SharingMode};
use std::path::PathBuf;

/// `idelink serve` options.
#[derive(Debug, clap::Args)]
pub struct ServeArgs {
    /// The workspace folder (default: the current folder).
    pub dir: Option<PathBuf>,
    /// Bridge an editor over stdin/stdout instead of using the terminal: JSON-RPC 2.0 with
    /// Content-Length framing, or one JSON message per line with `--stdio=lines`.
    /// The value needs `=`, so `--stdio DIR` reads DIR as the folder. See docs/sidecar.md.
    #[arg(
        long,
        value_enum,
        num_args = 0..=1,
        require_equals = true,
        default_missing_value = "content-length"
    )]
    pub stdio: Option<StdioFraming>,
    /// How to answer claude's diffs with no editor attached: ask in this terminal, or accept /
    /// reject every one (for scripts and tests).
    #[arg(long, value_enum, default_value_t = DiffPolicy::Ask)]
    pub diff: DiffPolicy,
    /// The name claude shows (`Connected to <NAME> extension`).
    #[arg(long, default_value = "idelink")]
    pub ide_name: String,
    /// Listen on this port instead of an ephemeral one.
    #[arg(long)]
    pub port: Option<u16>,
    /// Write the lock file into this directory instead of $CLAUDE_CONFIG_DIR/ide or
    /// ~/.claude/ide.
    #[arg(long)]
    pub lock_dir: Option<PathBuf>,
    /// Come back on the last session's port with its token when this editor served this folder
    /// until a moment ago (stopped or crashed within 25 s) and the port is free, so a running
    /// claude reconnects by itself; else start fresh. Says which at start.
    #[arg(long)]
    pub resume: bool,
    /// Serve one claude session at a time: a new one closes the older (code 4001).
    #[arg(long)]
    pub single_session: bool,
    /// claude sessions served at once (1 to 4096); one more is refused with HTTP 503.
    /// Each session holds a socket and its buffers.
    #[arg(long, value_name = "N", default_value_t = DEFAULT_MAX_CONNECTIONS,
          value_parser = parse_max_connections)]
    pub max_connections: usize,
    /// Let log lines include file contents and diff texts (never the auth token).
    #[arg(long)]
    pub trace_contents: bool,
    /// Serve a claude on another machine: start COMMAND (through the shell), which runs
    /// `idelink bridge` there (`ssh dev idelink bridge`, `docker exec -i box idelink bridge`);
    /// the bridge writes the lock on its side and carries claude's connections over the
    /// command's stdin/stdout. No lock is written here unless --local-lock. See docs/remote.md.
    #[arg(long, value_name = "COMMAND", group = "remote_side")]
    pub remote: Option<String>,
    /// Serve a claude on another machine through PREFIX, a command that runs a shell there
    /// (`ssh -T dev`, `docker exec -i box`, `wsl.exe -d Ubuntu`): idelink runs `PREFIX sh`,
    /// copies itself to the far side's `~/.cache/idelink/bin` when that lacks this very build
    /// (refused for another system or architecture), and starts it as the bridge. Instead of
    /// --remote. See docs/remote.md.
    #[arg(long, value_name = "PREFIX", group = "remote_side")]
    pub remote_shell: Option<String>,
    /// Serve a claude in WSL: `--remote 'wsl.exe [-d DISTRO] idelink bridge'`, with the
    /// workspace drive's `/mnt/<drive>/=<DRIVE>:/` mapping unless --map names that drive (as
    /// for any --remote or --remote-shell command that runs `wsl.exe`). See docs/remote.md.
    #[arg(long, value_name = "DISTRO", num_args = 0..=1, default_missing_value = "",
          group = "remote_side")]
    pub wsl: Option<String>,
    /// With --remote or --remote-shell: claude's paths on the far side and the editor's here, as prefix pairs
    /// (`--map /home/me/proj=/Users/me/proj`, several allowed, longest prefix first). A path
    /// outside every pair is refused, never guessed. Default: the same paths on both sides.
    #[arg(long = "map", value_name = "REMOTE=LOCAL", requires = "remote_side",
          value_parser = parse_mapping)]
    pub map: Vec<String>,
    /// With --remote or --remote-shell: also write the lock here, so a local claude can connect too.
    #[arg(long, requires = "remote_side")]
    pub local_lock: bool,
    /// With --remote, --remote-shell or --wsl: the seconds the remote command may keep
    /// idelink waiting for the bridge's hello (or for an answer of the far shell) before it is
    /// ended and serve fails saying what to check (1 to 3600, or 0 for no limit; a password
    /// prompt counts). The wait is told on stderr after 2 s. See docs/remote.md.
    #[arg(long, value_name = "SECS", requires = "remote_side",
          default_value_t = crate::bridge::DEFAULT_DEADLINE_SECS,
          value_parser = parse_remote_timeout)]
    pub remote_timeout: u64,
    /// Answer for an editor that leaves a tool call (other than a diff) unanswered this long,
    /// in milliseconds (default 60000). With --pull, keep it near claude's own budget for
    /// getDiagnostics (500 ms before an edit).
    #[arg(long, value_name = "MS")]
    pub tool_deadline_ms: Option<u64>,
    /// The largest message sent to claude, in bytes (default 16777216: claude closes its
    /// connection on a bigger one). An answer over it is sent as an error (getDiagnostics cut
    /// to fit), a notification over it is dropped. See docs/protocol.md.
    #[arg(long, value_name = "BYTES")]
    pub max_client_message_bytes: Option<usize>,
    /// To which claude sessions selections and mentions go: `broadcast` (every session),
    /// `roots` (the sessions whose folders hold the file, from roots/list) or `chosen` (the
    /// session chosen with `s`, or with `idelink/chooseSession` over --stdio; mentions always
    /// follow the choice). See docs/protocol.md, "Sessions and routing".
    #[arg(long, value_enum, default_value_t = RoutingArg::Broadcast)]
    pub routing: RoutingArg,
    /// With --stdio: send these read tools to the editor as `tool/call`s instead of answering
    /// them from its `editor/event`s (comma-separated, or `all`). See docs/sidecar.md.
    #[arg(long, value_enum, value_delimiter = ',', requires = "stdio")]
    pub pull: Vec<PulledRead>,
    /// With --stdio: keep the turn ledger; the editor answers its `ledgerRead` and
    /// `ledgerWrite` events (`idelink/ledgerRead`, `idelink/ledgerWritten`) and reads and undoes
    /// turns (`idelink/ledger`, `idelink/ledgerUndo`). See docs/sidecar.md, "The turn ledger".
    #[arg(long, requires = "stdio")]
    pub ledger: bool,
    /// What claude is told unasked: `everything` (every focus, caret and selection),
    /// `selectionOnly` (only real selections, nothing for opening or focusing a file) or
    /// `mentionsOnly` (only @-mentions). Overrides the policy file's `mode`.
    #[arg(long, value_enum, value_name = "MODE")]
    pub context_mode: Option<ContextMode>,
    /// The context policy file (default: `.idelink.toml` in the folder, when there is one).
    /// See docs/embedding.md, "Context policy".
    #[arg(long, value_name = "FILE")]
    pub policy: Option<PathBuf>,
    /// Do not deny what the workspace's .gitignore files and .git/info/exclude ignore (the
    /// default deny globs and the policy file's `deny` still apply).
    #[arg(long)]
    pub no_gitignore: bool,
    /// Start with sharing paused (resume with `p` in the terminal).
    #[arg(long)]
    pub paused: bool,
}

/// `--context-mode`: the engine's sharing mode, by its JSON name.
#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum ContextMode {
    /// Every focus, caret move and selection (the protocol as claude expects it).
    #[value(name = "everything")]
    Everything,
    /// Only real selections.
    #[value(name = "selectionOnly")]
    SelectionOnly,
    /// Only @-mentions.
    #[value(name = "mentionsOnly")]
    MentionsOnly,
}

impl ContextMode {
    /// The engine's mode.
    pub fn mode(self) -> SharingMode {
        match self {
            ContextMode::Everything => SharingMode::Everything,
            ContextMode::SelectionOnly => SharingMode::SelectionOnly,
            ContextMode::MentionsOnly => SharingMode::MentionsOnly,
        }
    }
}

/// A routing rule of `--routing`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum RoutingArg {
    /// Every ready session.
    Broadcast,
    /// The sessions whose roots/list folders hold the file.
    Roots,
    /// The chosen session alone (every session while none is chosen).
    Chosen,
}

impl RoutingArg {
    /// The engine's rule.
    pub fn rule(self) -> Routing {
        match self {
            RoutingArg::Broadcast => Routing::Broadcast,
            RoutingArg::Roots => Routing::Roots,
            RoutingArg::Chosen => Routing::Chosen,
        }
    }
}

/// A read tool `--pull` sends to the editor.
#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum PulledRead {
    /// Every read tool below.
    All,
    /// `getDiagnostics`.
    #[value(name = "getDiagnostics")]
    GetDiagnostics,
    /// `getCurrentSelection`.
    #[value(name = "getCurrentSelection")]
    GetCurrentSelection,
    /// `getLatestSelection`.
    #[value(name = "getLatestSelection")]
    GetLatestSelection,
    /// `getOpenEditors`.
    #[value(name = "getOpenEditors")]
    GetOpenEditors,
    /// `getWorkspaceFolders`.
    #[value(name = "getWorkspaceFolders")]
    GetWorkspaceFolders,
    /// `checkDocumentDirty`.
    #[value(name = "checkDocumentDirty")]
    CheckDocumentDirty,
}

impl PulledRead {
    /// Sends this read tool (or every one) to the editor.
    pub fn apply(self, reads: &mut ReadSources) {
        let editor = ReadSource::Editor;
        let tool = match self {
            PulledRead::All => return *reads = ReadSources::all(editor),
            PulledRead::GetDiagnostics => ToolName::GetDiagnostics,
            PulledRead::GetCurrentSelection => ToolName::GetCurrentSelection,
            PulledRead::GetLatestSelection => ToolName::GetLatestSelection,
            PulledRead::GetOpenEditors => ToolName::GetOpenEditors,
            PulledRead::GetWorkspaceFolders => ToolName::GetWorkspaceFolders,
            PulledRead::CheckDocumentDirty => ToolName::CheckDocumentDirty,
        };
        reads.set(tool, editor);
    }
}

/// `--max-connections` when not given: the engine's default cap.
const DEFAULT_MAX_CONNECTIONS: usize = idelink_core::Config::DEFAULT_MAX_CONNECTIONS;

/// The largest `--max-connections`: far above any real use (one session per claude process),
/// low enough that a typo cannot let sockets exhaust the process's file descriptors.
const MAX_CONNECTIONS_LIMIT: usize = 4096;

/// `--max-connections N`: a whole number from 1 to [`MAX_CONNECTIONS_LIMIT`].
fn parse_max_connections(text: &str) -> Result<usize, String> {
    match text.parse::<usize>() {
        Ok(n) if (1..=MAX_CONNECTIONS_LIMIT).contains(&n) => Ok(n),
        _ => Err(format!(
            "expected the number of claude sessions to serve at once, from 1 to \
             {MAX_CONNECTIONS_LIMIT} (e.g. --max-connections 64); use --single-session for one \
             session that a newer one replaces"
        )),
    }
}

/// `--remote-timeout SECS`: whole seconds up to [`crate::bridge::MAX_DEADLINE_SECS`], 0 for none.
fn parse_remote_timeout(text: &str) -> Result<u64, String> {
    let max = crate::bridge::MAX_DEADLINE_SECS;
    match text.parse::<u64>() {
        Ok(secs) if secs <= max => Ok(secs),
        _ => Err(format!(
            "expected whole seconds from 1 to {max} that the remote command may take to start \
             the bridge (e.g. --remote-timeout 90 for a slow login), or 0 to wait without limit"
        )),
    }
}

/// One `--map` entry, checked as the engine will read it.
fn parse_mapping(text: &str) -> Result<String, String> {
    idelink_core::path_map::PathMap::parse(&[text])
        .map(|_| text.to_owned())
        .map_err(|e| e.to_string())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn max_connections_takes_one_to_the_limit_and_says_what_it_wants() {
        assert_eq!(parse_max_connections("1"), Ok(1));
        assert_eq!(parse_max_connections("4096"), Ok(4096));
        for bad in ["0", "4097", "-3", "many", ""] {
            let message = parse_max_connections(bad).err().unwrap_or_default();
            assert!(message.contains("from 1 to 4096"), "{bad}: {message}");
        }
    }

    #[test]
    fn remote_timeout_takes_whole_seconds_up_to_an_hour_or_zero() {
        assert_eq!(parse_remote_timeout("0"), Ok(0));
        assert_eq!(parse_remote_timeout("90"), Ok(90));
        assert_eq!(parse_remote_timeout("3600"), Ok(3600));
        for bad in ["3601", "-1", "1.5", "30s", ""] {
            let message = parse_remote_timeout(bad).err().unwrap_or_default();
            assert!(message.contains("from 1 to 3600"), "{bad}: {message}");
            assert!(
                message.contains("or 0 to wait without limit"),
                "{bad}: {message}"
            );
        }
    }

    #[test]
    fn serve_defaults_to_the_engine_cap() {
        #[derive(clap::Parser)]
        struct Serve {
            #[command(flatten)]
            args: ServeArgs,
        }
        let cap =
            <Serve as clap::Parser>::try_parse_from(["serve"]).map(|s| s.args.max_connections);
        assert_eq!(
            cap.ok(),
            Some(idelink_core::Config::default().max_connections)
        );
    }
}
