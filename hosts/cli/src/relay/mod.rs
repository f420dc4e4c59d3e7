//! `idelink relay`: the native half of an editor that runs in a browser page.
//!
//! A page can neither listen on a port nor write `~/.claude/ide`, so the relay does both and
//! forwards raw bytes; the whole protocol runs in the page, in the wasm engine
//! (`bindings/wasm`). The relay:
//!
//! - listens on 127.0.0.1 for claude, and writes the lock file (with a fresh token) while a page
//!   is linked — so claude only ever finds an editor that is there — restoring it when deleted
//!   and removing it when the page goes, on exit and on SIGINT / SIGTERM / SIGHUP;
//! - serves the demo editor and the page link (a WebSocket at `/link`) on a second loopback
//!   port, and prints `http://127.0.0.1:<port>/#secret=<hex>`;
//! - multiplexes claude connections onto the link as open / bytes / close messages
//!   ([`link`]), parsing none of claude's bytes.
//!
//! The link is authenticated on its own: the secret (128 bits of OS entropy) travels in the
//! URL fragment, which browsers never send over HTTP; the page presents it when it opens the
//! link, whose `Origin` must be the relay's own origin and whose `Host` its own address
//! ([`page_http`]). Only then does the page receive the claude token, which its engine checks
//! on every claude upgrade. A newer page replaces an older one; when the page goes, every
//! claude connection is closed.

mod assets;
mod claude;
mod files;
mod io_util;
mod link;
mod page;
mod page_http;
mod server;

use crate::signals;
use crate::workspace::{path_text, workspace_dir};
use assets::Assets;
use files::Workspace;
use idelink_mio::lock::default_lock_dir;
use server::{LockSpec, Relay, bind};
use std::error::Error;
use std::path::PathBuf;

/// `idelink relay` options.
#[derive(Debug, clap::Args)]
pub struct RelayArgs {
    /// The workspace folder (default: the current folder).
    pub dir: Option<PathBuf>,
    /// The name claude shows ("Connected to <NAME> extension").
    #[arg(long, default_value = "idelink (browser)")]
    pub ide_name: String,
    /// Listen for claude on this port instead of an ephemeral one.
    #[arg(long)]
    pub port: Option<u16>,
    /// Serve the page on this port instead of an ephemeral one.
    #[arg(long)]
    pub http_port: Option<u16>,
    /// Write the lock file into this directory instead of $CLAUDE_CONFIG_DIR/ide or
    /// ~/.claude/ide.
    #[arg(long)]
    pub lock_dir: Option<PathBuf>,
    /// The wasm package to serve (`bindings/wasm/pkg/web`, made by bindings/wasm/build.sh).
    #[arg(long)]
    pub wasm_dir: Option<PathBuf>,
}

/// Runs `idelink relay` until a signal.
pub fn run(args: RelayArgs) -> Result<(), Box<dyn Error>> {
    let dir = workspace_dir(args.dir.as_deref())?;
    let folder = path_text(&dir)?;
    let lock_dir = match args.lock_dir {
        Some(dir) => dir,
        None => default_lock_dir()?,
    };
    let assets = Assets::new(args.wasm_dir.unwrap_or_else(assets::default_package_dir));
    if let Err(why) = assets.check() {
        eprintln!("idelink: warning: the page will not load its engine: {why}");
    }
    let claude = bind(args.port).map_err(|e| format!("cannot listen for claude: {e}"))?;
    let http = bind(args.http_port).map_err(|e| format!("cannot listen for the page: {e}"))?;
    let spec = LockSpec {
        dir: lock_dir,
        ide_name: args.ide_name,
        workspace: folder.clone(),
    };
    let mut relay = Relay::new(claude, http, spec, Workspace::new(dir), assets)?;
    let stop = signals::install(relay.waker.clone())?;
    println!(
        "idelink relay: serving {folder}; claude port {}",
        relay.claude_port
    );
    println!("open {}", relay.page_url());
    relay.run(&stop)?;
    Ok(())
}
