//! The Neovim plugin (editors/nvim) against the real CLI and the scripted model: what a user
//! does in Neovim reaches claude, and claude's diffs end as the user decided in Neovim.
//! docs/editors.md's side-by-side table names these tests.

use crate::neovim::{self, Neovim, NeovimSide};
use crate::{PROMPT, all_text, assert_first_line_selected, excerpt};
use idelink_real_claude::fake_api::{DIAGNOSTICS_ID, FINAL_TEXT};
use idelink_real_claude::scene::{EDITED, FILE_NAME, ORIGINAL, Scene};
use idelink_real_claude::{claude, wait};
use serde_json::Value;

/// A line the user types into the proposal before accepting it.
const USER_LINE: &str = "a line the user added in Neovim";

/// Finds the CLI and Neovim and makes the scene `name` (short: its folder holds Unix socket
/// paths, at most 107 bytes), or `None` (skipped loudly).
fn scene(
    test: &'static str,
    name: &'static str,
    diagnostics: bool,
) -> Option<(Scene, std::path::PathBuf)> {
    let claude = claude::locate(test)?;
    let program = neovim::locate(test)?;
    let side = Box::new(NeovimSide {
        program: program.clone(),
    });
    let scene = if diagnostics {
        Scene::asking_diagnostics(name, claude, side)
    } else {
        Scene::new(name, claude, side)
    };
    Some((scene, program))
}

/// The scene `name` with Neovim in tmux editing the workspace file and the CLI connected to
/// it, or `None` (skipped loudly).
fn connected_tui(test: &'static str, name: &'static str) -> Option<(Scene, Neovim)> {
    let (mut scene, program) = scene(test, name, false)?;
    let nvim = Neovim::tui(&scene, program, &scene.file);
    connect(&mut scene, &nvim);
    Some((scene, nvim))
}

/// Starts the CLI in the scene's terminal against the plugin's sidecar and waits until the
/// session is up and the plugin counts it.
fn connect(scene: &mut Scene, nvim: &Neovim) {
    scene.start_claude(nvim.port());
    scene.wait_connected();
    wait::until("the plugin to count claude's session", || {
        let status = nvim.lua("return require('idelink').status_lines()");
        status
            .as_array()?
            .iter()
            .any(|line| line == "  sessions: 1")
            .then_some(())
    });
}

/// Waits until the plugin has a diff open, and returns the proposal window's winbar.
fn wait_diff(nvim: &Neovim) -> String {
    let shown = wait::until("the plugin to open claude's diff in a tab", || {
        let state = nvim.lua(
            "local diff = require('idelink.diff')\n\
             if #diff.ids() ~= 1 then return nil end\n\
             local wins = vim.api.nvim_tabpage_list_wins(0)\n\
             local diffed = vim.tbl_filter(function(w) return vim.wo[w].diff end, wins)\n\
             return { tabs = #vim.api.nvim_list_tabpages(), diffed = #diffed,\n\
                      winbar = vim.wo.winbar, current = vim.api.nvim_buf_get_name(0) }",
        );
        (!state.is_null()).then_some(state)
    });
    assert_eq!(shown["tabs"], 2, "the diff opens in a new tab: {shown}");
    assert_eq!(
        shown["diffed"], 2,
        "both sides are under :diffthis: {shown}"
    );
    assert!(
        shown["current"]
            .as_str()
            .is_some_and(|name| name.contains("/proposal/greeting.txt")),
        "the cursor is in the proposal: {shown}"
    );
    shown["winbar"].as_str().unwrap_or_default().to_owned()
}

/// The text of every model turn so far.
fn turns_text(scene: &Scene) -> String {
    scene.api.turns().iter().map(all_text).collect()
}

