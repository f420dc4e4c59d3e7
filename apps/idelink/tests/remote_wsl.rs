//! `idelink serve --wsl DISTRO` starts `wsl.exe -d DISTRO idelink bridge` (here a stand-in
//! `wsl.exe` on PATH that records its arguments and runs the bridge), whose lock says
//! `runningInWindows` is false (absent): the bridge is a Linux process on WSL's own loopback. The drive
//! mappings are unit-tested (bridge/wsl.rs); a Linux workspace has no drive to map.
#![cfg(unix)]
#![expect(
    clippy::unwrap_used,
    reason = "a test: any failure must stop it loudly"
)]

use serde_json::Value;
use std::os::unix::fs::PermissionsExt;
use std::process::Stdio;

mod support;

use support::{idelink, temp_dir};

#[test]
fn the_wsl_shorthand_starts_wsl_exe_and_the_lock_says_not_windows() {
    let dir = temp_dir("remote-wsl");
    let bin = dir.join("bin");
    std::fs::create_dir_all(&bin).unwrap();
    let wsl = bin.join("wsl.exe");
    std::fs::write(
        &wsl,
        format!(
            "#!/bin/sh\necho \"$*\" > '{}'\nexec '{}' bridge --lock-dir '{}'\n",
            dir.join("wsl-args").display(),
            env!("CARGO_BIN_EXE_idelink"),
            dir.join("far-ide").display()
        ),
    )
    .unwrap();
    std::fs::set_permissions(&wsl, std::fs::Permissions::from_mode(0o755)).unwrap();
    let path = format!(
        "{}:{}",
        bin.display(),
        std::env::var("PATH").unwrap_or_default()
    );
    let (mut serve, _out, err) = support::spawn_piped(
        idelink(&["serve", "--diff", "reject", "--wsl", "Ubuntu"])
            .arg(dir.join("work"))
            .env("PATH", path)
            .stdin(Stdio::null()),
    );
    let (_lock, body, _port) = support::bridge_lock(&err);
    // Absent or false: the CLI's lock reader takes a missing `runningInWindows` as false.
    assert!(
        matches!(
            body.get("runningInWindows"),
            None | Some(Value::Bool(false))
        ),
        "{body}"
    );
    let args = std::fs::read_to_string(dir.join("wsl-args")).unwrap();
    assert_eq!(args.trim(), "-d Ubuntu idelink bridge");
    support::stop(&mut serve.0);
}
