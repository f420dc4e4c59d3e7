//! A Linux client against the Windows frame_editor.exe under Wine, as the game editor's users
//! run it: the workspace is `C:\idelink-wine-<pid>\game` (in the Wine prefix's drive C:) and
//! `CLAUDE_CONFIG_DIR` a Windows path. Checks that the lock appears in
//! `CLAUDE_CONFIG_DIR\ide` with an owner-only DACL (read back on the Windows side by
//! read_dacl.exe), names the folder `C:/...` (docs/protocol.md §6), that a wrong token gets 401
//! and the right one upgrades and initializes, that the editor's selection in
//! `C:\...\main.lua` reaches the client as `C:/.../main.lua` and `file:///C:/.../main.lua`,
//! that an `openDiff` is answered, and that `quit` removes the lock.
//!
//! ctest runs it (Windows builds): `frame_editor_wine <frame_editor.exe> <read_dacl.exe>` with
//! `IDELINK_EDITOR_EMULATOR` (wine64) and `WINEPREFIX` set; exits non-zero on a failure.
#![expect(
    clippy::unwrap_used,
    clippy::expect_used,
    reason = "a test driver: anything unexpected must fail it loudly"
)]

#[expect(
    dead_code,
    reason = "this driver sets the editor's environment and finds its lock itself (no serve())"
)]
mod editor_process;

use editor_process::EditorProcess;
use idelink_test_client::Client;
use serde_json::{Value, json};
use std::path::{Path, PathBuf};
use std::process::Command;

const ORIGINAL: &str = "local hp = 10\nprint(hp)\n";
const PROPOSED: &str = "local hp = 12\nprint(hp)\n";

fn main() {
    let mut args = std::env::args_os().skip(1).map(PathBuf::from);
    let (Some(program), Some(read_dacl)) = (args.next(), args.next()) else {
        panic!("usage: frame_editor_wine <frame_editor.exe> <read_dacl.exe>");
    };
    let wine = std::env::var_os(editor_process::EMULATOR_VAR)
        .map(PathBuf::from)
        .expect("IDELINK_EDITOR_EMULATOR names wine64");
    let prefix = PathBuf::from(std::env::var_os("WINEPREFIX").expect("WINEPREFIX is set"));

    // C:\idelink-wine-<pid> is <prefix>/drive_c/idelink-wine-<pid> on this side.
    let name = format!("idelink-wine-{}", std::process::id());
    let root = prefix.join("drive_c").join(&name);
    let _ = std::fs::remove_dir_all(&root);
    std::fs::create_dir_all(root.join("game")).unwrap();
    std::fs::write(root.join("game").join("main.lua"), ORIGINAL).unwrap();
    let windows_root = format!(r"C:\{name}");
    let workspace = format!(r"{windows_root}\game");
    let config = format!(r"{windows_root}\config");
    let on_the_wire = format!("C:/{name}/game");

    let mut editor = EditorProcess::start_with_env(
        &program,
        &["--name", "frame_editor", "--diff", "ask", &workspace],
        &[("CLAUDE_CONFIG_DIR", &config)],
    );
    let (_, banner) = editor.wait_line(0, "on 127.0.0.1:");
    let port: u16 = banner.rsplit(':').next().unwrap().parse().unwrap();

    // The lock in CLAUDE_CONFIG_DIR\ide, its folder spelled as the CLI must see it.
    let lock_path = root.join("config").join("ide").join(format!("{port}.lock"));
    let lock: Value = serde_json::from_str(&std::fs::read_to_string(&lock_path).unwrap()).unwrap();
    assert_eq!(lock["workspaceFolders"], json!([on_the_wire]), "{lock}");
    assert_eq!(lock["ideName"], "frame_editor", "{lock}");
    let token = lock["authToken"].as_str().unwrap().to_owned();
    owner_only(
        &wine,
        &read_dacl,
        &format!(r"{config}\ide"),
        &format!(r"{config}\ide\{port}.lock"),
    );

    // A wrong token is refused; the right one upgrades and initializes.
    let wrong = idelink_test_client::upgrade_request(port, Some("not-the-token"), "");
    let (_, refused) = Client::open(port, &wrong).unwrap();
    assert!(refused.starts_with("HTTP/1.1 401 "), "{refused}");
    let mut client = Client::connect_initialized(port, &token).unwrap();
    editor.wait_line(0, "session ready: claude-code test");

    // The editor's Windows path reaches the wire with forward slashes.
    editor.type_line("open main.lua");
    editor.type_line("select 0 6 8");
    editor.wait_line(0, "published selection main.lua:0 6-8");
    let file = format!("{on_the_wire}/main.lua");
    loop {
        let pushed = client.notification("selection_changed").unwrap();
        if pushed["params"]["text"] == "hp" {
            assert_eq!(pushed["params"]["filePath"], file.as_str(), "{pushed}");
            assert_eq!(
                pushed["params"]["fileUrl"],
                format!("file:///{file}"),
                "{pushed}"
            );
            break;
        }
    }
    let folders = client.call_tool("getWorkspaceFolders", json!({})).unwrap();
    let text = folders["result"]["content"][0]["text"].as_str().unwrap();
    let folders: Value = serde_json::from_str(text).unwrap();
    assert_eq!(
        folders["folders"][0]["path"],
        on_the_wire.as_str(),
        "{folders}"
    );
    assert_eq!(
        folders["folders"][0]["uri"],
        format!("file:///{on_the_wire}"),
        "{folders}"
    );

    // openDiff, as the CLI sends it, answered by the editor.
    let before = editor.lines().len();
    let arguments = json!({"old_file_path": file, "new_file_path": file,
        "new_file_contents": PROPOSED, "tab_name": "wine diff"});
    let id = client
        .send_request(
            "tools/call",
            json!({"name": "openDiff", "arguments": arguments}),
        )
        .unwrap();
    editor.wait_line(before, "openDiff main.lua (call#1)");
    editor.wait_line(before, "+local hp = 12");
    editor.type_line("accept 1");
    let answer = client.response(id).unwrap();
    let content = &answer["result"]["content"];
    assert_eq!(content[0]["text"], "FILE_SAVED", "{answer}");
    assert_eq!(content[1]["text"], PROPOSED, "{answer}");

    editor.type_line("quit");
    assert!(editor.wait_exit(), "frame_editor.exe should exit 0 on quit");
    assert!(!lock_path.exists(), "frame_editor.exe left its lock file");
    let _ = std::fs::remove_dir_all(&root);
    println!(
        "frame_editor_wine: lock in CLAUDE_CONFIG_DIR\\ide, owner-only DACL, {on_the_wire} on the \
         wire, 401 for a wrong token, initialized, openDiff answered, lock removed"
    );
}

