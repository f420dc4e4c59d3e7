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
use support::{
    Running, alive, all_lines, idelink, pid_in, skip, temp_dir, texts, wait_exit, wait_for_line,
};

/// Where the far side keeps the copy, under its `XDG_CACHE_HOME`.
fn copy_in(cache: &Path) -> PathBuf {
    cache.join(format!("idelink/bin/idelink-{}", env!("CARGO_PKG_VERSION")))
}

/// `idelink serve --remote-shell PREFIX WORK`, its stdout and stderr as lines.
fn serve(dir: &Path, prefix: &str) -> (Running, Receiver<String>, Receiver<String>) {
    serve_with(dir, prefix, &[])
}

/// [`serve`] with more options.
fn serve_with(
    dir: &Path,
    prefix: &str,
    options: &[&str],
) -> (Running, Receiver<String>, Receiver<String>) {
    support::spawn_piped(
        idelink(&["serve", "--diff", "accept", "--lock-dir"])
            .arg(dir.join("near-ide"))
            .args(["--remote-shell", prefix])
            .args(options)
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
    refused_with(dir, prefix, &[])
}

/// [`refused`] with more options.
fn refused_with(dir: &Path, prefix: &str, options: &[&str]) -> String {
    let (mut child, _out, err) = serve_with(dir, prefix, options);
    let status = wait_exit(&mut child.0);
    assert!(!status.success(), "{status}");
    all_lines(&err).join("\n")
}

/// An executable `name` in `dir` (made) with the text `script`.
fn script_in(dir: &Path, name: &str, script: &str) {
    std::fs::create_dir_all(dir).unwrap();
    let path = dir.join(name);
    std::fs::write(&path, script).unwrap();
    std::fs::set_permissions(&path, std::fs::Permissions::from_mode(0o755)).unwrap();
}

/// A far side whose PATH starts with `bin` (beside [`far_env`]'s cache and config).
fn far_env_with_path(dir: &Path, bin: &Path) -> String {
    format!("{} PATH=\"{}:$PATH\"", far_env(dir), bin.display())
}

/// A `uname` that says Linux and the architecture this build is not.
fn other_machine(bin: &Path) -> &'static str {
    let other = if cfg!(target_arch = "aarch64") {
        "x86_64"
    } else {
        "aarch64"
    };
    script_in(
        bin,
        "uname",
        &format!("#!/bin/sh\n[ \"$1\" = -m ] && echo {other} || echo Linux\n"),
    );
    other
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
    let other = other_machine(&fake);
    // An idelink of another version there is no way out either.
    script_in(&fake, "idelink", "#!/bin/sh\necho 'idelink 0.0.1'\n");
    let said = refused(&dir, &far_env_with_path(&dir, &fake));
    assert!(
        said.contains(&format!(
            "the far side is Linux {other} and this idelink is a linux"
        )),
        "{said}"
    );
    assert!(said.contains("it cannot run there"), "{said}");
    assert!(
        said.contains("/fake-bin/idelink (idelink 0.0.1) is another version"),
        "{said}"
    );
    assert!(!dir.join("far-cache").exists(), "something was copied");
}

#[test]
fn a_far_idelink_that_is_this_very_build_runs_as_it_is() {
    let dir = temp_dir("remote-install-same");
    let far_bin = dir.join("far-bin");
    std::fs::create_dir_all(&far_bin).unwrap();
    std::os::unix::fs::symlink(env!("CARGO_BIN_EXE_idelink"), far_bin.join("idelink")).unwrap();
    let prefix = far_env_with_path(&dir, &far_bin);
    served_through(&dir, &prefix, "/far-bin/idelink is this very idelink");
    assert!(!dir.join("far-cache").exists(), "something was copied");
}

#[test]
fn a_far_idelink_of_another_build_gets_this_one_copied_beside_it() {
    let dir = temp_dir("remote-install-other");
    let far_bin = dir.join("far-bin");
    script_in(&far_bin, "idelink", "#!/bin/sh\necho 'idelink 0.0.1'\n");
    let prefix = far_env_with_path(&dir, &far_bin);
    served_through(
        &dir,
        &prefix,
        "/far-bin/idelink (idelink 0.0.1) is another build than this idelink",
    );
    assert_private_copy(&dir.join("far-cache"));
}

#[test]
fn where_this_build_cannot_run_a_far_idelink_of_this_version_is_used() {
    let dir = temp_dir("remote-install-cross");
    let fake = dir.join("fake-bin");
    other_machine(&fake);
    // Another build of this version (a wrapper around this one stands in for it).
    script_in(
        &fake,
        "idelink",
        &format!(
            "#!/bin/sh\n[ \"$1\" = --version ] && {{ echo 'idelink {}'; exit 0; }}\n\
             exec '{}' \"$@\"\n",
            env!("CARGO_PKG_VERSION"),
            env!("CARGO_BIN_EXE_idelink")
        ),
    );
    let prefix = far_env_with_path(&dir, &fake);
    served_through(&dir, &prefix, "(another build): using it");
    assert!(!dir.join("far-cache").exists(), "something was copied");
}

#[test]
fn a_far_shell_that_never_answers_is_ended_at_the_deadline() {
    let dir = temp_dir("remote-install-silent");
    let pid_file = dir.join("far.pid");
    // idelink appends `sh`: here it is only $0 of a shell that never reads its script.
    let prefix = format!(
        "sh -c 'echo $$ > \"{}\"; exec sleep 1000'",
        pid_file.display()
    );
    let said = refused_with(&dir, &prefix, &["--remote-timeout", "1"]);
    assert!(
        said.contains(
            "said nothing for 1 s while idelink waited for the far shell's answer to the probe"
        ),
        "{said}"
    );
    assert!(said.contains("runs `sh` on the far side"), "{said}");
    let far = pid_in(&pid_file);
    assert!(!alive(far), "the far shell (pid {far}) still runs");
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
