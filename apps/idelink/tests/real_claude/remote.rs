//! The drift alarm through `idelink serve --remote`: claude and the scripted API in a network
//! namespace of their own (their own `127.0.0.1`; the editor side's listener is out of reach)
//! with their own HOME and config folder, the bridge beside them writing their lock, the editor
//! side in the host's namespace writing none. An accepted diff is written by claude, a rejected
//! one leaves the file alone, an editor's selection and a mention typed in the serve terminal
//! reach the model, as for a local session. Needs root (`ip netns`); without it each test says
//! it is skipped and why.

use crate::PROMPT;
use crate::idelink::RemoteServe;
use idelink_real_claude::netns::{self, NetNs};
use idelink_real_claude::scene::{self, EDITED, FILE_NAME, ORIGINAL, Scene};
use idelink_real_claude::{claude, wait};
use std::net::{Ipv4Addr, SocketAddr, TcpStream};
use std::time::Duration;

/// Runs `drive` on a scene whose claude sits in a fresh network namespace and whose IDE is
/// `serve --remote <args>` outside it (`tag` names the run); checks the editor side wrote no
/// lock and its own listener was out of claude's reach. `before` runs once the IDE is up,
/// before claude starts.
fn through_a_bridge(
    test: &str,
    tag: &'static str,
    args: &'static [&'static str],
    before: fn(&mut Scene),
    drive: fn(&mut Scene),
) {
    let Some(claude) = claude::locate(test) else {
        return;
    };
    let ns = match NetNs::create(tag) {
        Ok(ns) => ns,
        Err(why) => return netns::skip(test, &why),
    };
    let near =
        std::env::temp_dir().join(format!("idelink-remote-near-{tag}-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&near);
    let side = RemoteServe {
        far_netns: ns.name().to_owned(),
        editor_net: netns::editor_side(),
        near_locks: near.clone(),
    };
    ns.run_inside(move || {
        let mut scene = Scene::new(tag, claude, Box::new(side));
        let port = scene.serve_remote(args);
        let engine = engine_port(&mut scene, args);
        let engine = SocketAddr::from((Ipv4Addr::LOCALHOST, engine));
        assert!(
            engine.port() == port
                || TcpStream::connect_timeout(&engine, Duration::from_secs(2)).is_err(),
            "claude's side reached the editor's own listener"
        );
        before(&mut scene);
        scene.start_claude(port);
        scene.wait_connected();
        drive(&mut scene);
        scene.assert_stayed_on_loopback();
    });
    let near_locks = std::fs::read_dir(&near).map_or(0, Iterator::count);
    assert_eq!(near_locks, 0, "the editor side wrote a lock");
}

/// The editor side's own port: from the sidecar's `idelink/ready`, or the terminal's banner.
fn engine_port(scene: &mut Scene, args: &[&str]) -> u16 {
    if args.contains(&"--stdio=lines") {
        let ready = scene
            .ide()
            .wait_message("idelink/ready", |m| m["method"] == "idelink/ready");
        return ready["params"]["port"]
            .as_u64()
            .and_then(|p| u16::try_from(p).ok())
            .unwrap_or_else(|| panic!("no port in {ready}"));
    }
    let (_, banner) = scene.ide().wait_line(0, "on 127.0.0.1:");
    banner
        .rsplit(':')
        .next()
        .and_then(|p| p.parse().ok())
        .unwrap_or_else(|| panic!("no port in the banner {banner:?}"))
}

fn nothing(_: &mut Scene) {}

fn prompt_until_open_diff(scene: &mut Scene) {
    let before = scene.ide().lines().len();
    scene.terminal().submit(PROMPT);
    scene
        .ide()
        .wait_line(before, &format!("openDiff {FILE_NAME}"));
}

#[test]
fn an_accepted_diff_through_a_bridge_in_another_network_namespace_is_written_by_claude() {
    through_a_bridge(
        "an_accepted_diff_through_a_bridge_in_another_network_namespace_is_written_by_claude",
        "remote-accept",
        &["--diff", "accept"],
        nothing,
        |scene| {
            prompt_until_open_diff(scene);
            scene.wait_file(EDITED);
        },
    );
}

#[test]
fn a_rejected_diff_through_a_bridge_in_another_network_namespace_leaves_the_file_alone() {
    through_a_bridge(
        "a_rejected_diff_through_a_bridge_in_another_network_namespace_leaves_the_file_alone",
        "remote-reject",
        &["--diff", "reject"],
        nothing,
        |scene| {
            prompt_until_open_diff(scene);
            let rejected = format!("{} {FILE_NAME}", scene.claude.expect.rejected_update);
            wait::until(&format!("claude's screen to show {rejected:?}"), || {
                scene.fail_on_ide_error();
                let now = std::fs::read_to_string(&scene.file).unwrap_or_default();
                assert_eq!(now, ORIGINAL, "the CLI wrote a rejected diff");
                scene.terminal().screen().contains(&rejected).then_some(())
            });
        },
    );
}

#[test]
fn an_editor_selection_through_a_bridge_reaches_the_model() {
    through_a_bridge(
        "an_editor_selection_through_a_bridge_reaches_the_model",
        "remote-selection",
        &["--stdio=lines"],
        |scene| {
            let path = scene::text(&scene.file);
            scene.send_synced(&scene::select_on_first_line(
                &path,
                "hello from the workspace",
            ));
        },
        |scene| {
            scene.ide().wait_message("sessionReady", |m| {
                m["method"] == "idelink/event" && m["params"]["event"] == "sessionReady"
            });
            scene.terminal().submit(PROMPT);
            crate::assert_first_line_selected(scene, "the selection carried by the bridge");
        },
    );
}

#[test]
fn a_mention_through_a_bridge_reaches_the_model() {
    through_a_bridge(
        "a_mention_through_a_bridge_reaches_the_model",
        "remote-mention",
        &["--diff", "ask"],
        nothing,
        crate::idelink_claude::mention_reaches_the_model,
    );
}
