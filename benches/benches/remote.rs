//! The remote link's cost (`scripts/bench`, group `remote`): a small `tools/call` round trip
//! and a 16 MiB answer through `idelink bridge` over a local pipe against the same `serve`
//! dialled directly, the two taking turns in every round, and the floor of what a bridge adds:
//! the call's bytes through one more process and back over pipes (`cat`, "pipe echo"). Needs
//! the release `idelink` binary (`cargo build --release -p idelink`, or `IDELINK_BENCH_CLI`).
//! `-- --quick`: one short round.

use idelink_benches::measure::{emit, median, percentile};
use idelink_benches::remote::{self, Route, Serve};
use std::collections::BTreeMap;
use std::io;
use std::process::ExitCode;
use std::time::Duration;

/// The large call's path: 16 MiB in, as much back out, less 64 KiB so the answer stays within
/// the 16 MiB a message to claude may have (`--max-client-message-bytes`'s default).
const BIG_BYTES: usize = (16 << 20) - (64 << 10);

fn main() -> ExitCode {
    let quick = std::env::args().any(|a| a == "--quick");
    let (rounds, run) = if quick {
        (1, Duration::from_millis(300))
    } else {
        (7, Duration::from_millis(1500))
    };
    match measure(rounds, run) {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) => {
            eprintln!("remote benchmark failed: {e}");
            ExitCode::FAILURE
        }
    }
}

fn measure(rounds: usize, run: Duration) -> io::Result<()> {
    let cli = remote::binary()?;
    let mut results: BTreeMap<(&str, &str, &str), Vec<f64>> = BTreeMap::new();
    let mut call_bytes = 0;
    for _ in 0..rounds {
        for route in Route::ALL {
            let serve = Serve::start(&cli, route)?;
            let mut session = serve.session()?;
            let latencies = session.round_trips(run)?;
            let mut add = |name, unit, value| {
                results
                    .entry((name, route.name(), unit))
                    .or_default()
                    .push(value);
            };
            let seconds: f64 = latencies.iter().sum::<f64>() / 1e6;
            add("small tools/call round trip", "p50 µs", median(&latencies));
            add(
                "small tools/call round trip",
                "p99 µs",
                percentile(&latencies, 99.0),
            );
            add(
                "small tools/call round trip",
                "calls/s",
                latencies.len() as f64 / seconds,
            );
            let rate = session.big_answer(BIG_BYTES)?;
            add("16 MiB path in, 16 MiB answer out", "MiB/s", rate);
            call_bytes = session.call_bytes();
        }
        let echo = remote::pipe_echo_round_trips(call_bytes, run)?;
        results
            .entry(("small tools/call round trip", "pipe echo", "p50 µs"))
            .or_default()
            .push(median(&echo));
    }
    for ((name, server, unit), values) in &results {
        emit("remote", name, server, unit, values);
    }
    Ok(())
}
