//! The loopback benchmark: one load client against each server process in the same run.
//!
//! Needs the server binaries: `cargo build --release -p idelink-benches --examples` (or set
//! `IDELINK_BENCH_BIN_DIR`). `-- --quick` runs one short round (a smoke test).

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
}

fn main() -> ExitCode {
    let quick = std::env::args().any(|a| a == "--quick");
    let plan = if quick {
        Plan {
            rounds: 1,
            big_rounds: 1,
            run: Duration::from_millis(200),
            handshakes: 200,
        }
    } else {
        Plan {
            rounds: 7,
            big_rounds: 5,
            run: Duration::from_millis(1500),
            handshakes: 4000,
        }
    };
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
    let servers = Kind::ALL
        .into_iter()
        .map(|kind| Server::start(kind, &bin_dir))
        .collect::<io::Result<Vec<_>>>()?;
    let mut results = Results::new();
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
            let rate = loopback::handshakes(server, plan.handshakes, plan.run)?;
            put("handshakes", server, "upgrades/s", rate);
        }
    }
    for server in &servers {
        let (rss, _) = procfs::rss_bytes(server.pid())?;
        put("idle after the run", server, "MiB RSS", mib(rss));
    }
    drop(servers);
    for _ in 0..plan.big_rounds {
        for (bytes, label) in [(1 << 20, "1 MiB argument"), (16 << 20, "16 MiB argument")] {
            for kind in Kind::ALL {
                let call = loopback::big_argument(kind, &bin_dir, bytes)?;
                let key = |unit| (label.to_owned(), kind.name(), unit);
                let mut add = |unit, value| results.entry(key(unit)).or_default().push(value);
                add("ms to answer", call.seconds * 1e3);
                add("MiB peak RSS", mib(call.peak_rss));
                add("MiB RSS before", mib(call.rss_before));
                add("ms server CPU", call.server_cpu_seconds * 1e3);
            }
        }
    }
    for ((scenario, server, unit), rounds) in &results {
        emit("loopback", scenario, server, unit, rounds);
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
