//! The serve terminal as a user drives it next to the real CLI: `idelink claude` starts it
//! connected (no port typed, no variable set), and an @-mention typed in the serve terminal
//! reaches the model's request.

use crate::idelink::Serve;
use idelink_real_claude::claude;
use idelink_real_claude::fake_api::FINAL_TEXT;
use idelink_real_claude::scene::{EDITED, Scene};
use std::path::Path;

#[test]
fn idelink_claude_starts_the_cli_connected_to_the_server_for_the_folder() {
    let Some(claude) =
        claude::locate("idelink_claude_starts_the_cli_connected_to_the_server_for_the_folder")
    else {
        return;
    };
    let mut scene = Scene::new("idelink-claude", claude, Box::new(Serve));
    scene.serve_terminal("reject");
    scene.start_claude_through_idelink(Path::new(env!("CARGO_BIN_EXE_idelink")));
    scene.wait_connected();
    scene.ide().wait_line(0, "session ready:");

    scene.check_status();
    scene.assert_stayed_on_loopback();
}

#[test]
fn an_at_mention_typed_in_the_serve_terminal_reaches_the_model() {
    let Some(claude) =
        claude::locate("an_at_mention_typed_in_the_serve_terminal_reaches_the_model")
    else {
        return;
    };
    let mut scene = Scene::new("mention", claude, Box::new(Serve));
    let port = scene.serve_terminal("ask");
    scene.start_claude(port);
    scene.wait_connected();
    mention_reaches_the_model(&mut scene);

    // During the review of the scripted edit, the commands work and the answer keys keep
    // their meaning: `s` lists the session, `d` shows the diff again, `a` accepts.
    let (asked, _) = scene.ide().wait_line(0, "+++ b/greeting.txt");
    scene.ide().type_line("s");
    scene.ide().wait_line(asked, "conn#1: claude-code");
    scene.ide().type_line("d");
    scene.ide().wait_line(asked + 1, "+++ b/greeting.txt");
    scene.ide().type_line("a");
    scene.wait_file(EDITED);
    scene.wait_screen(FINAL_TEXT);
    scene.assert_stayed_on_loopback();
}

/// Once the session is ready, `@greeting.txt:2-2` typed in the serve terminal reaches the
/// model's next request (the mention and the line it names).
pub(crate) fn mention_reaches_the_model(scene: &mut Scene) {
    scene.ide().wait_line(0, "session ready:");
    scene.ide().type_line("@greeting.txt:2-2");
    scene
        .ide()
        .wait_line(0, "mentioned greeting.txt:2-2 to claude");
    scene.wait_screen("@greeting.txt#L2");
    scene.terminal().submit("What does this say?");
    let turn = crate::all_text(&scene.first_turn());
    for expected in ["@greeting.txt#L2 What does this say?", "2\tsecond line"] {
        assert!(
            turn.contains(expected),
            "the mention should reach the model's request as {expected:?}: {}",
            crate::excerpt(&turn, "greeting.txt")
        );
    }
}
