//! `idelink claude` starts the real CLI connected: the user types no port and sets no variable.

use crate::claude;
use crate::scene::Scene;
use crate::wait;

#[test]
fn idelink_claude_starts_the_cli_connected_to_the_server_for_the_folder() {
    let Some(claude) =
        claude::locate("idelink_claude_starts_the_cli_connected_to_the_server_for_the_folder")
    else {
        return;
    };
    let mut scene = Scene::new("idelink-claude", claude);
    scene.serve_terminal("reject");
    scene.start_claude_through_idelink();
    scene.wait_connected();
    scene.idelink().wait_line(0, "session ready:");

    scene.terminal().submit("/status");
    scene.wait_screen("Connected to idelink extension");
    scene
        .terminal()
        .press("Escape")
        .unwrap_or_else(|e| panic!("{e}"));
    wait::until("the /status screen to close", || {
        (!scene
            .terminal()
            .screen()
            .contains("Connected to idelink extension"))
        .then_some(())
    });
    scene.assert_stayed_on_loopback();
}
