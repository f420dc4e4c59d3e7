//! Another machine, simulated: `idelink bridge` in its own network namespace (its own
//! `127.0.0.1`, which the editor side cannot reach) and its own mount namespace (the workspace
//! appears there under another path), joined to `idelink serve --remote` only by the command's
//! stdin/stdout. The client standing in for claude runs in that network namespace too (a
//! thread moved into it). Needs root (`ip netns add`, `unshare -m`); without it the test says
//! it is skipped and why (CI=true makes that a failure).
#![cfg(target_os = "linux")]
#![expect(
    clippy::unwrap_used,
    reason = "a test: any failure must stop it loudly"
)]

use idelink_real_claude::netns::{NetNs, skip};
use idelink_test_client::Client;
use serde_json::{Value, json};
use std::net::{Ipv4Addr, SocketAddr, TcpStream};
use std::path::PathBuf;
use std::process::Stdio;
use std::time::Duration;

mod support;

use support::{idelink, lines, temp_dir, texts, wait_for_line};

#[test]
fn a_bridge_in_its_own_network_and_mount_namespace_is_reached_only_through_the_link() {
    let test = "a_bridge_in_its_own_network_and_mount_namespace_is_reached_only_through_the_link";
    let ns = match NetNs::create("test") {
        Ok(ns) => ns,
        Err(why) => return skip(test, &why),
    };
    let dir = temp_dir("remote-netns");
    let work = dir.join("work").canonicalize().unwrap();
    std::fs::write(work.join("main.rs"), "fn main() {}\n").unwrap();
    // The far side's view: an empty folder here, the workspace bind-mounted over it there.
    let far = dir.join("far-root/proj");
    std::fs::create_dir_all(&far).unwrap();
    let far = far.canonicalize().unwrap();
    let far_text = far.to_str().unwrap().to_owned();
    let far_locks = dir.join("far-ide");
    let bridge = format!(
        "exec ip netns exec {} unshare --mount --propagation private sh -c \
         \"mount --bind '{}' '{}' && exec '{}' bridge --lock-dir '{}'\"",
        ns.name(),
        work.display(),
        far.display(),
        env!("CARGO_BIN_EXE_idelink"),
        far_locks.display()
    );
    let mut serve = idelink(&["serve", "--diff", "accept", "--lock-dir"])
        .arg(dir.join("near-ide"))
        .args(["--remote", &bridge, "--map"])
        .arg(format!("{far_text}={}", work.display()))
        .arg(&work)
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let out = lines(serve.stdout.take().unwrap());
    let err = lines(std::process::ChildStdout::from(std::os::fd::OwnedFd::from(
        serve.stderr.take().unwrap(),
    )));
    let banner = wait_for_line(&out, "idelink: serving ");
    let engine_port: u16 = banner
        .rsplit(':')
        .next()
        .and_then(|port| port.trim().parse().ok())
        .unwrap_or_else(|| panic!("no port in {banner:?}"));
    let up = wait_for_line(&err, "idelink bridge: listening on 127.0.0.1:");
    let lock = PathBuf::from(up.rsplit("lock ").next().unwrap());
    let body: Value = serde_json::from_str(&std::fs::read_to_string(&lock).unwrap()).unwrap();
    assert_eq!(body["workspaceFolders"], json!([far_text]));
    let bridge_port: u16 = lock.file_stem().unwrap().to_str().unwrap().parse().unwrap();
    let token = body["authToken"].as_str().unwrap().to_owned();
    assert!(
        std::fs::read_dir(dir.join("near-ide")).map_or(true, |d| d.count() == 0),
        "the editor side wrote a lock"
    );
    // Only the link joins the two: neither side reaches the other's loopback listener.
    let bridge_addr = SocketAddr::from((Ipv4Addr::LOCALHOST, bridge_port));
    if bridge_port != engine_port {
        assert!(TcpStream::connect_timeout(&bridge_addr, Duration::from_secs(2)).is_err());
    }
    let path = format!("{far_text}/main.rs");
    let (reach_engine, saved, folders) = ns.run_inside(move || {
        let engine = SocketAddr::from((Ipv4Addr::LOCALHOST, engine_port));
        let reach = TcpStream::connect_timeout(&engine, Duration::from_secs(2)).is_ok();
        let mut claude = Client::connect_initialized(bridge_port, &token).unwrap();
        let saved = claude
            .call_tool(
                "openDiff",
                json!({"old_file_path": path, "new_file_path": path,
                       "new_file_contents": "fn main() { run() }\n", "tab_name": "t"}),
            )
            .unwrap();
        let folders = claude.call_tool("getWorkspaceFolders", json!({})).unwrap();
        (reach, saved, folders)
    });
    assert!(
        !reach_engine || engine_port == bridge_port,
        "the namespace reached the editor's listener"
    );
    assert_eq!(texts(&saved), ["FILE_SAVED", "fn main() { run() }\n"]);
    let folders: Value = serde_json::from_str(&texts(&folders)[0]).unwrap();
    assert_eq!(folders["rootPath"], far_text.as_str());
    // The review showed the editor's own file (mapped back from the far side's path).
    wait_for_line(&out, "openDiff main.rs");
    support::stop(&mut serve);
    assert!(!lock.exists(), "the far lock outlived the link");
}
