//! The review of the proposal at the head of the queue, without ever blocking the serve loop.
//!
//! A proposal goes through: prepared (file read and diff on the worker, [`Preparer`]) → shown
//! (the diff, then a new input epoch, then the question) → answered by a line of that epoch,
//! or edited (the editor runs on the input thread, [`Keyboard`]) → answered with the edited
//! text. An answer is bound to the call its question was asked for: a line from an earlier
//! epoch (typed before the diff was shown, or while another diff was up) answers nothing, and
//! a proposal closed or replaced while its question is up takes its question with it.

use super::commands::{self, Command, Sessions};
use super::input::{EditJob, Input, Keyboard};
use super::prepare::{Job, Prepared, Preparer};
use super::review::{self, Choice};
use super::screen::Screen;
use super::status::relative;
use super::turns::{self, TurnCommand};
use super::workspace_editor::WorkspaceEditor;
use idelink_core::ledger::UndoTarget;
use idelink_core::{SessionChoice, ToolCallId, ToolOutcome};
use idelink_mio::Host;
use std::io;

/// The question on screen: the call it asks about, the input epoch it was asked in, and
/// whether the whole change was shown (a diff) or only a summary.
#[derive(Debug, Clone, Copy)]
struct Shown {
    id: ToolCallId,
    epoch: u64,
    whole: bool,
}

/// The review state.
pub struct Reviewer {
    keyboard: Option<Keyboard>,
    preparer: Preparer,
    workspace: String,
    shown: Option<Shown>,
    preparing: Option<ToolCallId>,
    editing: Option<ToolCallId>,
    /// The diff on screen and its file's label, to show again (`d`).
    shown_diff: Option<(String, String)>,
    /// The text of the file on screen as the diff was made from it (empty for a new file):
    /// an accept's `originalText`.
    shown_original: Option<String>,
    /// The undo `u` described, waiting for `yes`.
    pending_undo: Option<UndoTarget>,
}

impl Reviewer {
    /// Starts the input thread and the diff worker.
    pub fn start(host: &Host, workspace: &str) -> io::Result<Reviewer> {
        Ok(Reviewer {
            keyboard: Some(Keyboard::spawn(host.waker())?),
            preparer: Preparer::spawn(host.waker())?,
            workspace: workspace.to_owned(),
            shown: None,
            preparing: None,
            editing: None,
            shown_diff: None,
            shown_original: None,
            pending_undo: None,
        })
    }

    /// The proposal under review was closed or replaced: its question goes, and any line
    /// being typed for it answers nothing.
    pub fn withdraw(&mut self, screen: &mut Screen) {
        if self.shown.take().is_some() {
            self.shown_diff = None;
            screen.withdraw();
            // While an editor runs, what is typed is the editor's: nothing to drop.
            if let Some(keyboard) = self.keyboard.as_ref().filter(|_| self.editing.is_none()) {
                keyboard.new_epoch();
            }
        }
    }

    /// Blocks until the editor opened for a proposal exits, if one is open (the serve loop has
    /// ended; its answer is not sent).
    pub fn wait_for_editor(self, screen: &mut Screen) {
        let (Some(id), Some(keyboard)) = (self.editing, self.keyboard) else {
            return;
        };
        screen.say(&format!(
            "{id}: waited for the editor to exit; its text was not sent"
        ));
        keyboard.wait_edited();
        screen.release();
    }

    /// Takes what the worker and the input thread have, then starts preparing the proposal
    /// at the head of the queue if it is not yet on screen.
    pub fn step(
        &mut self,
        host: &mut Host,
        editor: &mut WorkspaceEditor,
        screen: &mut Screen,
        sessions: &Sessions,
    ) {
        while let Some(prepared) = self.preparer.try_take() {
            self.on_prepared(prepared, host, editor, screen);
        }
        while let Some(input) = self.keyboard.as_ref().and_then(Keyboard::try_take) {
            if let Input::Line { text, .. } = &input
                && self.on_turn_command(text, host, screen)
            {
                continue;
            }
            if let Input::Line { text, .. } = &input
                && let Some(command) = commands::parse(text, &self.workspace)
            {
                screen.line_entered();
                self.on_command(command, host, screen, sessions);
                continue;
            }
            self.on_input(input, host, editor, screen);
        }
        self.prepare_current(editor, screen);
    }

