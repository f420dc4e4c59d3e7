//! `idelink completions SHELL` and `idelink man`: shell completions and the man page, generated
//! from the clap definition so they cannot drift from the parser.

use crate::args::Cli;
use clap::CommandFactory;
use clap_complete::Shell;
use std::io;

/// Writes the completion script for `shell` to stdout.
pub fn completions(shell: Shell) -> io::Result<()> {
    let mut script = Vec::new();
    clap_complete::generate(shell, &mut Cli::command(), "idelink", &mut script);
    crate::output::print_stdout(&script)
}

/// Writes the man page (roff, section 1) to stdout: `idelink man > idelink.1`.
pub fn man() -> io::Result<()> {
    let mut page = Vec::new();
    clap_mangen::Man::new(Cli::command()).render(&mut page)?;
    crate::output::print_stdout(&page)
}