/// A linewise visual selection made in Neovim reaches the model's context; the scripted edit
/// opens as a diff tab whose winbar shows claude's tab name; the user adds a line to the
/// proposal and accepts with `:w`: claude writes exactly the buffer's text, and the file's
/// own buffer reloads it, unmodified.
#[test]
fn nvim_a_visual_selection_reaches_the_model_and_an_edited_accept_is_written() {
    let test = "nvim_a_visual_selection_reaches_the_model_and_an_edited_accept_is_written";
    let Some((scene, nvim)) = connected_tui(test, "nvim-select") else {
        return;
    };

    nvim.type_text("V");
    nvim.wait_mode("V");
    scene.wait_screen("1 line selected");
    scene.terminal().submit(PROMPT);
    assert_first_line_selected(&scene, "the selection made in Neovim");
    nvim.press("Escape");

    let winbar = wait_diff(&nvim);
    assert!(
        winbar.contains("[Claude Code] greeting.txt"),
        "the winbar shows claude's tab name: {winbar:?}"
    );
    nvim.type_text("G");
    nvim.type_text("o");
    nvim.wait_mode("i");
    nvim.type_text(USER_LINE);
    nvim.press("Escape");
    nvim.wait_mode("n");
    nvim.command("w");

    let kept = format!("{EDITED}{USER_LINE}\n");
    scene.wait_file(&kept);
    scene.wait_screen(FINAL_TEXT);
    wait::until("the file's buffer to reload claude's write", || {
        let buffer = nvim.lua(
            "local buf = vim.fn.bufnr('greeting.txt')\n\
             return { text = table.concat(vim.api.nvim_buf_get_lines(buf, 0, -1, false), '\\n') \
             .. '\\n', modified = vim.bo[buf].modified, tabs = #vim.api.nvim_list_tabpages() }",
        );
        (buffer["text"] == kept.as_str()).then_some(buffer)
    });
    let after = nvim.lua(
        "return { modified = vim.bo[vim.fn.bufnr('greeting.txt')].modified, \
         tabs = #vim.api.nvim_list_tabpages(), diffs = #require('idelink.diff').ids() }",
    );
    assert_eq!(
        after["modified"], false,
        "the reload left it clean: {after}"
    );
    assert_eq!(after["tabs"], 1, "the diff tab closed: {after}");
    assert_eq!(after["diffs"], 0, "no diff left open: {after}");
    scene.assert_stayed_on_loopback();
}

/// `:'<,'>IdelinkSend` typed in Neovim puts `@greeting.txt#L1-2` in claude's input, and the
/// prompt carries it; the scripted edit's diff is then rejected with `:q` (after the user
/// edited the proposal, which `:q` would otherwise refuse): the file keeps its text and claude
/// reports the rejection.
#[test]
fn nvim_send_lands_in_claude_input_and_a_rejected_diff_leaves_the_file_alone() {
    let test = "nvim_send_lands_in_claude_input_and_a_rejected_diff_leaves_the_file_alone";
    let Some((scene, nvim)) = connected_tui(test, "nvim-send") else {
        return;
    };

    nvim.type_text("Vj");
    nvim.wait_mode("V");
    nvim.command("IdelinkSend");
    scene.wait_screen("@greeting.txt#L1-2");
    scene.terminal().submit(PROMPT);
    let turn = all_text(&scene.first_turn());
    assert!(
        turn.contains("@greeting.txt#L1-2"),
        "the mention should reach the model's request: {}",
        excerpt(&turn, "greeting.txt")
    );

    wait_diff(&nvim);
    nvim.type_text("Go");
    nvim.wait_mode("i");
    nvim.type_text(USER_LINE);
    nvim.press("Escape");
    nvim.wait_mode("n");
    nvim.command("q");
    let rejected = format!("{} {FILE_NAME}", scene.claude.expect.rejected_update);
    wait::until(&format!("claude's screen to show {rejected:?}"), || {
        scene.fail_on_ide_error();
        let now = std::fs::read_to_string(&scene.file).unwrap_or_default();
        assert_eq!(now, ORIGINAL, "a rejected diff must leave the file alone");
        scene.terminal().screen().contains(&rejected).then_some(())
    });
    let after = nvim.lua("return #require('idelink.diff').ids()");
    assert_eq!(after, 0, "the rejected diff is closed");
    scene.assert_stayed_on_loopback();
}

