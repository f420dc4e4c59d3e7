//! `idelink doctor [DIR]`: whether `claude --ide` started in DIR will connect, and if not, why,
//! with the fix. Judged with the CLI's own rules ([`idelink_core::discovery`], through
//! [`rules`]); exit status 0 only when it would connect; `--json` for editors.

mod context;
mod environment;
mod locks;
mod owner;
mod probe;
mod program;
// Linux reads /proc instead; its tests run ps here too, so that parsing meets a real ps.
#[cfg(all(unix, any(test, not(target_os = "linux"))))]
mod ps;
mod remote;
mod report;
mod rules;
mod sessions;

pub use locks::{read_dir, search_dirs, serving_lock, serving_port};
pub use program::{PROGRAM_VAR, resolve_program};

use crate::workspace::{path_text, workspace_dir};
use idelink_core::discovery::{self, AutoConnect, ConnectFacts, LockChoice, TerminalVars};
use idelink_host::regular_file::read_regular_file;
use report::{Finding, Level, Report};
use std::path::PathBuf;
use std::process::ExitCode;

/// The largest claude config (`.claude.json`) read: it keeps every project's settings and
/// history, megabytes on a long-used machine; anything far larger is not one.
const MAX_CLAUDE_CONFIG_BYTES: u64 = 64 << 20;

/// `idelink doctor` options.
#[derive(Debug, clap::Args)]
pub struct DoctorArgs {
    /// The folder claude would start in (default: the current folder).
    pub dir: Option<PathBuf>,
    /// Print the findings as one JSON object (for editors to show).
    #[arg(long)]
    pub json: bool,
    /// Skip the live check of each server (it opens a session, which a server run with
    /// `--single-session` answers by closing the older one).
    #[arg(long)]
    pub no_live_check: bool,
}

/// Runs the checks, prints the findings, and exits 0 only when claude would connect.
pub fn run(args: &DoctorArgs) -> Result<ExitCode, Box<dyn std::error::Error>> {
    let dir = path_text(&workspace_dir(args.dir.as_deref())?)?;
    let report = examine(&dir, !args.no_live_check);
    if args.json {
        crate::output::print_stdout(format!("{}\n", report.to_json()).as_bytes())?;
    } else {
        // anstream drops the colour codes where they do not belong and translates them for
        // legacy Windows consoles; a reader that went away is not an error.
        let mut out = anstream::stdout();
        match std::io::Write::write_all(&mut out, report.to_text().as_bytes()) {
            Err(e) if e.kind() != std::io::ErrorKind::BrokenPipe => return Err(e.into()),
            _ => {}
        }
    }
    Ok(if report.connects() {
        ExitCode::SUCCESS
    } else {
        ExitCode::FAILURE
    })
}

fn var(name: &str) -> Option<String> {
    std::env::var(name).ok()
}

