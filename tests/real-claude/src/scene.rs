//! One run of the drift alarm: a private workspace, home and config folder, the fake API,
//! the IDE under test (an [`IdeSide`] the caller supplies), and the real CLI in a terminal. Everything it starts is ended by pid when it
//! is dropped; when the test failed, it first prints what is needed to diagnose the drift.

use serde_json::{Value, json};
use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

use crate::claude::{self, Claude};
use crate::fake_api::{EditScript, FakeApi};
use crate::ide::{Ide, IdeSide};
use crate::terminal::Terminal;
use crate::wait;

/// The workspace file the scripted model edits.
pub const FILE_NAME: &str = "greeting.txt";
/// Its contents before the edit.
pub const ORIGINAL: &str = "hello from the workspace\nsecond line\n";
/// Its contents after the scripted edit.
pub const EDITED: &str = "goodbye from the workspace\nsecond line\n";
/// The file the model creates in [`Scene::creating`] runs, and its text.
pub const NEW_FILE_NAME: &str = "created.txt";
/// The text of [`NEW_FILE_NAME`] the model writes.
pub const CREATED: &str = "a file the model created\nits last line\n";

/// What the scripted model does with the prompt.
#[derive(Debug, Clone)]
enum Turn {
    /// Reads the workspace file and edits it.
    Edit,
    /// Creates [`NEW_FILE_NAME`] with this text.
    Create(String),
    /// Asks the IDE for diagnostics.
    Diagnostics,
    /// Runs the [`EditScript::sequence`] this makes from the workspace folder.
    Sequence(fn(&Path) -> Vec<Value>),
}

/// A drift-alarm run.
pub struct Scene {
    name: &'static str,
    root: PathBuf,
    /// The workspace folder (canonical).
    pub workspace: PathBuf,
    /// The file the model edits.
    pub file: PathBuf,
    home: PathBuf,
    /// The CLI under test.
    pub claude: Claude,
    /// The scripted model.
    pub api: FakeApi,
    side: Box<dyn IdeSide>,
    ide: Option<Ide>,
    terminal: Option<Terminal>,
    started: Instant,
    /// Where in the CLI's debug log IDE errors start to count (`expect_ide_errors_so_far`).
    ide_errors_from: usize,
    /// The CLI's `--permission-mode` (`default` unless the test sets it before starting it).
    pub permission_mode: &'static str,
}

impl Scene {
    /// Creates the folders (under the system temp dir), the workspace file, the CLI's private
    /// configuration, and starts the fake API, scripted to read and edit the workspace file.
    /// `side` is the IDE the CLI will connect to; a `serve_*` method starts it.
    pub fn new(name: &'static str, claude: Claude, side: Box<dyn IdeSide>) -> Scene {
        Scene::build(name, claude, side, Turn::Edit)
    }

    /// Like [`Scene::new`], with the model scripted to create [`NEW_FILE_NAME`] instead.
    pub fn creating(name: &'static str, claude: Claude, side: Box<dyn IdeSide>) -> Scene {
        Scene::build(name, claude, side, Turn::Create(CREATED.to_owned()))
    }

    /// Like [`Scene::creating`], the model writing `text` into [`NEW_FILE_NAME`].
    pub fn creating_text(
        name: &'static str,
        claude: Claude,
        side: Box<dyn IdeSide>,
        text: String,
    ) -> Scene {
        Scene::build(name, claude, side, Turn::Create(text))
    }

    /// Like [`Scene::new`], with the model scripted to call the IDE's diagnostics tool
    /// instead ([`EditScript::diagnostics`]).
    pub fn asking_diagnostics(name: &'static str, claude: Claude, side: Box<dyn IdeSide>) -> Scene {
        Scene::build(name, claude, side, Turn::Diagnostics)
    }

    /// Like [`Scene::new`], the model running the [`EditScript::sequence`] that `sequence`
    /// makes from the workspace folder (canonical) instead.
    pub fn scripted(
        name: &'static str,
        claude: Claude,
        side: Box<dyn IdeSide>,
        sequence: fn(&Path) -> Vec<Value>,
    ) -> Scene {
        Scene::build(name, claude, side, Turn::Sequence(sequence))
    }