    fn prepare_current(&mut self, editor: &WorkspaceEditor, screen: &Screen) {
        let Some(current) = editor.current() else {
            return;
        };
        let on_screen = self.shown.is_some_and(|s| s.id == current.id);
        if on_screen || self.preparing.is_some() || self.editing.is_some() {
            return;
        }
        self.preparing = Some(current.id);
        self.preparer.request(Job {
            id: current.id,
            path: current.path.clone(),
            label: relative(&current.path, &self.workspace).to_owned(),
            proposed: current.proposed.clone(),
            colour: screen.colour,
        });
    }

    fn on_prepared(
        &mut self,
        prepared: Prepared,
        host: &mut Host,
        editor: &mut WorkspaceEditor,
        screen: &mut Screen,
    ) {
        if self.preparing == Some(prepared.id) {
            self.preparing = None;
        }
        let Some(current) = editor.current().filter(|d| d.id == prepared.id) else {
            // Closed or replaced while it was being prepared.
            return;
        };
        let id = current.id;
        let label = relative(&current.path, &self.workspace).to_owned();
        match prepared.view {
            Ok((view, original)) => {
                screen.show(&view.text);
                self.ask(id, &label, view.whole, screen);
                self.shown_diff = Some((view.text, label));
                self.shown_original = Some(original);
            }
            Err(message) => {
                editor.finish_current();
                screen.say(&format!("{id} failed: {message}"));
                answer(host, screen, id, &ToolOutcome::Failed { message });
            }
        }
    }

    /// Starts a new input epoch, then asks: only lines typed from now on answer `id`.
    fn ask(&mut self, id: ToolCallId, label: &str, whole: bool, screen: &mut Screen) {
        let epoch = self.keyboard.as_ref().map_or(0, Keyboard::new_epoch);
        self.shown = Some(Shown { id, epoch, whole });
        if self.keyboard.is_some() {
            screen.ask(label, whole);
        }
    }

    fn on_input(
        &mut self,
        input: Input,
        host: &mut Host,
        editor: &mut WorkspaceEditor,
        screen: &mut Screen,
    ) {
        if matches!(input, Input::Line { .. }) {
            screen.line_entered();
        }
        match input {
            Input::Line { text, epoch } => match self.shown {
                Some(shown) if shown.epoch == epoch && self.editing.is_none() => {
                    self.on_answer(shown, &text, host, editor, screen);
                }
                shown if !text.trim().is_empty() => {
                    let why = if shown.is_some() {
                        "it was typed before the diff on screen was shown"
                    } else {
                        "no diff is waiting for an answer"
                    };
                    screen.say(&format!("ignored {:?}: {why}", text.trim()));
                }
                _ => {}
            },
            Input::Edited { id, result } => {
                self.editing = None;
                screen.release();
                let Some(current) = editor.current().filter(|d| d.id == id) else {
                    screen.say(&format!(
                        "{id} was closed while you edited it; the edit was not sent"
                    ));
                    return;
                };
                let label = relative(&current.path, &self.workspace).to_owned();
                match result {
                    Ok(final_text) => {
                        let proposed = current.proposed.clone();
                        editor.finish_current();
                        self.shown = None;
                        let outcome = self.accept(&proposed, final_text);
                        screen.say(&format!("{id} {}: {label}", verdict(&outcome, "(edited)")));
                        answer(host, screen, id, &outcome);
                    }
                    Err(e) => {
                        screen.say(&format!("edit failed ({e}); the proposal is still open"));
                        let whole = self.shown.is_none_or(|shown| shown.whole);
                        self.ask(id, &label, whole, screen);
                    }
                }
            }
            Input::Closed => {
                self.keyboard = None;
                screen.withdraw();
                screen.say("standard input closed: diffs now wait until claude closes them");
            }
        }
    }

