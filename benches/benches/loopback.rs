//! The loopback benchmark: one load client against each server process in the same run.
//!
//! Needs the server binaries: `cargo build --release -p idelink-benches --examples` (or set
//! `IDELINK_BENCH_BIN_DIR`). `-- --quick` runs one short round (a smoke test); `-- --big-only`
//! only the large arguments and answers (fresh server processes: the rounds of big messages and
//! their peak RSS), without the timed loads, the idle phase and the start-ups.
//! `-- --pipelined-only ROUNDS` runs only the pipelined scenario, ROUNDS rounds of 2 s with
//! the servers taking turns, and prints its figures and each round's idelink ÷ tcp-echo CPU
//! per call (a quick check of that one row while working on the engine's per-call cost).

use idelink_benches::cli::{self, Serving};
use idelink_benches::client::IdleSession;
use idelink_benches::loopback::{self, Load};
use idelink_benches::measure::{emit, median, percentile};
use idelink_benches::procfs;
use idelink_benches::servers::{self, Kind, Server};
use std::collections::BTreeMap;
use std::io;
use std::process::ExitCode;
use std::time::Duration;

/// Results by (scenario, server, unit), one figure per round.
type Results = BTreeMap<(String, &'static str, &'static str), Vec<f64>>;

struct Plan {
    rounds: usize,
    big_rounds: usize,
    run: Duration,
    handshakes: u32,
    idle: Duration,
    starts: usize,
    /// Only the large arguments and answers.
    big_only: bool,
}

fn main() -> ExitCode {
    let args: Vec<String> = std::env::args().collect();
    let quick = args.iter().any(|a| a == "--quick");
    let idle_seconds = args
        .iter()
        .position(|a| a == "--idle-seconds")
        .and_then(|at| args.get(at + 1)?.parse().ok());
    if let Some(at) = args.iter().position(|a| a == "--profile-pipelined") {
        let seconds = args.get(at + 1).and_then(|s| s.parse().ok()).unwrap_or(10);
        return match profile_pipelined(Duration::from_secs(seconds)) {
            Ok(()) => ExitCode::SUCCESS,
            Err(e) => {
                eprintln!("loopback benchmark failed: {e}");
                ExitCode::FAILURE
            }
        };
    }
    if let Some(at) = args.iter().position(|a| a == "--pipelined-only") {
        let rounds = args.get(at + 1).and_then(|s| s.parse().ok()).unwrap_or(5);
        return match pipelined_only(rounds) {
            Ok(()) => ExitCode::SUCCESS,
            Err(e) => {
                eprintln!("loopback benchmark failed: {e}");
                ExitCode::FAILURE
            }
        };
    }
    let mut plan = if quick {
        Plan {
            rounds: 1,
            big_rounds: 1,
            run: Duration::from_millis(200),
            handshakes: 200,
            idle: Duration::from_secs(5),
            starts: 3,
            big_only: false,
        }
    } else {
        Plan {
            rounds: 7,
            big_rounds: 5,
            run: Duration::from_millis(1500),
            handshakes: 4000,
            idle: Duration::from_secs(600),
            starts: 21,
            big_only: false,
        }
    };
    if let Some(seconds) = idle_seconds {
        plan.idle = Duration::from_secs(seconds);
    }
    plan.big_only = args.iter().any(|a| a == "--big-only");
    match run(&plan) {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) => {
            eprintln!("loopback benchmark failed: {e}");
            ExitCode::FAILURE
        }
    }
}

fn run(plan: &Plan) -> io::Result<()> {
    let bin_dir = servers::bin_dir()?;
    let mut results = Results::new();
    if !plan.big_only {
        timed(plan, &bin_dir, &mut results)?;
    }
    for _ in 0..plan.big_rounds {
        let cases: [(usize, &str, BigFn); 3] = [
            (1 << 20, "1 MiB argument", loopback::big_argument),
            (16 << 20, "16 MiB argument", loopback::big_argument),
            (
                16 << 20,
                "16 MiB path in, 16 MiB answer out",
                loopback::big_answer,
            ),
        ];
        for (bytes, label, call) in cases {
            for kind in Kind::ALL {
                let call = call(kind, &bin_dir, bytes)?;
                let key = |unit| (label.to_owned(), kind.name(), unit);
                let mut add = |unit, value| results.entry(key(unit)).or_default().push(value);
                add("ms to answer", call.seconds * 1e3);
                add("MiB peak RSS", mib(call.peak_rss));
                add("MiB RSS before", mib(call.rss_before));
                add("ms server CPU", call.server_cpu_seconds * 1e3);
            }
        }
    }
    if !plan.big_only {
        idle(plan, &bin_dir, &mut results)?;
        startup(plan, &bin_dir, &mut results)?;
    }
    for ((scenario, server, unit), rounds) in &results {
        emit("loopback", scenario, server, unit, rounds);
    }
    Ok(())
}

