//! The `idelink` command: serve a folder to the `claude` CLI as an IDE, bridge an editor to it
//! over stdio, or relay it to an editor running in a browser page.

mod args;
mod env_cmd;
mod logging;
mod relay;
mod serve;
mod signals;
mod stdio;
mod terminal;
mod workspace;

use args::{Cli, Command};
use clap::Parser;
use std::process::ExitCode;

fn main() -> ExitCode {
    let cli = Cli::parse();
    logging::init(cli.verbose);
    match cli.command {
        Command::Serve(args) => exit_code(serve::run(args)),
        Command::Relay(args) => exit_code(relay::run(args)),
        Command::Env { port, shell } => {
            let no_proxy = std::env::var("no_proxy").ok();
            let no_proxy_upper = std::env::var("NO_PROXY").ok();
            let vars = env_cmd::variables(port, no_proxy.as_deref(), no_proxy_upper.as_deref());
            print!("{}", env_cmd::render(shell, &vars));
            ExitCode::SUCCESS
        }
    }
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
