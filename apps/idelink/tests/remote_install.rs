//! `idelink serve --remote-shell PREFIX`: idelink copies itself to the far side's
//! `~/.cache/idelink/bin` (mode 0700, checked with `cksum`) when that lacks this build, then
//! starts the copy as the bridge; through a local shell and through a real `ssh`. A far side of
//! another architecture, a full disk and a read-only disk are each refused with what happened.
#![cfg(unix)]
#![expect(
    clippy::unwrap_used,
    reason = "a test: any failure must stop it loudly"
)]

use idelink_test_client::Client;
use serde_json::{Value, json};
use std::os::unix::fs::PermissionsExt;
use std::path::{Path, PathBuf};
use std::process::Stdio;
use std::sync::mpsc::Receiver;

mod support;

use support::sshd::Sshd;
use support::{Running, idelink, skip, temp_dir, texts, wait_exit, wait_for_line};

/// Where the far side keeps the copy, under its `XDG_CACHE_HOME`.
fn copy_in(cache: &Path) -> PathBuf {
    cache.join(format!("idelink/bin/idelink-{}", env!("CARGO_PKG_VERSION")))
}

/// `idelink serve --remote-shell PREFIX WORK`, its stdout and stderr as lines.
fn serve(dir: &Path, prefix: &str) -> (Running, Receiver<String>, Receiver<String>) {
    support::spawn_piped(
        idelink(&["serve", "--diff", "accept", "--lock-dir"])
            .arg(dir.join("near-ide"))
            .args(["--remote-shell", prefix])
            .arg(dir.join("work"))
            .stdin(Stdio::null()),
    )
}

/// A far side whose cache and claude config are under `dir`, reached through `transport`.
fn far_env(dir: &Path) -> String {
    format!(
        "env XDG_CACHE_HOME='{}' CLAUDE_CONFIG_DIR='{}'",
        dir.join("far-cache").display(),
        dir.join("far-claude").display()
    )
}

/// Serves through `prefix`, expects `said` at start, and makes one round trip through the
/// bridge (the copy), then stops.
fn served_through(dir: &Path, prefix: &str, said: &str) {
    let (mut child, _out, err) = serve(dir, prefix);
    wait_for_line(&err, said);
    let (lock, body, port) = support::bridge_lock(&err);
    assert!(lock.starts_with(dir.join("far-claude/ide")), "{lock:?}");
    let mut claude =
        Client::connect_initialized(port, body["authToken"].as_str().unwrap()).unwrap();
    let folders = claude.call_tool("getWorkspaceFolders", json!({})).unwrap();
    let folders: Value = serde_json::from_str(&texts(&folders)[0]).unwrap();
    let work = dir.join("work").canonicalize().unwrap();
    assert_eq!(folders["rootPath"], work.to_str().unwrap());
    drop(claude);
    support::stop(&mut child.0);
}

/// The copy is this very binary, its owner's alone, in a folder that is its owner's alone.
fn assert_private_copy(cache: &Path) {
    let copy = copy_in(cache);
    let mode = |p: &Path| std::fs::metadata(p).unwrap().permissions().mode() & 0o777;
    assert_eq!(mode(&copy), 0o700, "{copy:?}");
    assert_eq!(mode(copy.parent().unwrap()), 0o700);
    assert!(
        std::fs::read(&copy).unwrap() == std::fs::read(env!("CARGO_BIN_EXE_idelink")).unwrap(),
        "the copy differs from idelink"
    );
    let leftovers: Vec<_> = std::fs::read_dir(copy.parent().unwrap())
        .unwrap()
        .flatten()
        .map(|e| e.file_name())
        .filter(|n| n.to_string_lossy().starts_with('.'))
        .collect();
    assert!(leftovers.is_empty(), "temporary files left: {leftovers:?}");
}

/// Serves through `prefix` expecting it to fail at start; returns its stderr.
fn refused(dir: &Path, prefix: &str) -> String {
    let (mut child, _out, err) = serve(dir, prefix);
    let status = wait_exit(&mut child.0);
    assert!(!status.success(), "{status}");
    err.try_iter().collect::<Vec<_>>().join("\n")
}

