//! The turn ledger through `idelink serve`, a test client playing claude in accept-edits
//! mode (the CLI's calls of docs/protocol.md, "A turn's signals"): the turn lists exactly the
//! files edited and created, `u` undoes a file after `yes`, and an undo over a newer change
//! is refused, never written. Unix only: the test client builds the CLI's `file://` URIs
//! from POSIX paths.
#![cfg(unix)]
#![expect(
    clippy::unwrap_used,
    reason = "a test: any failure must stop it loudly"
)]

use idelink_test_client::Client;
use serde_json::{Value, json};
use std::io::Write;
use std::path::Path;
use std::process::{Child, ChildStdin, Stdio};
use std::sync::mpsc::Receiver;
use std::time::{Duration, Instant};

mod support;

use support::{idelink, lines, temp_dir, wait_for_line};

/// Ends the serve process however the test ends (a panic included).
struct Killed(Child);

impl Drop for Killed {
    fn drop(&mut self) {
        let _ = self.0.kill();
        let _ = self.0.wait();
    }
}

#[test]
fn a_turn_lists_its_edited_and_created_files_and_undoes_one() {
    let dir = temp_dir("serve-ledger");
    let work = dir.join("work").canonicalize().unwrap();
    let edited = work.join("main.rs");
    let created = work.join("new.txt");
    std::fs::write(&edited, "a\nb\nc\n").unwrap();
    let (out, mut stdin, _serve, mut claude) = serve_with_claude(&dir, &work);
    let mut type_line = |line: &str| type_line(&mut stdin, line);
    let uri = |path: &std::path::Path| format!("file://{}", path.to_str().unwrap());

    // The turn, as the CLI runs it in accept-edits mode.
    claude.call_tool("closeAllDiffTabs", json!({})).unwrap();
    claude
        .call_tool("getDiagnostics", json!({"uri": uri(&edited)}))
        .unwrap();
    std::fs::write(&edited, "a\nB\nc\n").unwrap();
    claude
        .call_tool("getDiagnostics", json!({"uri": uri(&created)}))
        .unwrap();
    std::fs::write(&created, "fresh\n").unwrap();
    claude.call_tool("getDiagnostics", json!({})).unwrap();

    type_line("t");
    wait_for_line(
        &out,
        "turn 1 (current, auto): 2 files · main.rs +1 -1 · new.txt +1 -0 (created)",
    );
    type_line("t 1");
    wait_for_line(&out, "hunk 1 @@ -2,1 +2,1 @@");
    wait_for_line(&out, "  -b");
    wait_for_line(&out, "  +B");

    type_line("u 1 main.rs");
    wait_for_line(&out, "undo turn 1's change of main.rs? type yes to confirm");
    type_line("yes");
    wait_for_line(&out, "undone:");
    assert_eq!(std::fs::read_to_string(&edited).unwrap(), "a\nb\nc\n");

    // A change made after the ledger's last look is never overwritten.
    std::fs::write(&created, "someone else\n").unwrap();
    type_line("u 1 new.txt");
    wait_for_line(&out, "type yes to confirm");
    type_line("yes");
    wait_for_line(&out, "changed since the ledger last saw it");
    assert_eq!(std::fs::read_to_string(&created).unwrap(), "someone else\n");
}

/// A change no CLI call announced (claude's Bash running `sed -i`) joins the open turn as
/// "seen on disk", its baseline the text serve's watcher saw before.
#[test]
fn a_file_changed_on_disk_during_a_turn_is_listed_as_seen_on_disk() {
    let dir = temp_dir("serve-ledger-watch");
    let work = dir.join("work").canonicalize().unwrap();
    let sedded = work.join("sed.txt");
    std::fs::write(&sedded, "x = 1\ny = 2\n").unwrap();
    let (out, mut stdin, _serve, mut claude) = serve_with_claude(&dir, &work);
    claude.call_tool("closeAllDiffTabs", json!({})).unwrap();
    // What `sed -i 's/y = 2/y = 3/' sed.txt` does: a new file renamed over the old one.
    std::fs::write(work.join(".sed.tmp"), "x = 1\ny = 3\n").unwrap();
    std::fs::rename(work.join(".sed.tmp"), &sedded).unwrap();

    list_until(
        &out,
        &mut stdin,
        "turn 1 (current, auto): 1 files · sed.txt +1 -1 (seen on disk)",
    );
    type_line(&mut stdin, "t 1");
    wait_for_line(&out, "hunk 1 @@ -2,1 +2,1 @@");
    wait_for_line(&out, "  -y = 2");
    wait_for_line(&out, "  +y = 3");
}

