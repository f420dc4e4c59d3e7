//! The terminal loop of `idelink serve`.

use super::input::{Input, LineReader};
use super::review::{self, Choice};
use super::status;
use super::workspace_editor::{Decision, WorkspaceEditor};
use crate::args::DiffPolicy;
use crate::signals::StopFlag;
use idelink_core::{Event, ToolCallId, ToolOutcome};
use idelink_mio::Host;
use std::error::Error;
use std::io::{IsTerminal, Write};
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

/// Serves until a termination signal, printing status lines and reviewing diffs.
pub fn run(
    mut host: Host,
    stop: &StopFlag,
    options: &TerminalOptions,
) -> Result<(), Box<dyn Error>> {
    let mut screen = Screen {
        started: Instant::now(),
        colour: std::io::stdout().is_terminal() && std::env::var_os("NO_COLOR").is_none(),
        prompt: None,
    };
    banner(&host, options);
    let mut editor = WorkspaceEditor::new(options.diff);
    let mut input = match options.diff {
        DiffPolicy::Ask => Some(LineReader::spawn(host.waker())?),
        _ => None,
    };
    let mut events = Vec::new();
    while !stop.stop_requested() {
        host.poll(Some(TICK), &mut events)?;
        for event in events.drain(..) {
            if let Some(line) = status::line(&event, &options.workspace) {
                screen.say(&line);
            }
            match event {
                Event::ToolCall { id, request, .. } => {
                    if options.trace_contents {
                        tracing::trace!(?request, "tool request");
                    }
                    let was_idle = editor.current().is_none();
                    match editor.on_tool_call(id, request) {
                        Decision::Answer(editor_events, outcome) => {
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
                                ToolOutcome::Failed { message } => {
                                    screen.say(&format!("{id} failed: {message}"));
                                }
                                _ => {}
                            }
                            answer(&mut host, &mut screen, id, &outcome);
                        }
                        Decision::Queued if was_idle => screen.show_current(&editor, options),
                        Decision::Queued => {}
                    }
                }
                // The proposal under review went away: show the next one.
                Event::ToolCallCancelled { id, .. } if editor.on_cancelled(id) => {
                    screen.show_current(&editor, options);
                }
                _ => {}
            }
        }
        let Some(reader) = input.as_mut() else {
            continue;
        };
        if editor.current().is_some() {
            reader.ask();
        }
        match reader.try_take() {
            Some(Input::Line(line)) => {
                let was_reviewing = editor.current().map(|d| d.id);
                screen.prompt = None;
                review_line(&mut host, &mut editor, &line, &mut screen, options);
                if editor.current().map(|d| d.id) != was_reviewing {
                    screen.show_current(&editor, options);
                } else if let Some(diff) = editor.current() {
                    // Not answered (a typo, a failed edit): ask again.
                    screen.ask(status::relative(&diff.path, &options.workspace));
                }
            }
            Some(Input::Closed) => {
                screen.say("standard input closed: diffs now wait until claude closes them");
                input = None;
            }
            None => {}
        }
    }
    screen.say("stopping");
    host.shutdown(Duration::from_secs(1), &mut events);
    Ok(())
}

/// Acts on a line typed while a proposal is under review.
fn review_line(
    host: &mut Host,
    editor: &mut WorkspaceEditor,
    line: &str,
    screen: &mut Screen,
    options: &TerminalOptions,
) {
    let Some(current) = editor.current().cloned() else {
        return;
    };
    let outcome = match review::parse_choice(line) {
        None => {
            screen.say("please answer a, r or e");
            return;
        }
        Some(Choice::Accept) => ToolOutcome::DiffSaved {
            final_text: current.proposed,
        },
        Some(Choice::Reject) => ToolOutcome::DiffRejected,
        Some(Choice::Edit) => {
            let name = current.path.rsplit('/').next().unwrap_or("proposal");
            match review::edit(&current.proposed, name, &review::user_editor()) {
                Ok(final_text) => ToolOutcome::DiffSaved { final_text },
                Err(e) => {
                    screen.say(&format!("edit failed ({e}); the proposal is still open"));
                    return;
                }
            }
        }
    };
    editor.finish_current();
    let label = status::relative(&current.path, &options.workspace).to_owned();
    let verdict = match &outcome {
        ToolOutcome::DiffSaved { .. } => "accepted",
        _ => "rejected",
    };
    screen.say(&format!("{} {verdict}: {label}", current.id));
    answer(host, screen, current.id, &outcome);
}

fn answer(host: &mut Host, screen: &mut Screen, id: ToolCallId, outcome: &ToolOutcome) {
    if let Err(e) = host.handle_tool_outcome(id, outcome) {
        // The call was cancelled in the meantime (claude moved on): nothing is owed.
        screen.say(&format!("{id}: answer not sent: {e}"));
    }
}

/// The terminal: status lines, and the review prompt kept last on screen.
struct Screen {
    started: Instant,
    colour: bool,
    /// The question on screen waiting for an answer, asked again after any status line.
    prompt: Option<String>,
}

impl Screen {
    /// One status line, stamped with the seconds since start.
    fn say(&mut self, line: &str) {
        let interrupted = self.prompt.is_some();
        if interrupted {
            println!();
        }
        println!("[{:>7.1}s] {line}", self.started.elapsed().as_secs_f64());
        if let Some(prompt) = &self.prompt {
            print!("{prompt}");
        }
        let _ = std::io::stdout().flush();
    }

    /// Shows the proposal under review (its diff and the question), if any.
    fn show_current(&mut self, editor: &WorkspaceEditor, options: &TerminalOptions) {
        self.prompt = None;
        if let Some(diff) = editor.current() {
            print!(
                "\n{}",
                review::present(diff, &options.workspace, self.colour)
            );
            self.ask(status::relative(&diff.path, &options.workspace));
        }
    }

    /// Asks the review question again (after an answer that was not one).
    fn ask(&mut self, label: &str) {
        let prompt = review::prompt(label);
        print!("{prompt}");
        let _ = std::io::stdout().flush();
        self.prompt = Some(prompt);
    }
}

fn banner(host: &Host, options: &TerminalOptions) {
    let port = host.port();
    println!(
        "idelink: serving {} as \"{}\" on 127.0.0.1:{port}",
        options.workspace, options.ide_name
    );
    if let Some(lock) = host.lock_path() {
        println!("idelink: lock file {}", lock.display());
    }
    println!(
        "idelink: connect claude with:  cd {} && claude --ide",
        options.workspace
    );
    println!("idelink:                   or:  CLAUDE_CODE_SSE_PORT={port} claude");
    let policy = match options.diff {
        DiffPolicy::Ask => "shown here for review",
        DiffPolicy::Accept => "accepted automatically (--diff accept)",
        DiffPolicy::Reject => "rejected automatically (--diff reject)",
    };
    println!("idelink: claude's edits are {policy}; Ctrl-C stops");
    let _ = std::io::stdout().flush();
}
