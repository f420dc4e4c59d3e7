//! The turn ledger's cost per edit (issue 30): the calls claude makes around one file edit in
//! accept-edits mode (docs/protocol.md, "A turn's signals") — the pre-edit
//! `getDiagnostics {uri}`, whose answer waits for the host's baseline read, then the post-edit
//! `getDiagnostics {}`, after which the host's second read settles the file (the diff) — on an
//! engine with the ledger, against the same calls on an engine without it (no reads, no diff).
//!
//! Scenarios:
//! - `edit 1 MiB file`: a fresh turn (`closeAllDiffTabs`), one 1 MiB file (16,384 lines of 64
//!   bytes), one line changed in its middle.
//! - `200-file turn`: one turn in which 200 files of 4 KiB are each edited once; the figure is
//!   per edit.
//!
//! Memory: the bytes the ledger holds after one such turn (`Ledger::held_bytes`: each file's
//! baseline and current text), and the heap bytes allocated per edit (counting allocator).
//! The host's own read of the file (here a `FileContent` built once) is not counted: any
//! review needs it.

use allocation_counter::measure;
use idelink_benches::engine_ops::connect_client;
use idelink_benches::measure::{ROUND, emit, time_op};
use idelink_benches::wire;
use idelink_core::ledger::FileContent;
use idelink_core::{AuthToken, Config, ConnId, Engine, EngineEvent, Output, Timestamp};
use serde_json::json;

const PORT: u16 = 40_000;
const TOKEN: &str = "00112233445566778899aabbccddeeff";
const ROOT: &str = "/home/u/proj";

/// A file of `lines` lines of 64 bytes, and the same with line `lines / 2` changed.
fn file_texts(lines: usize) -> (FileContent, FileContent) {
    let line = |n: usize, mark: &str| {
        let mut line = format!("{mark}line {n:08} of the file ");
        line.extend(std::iter::repeat_n('.', 63 - line.len()));
        line.push('\n');
        line
    };
    let before: String = (0..lines).map(|n| line(n, "  ")).collect();
    let after: String = (0..lines)
        .map(|n| line(n, if n == lines / 2 { "//" } else { "  " }))
        .collect();
    assert_eq!(before.len(), lines * 64, "64-byte lines");
    (
        FileContent::Text { text: before },
        FileContent::Text { text: after },
    )
}

/// One engine with one initialized client, driven through a turn's calls.
struct Turns {
    engine: Engine,
    conn: ConnId,
    now: u64,
    next_id: u64,
    /// The ledger reads the engine asked for since the last call, in order.
    reads: Vec<u64>,
}

impl Turns {
    fn new(ledger: bool) -> Turns {
        let config = json!({"port": PORT, "readyDelayMs": 0, "startupWindowMs": 0,
            "workspaceFolders": [ROOT], "ws": {"keepaliveIntervalMs": 0}, "ledger": ledger});
        let config = Config::from_json(&config.to_string()).expect("a config this engine reads");
        let token = AuthToken::parse(TOKEN).expect("TOKEN is 32 lowercase hex digits");
        let mut engine = Engine::new(config, token);
        let conn = connect_client(&mut engine, PORT, TOKEN);
        let mut turns = Turns {
            engine,
            conn,
            now: 0,
            next_id: 1,
            reads: Vec::new(),
        };
        turns.drain();
        turns
    }

    /// One `tools/call` of `tool` with `arguments`; returns the bytes sent.
    fn call(&mut self, tool: &str, arguments: &str) -> usize {
        let id = self.next_id;
        self.next_id += 1;
        let frame = wire::client_frame(&format!(
            r#"{{"jsonrpc":"2.0","id":{id},"method":"tools/call","params":{{"name":"{tool}","arguments":{arguments}}}}}"#
        ));
        self.now += 1;
        self.engine
            .handle_bytes(Timestamp::from_millis(self.now), self.conn, &frame)
            .expect("a known connection");
        self.drain()
    }