/// Every check, in the order a person reads them.
fn examine(dir: &str, live: bool) -> Report {
    let mut report = Report::new(dir);
    let config_dir = var("CLAUDE_CONFIG_DIR");
    let home = var("HOME").or_else(|| var("USERPROFILE"));

    let global = environment::global_config_path(config_dir.as_deref(), home.as_deref())
        .and_then(|path| read_regular_file(&path, MAX_CLAUDE_CONFIG_BYTES).ok())
        .and_then(|bytes| String::from_utf8(bytes).ok());
    let facts = environment::connect_facts(&var, global.as_deref());
    let auto = discovery::auto_connect(&facts);
    match auto {
        AutoConnect::Disabled => report.push(Finding::new(
            Level::Fail,
            "auto-connect",
            format!(
                "CLAUDE_CODE_AUTO_CONNECT_IDE={} turns auto-connect off",
                facts.auto_connect_env.as_deref().unwrap_or("")
            ),
            Some("unset CLAUDE_CODE_AUTO_CONNECT_IDE, or connect by hand with /ide in claude"),
        )),
        AutoConnect::On { reason: why } => {
            report.push(Finding::ok("auto-connect", format!("on ({})", why.words())))
        }
        AutoConnect::NotRequested => {}
    }
    let sessions = sessions::examine(&var);
    for finding in sessions.findings {
        report.push(finding);
    }
    let plain = ConnectFacts {
        ide_flag: false,
        ..facts.clone()
    };
    if discovery::auto_connect(&plain) == AutoConnect::NotRequested {
        report.push(Finding::new(
            Level::Info,
            "auto-connect",
            "plain `claude` (without --ide) connects only through /ide".to_owned(),
            Some("start it with `idelink claude` or `claude --ide`, or set autoConnectIde in /config"),
        ));
    }

    let mut candidates = Vec::new();
    let mut tokens = Vec::new();
    let dirs = search_dirs(config_dir.as_deref(), home.as_deref());
    if dirs.is_empty() {
        report.push(Finding::new(
            Level::Fail,
            "lock directory",
            "neither CLAUDE_CONFIG_DIR nor HOME is set: claude finds no lock".to_owned(),
            Some("set HOME (or CLAUDE_CONFIG_DIR) as claude sees it"),
        ));
    }
    let lock_dirs: Vec<_> = dirs.iter().map(|d| read_dir(d)).collect();
    for lock_dir in &lock_dirs {
        report.lock_dir(lock_dir);
        for lock in &lock_dir.locks {
            report.lock(lock, dir);
            if let (true, Some(port), Ok(body)) = (lock.is_live(), lock.port, &lock.body) {
                candidates.push(rules::candidate(port, &body.workspace_folders));
                tokens.push((port, body.pid, body.auth_token.clone()));
            }
        }
    }

    let sse_port = discovery::sse_port(facts.sse_port_env.as_deref());
    let skip_check =
        discovery::skip_valid_check(var("CLAUDE_CODE_IDE_SKIP_VALID_CHECK").as_deref());
    if skip_check {
        report.push(Finding::new(
            Level::Warn,
            "choice",
            "CLAUDE_CODE_IDE_SKIP_VALID_CHECK is set: claude takes every lock as containing its folder".to_owned(),
            Some("unset it unless one server runs on this machine"),
        ));
    }
    let picked = rules::choose_lock(&candidates, dir, sse_port, skip_check);
    // The remote case: a bridge's lock here, a serve --remote of this user there.
    let live_locks: Vec<_> = lock_dirs
        .iter()
        .flat_map(|d| &d.locks)
        .filter(|lock| lock.is_live())
        .map(|lock| {
            let process = lock.body.as_ref().ok().and_then(|b| remote::process(b.pid));
            (lock, process)
        })
        .collect();
    let stale = lock_dirs.iter().flat_map(|d| &d.locks);
    for finding in stale.filter_map(remote::dead_bridge) {
        report.push(finding);
    }
    for finding in remote::far_findings(&live_locks, sse_port, &var) {
        report.push(finding);
    }
    for finding in remote::editor_findings(&remote::processes(), dir) {
        report.push(finding);
    }
    let terminal = discovery::ide_terminal(&TerminalVars::read(var));
    if let (Some(terminal), LockChoice::One { port }, None) = (terminal, &picked, sse_port) {
        report.push(Finding::new(
            Level::Warn,
            "ide terminal",
            format!(
                "inside {} claude takes the lock of port {port} only when its owner is \
                 claude's parent or an ancestor (an editor's own terminal)",
                terminal.words()
            ),
            Some("start claude with `idelink claude`: it names the port, which lifts this rule"),
        ));
    }
    match &picked {
        LockChoice::One { port } => report.push(Finding::ok(
            "choice",
            format!("claude in {dir} picks the server on port {port}"),
        )),
        LockChoice::None => report.push(Finding::new(
            Level::Fail,
            "choice",
            format!("no live lock contains {dir}"),
            Some("start `idelink serve` in this folder (or a folder above it), or open it in your editor"),
        )),
        LockChoice::Ambiguous { ports } => report.push(Finding::new(
            Level::Fail,
            "choice",
            format!(
                "{} live locks contain {dir} (ports {}): claude connects to none of them",
                ports.len(),
                ports.iter().map(u16::to_string).collect::<Vec<_>>().join(", ")
            ),
            Some("stop all but one server, or pick one: `idelink claude` does, or export CLAUDE_CODE_SSE_PORT=<port>"),
        )),
    }

    let mut live_ok = !live;
    if live {
        for (port, pid, token) in &tokens {
            let chosen = picked == LockChoice::One { port: *port };
            let checked = probe::probe(*port, *pid, token);
            let owner = checked.owner.words();
            match checked.outcome {
                Ok(found) => {
                    live_ok |= chosen;
                    report.push(Finding::ok(
                        "live check",
                        format!(
                            "port {port}: {owner}; {} answered initialize (MCP {}) and tools/list ({} tools) in {} ms",
                            found.server, found.protocol, found.tools, found.latency_ms
                        ),
                    ));
                }
                Err(why) => report.push(Finding::new(
                    if chosen { Level::Fail } else { Level::Warn },
                    "live check",
                    format!("port {port}: {owner}; {why}"),
                    Some(if matches!(checked.owner, owner::Owner::Differs(_)) {
                        "find what listens on the port (ss -ltnp, netstat -ano) and stop it; then restart the server that wrote this lock"
                    } else {
                        "restart the server that wrote this lock"
                    }),
                )),
            }
        }
    }

    // The program `idelink claude` would run, found by its own lookup.
    let name = std::env::var_os(PROGRAM_VAR).unwrap_or_else(|| "claude".into());
    let program = std::env::current_dir()
        .map_err(|e| format!("cannot tell the current folder: {e}"))
        .and_then(|cwd| resolve_program(&name, std::env::var_os("PATH").as_deref(), &cwd));
    report.claude(
        program.map(|path| {
            let version = environment::claude_version(&path);
            environment::ClaudeBinary { path, version }
        }),
        environment::VERIFIED_CLI_VERSIONS,
    );
    for name in environment::proxy_leaks(&var) {
        report.push(Finding::new(
            Level::Warn,
            "proxy",
            format!("{name} is set and no_proxy does not list 127.0.0.1 or localhost"),
            Some("add loopback to the bypass list: eval \"$(idelink env)\" does it"),
        ));
    }

    for finding in context::findings(dir, config_dir.as_deref(), home.as_deref()) {
        report.push(finding);
    }

    report.set_verdict(
        auto != AutoConnect::Disabled
            && !sessions.blocks_auto_connect
            && matches!(picked, LockChoice::One { .. })
            && live_ok,
    );
    report
}
