//! `idelink serve`: start the host on a folder, then hand it to the terminal editor or the
//! stdio sidecar.

use crate::args::ServeArgs;
use crate::signals;
use crate::terminal::{self, TerminalOptions};
use idelink_core::SessionPolicy;
use idelink_mio::{Host, HostConfig, LockPlacement, PortChoice};
use std::error::Error;
use std::path::{Path, PathBuf};
use std::process::ExitCode;

/// Runs `idelink serve`; the exit code is 1 with a message on stderr when it cannot start.
pub fn run(args: ServeArgs) -> ExitCode {
    match serve(args) {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) => {
            eprintln!("idelink: {e}");
            ExitCode::FAILURE
        }
    }
}

fn serve(args: ServeArgs) -> Result<(), Box<dyn Error>> {
    let dir = workspace_dir(args.dir.as_deref())?;
    let folder = path_text(&dir)?;
    let mut config = HostConfig::new(args.ide_name.clone(), vec![folder.clone()]);
    config.port = args.port.map_or(PortChoice::Ephemeral, PortChoice::Fixed);
    config.lock = args
        .lock_dir
        .clone()
        .map_or(LockPlacement::Default, LockPlacement::At);
    if args.single_session {
        config.engine.session_policy = SessionPolicy::Single;
    }
    let host = Host::start(config)?;
    let stop = signals::install(host.waker())?;
    match args.stdio {
        Some(framing) => crate::stdio::run(host, &stop, framing),
        None => terminal::run(
            host,
            &stop,
            &TerminalOptions {
                workspace: folder,
                ide_name: args.ide_name,
                diff: args.diff,
                trace_contents: args.trace_contents,
            },
        ),
    }
}

/// The workspace folder: DIR or the current folder, made absolute and canonical.
pub(crate) fn workspace_dir(dir: Option<&Path>) -> Result<PathBuf, Box<dyn Error>> {
    let dir = match dir {
        Some(dir) => dir.to_owned(),
        None => std::env::current_dir()?,
    };
    let canonical = dir.canonicalize().map_err(|e| {
        format!(
            "cannot serve {}: {e}; give an existing folder (idelink serve DIR)",
            dir.display()
        )
    })?;
    if !canonical.is_dir() {
        return Err(format!("cannot serve {}: it is not a folder", dir.display()).into());
    }
    Ok(canonical)
}

/// The path as the CLI sees it: UTF-8, forward slashes.
pub(crate) fn path_text(path: &Path) -> Result<String, Box<dyn Error>> {
    let text = path.to_str().ok_or_else(|| {
        format!(
            "cannot serve {}: the path is not valid UTF-8, and claude matches folders as text",
            path.display()
        )
    })?;
    Ok(if cfg!(windows) {
        text.replace('\\', "/")
    } else {
        text.to_owned()
    })
}