/// The timed loads on long-running servers (round trips, pipelined, 50 clients, handshakes),
/// then each server's resident set after them.
fn timed(plan: &Plan, bin_dir: &std::path::Path, results: &mut Results) -> io::Result<()> {
    let servers = Kind::ALL
        .into_iter()
        .map(|kind| Server::start(kind, bin_dir))
        .collect::<io::Result<Vec<_>>>()?;
    let mut put = |scenario: &str, server: &Server, unit: &'static str, value: f64| {
        let key = (scenario.to_owned(), server.kind().name(), unit);
        results.entry(key).or_default().push(value);
    };
    // Servers take turns within each round, so drift in the machine hits them alike.
    for _ in 0..plan.rounds {
        for server in &servers {
            let load = loopback::sequential(server, plan.run)?;
            put_load(&mut put, "sequential round trips", server, &load);
            put(
                "sequential round trips",
                server,
                "µs CPU/call",
                load.cpu_us_per_call(),
            );
            let load = loopback::pipelined(server, 4, 16, plan.run)?;
            put("pipelined 4×16", server, "calls/s", load.rate());
            put(
                "pipelined 4×16",
                server,
                "µs CPU/call",
                load.cpu_us_per_call(),
            );
            let load = loopback::concurrent(server, 50, plan.run)?;
            put_load(&mut put, "50 clients at once", server, &load);
            let load = loopback::handshakes(server, plan.handshakes, plan.run)?;
            put("handshakes", server, "upgrades/s", load.rate());
            put(
                "handshakes",
                server,
                "µs CPU/upgrade",
                load.cpu_us_per_call(),
            );
            let load = loopback::session_handshakes(server, plan.handshakes, plan.run)?;
            let scenario = "session handshake (upgrade, initialize, close)";
            put(scenario, server, "p50 µs", median(&load.latencies_us));
            put(scenario, server, "µs CPU/session", load.cpu_us_per_call());
        }
    }
    for server in &servers {
        let (rss, _) = procfs::rss_bytes(server.pid())?;
        put("idle after the run", server, "MiB RSS", mib(rss));
    }
    Ok(())
}

/// Starts the idelink server, prints its pid on stderr, waits 2 s (time to attach a profiler:
/// `perf record -p PID`), then runs the pipelined load on it for `duration`.
fn profile_pipelined(duration: Duration) -> io::Result<()> {
    let server = Server::start(Kind::Idelink, &servers::bin_dir()?)?;
    eprintln!("pid {}", server.pid());
    std::thread::sleep(Duration::from_secs(2));
    let load = loopback::pipelined(&server, 4, 16, duration)?;
    eprintln!(
        "{:.0} calls/s, {:.2} µs server CPU per call",
        load.rate(),
        load.cpu_us_per_call()
    );
    Ok(())
}

/// The pipelined scenario alone: `rounds` rounds of 2 s, idelink and the TCP floor taking
/// turns, with each round's ratio of server CPU per call.
fn pipelined_only(rounds: usize) -> io::Result<()> {
    let bin_dir = servers::bin_dir()?;
    let idelink = Server::start(Kind::Idelink, &bin_dir)?;
    let floor = Server::start(Kind::Echo, &bin_dir)?;
    let (mut ours, mut theirs, mut ratio) = (Vec::new(), Vec::new(), Vec::new());
    for _ in 0..rounds {
        let cpu = |server| -> io::Result<f64> {
            Ok(loopback::pipelined(server, 4, 16, Duration::from_secs(2))?.cpu_us_per_call())
        };
        let (a, b) = (cpu(&idelink)?, cpu(&floor)?);
        ours.push(a);
        theirs.push(b);
        ratio.push(a / b);
    }
    let scenario = "pipelined 4×16";
    emit(
        "loopback",
        scenario,
        Kind::Idelink.name(),
        "µs CPU/call",
        &ours,
    );
    emit(
        "loopback",
        scenario,
        Kind::Echo.name(),
        "µs CPU/call",
        &theirs,
    );
    emit("loopback", scenario, "idelink ÷ tcp-echo", "ratio", &ratio);
    Ok(())
}

