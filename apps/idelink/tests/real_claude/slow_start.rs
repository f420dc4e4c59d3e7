//! Slow starts: a selection and a mention the editor had before the CLI connected reach the
//! model's first request, with four CLIs starting at once on a machine a CPU burner keeps busy.
//!
//! The CLI registers its `selection_changed` and `at_mentioned` handlers in React effects that
//! run once its UI has rendered the connected IDE; a push that comes before is dropped (its
//! MCP client has no handler for the method yet). On a loaded machine that render comes well
//! after `notifications/initialized` (docs/protocol.md §5, docs/compatibility.md).
//!
//! One round starts [`SESSIONS_AT_ONCE`] sidecars and CLIs at once; `IDELINK_SLOW_START_ROUNDS`
//! (default 1, so CI pays for one round) sets how many rounds run, one after the other:
//! `scripts/soak` runs 5 (20 sessions). Every session is counted, and the test fails unless
//! every one received both pushes.

use crate::idelink::Serve;
use crate::{PROMPT, all_text};
use idelink_real_claude::scene::{self, Scene};
use idelink_real_claude::{claude, wait};
use serde_json::json;
use std::process::{Child, Command, Stdio};
use std::sync::{Arc, Barrier};
use std::time::{Duration, Instant};

/// CLIs started at once in a round: the count docs/compatibility.md saw lose the selection.
const SESSIONS_AT_ONCE: usize = 4;

/// Scene names (one folder each) of the sessions of a round.
const NAMES: [&str; SESSIONS_AT_ONCE] = [
    "slow-start-a",
    "slow-start-b",
    "slow-start-c",
    "slow-start-d",
];

/// How long after its prompt is on screen a session waits for the mention to show in the input
/// before it types the prompt anyway: a user who sees the prompt starts typing within a few
/// seconds, and a mention that comes later than this is lost to the first prompt.
const MENTION_GRACE: Duration = Duration::from_secs(10);

/// What the CLI inserts in its input for the mention of line 1 (0-based) of the file.
const MENTION_TEXT: &str = "@greeting.txt#L2";

/// Spinning processes that keep every core busy until they are dropped or [`Self::DEADLINE`]
/// passes, whichever comes first (a test that hangs cannot leave them spinning). Each runs in
/// a session of its own: with the kernel's autogroup scheduling the CPU is shared per session,
/// and tmux starts each CLI in a session of its own, so spinning threads in the test's session
/// would only take that one session's share from the CLIs.
struct CpuBurner {
    spinners: Vec<Child>,
}

impl CpuBurner {
    /// Far above a round's length (under a minute here), below the harness's patience.
    const DEADLINE: Duration = Duration::from_secs(15 * 60);

    /// `count` spinning processes: `setsid timeout <deadline> sh -c 'while :; do :; done'`.
    fn start(count: usize) -> CpuBurner {
        let deadline = format!("{}s", Self::DEADLINE.as_secs());
        let spinners = (0..count)
            .map(|_| {
                Command::new("setsid")
                    .args(["timeout", &deadline, "sh", "-c", "while :; do :; done"])
                    .stdin(Stdio::null())
                    .spawn()
                    .unwrap_or_else(|e| panic!("cannot start a CPU spinner (setsid, timeout): {e}"))
            })
            .collect();
        CpuBurner { spinners }
    }
}

impl Drop for CpuBurner {
    /// SIGTERM, which `timeout` passes on to its spinning shell before it exits.
    fn drop(&mut self) {
        use rustix::process::{Pid, Signal, kill_process};
        for spinner in &mut self.spinners {
            let pid = i32::try_from(spinner.id()).ok().and_then(Pid::from_raw);
            if let Some(pid) = pid {
                let _ = kill_process(pid, Signal::TERM);
            }
            let _ = spinner.wait();
        }
    }
}

/// Spinning processes per core: 8, so the four CLIs get about a fifth of the machine among
/// them, as on a machine busy with builds. With 4 per core, 8 of 8 sessions got both pushes
/// on main; with 8, 6 of 8 (2026-12-01, load 20 on 2 cores).
const SPINNERS_PER_CORE: usize = 8;

/// A count from the environment variable `name`, if set to one.
fn env_count(name: &str) -> Option<usize> {
    std::env::var(name).ok()?.parse().ok()
}

/// What one session's first model request carried.
#[derive(Debug, Default)]
struct Outcome {
    selection: bool,
    mention: bool,
    /// From the prompt on screen to the mention in the input, when it came.
    mention_after: Option<Duration>,
    /// Why the session could not be judged (a step that timed out), if so.
    broken: Option<String>,
}

