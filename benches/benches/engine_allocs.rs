//! Heap allocations per engine-only operation (the same operations as the `engine` bench),
//! counted on this thread by a counting global allocator after a warm-up.

use allocation_counter::measure;
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
