//! The `idelink` command: serve a folder to the `claude` CLI as an IDE, bridge an editor to it
//! over stdio, or relay it to an editor running in a browser page.

mod args;
mod bind;
mod bridge;
mod claude_cmd;
mod completions;
mod doctor;
mod env_cmd;
mod logging;
mod output;
mod relay;
mod serve;
mod signals;
mod stdio;
mod terminal;
#[cfg(windows)]
#[allow(unsafe_code, reason = "the Windows system calls, in this one module")]
mod windows;
mod workspace;

use args::{Cli, Command};
use clap::Parser;
use std::process::ExitCode;

fn main() -> ExitCode {
    let cli = Cli::parse();
    logging::init(cli.verbose);
    match cli.command {
        Command::Serve(args) => exit_code(serve::run(args)),
        Command::Bridge(args) => exit_code(bridge::run(args)),
        Command::Relay(args) => exit_code(relay::run(args)),
        Command::Claude(args) => exit_status(claude_cmd::run(args)),
        Command::Doctor(args) => exit_status(doctor::run(&args)),
        Command::Env(args) => exit_code(env_cmd::run(args)),
        Command::Completions { shell } => {
            exit_code(completions::completions(shell).map_err(Into::into))
        }
        Command::Man => exit_code(completions::man().map_err(Into::into)),
    }
}

/// The command's own exit status, or exit code 1 with the error on stderr.
fn exit_status(result: Result<ExitCode, Box<dyn std::error::Error>>) -> ExitCode {
    result.unwrap_or_else(|e| {
        eprintln!("idelink: {e}");
        ExitCode::FAILURE
    })
}

/// Success, or exit code 1 with the error on stderr (it says what is wrong and what to do).
fn exit_code(result: Result<(), Box<dyn std::error::Error>>) -> ExitCode {
    match result {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) => {
            eprintln!("idelink: {e}");
            ExitCode::FAILURE
        }
    }
}