    /// Answers every ledger read asked for with `content`; returns the bytes sent.
    fn answer_reads(&mut self, content: &FileContent) -> usize {
        let mut sent = 0;
        for read in std::mem::take(&mut self.reads) {
            self.engine
                .handle_ledger_read(Timestamp::from_millis(self.now), read, content)
                .expect("a read the engine asked for");
            sent += self.drain();
        }
        sent
    }

    /// One edit of `path` from `before` to `after`: the pre-edit call and its baseline read,
    /// then the post-edit call and its settle read. Returns the bytes sent.
    fn edit(&mut self, path: &str, before: &FileContent, after: &FileContent) -> usize {
        let uri = format!(r#"{{"uri":"file://{path}"}}"#);
        let mut sent = self.call("getDiagnostics", &uri);
        sent += self.answer_reads(before);
        sent += self.call("getDiagnostics", "{}");
        sent + self.answer_reads(after)
    }

    fn start_turn(&mut self) -> usize {
        self.call("closeAllDiffTabs", "{}")
    }

    fn drain(&mut self) -> usize {
        let mut sent = 0;
        while let Some(output) = self.engine.poll_output() {
            match output {
                Output::Transmit { conn } => {
                    let n = self.engine.outbound(conn).len();
                    sent += n;
                    let _ = self.engine.handle_sent(conn, n);
                }
                Output::Event(EngineEvent::LedgerRead { read, .. }) => self.reads.push(read),
                _ => {}
            }
        }
        sent
    }
}

/// The paths of the 200-file turn.
fn paths(n: usize) -> Vec<String> {
    (0..n)
        .map(|i| format!("{ROOT}/src/file_{i:03}.rs"))
        .collect()
}

const TURN_FILES: usize = 200;

fn main() {
    let quick = std::env::args().any(|a| a == "--quick");
    let (rounds, round) = if quick { (1, ROUND / 10) } else { (7, ROUND) };
    let (big_before, big_after) = file_texts(16_384);
    let (small_before, small_after) = file_texts(64);
    let turn_paths = paths(TURN_FILES);
    for (label, ledger) in [("ledger", true), ("no ledger", false)] {
        let big = format!("{ROOT}/src/big.rs");
        let mut turns = Turns::new(ledger);
        let ns = time_op(rounds, round, || {
            turns.start_turn() + turns.edit(&big, &big_before, &big_after)
        });
        emit("ledger", "edit 1 MiB file", label, "ns/op", &ns);

        let mut turns = Turns::new(ledger);
        let ns = time_op(rounds, round, || {
            let mut sent = turns.start_turn();
            for path in &turn_paths {
                sent += turns.edit(path, &small_before, &small_after);
            }
            sent
        });
        let per_edit: Vec<f64> = ns.iter().map(|ns| ns / TURN_FILES as f64).collect();
        emit("ledger", "200-file turn", label, "ns/edit", &per_edit);
    }

    // Memory: one more turn of each kind on a fresh engine with the ledger.
    let mut turns = Turns::new(true);
    turns.start_turn();
    let big = format!("{ROOT}/src/big.rs");
    let counted = measure(|| {
        turns.edit(&big, &big_before, &big_after);
    });
    let held = turns.engine.ledger().held_bytes() as f64;
    emit("ledger", "edit 1 MiB file", "ledger", "held bytes", &[held]);
    emit(
        "ledger",
        "edit 1 MiB file",
        "ledger",
        "allocated bytes/edit",
        &[counted.bytes_total as f64],
    );

    let mut turns = Turns::new(true);
    turns.start_turn();
    let counted = measure(|| {
        for path in &turn_paths {
            turns.edit(path, &small_before, &small_after);
        }
    });
    let held = turns.engine.ledger().held_bytes() as f64;
    emit("ledger", "200-file turn", "ledger", "held bytes", &[held]);
    emit(
        "ledger",
        "200-file turn",
        "ledger",
        "allocated bytes/edit",
        &[counted.bytes_total as f64 / TURN_FILES as f64],
    );
}