/// A file claude's Bash removed (`rm`) is listed as deleted, seen on disk: one hunk of every
/// line removed; undoing that hunk writes its text back.
#[test]
fn a_file_deleted_on_disk_during_a_turn_is_recreated_by_its_undo() {
    let dir = temp_dir("serve-ledger-deleted");
    let work = dir.join("work").canonicalize().unwrap();
    let gone = work.join("gone.txt");
    std::fs::write(&gone, "kept\nlines\n").unwrap();
    let (out, mut stdin, _serve, mut claude) = serve_with_claude(&dir, &work);
    claude.call_tool("closeAllDiffTabs", json!({})).unwrap();
    std::fs::remove_file(&gone).unwrap();
    list_until(&out, &mut stdin, "gone.txt +0 -2 (deleted) (seen on disk)");
    type_line(&mut stdin, "t 1");
    wait_for_line(&out, "hunk 1 @@ -1,2 +1,0 @@");
    wait_for_line(&out, "  -kept");
    wait_for_line(&out, "  -lines");
    type_line(&mut stdin, "u 1 gone.txt 1");
    wait_for_line(
        &out,
        "undo hunk 1 of gone.txt in turn 1? type yes to confirm",
    );
    type_line(&mut stdin, "yes");
    wait_for_line(&out, "undone:");
    assert_eq!(std::fs::read_to_string(&gone).unwrap(), "kept\nlines\n");
}

/// Folders made after serve started are watched too: a file claude's Bash writes in a new
/// top folder, and one in a folder made inside that, are "seen on disk".
#[test]
fn a_file_in_a_folder_made_after_start_is_seen_on_disk() {
    let dir = temp_dir("serve-ledger-new-folder");
    let work = dir.join("work").canonicalize().unwrap();
    let (out, mut stdin, _serve, mut claude) = serve_with_claude(&dir, &work);
    claude.call_tool("closeAllDiffTabs", json!({})).unwrap();
    std::fs::create_dir(work.join("fresh")).unwrap();
    std::fs::write(work.join("fresh").join("a.txt"), "a\n").unwrap();
    list_until(
        &out,
        &mut stdin,
        "1 files · fresh/a.txt +1 -0 (created) (seen on disk)",
    );
    std::fs::create_dir_all(work.join("fresh").join("deep")).unwrap();
    std::fs::write(work.join("fresh").join("deep").join("b.txt"), "b\n").unwrap();
    list_until(
        &out,
        &mut stdin,
        "2 files · fresh/a.txt +1 -0 (created) (seen on disk) · fresh/deep/b.txt +1 -0 (created) \
         (seen on disk)",
    );
}

/// The ledger reads only inside the workspace: a pre-edit call naming a file outside it, or
/// a link inside pointing outside, is answered to claude as ever, left out of the ledger with
/// the reason shown, and never read or written by an undo.
#[test]
fn a_file_outside_the_workspace_or_behind_a_link_out_is_left_out() {
    let dir = temp_dir("serve-ledger-outside");
    let work = dir.join("work").canonicalize().unwrap();
    let away = dir.join("away");
    std::fs::create_dir_all(&away).unwrap();
    let away = away.canonicalize().unwrap();
    std::fs::write(away.join("secret.txt"), "secret\n").unwrap();
    std::os::unix::fs::symlink(away.join("secret.txt"), work.join("link.txt")).unwrap();
    let (out, mut stdin, _serve, mut claude) = serve_with_claude(&dir, &work);
    let uri = |path: &Path| format!("file://{}", path.to_str().unwrap());
    claude.call_tool("closeAllDiffTabs", json!({})).unwrap();
    let answered = claude
        .call_tool(
            "getDiagnostics",
            json!({"uri": uri(&away.join("secret.txt"))}),
        )
        .unwrap();
    assert!(answered.to_string().contains("secret.txt"), "{answered}");
    wait_for_line(&out, "secret.txt is outside the workspace folders");
    claude
        .call_tool(
            "getDiagnostics",
            json!({"uri": uri(&work.join("link.txt"))}),
        )
        .unwrap();
    std::fs::write(away.join("secret.txt"), "changed through the link\n").unwrap();
    claude.call_tool("getDiagnostics", json!({})).unwrap();
    let left_out = wait_for_line(&out, "link.txt left out of the ledger:");
    assert!(
        left_out.contains("secret.txt, outside the workspace"),
        "{left_out}"
    );
    type_line(&mut stdin, "t");
    wait_for_line(&out, "no turn changed a file yet");
}

