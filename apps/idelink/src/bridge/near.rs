//! The editor side of `idelink serve --remote COMMAND`: starts the bridge with COMMAND (its
//! stdin/stdout are the link), learns its port from its hello, then attaches the link to the
//! host ([`Host::attach_link`]): every claude connection the bridge opens is served by the
//! host's engine directly, with no loopback hop of its own.

use super::BINARY_VERSION;
use super::command::shell;
use super::wait::{Awaited, Heard, Patience, end, hear};
use crate::terminal::inert;
use idelink_core::link::{AttachEvent, Hello, LinkFault, peek_hello};
use idelink_mio::{Host, LinkPipes};
use std::error::Error;
use std::io::Write;
use std::process::{Child, ChildStdin, ChildStdout, Stdio};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

/// A bridge that said hello: its process, its hello, and its stream so far.
pub struct Bridge {
    child: Child,
    input: ChildStdout,
    output: ChildStdin,
    /// The bytes read to find the hello (the hello itself first), for the link to read again.
    read: Vec<u8>,
    /// What the bridge said about itself (its port, its pid, its idelink version).
    pub hello: Hello,
}

/// Starts `command` (through the shell: `sh -c`, `cmd /C` on Windows) and reads the bridge's
/// hello, waiting as `patience` says. Fails with what to check when the command ends first,
/// says something else or stays silent past the deadline (then it is ended).
pub fn spawn_bridge(command: &str, patience: Patience) -> Result<Bridge, Box<dyn Error>> {
    start_bridge(
        command,
        b"",
        "is idelink installed there (`idelink bridge`)? With --remote-shell, idelink copies \
         itself over",
        &Awaited {
            command,
            what: "the bridge's hello",
            runs: "idelink bridge",
        },
        patience,
    )
}

/// Starts `command`, writes `script` to its stdin (for a far shell: the line that starts the
/// bridge) and reads the bridge's hello within `patience`; `hint` says what to check when the
/// command ends first.
pub(super) fn start_bridge(
    command: &str,
    script: &[u8],
    hint: &str,
    awaited: &Awaited<'_>,
    patience: Patience,
) -> Result<Bridge, Box<dyn Error>> {
    let mut child = shell(command)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::inherit())
        .spawn()
        .map_err(|e| format!("cannot start the remote command {command:?}: {e}"))?;
    let (Some(input), Some(mut output)) = (child.stdout.take(), child.stdin.take()) else {
        return Err("the remote command has no stdin/stdout".into());
    };
    output.write_all(script)?;
    let named = command.to_owned();
    let said_hello = move |read: &[u8]| match peek_hello(read) {
        Ok(found) => Ok(found.is_some()),
        Err(fault) => Err(format!(
            "the remote command {named:?} is not an idelink bridge ({fault})"
        )),
    };
    let (input, read) = match hear(&mut child, input, Vec::new(), said_hello, awaited, patience)? {
        Heard::Enough(input, read) => (input, read),
        Heard::Ended(_) => {
            settle(&mut child);
            return Err(format!(
                "the remote command {command:?} ended before the bridge said hello: {hint}"
            )
            .into());
        }
    };
    let Ok(Some((hello, _))) = peek_hello(&read) else {
        end(&mut child);
        return Err(format!("the remote command {command:?} said no whole hello").into());
    };
    Ok(Bridge {
        child,
        input,
        output,
        read,
        hello,
    })
}

/// How long a bridge whose link ended may take to exit (removing its lock) before it is
/// killed. 2 s: it removes one file and exits.
const BRIDGE_EXIT_MS: u64 = 2_000;

/// A running bridge's process, reaped when the link ends or when this is dropped (after the
/// host, whose drop closes the link's pipes: the bridge removes its lock and exits).
pub struct RemoteLink {
    child: Arc<Mutex<Option<Child>>>,
}

impl Drop for RemoteLink {
    fn drop(&mut self) {
        reap(&self.child);
    }
}

/// Attaches `bridge`'s link to `host`; `hello` says what the far lock holds. The link's end is
/// reported on stderr (the far side's words through the inert-text rules).
pub fn start_remote(
    bridge: Bridge,
    hello: Hello,
    host: &mut Host,
) -> Result<RemoteLink, Box<dyn Error>> {
    let Bridge {
        child,
        input,
        output,
        read,
        hello: peer,
    } = bridge;
    report(&peer);
    let hello = Hello {
        binary_version: BINARY_VERSION.to_owned(),
        ..hello
    };
    let child = Arc::new(Mutex::new(Some(child)));
    let reaped = Arc::clone(&child);
    let pipes = LinkPipes::new(input, output).already_read(read);
    host.attach_link(
        &hello,
        pipes,
        Box::new(move |event| {
            let AttachEvent::Dead(fault) = event else {
                return;
            };
            // The bridge is reaped before the end is said, so its pid is free (and its lock
            // stale) for whoever acts on it: at once when it is gone already (killed), else
            // once it exits (or is killed) on a thread of its own.
            let exited = reaped.lock().ok().is_some_and(|mut held| {
                let gone = held
                    .as_mut()
                    .is_some_and(|c| matches!(c.try_wait(), Ok(Some(_))));
                gone && held.take().is_some()
            });
            let said = (*fault != LinkFault::Shutdown)
                .then(|| format!("idelink: the remote link ended: {}", shown(fault)));
            if exited {
                return tell(said.as_deref());
            }
            let child = Arc::clone(&reaped);
            let told = said.clone();
            let reaper = std::thread::Builder::new()
                .name("idelink-reap".into())
                .spawn(move || {
                    reap(&child);
                    tell(told.as_deref());
                });
            // Without a thread the bridge is reaped when serve ends (RemoteLink's drop).
            if reaper.is_err() {
                tell(said.as_deref());
            }
        }),
    )?;
    Ok(RemoteLink { child })
}

/// Says the link's end, when there is something to say.
fn tell(said: Option<&str>) {
    if let Some(said) = said {
        eprintln!("{said}");
    }
}

/// Waits for the bridge's process (its stdin is closed now: it exits by itself), killing it
/// after [`BRIDGE_EXIT_MS`]; reaped either way, so its pid is free and its lock is stale.
fn reap(child: &Mutex<Option<Child>>) {
    if let Some(mut child) = child.lock().ok().and_then(|mut held| held.take()) {
        settle(&mut child);
    }
}

/// Lets `child`, whose stream ended, exit by itself within [`BRIDGE_EXIT_MS`] (so its last
/// words on stderr are out), then kills it; reaped either way.
pub(super) fn settle(child: &mut Child) {
    let started = Instant::now();
    while started.elapsed() < Duration::from_millis(BRIDGE_EXIT_MS) {
        match child.try_wait() {
            Ok(Some(_)) | Err(_) => return,
            Ok(None) => std::thread::sleep(Duration::from_millis(10)),
        }
    }
    end(child);
}

fn report(peer: &Hello) {
    let port = peer
        .port
        .map_or_else(String::new, |p| format!(", claude's port {p} there"));
    eprintln!(
        "idelink: the bridge is up (idelink {}{port})",
        inert::line(&peer.binary_version, 40)
    );
    if peer.binary_version != BINARY_VERSION {
        eprintln!("idelink: the bridge runs another idelink than this {BINARY_VERSION}");
    }
}

/// A link's end for a person: the far side's own words are inert text.
fn shown(fault: &LinkFault) -> String {
    let text = match fault {
        LinkFault::Eof => {
            "the bridge exited or its transport closed (its lock is gone with it)".to_owned()
        }
        other => other.to_string(),
    };
    inert::line(&text, 400)
}
