//! `idelink relay`: the native half of an editor that runs in a browser page.
//!
//! A page can neither listen on a port nor write `~/.claude/ide`, so the relay does both and
//! forwards raw bytes; the whole protocol runs in the page, in the wasm engine
//! (`bindings/wasm`). The relay:
//!
//! - listens on 127.0.0.1 for claude, and writes the lock file (with a fresh token) while a page
//!   is linked — so claude only ever finds an editor that is there — restoring it when deleted
//!   and removing it when the page goes, on exit and on SIGINT / SIGTERM / SIGHUP;
//! - serves the demo editor, or the user's own page (`--page-dir`), and the page link (a
//!   WebSocket at `/link`) on a second loopback port, and prints
//!   `http://127.0.0.1:<port>/#secret=<hex>`; a page from a dev server the user names
//!   (`--allow-origin`) may open the link too, under the same rules;
//! - multiplexes claude connections onto the link as open / bytes / close messages
//!   ([`link`]), parsing none of claude's bytes.
//!
//! The page port's connections are a sans-IO state machine on the relay's one clock
//! ([`page_link`]), which a thin pump ([`page`]) feeds from the sockets; the loop
//! ([`server`]) reads the clock once a turn and carries the machine's events to claude's side
//! ([`claude`]) and the lock ([`lock`]).
//!
//! The link is authenticated on its own ([`hello`]; the protocol: docs/relay.md). The secret
//! (128 bits of OS entropy) travels in the URL fragment, which browsers never send over HTTP;
//! the link socket's upgrade must come from the relay's own page or an allowed origin (`Origin`,
//! exact) to its own address (`Host`) ([`page_http`]), and the page then sends the secret as
//! its first message. Only then
//! does the page receive the claude token, which its engine checks on every claude upgrade. The
//! secret links one page: a second page with the same URL is refused while the first keeps the
//! link; the same tab reloaded links again with its resume token; typing `r` + Enter in the
//! relay's terminal rotates the secret (and unlinks the page). When the page goes, every claude
//! connection is closed.

mod assets;
mod claude;
mod console;
mod descriptors;
mod files;
mod hello;
mod ledger_disk;
mod link;
mod lock;
mod origin;
mod page;
mod page_dir;
mod page_http;
mod page_link;
mod server;
mod session;

use crate::signals;
use crate::workspace::{path_text, workspace_dir};
use assets::Assets;
use files::Workspace;
use idelink_core::AuthToken;
use idelink_core::host_rules::PumpPolicy;
use idelink_host::lock::default_lock_dir;
use lock::{LinkLock, LockSpec};
use page::PagePump;
use page_dir::PageDir;
use page_link::PageLink;
use server::{Relay, bind};
use session::{Session, Welcome};
use std::error::Error;
use std::io;
use std::path::PathBuf;

/// `idelink relay` options.
#[derive(Debug, clap::Args)]
pub struct RelayArgs {
    /// The workspace folder (default: the current folder).
    pub dir: Option<PathBuf>,
    /// The name claude shows (`Connected to <NAME> extension`).
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
    /// The wasm engine package to serve (`bindings/wasm/pkg/web`, made by
    /// bindings/wasm/build.sh) [default: the `wasm` folder next to the idelink executable].
    #[arg(long, value_name = "DIR", conflicts_with = "page_dir")]
    pub wasm_dir: Option<PathBuf>,
    /// Serve your own page from DIR (its index.html at /, every file under DIR by its path)
    /// instead of the demo editor; it links with the `idelink-wasm/link` client.
    #[arg(long, value_name = "DIR")]
    pub page_dir: Option<PathBuf>,
    /// Also accept the page link from pages of ORIGIN (exactly as the browser sends it, e.g.
    /// http://localhost:5173 for a dev server); repeat for more. The secret is still required.
    #[arg(long, value_name = "ORIGIN")]
    pub allow_origin: Vec<String>,
}

/// Runs `idelink relay` until a signal.
pub fn run(args: RelayArgs) -> Result<(), Box<dyn Error>> {
    let dir = workspace_dir(args.dir.as_deref())?;
    let folder = path_text(&dir)?;
    let lock_dir = match args.lock_dir {
        Some(dir) => dir,
        None => default_lock_dir()?,
    };
    let allowed_origins = args
        .allow_origin
        .iter()
        .map(|text| origin::parse_origin(text))
        .collect::<Result<Vec<_>, _>>()?;
    let assets = match (args.page_dir, args.wasm_dir) {
        (Some(dir), _) => Assets::Page(PageDir::open(&dir)?),
        (None, Some(dir)) => Assets::new(dir),
        (None, None) => Assets::new(assets::default_package_dir()?),
    };
    if let Err(why) = assets.check() {
        eprintln!("idelink: warning: the page will not load its engine: {why}");
    }
    if let Some((before, after)) = descriptors::raise_limit() {
        tracing::debug!(?before, ?after, "open descriptor limit raised");
    }
    let claude = bind(args.port).map_err(|e| format!("cannot listen for claude: {e}"))?;
    let http = bind(args.http_port).map_err(|e| format!("cannot listen for the page: {e}"))?;
    let claude_port = claude.local_addr()?.port();
    let http_port = http.local_addr()?.port();
    let policy = PumpPolicy::DEFAULT;
    let lock = LinkLock::new(
        LockSpec {
            dir: lock_dir,
            ide_name: args.ide_name.clone(),
            workspace: folder.clone(),
            port: claude_port,
        },
        &policy,
    );
    let welcome = Welcome {
        claude_port,
        workspace: folder.clone(),
        ide_name: args.ide_name,
    };
    let poll = mio::Poll::new()?;
    let session = Session::new(
        AuthToken::from_entropy(entropy()?),
        welcome,
        Workspace::new(dir),
    );
    let page = PageLink::new(http_port, session, assets, allowed_origins, entropy);
    let url = page.url();
    let allowed_urls = page.allowed_urls();
    let page = PagePump::new(policy, poll.registry().try_clone()?, page);
    let mut relay = Relay::new(policy, poll, claude, http, page, lock)?;
    let stop = signals::install(relay.waker())?;
    println!("idelink relay: serving {folder}; claude port {claude_port}");
    println!("open {url}");
    for url in allowed_urls {
        println!("or open {url}");
    }
    if console::readable() {
        println!("(type r and Enter here for a new link URL: it unlinks the page)");
    }
    relay.run(&stop)?;
    Ok(())
}

/// 16 bytes of OS entropy, for the claude token, the link secret and resume tokens.
fn entropy() -> io::Result<[u8; 16]> {
    let mut bytes = [0u8; 16];
    getrandom::fill(&mut bytes).map_err(|e| io::Error::other(format!("OS entropy: {e}")))?;
    Ok(bytes)
}