type BigFn = fn(Kind, &std::path::Path, usize) -> io::Result<loopback::BigCall>;

/// Every server idle for `plan.idle`, side by side: one instance with no session, one with 4
/// initialized sessions that only answer pings; `idelink serve --stdio` (the CLI, lock file
/// and all) among them.
fn idle(plan: &Plan, bin_dir: &std::path::Path, results: &mut Results) -> io::Result<()> {
    let binary = cli::binary(bin_dir)?;
    let mut subjects = Vec::new();
    let mut keep = Vec::new();
    let mut sessions = Vec::new();
    let mut servings = Vec::new();
    for with_sessions in [false, true] {
        let label = if with_sessions {
            "idle, 4 sessions"
        } else {
            "idle, no session"
        };
        for kind in Kind::ALL {
            let server = Server::start(kind, bin_dir)?;
            if with_sessions {
                for _ in 0..4 {
                    sessions.push(IdleSession::open(
                        server.port(),
                        server.token(),
                        kind.echoes(),
                    )?);
                }
            }
            subjects.push((label, kind.name(), server.pid()));
            keep.push(server);
        }
        let serving = Serving::start(&binary)?;
        if with_sessions {
            for _ in 0..4 {
                sessions.push(IdleSession::open(serving.port, &serving.token, false)?);
            }
        }
        subjects.push((label, "idelink serve --stdio", serving.pid()));
        servings.push(serving);
    }
    let pids: Vec<(String, u32)> = subjects
        .iter()
        .map(|(label, name, pid)| (format!("{label} {name}"), *pid))
        .collect();
    let costs = loopback::idle(&pids, plan.idle)?;
    let minutes = plan.idle.as_secs_f64() / 60.0;
    for ((label, name, _), cost) in subjects.iter().zip(costs) {
        let mut add = |unit: &'static str, value| {
            results
                .entry(((*label).to_owned(), *name, unit))
                .or_default()
                .push(value);
        };
        add("wakeups/min", cost.wakeups_per_minute);
        add("ms CPU per 10 min", cost.cpu_ms * 10.0 / minutes);
    }
    drop(sessions);
    drop(keep);
    drop(servings);
    Ok(())
}

/// Start-up of `idelink serve` and `serve --stdio`: exec to the lock file on disk and to the
/// ready line or message, next to the echo server's exec to its port line.
fn startup(plan: &Plan, bin_dir: &std::path::Path, results: &mut Results) -> io::Result<()> {
    let binary = cli::binary(bin_dir)?;
    for _ in 0..plan.starts {
        for (stdio, name) in [(false, "idelink serve"), (true, "idelink serve --stdio")] {
            let (lock_ms, ready_ms) = cli::startup(&binary, stdio)?;
            let mut add = |scenario: &str, value| {
                results
                    .entry((scenario.to_owned(), name, "ms"))
                    .or_default()
                    .push(value);
            };
            add("start-up: exec to lock file on disk", lock_ms);
            add("start-up: exec to ready on stdout", ready_ms);
        }
        let floor = cli::startup_floor(bin_dir)?;
        results
            .entry((
                "start-up: exec to ready on stdout".to_owned(),
                Kind::Echo.name(),
                "ms",
            ))
            .or_default()
            .push(floor);
    }
    Ok(())
}

fn put_load(
    put: &mut impl FnMut(&str, &Server, &'static str, f64),
    scenario: &str,
    server: &Server,
    load: &Load,
) {
    put(scenario, server, "calls/s", load.rate());
    put(scenario, server, "p50 µs", median(&load.latencies_us));
    put(
        scenario,
        server,
        "p99 µs",
        percentile(&load.latencies_us, 99.0),
    );
}

fn mib(bytes: u64) -> f64 {
    bytes as f64 / f64::from(1 << 20)
}
