//! The command line: the subcommands, each with the arguments its own module defines.

use crate::serve::ServeArgs;
use clap::{Parser, Subcommand};

/// Make the `claude` CLI see an editor: serve a folder as an IDE, bridge an editor to claude
/// over stdio, or relay claude to an editor running in a browser page.
///
/// Quick start: run `idelink serve` in your project, then `idelink claude` in the same folder
/// (another terminal). claude's edits then show up in the first as diffs you accept or reject.
/// `idelink doctor` says why claude does not connect.
#[derive(Debug, Parser)]
#[command(name = "idelink", version, propagate_version = true)]
pub struct Cli {
    /// More log output (-v: debug, -vv: trace). RUST_LOG overrides.
    #[arg(short, long, action = clap::ArgAction::Count, global = true)]
    pub verbose: u8,
    /// What to do.
    #[command(subcommand)]
    pub command: Command,
}

/// The subcommands.
#[derive(Debug, Subcommand)]
pub enum Command {
    /// Serve DIR to claude as an IDE (default: the current folder).
    ///
    /// Listens on 127.0.0.1, writes the lock file claude discovers, and prints one line per
    /// event. With no editor attached, the files on disk are the documents and claude's edits
    /// are shown as coloured diffs in this terminal to accept, reject or edit. The file is
    /// never written by idelink: claude writes it after you accept. Type `?` and Enter for the
    /// terminal's commands: `@FILE:10-20` mentions lines to claude, `s` lists the sessions,
    /// `d` shows the pending diff again.
    Serve(ServeArgs),
    /// Run where claude runs, for an editor on another machine (`idelink serve --remote`
    /// starts it, e.g. through ssh): listens on this side's loopback, writes this side's lock
    /// and carries claude's connections over stdin/stdout. Removes its lock when the link
    /// ends. See docs/remote.md.
    Bridge(crate::bridge::BridgeArgs),
    /// Relay claude to an editor running in a browser page (the wasm engine): serves the
    /// demo editor and prints the URL to open; writes the lock while the page is linked.
    Relay(crate::relay::RelayArgs),
    /// Start claude in DIR connected to the server whose lock contains DIR; exits with
    /// claude's status. Arguments after `--` go to claude.
    Claude(crate::claude_cmd::ClaudeArgs),
    /// Explain whether `claude --ide` started in DIR will connect, and if not, why and how to
    /// fix it. Exit status 0 only when it would connect.
    Doctor(crate::doctor::DoctorArgs),
    /// Print the environment a terminal should export so `claude` connects to PORT (default:
    /// the server whose lock contains the current folder).
    Env(crate::env_cmd::EnvArgs),
    /// Print the completion script for SHELL (e.g. `idelink completions bash >
    /// ~/.local/share/bash-completion/completions/idelink`).
    Completions {
        /// The shell.
        #[arg(value_enum)]
        shell: clap_complete::Shell,
    },
    /// Print the man page (roff): `idelink man > idelink.1`.
    Man,
}
