//! The terminal loop of `idelink serve`.

use super::commands::Sessions;
use super::handshake_closes::HandshakeCloses;
use super::inert;
use super::ledger_files;
use super::reviewer::{Reviewer, answer};
use super::screen::Screen;
use super::status;
use super::watch::{MAX_PENDING_PATHS, Watcher};
use super::workspace_editor::DiffPolicy;
use super::workspace_editor::{Decision, WorkspaceEditor};
use crate::bind::BindWatch;
use crate::signals::StopFlag;
use idelink_core::{EngineEvent, SessionChoice, ToolOutcome};
use idelink_mio::{Host, ResumeOutcome};
use std::error::Error;
use std::io::Write;
use std::path::Path;
use std::time::{Duration, Instant};

/// How long one poll may sleep; the stop flag is also checked this often.
const TICK: Duration = Duration::from_millis(250);

/// What the terminal loop needs to know.
pub struct TerminalOptions {
    /// The workspace folder (absolute, forward slashes).
    pub workspace: String,
    /// The name claude shows.
    pub ide_name: String,
    /// Who answers diffs.
    pub diff: DiffPolicy,
    /// Log the proposed texts too.
    pub trace_contents: bool,
}

/// Serves until a termination signal, printing status lines and reviewing diffs. Nothing in
/// it blocks: files are read and diffs computed on a worker, the terminal is read (and the
/// user's editor run) on the input thread.
pub fn run(
    mut host: Host,
    stop: &StopFlag,
    options: &TerminalOptions,
) -> Result<(), Box<dyn Error>> {
    // A terminal, unless NO_COLOR or CLICOLOR=0 or TERM=dumb; CLICOLOR_FORCE forces it.
    let colour = anstream::AutoStream::choice(&std::io::stdout()) != anstream::ColorChoice::Never;
    let mut screen = Screen::new(colour);
    banner(&host, options);
    let mut editor = WorkspaceEditor::new(options.diff);
    let mut reviewer = match options.diff {
        DiffPolicy::Ask => Some(Reviewer::start(&host, &options.workspace)?),
        _ => None,
    };
    let mut events = Vec::new();
    let mut sessions = Sessions::default();
    let mut closes = HandshakeCloses::default();
    let mut bind = host.lock_path().map(BindWatch::new);
    let max = host.engine().config().max_ledger_file_bytes;
    // The ledger reads and writes only here, links resolved (ledger_files::outside).
    let root = Path::new(&options.workspace).canonicalize()?;
    let mut watcher = match Watcher::start(Path::new(&options.workspace), host.waker(), max) {
        Ok(watcher) => Some(watcher),
        Err(e) => {
            let why = inert::line(&e.to_string(), usize::MAX);
            screen.say(&format!(
                "no file watcher ({why}): edits by claude's Bash stay out of t"
            ));
            None
        }
    };
    while !stop.stop_requested() {
        if let Some(change) = bind.as_mut().and_then(BindWatch::poll) {
            bound(&mut host, &mut screen, change);
        }
        // The aggregate of closes before authentication is due on time, not on the next event.
        let wait = closes.next_due().map_or(TICK, |due| {
            due.saturating_duration_since(Instant::now()).min(TICK)
        });
        host.poll(Some(wait), &mut events)?;
        if let Some(dropped) = watcher.as_mut().map(|w| w.deliver(&mut host))
            && dropped > 0
        {
            screen.say(&format!(
                "file watcher: {dropped} changes past {MAX_PENDING_PATHS} at once left out of the ledger"
            ));
        }
        for event in events.drain(..) {
            match &event {
                EngineEvent::Closed { conn, reason } if !sessions.knows(*conn) => {
                    closes.count(Instant::now(), reason.to_string());
                }
                _ => {
                    if let Some(line) = status::line(&event, &options.workspace) {
                        screen.say(&line);
                    }
                }
            }
            sessions.on_event(&event);
            match event {
                EngineEvent::ToolCall { id, request, .. } => {
                    if options.trace_contents {
                        let request = inert::line(&format!("{request:?}"), usize::MAX);
                        tracing::trace!(%request, "tool request");
                    }
                    if let Decision::Answer(editor_events, outcome) =
                        editor.on_tool_call(id, request)
                    {
                        for editor_event in &editor_events {
                            host.handle_editor_event(editor_event)?;
                        }
                        match &outcome {
                            ToolOutcome::DiffSaved { .. } => {
                                screen.say(&format!("{id} accepted (--diff accept)"));
                            }
                            ToolOutcome::DiffRejected => {
                                screen.say(&format!("{id} rejected (--diff reject)"));
                            }
                            ToolOutcome::DiffRefused { reason } => {
                                screen.say(&format!("{id} not accepted: {reason}"));
                            }
                            ToolOutcome::Failed { message } => {
                                screen.say(&format!("{id} failed: {message}"));
                            }
                            _ => {}
                        }
                        answer(&mut host, &mut screen, id, &outcome);
                    }
                }
                EngineEvent::LedgerRead { read, path } => {
                    let max = host.engine().config().max_ledger_file_bytes;
                    let content = ledger_files::read_within(Path::new(&path), &root, max);
                    // Past its deadline the engine answered for it: nothing more to do.
                    let _ = host.handle_ledger_read(read, &content);
                }
                EngineEvent::LedgerWrite { write, file } => {
                    let max = host.engine().config().max_ledger_file_bytes;
                    let (holds, conflict) = ledger_files::compare_and_write(&file, &root, max);
                    let label = inert::line(&file.path, usize::MAX);
                    match conflict {
                        None => screen.say(&format!("undone: {label}")),
                        Some(why) => {
                            screen.say(&format!("not undone: {}", inert::line(&why, usize::MAX)))
                        }
                    }
                    if let Err(e) = host.handle_ledger_written(write, &holds) {
                        screen.say(&format!("ledger: {e}"));
                    }
                }
                // The proposal under review went away: its question goes with it.
                EngineEvent::ToolCallCancelled { id, .. } if editor.on_cancelled(id) => {
                    if let Some(reviewer) = reviewer.as_mut() {
                        reviewer.withdraw(&mut screen);
                    }
                }
                _ => {}
            }
        }
        if let Some(line) = closes.due(Instant::now()) {
            screen.say(&line);
        }
        if let Some(reviewer) = reviewer.as_mut() {
            reviewer.step(&mut host, &mut editor, &mut screen, &sessions);
        }
    }
    if let Some(line) = closes.flush() {
        screen.say(&line);
    }
    screen.say("stopping");
    host.shutdown(Duration::from_secs(1), &mut events);
    if let Some(reviewer) = reviewer {
        // The lock is gone and the clients closed; an open editor keeps the terminal until
        // the user leaves it (killing it could lose their work).
        reviewer.wait_for_editor(&mut screen);
    }
    Ok(())
}

