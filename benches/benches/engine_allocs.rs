//! Heap allocations per engine-only operation (the same operations as the `engine` bench),
//! counted on this thread by a counting global allocator after a warm-up.

use allocation_counter::measure;
use idelink_benches::big_out::{
    DiagnosticsAnswer, DiagnosticsFloor, SelectionFloor, SelectionPush,
};
use idelink_benches::engine_ops::{Decoder, SOURCE_TEXT, Session, open_diff_frame};
use idelink_benches::measure::emit;

const WARM: usize = 200;
const COUNTED: usize = 1000;

fn main() {
    let mut session = Session::new(1);
    report("round trip", COUNTED, || session.round_trip().sent);

    let mut fan = Session::new(50);
    let mut line = 0;
    report("selection_changed to 50 clients", COUNTED, || {
        line = (line + 1) % 1000;
        fan.fan_out(line).sent
    });

    let mut decoder = Decoder::new(16 << 20, SOURCE_TEXT);
    report("frame decode 16 MiB source code", 10, || decoder.decode());

    // Bytes allocated per big answer, next to the payload's size: how many times the payload
    // is copied into a new buffer (the output buffer, once warm, is reused and not counted).
    // The push's output path only (debounce to bytes sent); the state's own copy of the
    // selected text, made when the editor reports it, is the input side.
    let mut push = SelectionPush::new(5 << 20);
    let sent = push.push().sent;
    let mut output_path = |counted: usize| {
        let mut total = (0.0, 0.0);
        for _ in 0..counted {
            push.select();
            let info = allocation_counter::measure(|| {
                std::hint::black_box(push.send());
            });
            total.0 += info.count_total as f64;
            total.1 += info.bytes_total as f64;
        }
        (total.0 / counted as f64, total.1 / counted as f64)
    };
    output_path(3);
    let (allocs, bytes) = output_path(10);
    let name = "selection_changed 5 MiB push";
    emit("engine", name, "", "allocs/op", &[allocs]);
    emit("engine", name, "", "allocated bytes/op", &[bytes]);
    emit(
        "engine",
        name,
        "",
        "payload copies allocated",
        &[bytes / sent.max(1) as f64],
    );
    let mut floor = SelectionFloor::new(5 << 20);
    let sent = floor.serialize();
    report_copies(
        "selection_changed 5 MiB serde_json::to_writer",
        sent,
        || floor.serialize(),
    );
    let mut diagnostics = DiagnosticsAnswer::new(50_000);
    let sent = diagnostics.call().sent;
    report_copies("getDiagnostics 50,000 entries answer", sent, || {
        diagnostics.call().sent
    });
    let mut floor = DiagnosticsFloor::new(50_000);
    let sent = floor.serialize(1);
    report_copies(
        "getDiagnostics 50,000 entries serde_json::to_writer",
        sent,
        || floor.serialize(1),
    );

    let frame = open_diff_frame(16 << 20);
    let mut ingest = Session::new(1);
    report("openDiff 16 MiB ingest", 10, || ingest.ingest(&frame).sent);
}

/// Warms `op` up, then prints its mean allocations per call over `counted` calls.
fn report(name: &str, counted: usize, mut op: impl FnMut() -> usize) {
    for _ in 0..WARM.min(counted * 2) {
        std::hint::black_box(op());
    }
    let info = measure(|| {
        for _ in 0..counted {
            std::hint::black_box(op());
        }
    });
    let per_op = info.count_total as f64 / counted as f64;
    emit("engine", name, "", "allocs/op", &[per_op]);
    let bytes = info.bytes_total as f64 / counted as f64;
    emit("engine", name, "", "allocated bytes/op", &[bytes]);
}

/// Allocations and allocated bytes per call of `op`, and the bytes as a multiple of `payload`
/// (the message's size): payload copies made in freshly allocated buffers.
fn report_copies(name: &str, payload: usize, op: impl FnMut() -> usize) {
    let counted = 10;
    let info = measure_calls(counted, op);
    emit("engine", name, "", "allocs/op", &[info.0]);
    emit("engine", name, "", "allocated bytes/op", &[info.1]);
    emit(
        "engine",
        name,
        "",
        "payload copies allocated",
        &[info.1 / payload.max(1) as f64],
    );
}

/// Mean allocations and allocated bytes per call over `counted` calls, after a warm-up.
fn measure_calls(counted: usize, mut op: impl FnMut() -> usize) -> (f64, f64) {
    for _ in 0..3 {
        std::hint::black_box(op());
    }
    let info = measure(|| {
        for _ in 0..counted {
            std::hint::black_box(op());
        }
    });
    (
        info.count_total as f64 / counted as f64,
        info.bytes_total as f64 / counted as f64,
    )
}