    /// Carries out `text` when it is a ledger command (`t`, `t N`, `u …`, and `yes` while
    /// an undo waits and no diff question is up); false when it is none.
    fn on_turn_command(&mut self, text: &str, host: &mut Host, screen: &mut Screen) -> bool {
        if text.trim() == "yes" && self.shown.is_none() {
            let Some(target) = self.pending_undo.take() else {
                return false;
            };
            screen.line_entered();
            match host.ledger_undo(&target) {
                Ok(()) => screen.say(&format!(
                    "{}: writing",
                    turns::describe(&target, &self.workspace)
                )),
                Err(refused) => screen.say(&format!(
                    "not undone: {}",
                    super::inert::line(&refused.to_string(), usize::MAX)
                )),
            }
            return true;
        }
        let Some(command) = turns::parse(text) else {
            return false;
        };
        screen.line_entered();
        let ledger = host.engine().ledger();
        match command {
            Err(why) => screen.say(&why),
            Ok(TurnCommand::List) => {
                for line in turns::list(ledger, &self.workspace) {
                    screen.say(&line);
                }
            }
            Ok(TurnCommand::Show(turn)) => {
                for line in turns::show(ledger, turn, &self.workspace) {
                    screen.say(&line);
                }
            }
            Ok(TurnCommand::Undo { turn, file, hunk }) => {
                match turns::undo_target(ledger, turn, file.as_deref(), hunk, &self.workspace)
                    .and_then(|target| {
                        ledger
                            .plan_undo(&target)
                            .map(|_| target)
                            .map_err(|refused| refused.to_string())
                    }) {
                    Ok(target) => {
                        screen.say(&format!(
                            "{}? type yes to confirm",
                            turns::describe(&target, &self.workspace)
                        ));
                        self.pending_undo = Some(target);
                    }
                    Err(why) => screen.say(&format!(
                        "not undone: {}",
                        super::inert::line(&why, usize::MAX)
                    )),
                }
            }
        }
        true
    }

    /// A command line (any epoch: a command answers no question).
    fn on_command(
        &mut self,
        command: Result<Command, String>,
        host: &mut Host,
        screen: &mut Screen,
        sessions: &Sessions,
    ) {
        match command {
            Err(why) => screen.say(&why),
            Ok(Command::Help) => screen.say(commands::HELP),
            Ok(Command::Sessions) => {
                for line in sessions.lines(&host.sessions()) {
                    screen.say(&line);
                }
            }
            Ok(Command::Choose(conn)) => {
                let choice = conn.map(|conn| SessionChoice::Conn { conn });
                match (host.choose_session(choice), conn) {
                    (Ok(()), Some(conn)) => {
                        screen.say(&format!("{conn} is chosen: mentions go to it alone"));
                    }
                    (Ok(()), None) => screen.say("no session is chosen"),
                    (Err(_), Some(conn)) => {
                        screen.say(&format!("{conn} is no connected session: see s"));
                    }
                    (Err(e), None) => screen.say(&format!("not changed: {e}")),
                }
            }
            // The same question again, in the same epoch: the answer still binds to it.
            Ok(Command::ShowDiff) => match (&self.shown_diff, self.shown, &self.editing) {
                (Some((diff, label)), Some(shown), None) => {
                    screen.show(diff);
                    screen.ask(label, shown.whole);
                }
                _ => screen.say("no diff is waiting for an answer"),
            },
            Ok(Command::TogglePause) => {
                let paused = !host.engine().policy().paused;
                let event = idelink_core::EditorEvent::SharingPaused { paused };
                let said = match (host.handle_editor_event(&event), paused) {
                    (Err(e), _) => format!("sharing unchanged: {e}"),
                    (Ok(()), true) => "sharing paused: claude hears no file, no mention and no                                        read answer about the editor (p resumes)"
                        .to_owned(),
                    (Ok(()), false) => format!(
                        "sharing resumed ({})",
                        host.engine().policy().mode.as_str()
                    ),
                };
                screen.say(&said);
            }
            Ok(Command::Mention(event)) => {
                let what = match &event {
                    idelink_core::EditorEvent::Mention {
                        path,
                        line_start: Some(a),
                        line_end: Some(b),
                    } => format!("{}:{}-{}", relative(path, &self.workspace), a + 1, b + 1),
                    idelink_core::EditorEvent::Mention { path, .. } => {
                        relative(path, &self.workspace).to_owned()
                    }
                    _ => String::new(),
                };
                match host.handle_editor_event(&event) {
                    Ok(()) => screen.say(&format!("mentioned {what} to claude")),
                    Err(e) => screen.say(&format!("mention not sent: {e}")),
                }
            }
        }
    }