/// One session: a sidecar with a selection and a mention set before the CLI starts, the CLI
/// started when every session of the round is ready to, then the prompt, and the verdict read
/// from the model's first request.
fn session(name: &'static str, claude: claude::Claude, start: &Barrier) -> Outcome {
    let mut scene = Scene::new(name, claude, Box::new(Serve));
    let port = scene.serve_sidecar();
    let path = scene::text(&scene.file);
    let [opened, selected] = scene::select_on_first_line(&path, "hello from the workspace");
    let mention = json!({"jsonrpc": "2.0", "method": "editor/event", "params": {
        "type": "mention", "path": path, "lineStart": 1, "lineEnd": 1}});
    scene.send_synced(&[opened, selected, mention]);

    start.wait();
    scene.start_claude(port);
    wait::until("claude's debug log to say the IDE is connected", || {
        scene
            .debug_log()
            .contains("Successfully connected (transport: ws-ide)")
            .then_some(())
    });
    wait::until("claude's input prompt on screen", || {
        let screen = scene.terminal().screen();
        (screen.contains("? for shortcuts") || screen.contains(MENTION_TEXT)).then_some(())
    });
    let shown = Instant::now();
    let mention_after = wait::within(MENTION_GRACE, || {
        scene.terminal().screen().contains(MENTION_TEXT)
    })
    .then(|| shown.elapsed());
    scene.terminal().submit(PROMPT);
    let turn = all_text(&scene.first_turn());
    let selected = format!(
        "selected the {} from {path}:\nhello from the workspace",
        scene.claude.expect.first_line_selection
    );
    let outcome = Outcome {
        selection: turn.contains(&selected),
        mention: turn.contains(&format!("{MENTION_TEXT} {PROMPT}")),
        mention_after,
        broken: None,
    };
    if !(outcome.selection && outcome.mention) {
        let debug_log = scene.debug_log();
        let connect: Vec<&str> = debug_log
            .lines()
            .filter(|l| l.contains("MCP server \"ide\""))
            .map(|l| &l[..l.len().min(160)])
            .collect::<Vec<_>>();
        eprintln!(
            "{name}: selection {}, mention {} (mention on screen after {:?}); the CLI's IDE \
             connection:\n  {}",
            outcome.selection,
            outcome.mention,
            outcome.mention_after,
            connect.join("\n  ")
        );
    }
    outcome
}

/// Runs one round: [`SESSIONS_AT_ONCE`] sessions, their CLIs started at the same moment.
fn round(claude: &claude::Claude) -> Vec<Outcome> {
    let start = Arc::new(Barrier::new(SESSIONS_AT_ONCE));
    let sessions: Vec<_> = NAMES
        .iter()
        .map(|&name| {
            let claude = claude.clone();
            let start = start.clone();
            std::thread::spawn(move || session(name, claude, &start))
        })
        .collect();
    sessions
        .into_iter()
        .map(|session| {
            session.join().unwrap_or_else(|panic| Outcome {
                broken: Some(
                    panic
                        .downcast_ref::<String>()
                        .cloned()
                        .or_else(|| panic.downcast_ref::<&str>().map(|s| (*s).to_owned()))
                        .unwrap_or_default(),
                ),
                ..Outcome::default()
            })
        })
        .collect()
}

#[test]
fn a_selection_and_a_mention_set_before_a_slow_start_reach_the_first_prompt() {
    let Some(claude) =
        claude::locate("a_selection_and_a_mention_set_before_a_slow_start_reach_the_first_prompt")
    else {
        return;
    };
    let rounds = env_count("IDELINK_SLOW_START_ROUNDS").unwrap_or(1);
    let cores = std::thread::available_parallelism().map_or(2, |n| n.get());
    let spinners = env_count("IDELINK_SLOW_START_SPINNERS").unwrap_or(SPINNERS_PER_CORE * cores);
    let burner = CpuBurner::start(spinners);
    let started = Instant::now();
    let outcomes: Vec<Outcome> = (0..rounds).flat_map(|_| round(&claude)).collect();
    let elapsed = started.elapsed();
    drop(burner);

    let total = outcomes.len();
    let count = |f: fn(&Outcome) -> bool| outcomes.iter().filter(|o| f(o)).count();
    let both = count(|o| o.selection && o.mention);
    let mut delays: Vec<u128> = outcomes
        .iter()
        .filter_map(|o| o.mention_after.map(|d| d.as_millis()))
        .collect();
    delays.sort_unstable();
    let load = std::fs::read_to_string("/proc/loadavg").unwrap_or_default();
    eprintln!(
        "slow start: {both} of {total} sessions got both (selection {}, mention {}, broken {}); \
         mention on screen after the prompt (ms): {delays:?}; {:.0} s, {spinners} spinners, load {}",
        count(|o| o.selection),
        count(|o| o.mention),
        count(|o| o.broken.is_some()),
        elapsed.as_secs_f64(),
        load.split_whitespace()
            .take(3)
            .collect::<Vec<_>>()
            .join(" ")
    );
    for broken in outcomes.iter().filter_map(|o| o.broken.as_ref()) {
        eprintln!("slow start: a session broke: {broken}");
    }
    assert_eq!(
        both, total,
        "a selection and a mention pushed at start should reach the first prompt of every \
         session started under load"
    );
}