#[test]
fn a_far_side_without_idelink_gets_a_private_copy_once() {
    let dir = temp_dir("remote-install");
    let prefix = far_env(&dir);
    served_through(&dir, &prefix, "idelink: copied idelink");
    assert_private_copy(&dir.join("far-cache"));
    served_through(&dir, &prefix, "the far side has this idelink");
    // A copy that is not this build (another build of the same version) is replaced.
    std::fs::write(copy_in(&dir.join("far-cache")), "#!/bin/sh\nexit 1\n").unwrap();
    served_through(&dir, &prefix, "idelink: copied idelink");
    assert_private_copy(&dir.join("far-cache"));
}

#[test]
fn a_far_side_of_another_architecture_is_refused_and_nothing_is_copied() {
    let dir = temp_dir("remote-install-arch");
    let fake = dir.join("fake-bin");
    std::fs::create_dir_all(&fake).unwrap();
    let other = if cfg!(target_arch = "aarch64") {
        "x86_64"
    } else {
        "aarch64"
    };
    let uname = fake.join("uname");
    std::fs::write(
        &uname,
        format!("#!/bin/sh\n[ \"$1\" = -m ] && echo {other} || echo Linux\n"),
    )
    .unwrap();
    std::fs::set_permissions(&uname, std::fs::Permissions::from_mode(0o755)).unwrap();
    let prefix = format!("{} PATH=\"{}:$PATH\"", far_env(&dir), fake.display());
    let said = refused(&dir, &prefix);
    assert!(
        said.contains(&format!(
            "the far side is Linux {other} and this idelink is a linux"
        )),
        "{said}"
    );
    assert!(said.contains("it cannot run there"), "{said}");
    assert!(!dir.join("far-cache").exists(), "something was copied");
}

/// A far shell whose `XDG_CACHE_HOME` is a fresh tmpfs mounted with `options`, in a mount
/// namespace of its own (root only: `unshare -m`).
fn tmpfs_far_side(dir: &Path, options: &str) -> Result<String, String> {
    if !rustix::process::geteuid().is_root() {
        return Err(
            "a full or read-only far disk is a tmpfs mounted in a mount namespace: needs root"
                .into(),
        );
    }
    let cache = dir.join("far-cache");
    std::fs::create_dir_all(&cache).map_err(|e| e.to_string())?;
    // idelink appends `sh`: it is $0 of this inner shell, which execs it on the new mount.
    Ok(format!(
        "unshare --mount --propagation private sh -c 'mount -t tmpfs -o {options} none \"{}\" \
         && exec env XDG_CACHE_HOME=\"{}\" \"$0\"'",
        cache.display(),
        cache.display()
    ))
}

#[test]
fn a_full_far_disk_is_said_and_leaves_no_copy() {
    let test = "a_full_far_disk_is_said_and_leaves_no_copy";
    let dir = temp_dir("remote-install-full");
    let prefix = match tmpfs_far_side(&dir, "size=256k") {
        Ok(prefix) => prefix,
        Err(why) => return skip(test, &why),
    };
    let said = refused(&dir, &prefix);
    assert!(said.contains("the disk is full or read-only"), "{said}");
    assert!(
        said.contains("No space left on device"),
        "the far side's own words: {said}"
    );
}

#[test]
fn a_read_only_far_disk_is_said() {
    let test = "a_read_only_far_disk_is_said";
    let dir = temp_dir("remote-install-ro");
    let prefix = match tmpfs_far_side(&dir, "ro") {
        Ok(prefix) => prefix,
        Err(why) => return skip(test, &why),
    };
    let said = refused(&dir, &prefix);
    assert!(said.contains("cannot make"), "{said}");
    assert!(said.contains("a read-only or full disk?"), "{said}");
    assert!(
        said.contains("Read-only file system"),
        "the far side's own words: {said}"
    );
}

#[test]
fn the_copy_goes_over_a_real_ssh() {
    let test = "the_copy_goes_over_a_real_ssh";
    let dir = temp_dir("remote-install-ssh");
    let sshd = match Sshd::start(&dir) {
        Ok(sshd) => sshd,
        Err(why) => return skip(test, &why),
    };
    let prefix = sshd.transport(&far_env(&dir));
    served_through(&dir, &prefix, "idelink: copied idelink");
    assert_private_copy(&dir.join("far-cache"));
    served_through(&dir, &prefix, "the far side has this idelink");
    drop(sshd);
}

#[test]
fn a_prefix_that_runs_no_shell_there_is_said() {
    let dir = temp_dir("remote-install-noshell");
    let said = refused(&dir, "false");
    assert!(
        said.contains("the far shell did not answer `uname`"),
        "{said}"
    );
}