    fn build(name: &'static str, claude: Claude, side: Box<dyn IdeSide>, turn: Turn) -> Scene {
        let root =
            std::env::temp_dir().join(format!("idelink-real-claude-{name}-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&root);
        for dir in ["work", "home", "tmp"] {
            std::fs::create_dir_all(root.join(dir))
                .unwrap_or_else(|e| panic!("cannot create {}: {e}", root.display()));
        }
        let workspace = root
            .join("work")
            .canonicalize()
            .unwrap_or_else(|e| panic!("{e}"));
        let file = workspace.join(FILE_NAME);
        std::fs::write(&file, ORIGINAL).unwrap_or_else(|e| panic!("{e}"));
        let home = root.join("home");
        claude::write_config(&claude::config_dir(&home), &text(&workspace))
            .unwrap_or_else(|e| panic!("cannot write claude's config: {e}"));
        let api = FakeApi::start(EditScript {
            file: text(&file),
            old: "hello".to_owned(),
            new: "goodbye".to_owned(),
            diagnostics: matches!(turn, Turn::Diagnostics),
            sequence: match &turn {
                Turn::Sequence(make) => make(&workspace),
                _ => Vec::new(),
            },
            create: match turn {
                Turn::Create(created) => Some((text(&workspace.join(NEW_FILE_NAME)), created)),
                Turn::Edit | Turn::Diagnostics | Turn::Sequence(_) => None,
            },
        })
        .unwrap_or_else(|e| panic!("cannot start the fake API: {e}"));
        Scene {
            name,
            root,
            workspace,
            file,
            home,
            claude,
            api,
            side,
            ide: None,
            terminal: None,
            started: Instant::now(),
            ide_errors_from: 0,
            permission_mode: "default",
        }
    }

    /// Starts the IDE with `--diff <policy>` (a terminal host: it decides diffs itself and
    /// prints `on 127.0.0.1:<port>`); returns its port.
    pub fn serve_terminal(&mut self, policy: &str) -> u16 {
        self.serve_terminal_with(policy, &[])
    }

    /// [`serve_terminal`](Self::serve_terminal) with more arguments for the IDE.
    pub fn serve_terminal_with(&mut self, policy: &str, args: &[&str]) -> u16 {
        let args: Vec<&str> = ["--diff", policy].iter().chain(args).copied().collect();
        let ide = self.start_ide(&args);
        let (_, banner) = ide.wait_line(0, "on 127.0.0.1:");
        let port = banner.rsplit(':').next().and_then(|p| p.parse().ok());
        port.unwrap_or_else(|| panic!("no port in the IDE's banner {banner:?}"))
    }

    /// Starts an IDE that serves through an `idelink bridge` (`serve --remote`, with `args`:
    /// `--diff <policy>` for the terminal, `--stdio=lines` for the sidecar); returns the port of
    /// the lock the bridge writes in the scene's lock folder (the bridge's listener: the one
    /// claude dials).
    pub fn serve_remote(&mut self, args: &[&str]) -> u16 {
        self.start_ide(args);
        let lock_dir = self.lock_dir();
        wait::until("the bridge to write its lock", || {
            std::fs::read_dir(&lock_dir)
                .ok()?
                .flatten()
                .find_map(|entry| {
                    let name = entry.file_name().into_string().ok()?;
                    name.strip_suffix(".lock")?.parse().ok()
                })
        })
    }

    /// Stops the running IDE (SIGTERM, waited for: a clean stop) and starts it again with the
    /// same arguments as [`serve_terminal_with`](Self::serve_terminal_with); returns the new
    /// port and how long the CLI had no IDE to dial (from the old process's end to the new
    /// one's banner, which it prints once it listens).
    pub fn restart_terminal_with(&mut self, policy: &str, args: &[&str]) -> (u16, Duration) {
        drop(self.ide.take());
        self.serve_terminal_again(policy, args)
    }

    /// [`restart_terminal_with`](Self::restart_terminal_with) after a crash: the IDE is killed
    /// (SIGKILL), so it leaves its lock and everything else behind.
    pub fn crash_and_restart_terminal_with(
        &mut self,
        policy: &str,
        args: &[&str],
    ) -> (u16, Duration) {
        if let Some(ide) = self.ide.take() {
            ide.crash();
        }
        self.serve_terminal_again(policy, args)
    }

    fn serve_terminal_again(&mut self, policy: &str, args: &[&str]) -> (u16, Duration) {
        let stopped = Instant::now();
        let port = self.serve_terminal_with(policy, args);
        (port, stopped.elapsed())
    }

    /// Starts the IDE with `--stdio=lines` (`idelink serve` as the editor sidecar; the test is
    /// the editor); returns its port.
    pub fn serve_sidecar(&mut self) -> u16 {
        self.serve_sidecar_with(&[])
    }

    /// [`serve_sidecar`](Self::serve_sidecar) with more arguments for the IDE.
    pub fn serve_sidecar_with(&mut self, args: &[&str]) -> u16 {
        let args: Vec<&str> = ["--stdio=lines"].iter().chain(args).copied().collect();
        let ide = self.start_ide(&args);
        let ready = ide.wait_message("idelink/ready", |m| m["method"] == "idelink/ready");
        let port = ready["params"]["port"]
            .as_u64()
            .and_then(|p| u16::try_from(p).ok());
        port.unwrap_or_else(|| panic!("no port in {ready}"))
    }

    /// Where the CLI looks for lock files (`<its config folder>/ide`).
    pub fn lock_dir(&self) -> PathBuf {
        claude::config_dir(&self.home).join("ide")
    }

    fn start_ide(&mut self, args: &[&str]) -> &Ide {
        let lock_dir = self.lock_dir();
        let log = self.root.join("ide.log");
        let ide = Ide::start(&*self.side, args, &lock_dir, &self.workspace, log);
        self.ide.insert(ide)
    }

    /// Sends `messages` to the sidecar (editor events, say), then waits until it answered an
    /// `idelink/info` sent after them: every one of them has been applied.
    pub fn send_synced(&mut self, messages: &[Value]) {
        let ide = self.ide();
        for message in messages {
            ide.send(message);
        }
        ide.send(&json!({"jsonrpc": "2.0", "id": "sync", "method": "idelink/info"}));
        ide.wait_message("the idelink/info answer", |m| m["id"] == "sync");
    }

    /// The running IDE.
    pub fn ide(&mut self) -> &mut Ide {
        self.ide.as_mut().expect("serve_* starts the IDE first")
    }

    /// Starts the CLI in a terminal, told to connect to `ide_port`.
    pub fn start_claude(&mut self, ide_port: u16) {
        self.start_claude_with(ide_port, &[]);
    }

    /// [`start_claude`](Self::start_claude) with more variables in the CLI's environment
    /// (`MCP_TOOL_TIMEOUT`, say).
    pub fn start_claude_with(&mut self, ide_port: u16, more_env: &[(&str, &str)]) {
        let mut env = claude::environment(
            &self.home,
            &self.root.join("tmp"),
            self.api.port(),
            ide_port,
        );
        env.extend(
            more_env
                .iter()
                .map(|(key, value)| ((*key).to_owned(), (*value).to_owned())),
        );
        let mut args = self.claude.leading.clone();
        args.extend(claude::arguments_in(
            self.permission_mode,
            &self.debug_log_path(),
        ));
        let terminal = Terminal::start(
            &self.root,
            &self.workspace,
            &env,
            &self.claude.program,
            &args,
        )
        .unwrap_or_else(|e| panic!("cannot start claude in tmux: {e}"));
        self.terminal = Some(terminal);
    }

    /// Starts the CLI in a terminal through `<idelink> claude --claude <CLI> -- <args>`:
    /// idelink finds the server from its lock and sets the connecting environment itself, so
    /// the terminal's environment has no `CLAUDE_CODE_SSE_PORT`. The terminal's pid is
    /// idelink's.
    pub fn start_claude_through_idelink(&mut self, idelink: &Path) {
        let env = self.environment_without_port();
        let mut args = vec![
            "claude".to_owned(),
            "--claude".to_owned(),
            self.claude.bin.display().to_string(),
            "--".to_owned(),
        ];
        args.extend(claude::arguments(&self.debug_log_path()));
        let terminal = Terminal::start(&self.root, &self.workspace, &env, idelink, &args)
            .unwrap_or_else(|e| panic!("cannot start idelink claude in tmux: {e}"));
        self.terminal = Some(terminal);
    }

    /// The CLI's environment ([`claude::environment`]) without `CLAUDE_CODE_SSE_PORT`: for a
    /// program that starts the CLI and sets the port itself (`idelink claude`, an editor's
    /// terminal).
    pub fn environment_without_port(&self) -> Vec<(String, String)> {
        let mut env = claude::environment(&self.home, &self.root.join("tmp"), self.api.port(), 0);
        env.retain(|(key, _)| key != "CLAUDE_CODE_SSE_PORT");
        env
    }

    /// The scene's private folder (kept for inspection when the test fails).
    pub fn root(&self) -> &Path {
        &self.root
    }

    /// The CLI's terminal.
    pub fn terminal(&self) -> &Terminal {
        self.terminal
            .as_ref()
            .expect("start_claude starts the terminal first")
    }

    /// The CLI's process id.
    pub fn claude_pid(&self) -> u32 {
        self.terminal().pid().expect("tmux reported the pane's pid")
    }

    /// Waits until the CLI's debug log says the IDE connection is up and its input prompt is
    /// on screen. A connection failure in the log fails at once, quoting the CLI's reason.
    pub fn wait_connected(&self) {
        wait::until(
            "claude's debug log to say `MCP server \"ide\": Successfully connected (transport: ws-ide)`",
            || {
                let log = self.debug_log();
                let mut ide = log.lines().filter(|l| l.contains("MCP server \"ide\""));
                if let Some(failed) = ide.clone().find(|l| l.contains("Connection failed")) {
                    panic!("claude could not connect to {}: {failed}", self.side.name());
                }
                ide.any(|l| l.contains("Successfully connected (transport: ws-ide)"))
                    .then_some(())
            },
        );
        // In acceptEdits mode the footer names the mode instead of the shortcuts hint (the
        // CLI's bundled code: `{label:"accept edits on",symbol:…,color:"autoAccept"}`).
        let prompt = match self.permission_mode {
            "acceptEdits" => "accept edits on",
            _ => "? for shortcuts",
        };
        wait::until(
            &format!("claude's input prompt ({prompt:?}) on screen"),
            || self.terminal().screen().contains(prompt).then_some(()),
        );
    }

    /// Waits for the IDE's session line (`session ready: claude-code <version>, pid <pid> …`)
    /// and checks it: `initialize` carried the CLI's `clientInfo`, and `ide_connected` the
    /// CLI's own pid before the session was ready.
    pub fn check_session_line(&mut self) {
        let pid = self.claude_pid();
        let version = self.claude.version.clone();
        let (_, ready) = self.ide().wait_line(0, "session ready:");
        assert!(
            ready.contains(&format!("claude-code {version}")),
            "initialize: clientInfo should be claude-code {version}: {ready}"
        );
        assert!(
            ready.contains(&format!(", pid {pid} ")),
            "ide_connected should carry the CLI's pid {pid} before the session is ready: {ready}"
        );
    }

    /// Types `/status`, waits for `Connected to <the IDE's name> extension` on screen, and
    /// closes the status screen with Escape.
    pub fn check_status(&self) {
        self.terminal().submit("/status");
        let connected = format!("Connected to {} extension", self.side.name());
        self.wait_screen(&connected);
        self.terminal()
            .press("Escape")
            .unwrap_or_else(|e| panic!("{e}"));
        wait::until("the /status screen to close", || {
            (!self.terminal().screen().contains(&connected)).then_some(())
        });
    }

    /// Waits until the screen contains `needle`.
    pub fn wait_screen(&self, needle: &str) {
        wait::until(&format!("claude's screen to show {needle:?}"), || {
            self.terminal().screen().contains(needle).then_some(())
        });
    }

    /// Waits until the workspace file holds `expected`; fails at once when the CLI logs an
    /// IDE error (it then abandons the IDE diff for its own prompt, which nobody answers).
    pub fn wait_file(&self, expected: &str) {
        self.wait_file_at(&self.file, expected);
    }

    /// [`Scene::wait_file`] for any file.
    pub fn wait_file_at(&self, file: &Path, expected: &str) {
        wait::until(&format!("{} to hold {expected:?}", file.display()), || {
            self.fail_on_ide_error();
            (std::fs::read_to_string(file).ok()? == expected).then_some(())
        });
    }

    /// Panics with the first `[ERROR]` line of the CLI's debug log that is about the IDE
    /// (for instance `IDE diff view failed: …` when it cannot read an `openDiff` answer).
    pub fn fail_on_ide_error(&self) {
        let log = self.debug_log();
        let error = log
            .get(self.ide_errors_from..)
            .unwrap_or_default()
            .lines()
            .filter(|l| l.contains("[ERROR]"))
            .find(|l| l.contains("IDE") || l.contains("MCP server \"ide\""));
        if let Some(error) = error {
            panic!("the CLI reports an IDE error: {error}");
        }
    }

    /// Takes the IDE errors the CLI logged so far as expected, after checking that each is
    /// one `expected` accepts (a test that stops the IDE on purpose: the CLI logs each redial
    /// that finds no listener); [`fail_on_ide_error`](Self::fail_on_ide_error) then looks only
    /// at later lines.
    pub fn expect_ide_errors_so_far(&mut self, expected: impl Fn(&str) -> bool) {
        let log = self.debug_log();
        let errors = log.get(self.ide_errors_from..).unwrap_or_default().lines();
        for error in errors.filter(|l| l.contains("[ERROR]") && l.contains("MCP server \"ide\"")) {
            assert!(expected(error), "an unexpected IDE error: {error}");
        }
        self.ide_errors_from = log.len();
    }

    /// The first model turn the CLI sent (the request carrying the user's prompt).
    pub fn first_turn(&self) -> Value {
        wait::until("the CLI's first model request to the fake API", || {
            self.api.turns().into_iter().next()
        })
    }

    /// Asserts the CLI tried to reach nothing but loopback (no request through the proxy trap).
    pub fn assert_stayed_on_loopback(&self) {
        let egress = self.api.egress();
        assert!(
            egress.is_empty(),
            "the CLI tried to leave loopback (find the setting or variable that turns this off \
             and add it to claude::environment): {egress:?}"
        );
    }

    /// The CLI's debug log so far.
    pub fn debug_log(&self) -> String {
        std::fs::read_to_string(self.debug_log_path()).unwrap_or_default()
    }

    /// Where the CLI writes its debug log ([`claude::arguments`]).
    pub fn debug_log_path(&self) -> PathBuf {
        self.root.join("claude-debug.log")
    }

    fn diagnostics(&self) -> String {
        let mut out = format!(
            "\n==== drift alarm `{}` {} after {:.1} s: the real claude CLI {} ({}) ====\n\
             kept for inspection: {}\n",
            self.name,
            if std::thread::panicking() {
                "failed"
            } else {
                "passed"
            },
            self.started.elapsed().as_secs_f64(),
            self.claude.version,
            self.claude.bin.display(),
            self.root.display()
        );
        if let Some(terminal) = &self.terminal {
            section(
                &mut out,
                "claude's screen (with scrollback)",
                &terminal.history(),
            );
        }
        section(
            &mut out,
            "claude's debug log (last 150 lines)",
            &tail(&self.debug_log(), 150),
        );
        if let Some(ide) = &self.ide {
            let name = self.side.name();
            section(&mut out, &format!("{name} stdout"), &ide.lines().join("\n"));
            section(
                &mut out,
                &format!("{name} debug log (last 150 lines)"),
                &tail(&ide.log(), 150),
            );
        }
        let requests: Vec<String> = self
            .api
            .requests()
            .iter()
            .map(|r| format!("{} -> {} ({} bytes)", r.line, r.status, r.body.len()))
            .collect();
        section(&mut out, "requests to the fake API", &requests.join("\n"));
        out
    }
}

impl Drop for Scene {
    fn drop(&mut self) {
        let failed = std::thread::panicking();
        // IDELINK_TRANSCRIPT=1 shows the whole session of a passing run too.
        if failed || std::env::var_os("IDELINK_TRANSCRIPT").is_some() {
            eprintln!("{}", self.diagnostics());
        }
        // The CLI first (it would reconnect), then the IDE; the fake API goes with `self`.
        drop(self.terminal.take());
        drop(self.ide.take());
        if !failed {
            let _ = std::fs::remove_dir_all(&self.root);
        }
    }
}

/// The editor events that make `path` the active document with `text` selected on line 0.
pub fn select_on_first_line(path: &str, text: &str) -> [Value; 2] {
    let end = u32::try_from(text.chars().count()).unwrap_or(u32::MAX);
    [
        json!({"jsonrpc": "2.0", "method": "editor/event", "params": {
            "type": "documentOpened", "path": path}}),
        json!({"jsonrpc": "2.0", "method": "editor/event", "params": {
            "type": "selectionChanged", "path": path, "text": text,
            "selection": {"start": {"line": 0, "character": 0}, "end": {"line": 0, "character": end}}}}),
    ]
}

/// A path as the CLI sees it.
pub fn text(path: &Path) -> String {
    path.to_str().expect("temp paths are UTF-8").to_owned()
}

fn section(out: &mut String, title: &str, body: &str) {
    out.push_str(&format!("---- {title} ----\n{}\n", body.trim_end()));
}

fn tail(text: &str, lines: usize) -> String {
    let all: Vec<&str> = text.lines().collect();
    all[all.len().saturating_sub(lines)..].join("\n")
}
