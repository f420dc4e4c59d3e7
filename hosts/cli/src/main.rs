//! The `idelink` command: serve a folder to the `claude` CLI as an IDE, or bridge an editor to
//! it over stdio.

mod args;
mod env_cmd;
mod logging;
mod relay;
mod serve;
mod signals;
mod stdio;
mod terminal;

use args::{Cli, Command};
use clap::Parser;
use std::process::ExitCode;

fn main() -> ExitCode {
    let cli = Cli::parse();
    logging::init(cli.verbose);
    match cli.command {
        Command::Serve(args) => serve::run(args),
        Command::Relay(args) => relay::run(args),
        Command::Env { port, shell } => {
            let no_proxy = std::env::var("no_proxy")
                .or_else(|_| std::env::var("NO_PROXY"))
                .ok();
            let vars = env_cmd::variables(port, no_proxy.as_deref());
            print!("{}", env_cmd::render(shell, &vars));
            ExitCode::SUCCESS
        }
    }
}
