//! Per-frame snapshots: what `Engine::handle_snapshot` costs an editor that calls it every
//! frame at 60 Hz with 200 open documents (20 of them with diagnostics), with one ready client.
//!
//! `cargo bench -p idelink-benches --bench snapshot` prints one JSON result per line: ns per
//! frame and allocations per frame, for an unchanged snapshot, one whose caret moved, and one
//! where a document's dirty flag flipped.
//! A frame is what the editor's loop does: the snapshot in, `handle_timeout` at the frame's
//! time, every output drained. `-- --quick` runs one short round of each (a smoke test).

use allocation_counter::measure;
use idelink_benches::engine_ops::connect_client;
use idelink_benches::measure::{ROUND, emit, time_op};
use idelink_core::ide::{Position, Range, Severity};
use idelink_core::snapshot::{
    ActiveView, DiagnosticCodeView, DiagnosticView, DocumentView, FileDiagnosticsView, Snapshot,
};
use idelink_core::{AuthToken, Config, Engine, Output, Timestamp};

const PORT: u16 = 40000;
const TOKEN: &str = "00112233445566778899aabbccddeeff";
const DOCUMENTS: usize = 200;
/// One frame at 60 Hz, in milliseconds (rounded down: the engine's clock counts milliseconds).
const FRAME_MS: u64 = 16;
const COUNTED: usize = 1000;

fn main() {
    let quick = std::env::args().any(|a| a == "--quick");
    let (rounds, round) = if quick { (1, ROUND / 10) } else { (7, ROUND) };

    let paths: Vec<String> = (0..DOCUMENTS)
        .map(|i| format!("/home/me/game/scripts/module_{i:03}/behaviour.cpp"))
        .collect();
    let documents: Vec<DocumentView<'_>> = paths
        .iter()
        .enumerate()
        .map(|(i, path)| DocumentView {
            path,
            language_id: Some("cpp"),
            is_dirty: i % 7 == 0,
            is_untitled: false,
        })
        .collect();
    let warnings: Vec<DiagnosticView<'_>> = (0..3)
        .map(|line| DiagnosticView {
            message: "unused variable 'speed'",
            severity: Severity::Warning,
            range: range(line, 4, 9),
            source: Some("clang"),
            code: Some(DiagnosticCodeView::Text("-Wunused-variable")),
        })
        .collect();
    let diagnostics: Vec<FileDiagnosticsView<'_>> = paths
        .iter()
        .step_by(10)
        .map(|path| FileDiagnosticsView {
            path,
            diagnostics: &warnings,
        })
        .collect();
    let at_line = |line| Snapshot {
        documents: &documents,
        active: Some(ActiveView {
            path: &paths[42],
            text: "",
            selection: range(line, 4, 4),
        }),
        diagnostics: &diagnostics,
        workspace_folders: &["/home/me/game"],
    };

    let mut editor = Editor::new();
    let unchanged = at_line(10);
    let _ = editor.frame(&unchanged);
    let ns = time_op(rounds, round, || editor.frame(&unchanged));
    emit("snapshot", "200 documents, unchanged", "", "ns/op", &ns);
    let allocs = editor.allocations(|editor| editor.frame(&unchanged));
    emit(
        "snapshot",
        "200 documents, unchanged",
        "",
        "allocs/op",
        &[allocs],
    );

    let moves: Vec<Snapshot<'_>> = (0..64).map(at_line).collect();
    let mut next = 0;
    let mut moved = |editor: &mut Editor| {
        next = (next + 1) % moves.len();
        editor.frame(&moves[next])
    };
    let ns = time_op(rounds, round, || moved(&mut editor));
    emit("snapshot", "200 documents, caret moved", "", "ns/op", &ns);
    let allocs = editor.allocations(&mut moved);
    emit(
        "snapshot",
        "200 documents, caret moved",
        "",
        "allocs/op",
        &[allocs],
    );

    let mut flipped = documents.clone();
    flipped[150].is_dirty = !flipped[150].is_dirty;
    let dirty = [
        Snapshot {
            documents: &flipped,
            ..unchanged
        },
        unchanged,
    ];
    let mut next = 0;
    let mut edited = |editor: &mut Editor| {
        next = (next + 1) % dirty.len();
        editor.frame(&dirty[next])
    };
    let name = "200 documents, one dirty flag flipped";
    let ns = time_op(rounds, round, || edited(&mut editor));
    emit("snapshot", name, "", "ns/op", &ns);
    let allocs = editor.allocations(&mut edited);
    emit("snapshot", name, "", "allocs/op", &[allocs]);
}

fn range(line: u32, from: u32, to: u32) -> Range {
    Range {
        start: Position {
            line,
            character: from,
        },
        end: Position {
            line,
            character: to,
        },
    }
}

/// An engine with one ready client, driven as an editor's frame loop drives it.
struct Editor {
    engine: Engine,
    now: Timestamp,
}

impl Editor {
    fn new() -> Editor {
        let mut config = Config::new(PORT);
        config.ready_delay_ms = 0;
        config.ws.keepalive_interval_ms = 0;
        config.workspace_folders = vec!["/home/me/game".into()];
        let token = AuthToken::parse(TOKEN).expect("TOKEN is 32 lowercase hex digits");
        let mut engine = Engine::new(config, token);
        connect_client(&mut engine, PORT, TOKEN);
        let now = Timestamp::from_millis(0);
        let mut editor = Editor { engine, now };
        editor.drain();
        editor
    }

    /// One frame: the snapshot in, the timers, every output drained; returns the bytes sent.
    fn frame(&mut self, snapshot: &Snapshot<'_>) -> usize {
        self.now = self.now.add_millis(FRAME_MS);
        let changes = self.engine.handle_snapshot(self.now, snapshot);
        self.engine.handle_timeout(self.now);
        usize::from(changes.any()) + self.drain()
    }

    fn drain(&mut self) -> usize {
        let mut sent = 0;
        while let Some(output) = self.engine.poll_output() {
            if let Output::Transmit { conn } = output {
                let n = self.engine.outbound(conn).len();
                sent += n;
                let _ = self.engine.handle_sent(conn, n);
            }
        }
        sent
    }

    /// Mean allocations per call of `op` over `COUNTED` calls.
    fn allocations(&mut self, mut op: impl FnMut(&mut Editor) -> usize) -> f64 {
        let info = measure(|| {
            for _ in 0..COUNTED {
                std::hint::black_box(op(self));
            }
        });
        info.count_total as f64 / COUNTED as f64
    }
}