/// Headless: `:checkhealth idelink` shows `idelink doctor --json`'s findings (the live check of
/// this Neovim's server, and that claude started here connects); diagnostics set with
/// `vim.diagnostic.set` reach the model when it calls the IDE's diagnostics tool; then `:qa!` ends Neovim, and by the time its process is gone the lock file
/// is too (the plugin waits for the sidecar to remove it).
#[test]
fn nvim_diagnostics_reach_the_model_and_quitting_removes_the_lock() {
    let test = "nvim_diagnostics_reach_the_model_and_quitting_removes_the_lock";
    let Some((mut scene, program)) = scene(test, "nvim-diag", true) else {
        return;
    };
    let mut nvim = Neovim::headless(&scene, program, &scene.file);
    let message = "idelink-nvim: a warning the model must see";
    nvim.lua(&format!(
        "vim.diagnostic.set(vim.api.nvim_create_namespace('drift'), vim.fn.bufnr('greeting.txt'), \
         {{ {{ lnum = 1, col = 0, end_col = 6, severity = vim.diagnostic.severity.WARN, \
         message = '{message}', source = 'drift-alarm' }} }})"
    ));
    let port = nvim.port();
    connect(&mut scene, &nvim);
    let health = nvim.lua(
        "vim.cmd('checkhealth idelink')\n\
         return table.concat(vim.api.nvim_buf_get_lines(0, 0, -1, false), '\\n')",
    );
    let health = health.as_str().unwrap_or_default();
    for expected in [
        "idelink doctor",
        &format!("live check: port {port}"),
        "sessions: 1",
        "OK claude --ide started in this folder connects",
    ] {
        assert!(
            health.contains(expected),
            ":checkhealth idelink should show {expected:?} (from idelink doctor --json): {health}"
        );
    }
    nvim.run("tabclose");

    scene.terminal().submit("What is wrong in greeting.txt?");
    let result = wait::until("the diagnostics tool's result in a model request", || {
        let text = turns_text(&scene);
        text.contains(message).then_some(text)
    });
    for expected in ["\"severity\":\"Warning\"", "drift-alarm", FILE_NAME] {
        assert!(
            result.contains(expected),
            "the tool result should carry {expected:?}: {}",
            excerpt(&result, message)
        );
    }
    assert!(
        scene
            .api
            .turns()
            .iter()
            .any(|turn| turn.to_string().contains(DIAGNOSTICS_ID)),
        "the result answers the scripted call"
    );
    scene.wait_screen(FINAL_TEXT);

    let lock = scene.lock_dir().join(format!("{port}.lock"));
    assert!(
        lock.is_file(),
        "the sidecar's lock {} exists",
        lock.display()
    );
    nvim.quit();
    assert!(
        !lock.exists(),
        "Neovim has exited, yet its sidecar's lock {} is still there",
        lock.display()
    );
    scene.assert_stayed_on_loopback();
}

/// `:IdelinkClaude` opens a terminal split running claude connected to this Neovim (the
/// environment from `idelink env`); run again from Normal mode it hides the split (claude keeps
/// running), and again shows it. `:IdelinkEnv` gives the lines to paste elsewhere.
#[test]
fn nvim_idelink_claude_toggles_a_connected_claude_split() {
    let test = "nvim_idelink_claude_toggles_a_connected_claude_split";
    let Some((scene, program)) = scene(test, "nvim-term", false) else {
        return;
    };
    let nvim = Neovim::tui(&scene, program, &scene.file);
    let port = nvim.port();

    nvim.type_text(":IdelinkClaude");
    nvim.press("Enter");
    wait::until("claude in Neovim's split to connect", || {
        scene.fail_on_ide_error();
        scene
            .debug_log()
            .contains("Successfully connected (transport: ws-ide)")
            .then_some(())
    });
    wait::until("claude's prompt on Neovim's screen", || {
        nvim.screen().contains("? for shortcuts").then_some(())
    });
    let split = |shown: bool| {
        let state = nvim.lua(
            "local buf = require('idelink.terminal').buffer()\n\
             return { windows = #vim.api.nvim_tabpage_list_wins(0), \
             running = buf ~= nil and vim.fn.jobwait({ vim.bo[buf].channel }, 0)[1] == -1 }",
        );
        assert_eq!(state["running"], true, "claude keeps running: {state}");
        (state["windows"] == if shown { 2 } else { 1 }).then_some(())
    };
    wait::until("the split to show claude", || split(true));

    // Run through the socket: typed through tmux, CTRL-\ CTRL-N did not leave Terminal mode
    // while claude ran in the split (with a shell it does), so the keys cannot reach `:` there.
    nvim.run("IdelinkClaude");
    wait::until("the split to hide", || split(false));
    nvim.run("IdelinkClaude");
    wait::until("the split to show claude again", || split(true));

    nvim.run("IdelinkEnv");
    let pasted: Value = nvim.lua("return vim.fn.getreg('\"')");
    let pasted = pasted.as_str().unwrap_or_default();
    assert!(
        pasted.starts_with(&format!("export CLAUDE_CODE_SSE_PORT='{port}'\n")),
        "the lines to paste set the port: {pasted:?}"
    );
    let program = scene.claude.program.display().to_string();
    assert!(
        pasted
            .lines()
            .last()
            .is_some_and(|l| l.starts_with(&program)),
        "and end with the claude command {program}: {pasted:?}"
    );
}
