//! The CLI in a pseudo-terminal: a tmux server on a private socket, one session, read with
//! `capture-pane` and driven with `send-keys`.

use std::io;
use std::path::{Path, PathBuf};
use std::process::{Command, Output};
use std::time::Duration;

use crate::wait;

const SESSION: &str = "claude";

/// A tmux server running one program; ended (program first, by pid) when dropped.
pub struct Terminal {
    socket: PathBuf,
    config: PathBuf,
    /// The program's pid (tmux execs it directly: the pane pid).
    pid: Option<u32>,
    /// The tmux server's pid.
    server_pid: Option<u32>,
}

impl Terminal {
    /// Starts `program args` in `cwd` in a 200×50 terminal with exactly `env` as its
    /// environment. The pane stays on screen after the program exits, so a crash is readable.
    pub fn start(
        dir: &Path,
        cwd: &Path,
        env: &[(String, String)],
        program: &Path,
        args: &[String],
    ) -> io::Result<Terminal> {
        let config = dir.join("tmux.conf");
        std::fs::write(
            &config,
            "set -g remain-on-exit on\nset -g history-limit 20000\n",
        )?;
        let mut terminal = Terminal {
            socket: dir.join("tmux.sock"),
            config,
            pid: None,
            server_pid: None,
        };
        let mut command = vec!["new-session", "-d", "-s", SESSION, "-x", "200", "-y", "50"];
        let cwd = cwd.display().to_string();
        command.extend(["-c", &cwd, "env", "-i"]);
        let pairs: Vec<String> = env.iter().map(|(k, v)| format!("{k}={v}")).collect();
        command.extend(pairs.iter().map(String::as_str));
        let program = program.display().to_string();
        command.push(&program);
        command.extend(args.iter().map(String::as_str));
        terminal.tmux(&command)?;
        let ids = terminal.tmux(&["display-message", "-p", "-t", SESSION, "#{pane_pid} #{pid}"])?;
        let ids = String::from_utf8_lossy(&ids.stdout).into_owned();
        let mut ids = ids.split_whitespace().map(str::parse::<u32>);
        terminal.pid = ids.next().and_then(Result::ok);
        terminal.server_pid = ids.next().and_then(Result::ok);
        Ok(terminal)
    }

    /// The program's process id.
    pub fn pid(&self) -> Option<u32> {
        self.pid
    }

    /// The visible screen, wrapped lines joined.
    pub fn screen(&self) -> String {
        self.capture(&["capture-pane", "-p", "-J", "-t", SESSION])
    }

    /// Everything the program printed that tmux kept (scrollback and screen).
    pub fn history(&self) -> String {
        self.capture(&["capture-pane", "-p", "-J", "-S", "-", "-t", SESSION])
    }

    /// Types `text` literally (no key names).
    pub fn type_text(&self, text: &str) -> io::Result<()> {
        self.tmux(&["send-keys", "-t", SESSION, "-l", text])
            .map(drop)
    }

    /// Presses one key by its tmux name (`Enter`, `Escape`).
    pub fn press(&self, key: &str) -> io::Result<()> {
        self.tmux(&["send-keys", "-t", SESSION, key]).map(drop)
    }

    /// Types `text`, waits until it shows on screen (the input box has it, no dialog took it),
    /// then presses Enter.
    pub fn submit(&self, text: &str) {
        self.type_text(text)
            .unwrap_or_else(|e| panic!("tmux send-keys: {e}"));
        wait::until(
            &format!("the typed text {text:?} to show on claude's screen"),
            || self.screen().contains(text).then_some(()),
        );
        self.press("Enter")
            .unwrap_or_else(|e| panic!("tmux send-keys Enter: {e}"));
    }

    fn capture(&self, args: &[&str]) -> String {
        match self.tmux(args) {
            Ok(output) => String::from_utf8_lossy(&output.stdout).into_owned(),
            Err(e) => format!("(tmux capture-pane failed: {e})"),
        }
    }

    fn tmux(&self, args: &[&str]) -> io::Result<Output> {
        let output = Command::new("tmux")
            .arg("-S")
            .arg(&self.socket)
            .arg("-f")
            .arg(&self.config)
            .args(args)
            .output()?;
        if output.status.success() {
            Ok(output)
        } else {
            Err(io::Error::other(format!(
                "tmux {} failed: {}",
                args.first().unwrap_or(&""),
                String::from_utf8_lossy(&output.stderr).trim()
            )))
        }
    }
}

impl Drop for Terminal {
    fn drop(&mut self) {
        if let Some(pid) = self.pid {
            end_process(pid);
        }
        let _ = self.tmux(&["kill-server"]);
        if let Some(pid) = self.server_pid {
            end_process(pid);
        }
    }
}

/// Ends a process that is not our child: SIGTERM, up to 5 s to go, then SIGKILL.
pub fn end_process(pid: u32) {
    use rustix::process::{Pid, Signal, kill_process, test_kill_process};
    let Some(pid) = i32::try_from(pid).ok().and_then(Pid::from_raw) else {
        return;
    };
    if kill_process(pid, Signal::TERM).is_err() {
        return;
    }
    if !wait::within(Duration::from_secs(5), || test_kill_process(pid).is_err()) {
        let _ = kill_process(pid, Signal::KILL);
    }
}