/// Claude on another machine (`serve --remote` with `idelink bridge` as its far end, `--map
/// /far/proj=WORK`): claude names `/far/proj/…`, the ledger reads, lists and undoes the
/// editor's files under WORK, and a path outside the mapping is left out.
#[test]
fn through_serve_remote_the_ledger_names_the_editors_paths() {
    let dir = temp_dir("serve-ledger-remote");
    let work = dir.join("work").canonicalize().unwrap();
    let edited = work.join("main.rs");
    std::fs::write(&edited, "a\nb\n").unwrap();
    let bridge = format!(
        "exec '{}' bridge --lock-dir '{}'",
        env!("CARGO_BIN_EXE_idelink"),
        dir.join("far-ide").display()
    );
    let mut child = idelink(&["serve", "--lock-dir"])
        .arg(dir.join("near-ide"))
        .args(["--remote", &bridge, "--map"])
        .arg(format!("/far/proj={}", work.display()))
        .arg(&work)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let out = lines(child.stdout.take().unwrap());
    let err = lines(std::process::ChildStdout::from(std::os::fd::OwnedFd::from(
        child.stderr.take().unwrap(),
    )));
    let mut stdin = child.stdin.take().unwrap();
    let _serve = Killed(child);
    let up = wait_for_line(&err, "idelink bridge: listening on 127.0.0.1:");
    let lock = std::path::PathBuf::from(up.rsplit("lock ").next().unwrap());
    let body: Value = serde_json::from_str(&std::fs::read_to_string(&lock).unwrap()).unwrap();
    let port = lock.file_stem().unwrap().to_str().unwrap().parse().unwrap();
    let mut claude =
        Client::connect_initialized(port, body["authToken"].as_str().unwrap()).unwrap();
    wait_for_line(&out, "session ready");

    claude.call_tool("closeAllDiffTabs", json!({})).unwrap();
    let answered = claude
        .call_tool("getDiagnostics", json!({"uri": "file:///far/proj/main.rs"}))
        .unwrap();
    assert!(
        answered.to_string().contains("file:///far/proj/main.rs"),
        "claude's answer names claude's path: {answered}"
    );
    // Claude's write lands in the editor's file (the same file, seen from the other side).
    std::fs::write(&edited, "a\nB\n").unwrap();
    claude
        .call_tool("getDiagnostics", json!({"uri": "file:///elsewhere/x.rs"}))
        .unwrap();
    wait_for_line(&out, "/elsewhere/x.rs left out of the ledger:");
    claude.call_tool("getDiagnostics", json!({})).unwrap();
    type_line(&mut stdin, "t");
    wait_for_line(&out, "turn 1 (current, auto): 1 files · main.rs +1 -1");
    type_line(&mut stdin, "u 1 main.rs 1");
    wait_for_line(
        &out,
        "undo hunk 1 of main.rs in turn 1? type yes to confirm",
    );
    type_line(&mut stdin, "yes");
    let undone = wait_for_line(&out, "undone:");
    assert!(
        undone.ends_with(&format!("undone: {}", edited.display())),
        "{undone}"
    );
    assert_eq!(std::fs::read_to_string(&edited).unwrap(), "a\nb\n");
}

