//! Engine-only benchmarks: no sockets, no threads; inputs straight into `idelink_core::Engine`.
//!
//! `cargo bench -p idelink-benches --bench engine` prints one JSON result per line;
//! `-- --quick` runs one short round of each (a smoke test).
//! `… --bench engine -- --callgrind-round-trips N` only sets up a session and runs N round
//! trips (scripts/bench runs it under callgrind twice and takes the difference per trip).

use idelink_benches::big_out::{
    DiagnosticsAnswer, DiagnosticsFloor, SelectionFloor, SelectionPush,
};
use idelink_benches::engine_ops::{
    Decoder, MIXED_TEXT, Memcpy, SOURCE_TEXT, Session, open_diff_frame,
};
use idelink_benches::measure::{ROUND, emit, time_op};
use std::time::Duration;

const MIB: usize = 1 << 20;

fn main() {
    let args: Vec<String> = std::env::args().collect();
    if let Some(n) = flag_value(&args, "--callgrind-round-trips") {
        let mut session = Session::new(1);
        for _ in 0..n {
            std::hint::black_box(session.round_trip());
        }
        return;
    }
    if let Some(at) = args.iter().position(|a| a == "--profile") {
        return profile(args.get(at + 1).map_or("", String::as_str));
    }
    let quick = args.iter().any(|a| a == "--quick");
    let (rounds, round, big) = if quick {
        (1, ROUND / 10, Duration::from_millis(100))
    } else {
        (7, ROUND, Duration::from_millis(600))
    };

    let mut session = Session::new(1);
    let ns = time_op(rounds, round, || session.round_trip().sent);
    emit("engine", "round trip", "", "ns/op", &ns);
    let per_second: Vec<f64> = ns.iter().map(|ns| 1e9 / ns).collect();
    emit("engine", "round trips per second", "", "ops/s", &per_second);

    let mut fan = Session::new(50);
    let mut line = 0;
    let ns = time_op(rounds, round, || {
        line = (line + 1) % 1000;
        fan.fan_out(line).sent
    });
    emit(
        "engine",
        "selection_changed to 50 clients",
        "",
        "ns/op",
        &ns,
    );

    for (pattern, label) in [(SOURCE_TEXT, "source code"), (MIXED_TEXT, "mixed text")] {
        let mut decoder = Decoder::new(16 * MIB, pattern);
        let bytes = decoder.payload_len() as f64;
        let ns = time_op(rounds, big, || decoder.decode());
        let name = format!("frame decode 16 MiB {label}");
        emit("engine", &name, "", "GB/s", &rates(bytes, &ns));
    }

    let mut memcpy = Memcpy::new(16 * MIB);
    let ns = time_op(rounds, big, || memcpy.copy());
    emit(
        "engine",
        "memcpy 16 MiB",
        "",
        "GB/s",
        &rates((16 * MIB) as f64, &ns),
    );

    // Big answers next to their serialization floor, alternating within each round so drift on
    // a shared machine hits both alike.
    let mut push = SelectionPush::new(5 * MIB);
    let mut push_floor = SelectionFloor::new(5 * MIB);
    let (ns, floor_ns) = paired(rounds, big, || push.push().sent, || push_floor.serialize());
    let ms = |ns: &[f64]| ns.iter().map(|ns| ns / 1e6).collect::<Vec<_>>();
    emit(
        "engine",
        "selection_changed 5 MiB push",
        "",
        "ms/op",
        &ms(&ns),
    );
    emit(
        "engine",
        "selection_changed 5 MiB serde_json::to_writer",
        "",
        "ms/op",
        &ms(&floor_ns),
    );
    let mut diagnostics = DiagnosticsAnswer::new(50_000);
    let mut diagnostics_floor = DiagnosticsFloor::new(50_000);
    let (ns, floor_ns) = paired(
        rounds,
        big,
        || diagnostics.call().sent,
        || diagnostics_floor.serialize(1),
    );
    emit(
        "engine",
        "getDiagnostics 50,000 entries answer",
        "",
        "ms/op",
        &ms(&ns),
    );
    emit(
        "engine",
        "getDiagnostics 50,000 entries serde_json::to_writer",
        "",
        "ms/op",
        &ms(&floor_ns),
    );

    let frame =
        idelink_benches::wire::client_frame(&idelink_benches::wire::dirty_call(1, 16 * MIB));
    let mut dirty = Session::new(1);
    let ns = time_op(rounds, big, || dirty.ingest(&frame).sent);
    emit(
        "engine",
        "checkDocumentDirty 16 MiB path in and out",
        "",
        "ms/op",
        &ns.iter().map(|ns| ns / 1e6).collect::<Vec<_>>(),
    );

    let frame = open_diff_frame(16 * MIB);
    let mut ingest = Session::new(1);
    let ns = time_op(rounds, big, || ingest.ingest(&frame).sent);
    let ms: Vec<f64> = ns.iter().map(|ns| ns / 1e6).collect();
    emit("engine", "openDiff 16 MiB ingest", "", "ms/op", &ms);
    emit(
        "engine",
        "openDiff 16 MiB ingest rate",
        "",
        "GB/s",
        &rates(frame.len() as f64, &ns),
    );
}

/// Runs one big operation for 5 seconds, for a profiler (`perf record`, callgrind):
/// `selection` (5 MiB push), `diagnostics` (50,000 entries), `dirty` (16 MiB path in and out).
fn profile(op: &str) {
    let until = std::time::Instant::now() + Duration::from_secs(5);
    let mut run: Box<dyn FnMut() -> usize> = match op {
        "selection" => {
            let mut push = SelectionPush::new(5 * MIB);
            Box::new(move || push.push().sent)
        }
        "diagnostics" => {
            let mut answer = DiagnosticsAnswer::new(50_000);
            Box::new(move || answer.call().sent)
        }
        "dirty" => {
            let frame = idelink_benches::wire::client_frame(&idelink_benches::wire::dirty_call(
                1,
                16 * MIB,
            ));
            let mut session = Session::new(1);
            Box::new(move || session.ingest(&frame).sent)
        }
        other => {
            eprintln!("--profile takes selection, diagnostics or dirty, not {other:?}");
            return;
        }
    };
    while std::time::Instant::now() < until {
        std::hint::black_box(run());
    }
}

/// Times `op` and `floor` in turns, one round of each at a time: nanoseconds per call of each.
fn paired(
    rounds: usize,
    round: Duration,
    mut op: impl FnMut() -> usize,
    mut floor: impl FnMut() -> usize,
) -> (Vec<f64>, Vec<f64>) {
    (0..rounds)
        .map(|_| {
            (
                time_op(1, round, &mut op)[0],
                time_op(1, round, &mut floor)[0],
            )
        })
        .unzip()
}

/// Bytes per nanosecond is gigabytes (1e9 bytes) per second.
fn rates(bytes: f64, ns: &[f64]) -> Vec<f64> {
    ns.iter().map(|ns| bytes / ns).collect()
}

fn flag_value(args: &[String], flag: &str) -> Option<u64> {
    let at = args.iter().position(|a| a == flag)?;
    args.get(at + 1)?.parse().ok()
}
