//! `idelink claude` binds the claude it starts: the serve terminal reads the bind file next to
//! its lock and chooses that pid, so the mentions typed there go to that session (`s` marks it
//! chosen).

use crate::idelink::Serve;
use idelink_real_claude::claude;
use idelink_real_claude::scene::Scene;
use std::path::Path;

#[test]
fn idelink_claude_binds_its_claude_as_the_serve_terminals_chosen_session() {
    let Some(claude) =
        claude::locate("idelink_claude_binds_its_claude_as_the_serve_terminals_chosen_session")
    else {
        return;
    };
    let mut scene = Scene::new("bind", claude, Box::new(Serve));
    scene.serve_terminal("ask");
    scene.start_claude_through_idelink(Path::new(env!("CARGO_BIN_EXE_idelink")));
    scene.wait_connected();
    let (ready, _) = scene.ide().wait_line(0, "session ready:");
    // The bind file names idelink claude's child: the CLI, whose ide_connected pid it is.
    let (bound, line) = scene.ide().wait_line(0, "idelink claude bound pid ");
    let pid = line
        .split("bound pid ")
        .nth(1)
        .and_then(|rest| rest.split(':').next())
        .and_then(|pid| pid.trim().parse::<u32>().ok())
        .unwrap_or_else(|| panic!("no pid in {line:?}"));
    assert!(
        scene.ide().lines()[ready].contains(&format!("pid {pid}")),
        "the bound pid should be the session's ide_connected pid: {line:?} / {:?}",
        scene.ide().lines()[ready]
    );
    scene.ide().type_line("s");
    scene
        .ide()
        .wait_line(bound.max(ready), "* conn#1: claude-code");
    scene.assert_stayed_on_loopback();
}