/// `idelink claude` bound the claude it started: that pid is the chosen session, so the
/// mentions typed here go to it. When the binding goes away, a pid choice (only a binding
/// makes one here) is cleared; a session the user chose with `s N` stays chosen.
fn bound(host: &mut Host, screen: &mut Screen, pid: Option<u32>) {
    let by_pid = matches!(
        host.engine().session_choice(),
        Some(SessionChoice::Pid { .. })
    );
    if pid.is_none() && !by_pid {
        return;
    }
    let choice = pid.map(|pid| SessionChoice::Pid { pid });
    // A pid choice is always taken (it may come before its claude connects).
    if host.choose_session(choice).is_ok() {
        match pid {
            Some(pid) => screen.say(&format!(
                "idelink claude bound pid {pid}: mentions go to that session"
            )),
            None => screen.say("the idelink claude binding ended: no session is chosen"),
        }
    }
}

fn banner(host: &Host, options: &TerminalOptions) {
    let port = host.port();
    println!(
        "idelink: serving {} as \"{}\" on 127.0.0.1:{port}",
        inert::line(&options.workspace, usize::MAX),
        inert::line(&options.ide_name, usize::MAX)
    );
    if let Some(lock) = host.lock_path() {
        println!("idelink: lock file {}", lock.display());
    }
    if *host.resume() != ResumeOutcome::Off {
        println!("idelink: {}", host.resume());
    }
    let workspace = inert::line(&options.workspace, usize::MAX);
    println!("idelink: connect claude with:  idelink claude {workspace}");
    println!("idelink:                   or:  cd {workspace} && claude --ide");
    println!("idelink:                   or:  CLAUDE_CODE_SSE_PORT={port} claude");
    let policy = match options.diff {
        DiffPolicy::Ask => "shown here for review",
        DiffPolicy::Accept => "accepted automatically (--diff accept)",
        DiffPolicy::Reject => "rejected automatically (--diff reject)",
    };
    println!("idelink: claude's edits are {policy}; Ctrl-C stops");
    if options.diff == DiffPolicy::Ask {
        println!("idelink: type ? and Enter for commands (@FILE:10-20 mentions lines to claude)");
    }
    let _ = std::io::stdout().flush();
}
