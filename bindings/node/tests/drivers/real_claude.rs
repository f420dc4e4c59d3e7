//! The bundled example extension, installed from the npm tarballs, against the pinned real
//! `claude` CLI, through the drift alarm's harness (the `idelink-real-claude` crate; only the IDE
//! under test differs: `node dist/extension.js` here where the alarm starts `idelink serve`).
//! The CLI connects, `/status` names the extension, the session line carries the CLI's version
//! and pid, and the model's edit goes through `openDiff`, accepted: the file is edited.
//!
//! `scripts/npm-check.mjs --real-claude <this driver>` runs it in the fresh project it installs
//! the tarballs into, once on the native addon and once on the WebAssembly fallback:
//! `npm_real_claude <node> <the bundled extension.js>`. Without the CLI it skips loudly, and with
//! `CI=true` it fails, like the alarm (docs/compatibility.md).
#![allow(
    clippy::expect_used,
    reason = "a test driver: anything unexpected must fail loudly"
)]

use idelink_real_claude::claude;
use idelink_real_claude::fake_api::FINAL_TEXT;
use idelink_real_claude::ide::IdeSide;
use idelink_real_claude::scene::{EDITED, FILE_NAME, Scene};
use std::path::{Path, PathBuf};
use std::process::Command;

/// The name the extension is started with (what `/status` shows).
const IDE_NAME: &str = "Bundled Example";

/// What the user types.
const PROMPT: &str = "Please change hello to goodbye in greeting.txt";

/// The bundled extension run by Node: `node <script> <harness args> --diff accept --name NAME
/// --lock-dir DIR FOLDER`.
struct BundledExtension {
    node: PathBuf,
    script: PathBuf,
}

impl IdeSide for BundledExtension {
    fn name(&self) -> &str {
        IDE_NAME
    }

    fn command(&self, args: &[&str], lock_dir: &Path, workspace: &Path) -> Command {
        let mut command = Command::new(&self.node);
        command
            .arg(&self.script)
            .args(args)
            // The example rejects every diff unless told to accept (the scene accepts one).
            .args(["--diff", "accept", "--name", IDE_NAME, "--lock-dir"])
            .arg(lock_dir)
            .arg(workspace);
        command
    }
}

fn main() {
    let mut args = std::env::args_os().skip(1);
    let (Some(node), Some(script), None) = (args.next(), args.next(), args.next()) else {
        panic!("usage: real_claude <node> <the bundled extension.js>");
    };
    let Some(claude) = claude::locate("npm_real_claude") else {
        return;
    };
    let extension = BundledExtension {
        node: PathBuf::from(node),
        script: PathBuf::from(script),
    };
    let mut scene = Scene::new("npm-accept", claude, Box::new(extension));
    let port = scene.serve_terminal("accept");
    scene.start_claude(port);
    scene.wait_connected();

    scene.check_session_line();

    scene.check_status();

    let before = scene.ide().lines().len();
    scene.terminal().submit(PROMPT);
    scene
        .ide()
        .wait_line(before, &format!("{FILE_NAME} accepted as proposed"));
    scene.wait_file(EDITED);
    scene.wait_screen(FINAL_TEXT);
    scene.assert_stayed_on_loopback();
    println!("real_claude: the bundled extension connected, shown by /status, its diff accepted");
}