    /// A line typed for the question `shown`.
    fn on_answer(
        &mut self,
        shown: Shown,
        line: &str,
        host: &mut Host,
        editor: &mut WorkspaceEditor,
        screen: &mut Screen,
    ) {
        let id = shown.id;
        let Some(current) = editor.current().filter(|d| d.id == id).cloned() else {
            return;
        };
        let label = relative(&current.path, &self.workspace).to_owned();
        let outcome = match review::parse_choice(line) {
            None => {
                // The question is still up: the status line asks it again.
                let choices = if shown.whole {
                    "a, r or e".to_owned()
                } else {
                    format!("e, r or \"{}\"", review::ACCEPT_UNSEEN)
                };
                screen.say(&format!("please answer {choices}"));
                return;
            }
            // A summary showed only part of the change: `a` must not accept the rest unseen.
            Some(Choice::Accept) if !shown.whole => {
                screen.say(&review::summary_accept_refused());
                return;
            }
            Some(Choice::Accept | Choice::AcceptUnseen) => {
                self.accept(&current.proposed, current.proposed.to_string())
            }
            Some(Choice::Reject) => ToolOutcome::DiffRejected,
            Some(Choice::Edit) => {
                if let Some(keyboard) = self.keyboard.as_mut() {
                    self.editing = Some(id);
                    screen.hold();
                    keyboard.edit(EditJob {
                        id,
                        proposed: current.proposed.clone(),
                        file_name: current
                            .path
                            .rsplit('/')
                            .next()
                            .unwrap_or("proposal")
                            .to_owned(),
                    });
                }
                return;
            }
        };
        editor.finish_current();
        self.shown = None;
        screen.withdraw();
        screen.say(&format!("{id} {}: {label}", verdict(&outcome, "")));
        answer(host, screen, id, &outcome);
    }

    /// The outcome of accepting `proposed` as `final_text` for the file on screen:
    /// [`WorkspaceEditor::accept`] with the text the diff was made from.
    fn accept(&mut self, proposed: &str, final_text: String) -> ToolOutcome {
        WorkspaceEditor::accept(self.shown_original.take(), proposed, final_text)
    }
}

/// What the status line says of `outcome`: accepted (with `how`), rejected, or why it was
/// not accepted after all.
fn verdict(outcome: &ToolOutcome, how: &str) -> String {
    match outcome {
        ToolOutcome::DiffSaved { .. } if how.is_empty() => "accepted".to_owned(),
        ToolOutcome::DiffSaved { .. } => format!("accepted {how}"),
        ToolOutcome::DiffRefused { reason } => format!("not accepted: {reason}"),
        _ => "rejected".to_owned(),
    }
}

/// Sends the answer for `id`.
pub fn answer(host: &mut Host, screen: &mut Screen, id: ToolCallId, outcome: &ToolOutcome) {
    if let Err(e) = host.handle_tool_outcome(id, outcome) {
        // The call was cancelled in the meantime (claude moved on): nothing is owed.
        screen.say(&format!("{id}: answer not sent: {e}"));
    }
}