/// Someone changes a file after claude's pre-edit call took its baseline and before claude's
/// edit of it ended: serve's watcher sees a version the edit did not end with, the file is
/// marked, and undoing it whole is refused (it would drop that change unseen); its hunk is
/// undone after being shown.
#[test]
fn an_outside_change_during_claudes_edit_is_marked_and_never_undone_blind() {
    let dir = temp_dir("serve-ledger-outside-change");
    let work = dir.join("work").canonicalize().unwrap();
    let edited = work.join("a.txt");
    std::fs::write(&edited, "1\n2\n3\n").unwrap();
    let (out, mut stdin, _serve, mut claude) = serve_with_claude(&dir, &work);
    let uri = format!("file://{}", edited.to_str().unwrap());
    claude.call_tool("closeAllDiffTabs", json!({})).unwrap();
    claude
        .call_tool("getDiagnostics", json!({"uri": uri}))
        .unwrap();
    std::fs::write(&edited, "1\nmine\n3\n").unwrap();
    // The watcher reports paths in the order their quiet time ends: once this later file is
    // listed, the change to a.txt was delivered too.
    std::fs::write(work.join("marker.txt"), "m\n").unwrap();
    list_until(
        &out,
        &mut stdin,
        "marker.txt +1 -0 (created) (seen on disk)",
    );
    // Claude's write, then the end of its edit.
    std::fs::write(&edited, "claude\nmine\n3\n").unwrap();
    claude.call_tool("getDiagnostics", json!({})).unwrap();
    list_until(
        &out,
        &mut stdin,
        "a.txt +2 -2 (also changed outside claude) · marker.txt +1 -0 (created) (seen on disk)",
    );
    type_line(&mut stdin, "u 1 a.txt");
    wait_for_line(
        &out,
        "also changed outside claude during turn 1: undoing the whole file",
    );
    assert_eq!(
        std::fs::read_to_string(&edited).unwrap(),
        "claude\nmine\n3\n"
    );
    type_line(&mut stdin, "u 1 a.txt 1");
    wait_for_line(&out, "type yes to confirm");
    type_line(&mut stdin, "yes");
    wait_for_line(&out, "undone:");
    assert_eq!(std::fs::read_to_string(&edited).unwrap(), "1\n2\n3\n");
}

/// Starts `idelink serve` on `work` (its lock in `dir`/ide) and connects a test client as
/// claude once the session is ready: serve's output lines, its stdin, the process and the
/// client.
fn serve_with_claude(dir: &Path, work: &Path) -> (Receiver<String>, ChildStdin, Killed, Client) {
    let mut child = idelink(&["serve", "--lock-dir"])
        .arg(dir.join("ide"))
        .arg(work)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .spawn()
        .unwrap();
    let out = lines(child.stdout.take().unwrap());
    let stdin = child.stdin.take().unwrap();
    let serve = Killed(child);
    let banner = wait_for_line(&out, "on 127.0.0.1:");
    let port: u16 = banner.rsplit(':').next().unwrap().parse().unwrap();
    let lock = std::fs::read_to_string(dir.join("ide").join(format!("{port}.lock"))).unwrap();
    let lock: Value = serde_json::from_str(&lock).unwrap();
    let claude = Client::connect_initialized(port, lock["authToken"].as_str().unwrap()).unwrap();
    wait_for_line(&out, "session ready");
    (out, stdin, serve, claude)
}

/// Types `t` until serve lists `expected` (the watcher reports a change once its debounce is
/// over), within a deadline.
fn list_until(out: &Receiver<String>, stdin: &mut ChildStdin, expected: &str) {
    let deadline = Instant::now() + Duration::from_secs(10);
    let mut last = String::new();
    while !last.ends_with(expected) {
        assert!(
            Instant::now() < deadline,
            "t should list {expected:?} once the watcher saw the change; last: {last:?}"
        );
        type_line(stdin, "t");
        last = loop {
            let line = out.recv_timeout(Duration::from_secs(10)).unwrap();
            if line.contains("turn 1 (") || line.contains("no turn changed a file yet") {
                break line;
            }
        };
    }
}

/// Types `line` at serve's terminal.
fn type_line(stdin: &mut ChildStdin, line: &str) {
    writeln!(stdin, "{line}").unwrap();
    stdin.flush().unwrap();
}