/// The folder's and the lock's DACLs, read by read_dacl.exe. On Windows: protected, and one
/// entry allowing this user alone (`D:P(A;OICI;FA;;;<user>)` for the folder,
/// `D:P(A;;FA;;;<user>)` for the file: docs/c.md, "Windows"). Wine keeps no security descriptor
/// for files and answers with one derived from the Unix mode (never protected, SYSTEM always
/// in it; idelink_host::windows::acl_unverifiable): there the lock file's must still grant
/// nobody but this user and SYSTEM (no Everyone, Users or Authenticated Users entry: the
/// owner-only descriptor reached the mode as 0700-like bits), and the folder's cannot be judged
/// (Wine 8 turns an owner-only DACL set on a folder into mode 0775): said, not passed.
fn owner_only(wine: &Path, read_dacl: &Path, dir: &str, lock: &str) {
    let out = Command::new(wine)
        .arg(read_dacl)
        .args([dir, lock])
        .output()
        .unwrap();
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(out.status.success(), "read_dacl failed: {text}");
    let user = text
        .lines()
        .find_map(|l| l.strip_prefix("user "))
        .expect("read_dacl prints the user");
    let under_wine = text.lines().find_map(|l| l.strip_prefix("wine "));
    let dacl_of = |path: &str| {
        text.lines()
            .find_map(|l| l.strip_prefix(path)?.strip_prefix(' '))
            .unwrap_or_else(|| panic!("no DACL for {path} in {text}"))
            .to_owned()
    };
    let Some(version) = under_wine else {
        assert_eq!(dacl_of(dir), format!("D:P(A;OICI;FA;;;{user})"), "{text}");
        assert_eq!(dacl_of(lock), format!("D:P(A;;FA;;;{user})"), "{text}");
        return;
    };
    let file = dacl_of(lock);
    let trustees: Vec<&str> = file
        .split('(')
        .skip(1)
        .filter(|ace| ace.starts_with("A;"))
        .filter_map(|ace| ace.trim_end_matches(')').rsplit(';').next())
        .collect();
    assert!(
        !trustees.is_empty() && trustees.iter().all(|t| *t == user || *t == "SY"),
        "the lock grants someone besides {user} and SYSTEM: {file}"
    );
    println!(
        "frame_editor_wine: under Wine {version} the folder's DACL cannot be judged (Wine derives \
         it from the Unix mode): {}",
        dacl_of(dir)
    );
}
