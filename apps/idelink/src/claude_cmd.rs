//! `idelink claude [DIR] [-- ARGS…]`: start claude in DIR with the environment that connects it
//! to the server whose lock contains DIR, bind it as that server's chosen session (the bind
//! file, [`crate::bind`]: its mentions go to this claude), and exit with claude's status. The same lookup serves
//! `idelink env` without a port.

use crate::bind::Binding;
use crate::doctor::{PROGRAM_VAR, resolve_program, serving_lock};
use crate::env_cmd;
use crate::workspace::{path_text, workspace_dir};
use std::error::Error;
use std::ffi::OsString;
use std::path::PathBuf;
use std::process::{Command, ExitCode};

/// `idelink claude` options.
#[derive(Debug, clap::Args)]
pub struct ClaudeArgs {
    /// The folder to start claude in (default: the current folder).
    pub dir: Option<PathBuf>,
    /// The claude program to run: a path, or a name looked up in PATH's absolute entries.
    #[arg(long, env = PROGRAM_VAR, default_value = "claude")]
    pub claude: OsString,
    /// Arguments for claude, after `--`.
    #[arg(last = true)]
    pub args: Vec<OsString>,
}

/// Runs claude in DIR and returns its exit status (a signal death as 128 + the signal).
pub fn run(args: ClaudeArgs) -> Result<ExitCode, Box<dyn Error>> {
    let dir = workspace_dir(args.dir.as_deref())?;
    let (port, lock) = serving_lock(&path_text(&dir)?)?;
    // Resolved here, before claude starts in `dir`: a lookup made there would find the
    // workspace's own files (doctor's `program` module says how).
    let program = resolve_program(
        &args.claude,
        std::env::var_os("PATH").as_deref(),
        &std::env::current_dir()?,
    )
    .map_err(|why| {
        format!("cannot start claude: {why}; install it or name it with --claude PATH")
    })?;
    let no_proxy = std::env::var("no_proxy").ok();
    let no_proxy_upper = std::env::var("NO_PROXY").ok();
    let mut command = Command::new(&program);
    command.args(&args.args).current_dir(&dir);
    for (name, value) in env_cmd::variables(port, no_proxy.as_deref(), no_proxy_upper.as_deref()) {
        command.env(name, value);
    }
    ignore_terminal_interrupts()?;
    let mut child = command.spawn().map_err(|e| {
        format!(
            "cannot start {}: {e}; install claude or name it with --claude PATH",
            program.display()
        )
    })?;
    // The CLI's `ide_connected` carries its own pid, the child's: the server chooses it.
    // Without the file claude still connects, as every session does: say so and go on.
    let binding = match Binding::write(&lock, child.id()) {
        Ok(binding) => Some(binding),
        Err(e) => {
            eprintln!("idelink: claude is not bound as the server's chosen session: {e}");
            None
        }
    };
    let status = child.wait()?;
    drop(binding);
    Ok(ExitCode::from(exit_byte(status)))
}

/// Ctrl-C and Ctrl-\ in the terminal reach claude and idelink alike; claude decides what they
/// mean, so idelink only notes them (the handlers stay until the process exits).
#[cfg(unix)]
fn ignore_terminal_interrupts() -> std::io::Result<()> {
    use signal_hook::consts::{SIGINT, SIGQUIT};
    use std::sync::Arc;
    use std::sync::atomic::AtomicBool;
    let noted = Arc::new(AtomicBool::new(false));
    [SIGINT, SIGQUIT]
        .into_iter()
        .try_for_each(|signal| signal_hook::flag::register(signal, Arc::clone(&noted)).map(drop))
}

/// Windows: Ctrl-C and Ctrl-Break reach every process of the console; a handler that does
/// nothing keeps idelink running for claude (closing the console still ends both).
#[cfg(windows)]
fn ignore_terminal_interrupts() -> std::io::Result<()> {
    crate::windows::on_console_control(|| {})
}

#[cfg(unix)]
fn exit_byte(status: std::process::ExitStatus) -> u8 {
    use std::os::unix::process::ExitStatusExt;
    match (status.code(), status.signal()) {
        (Some(code), _) => u8::try_from(code & 0xff).unwrap_or(1),
        (None, Some(signal)) => u8::try_from((128 + signal) & 0xff).unwrap_or(1),
        (None, None) => 1,
    }
}

#[cfg(not(unix))]
fn exit_byte(status: std::process::ExitStatus) -> u8 {
    status
        .code()
        .map_or(1, |code| u8::try_from(code & 0xff).unwrap_or(1))
}
