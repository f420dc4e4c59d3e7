//! The context policy's cost per push and per read answer: the same operations on an engine
//! with no policy and on one with a policy, as a ratio (the goal: within 1.1×).
//!
//! The source builds against any idelink-core: the policy is given as JSON in
//! `IDELINK_BENCH_POLICY` (added to the config's JSON form, so an engine without policies is
//! measured by the same code built from an older tree). scripts/bench-policy builds it in this
//! tree and in the tree of a commit before the policy, and runs both under callgrind
//! (`--callgrind OP N`: only N operations of OP, for the instruction count) and on the clock.
//!
//! Operations: `push` (the selection moves, the debounce runs out, `selection_changed` goes to
//! one client), `selection` (`getCurrentSelection`), `tabs` (`getOpenEditors`, 20 tabs),
//! `diagnostics` (`getDiagnostics` of every file: 20 files of 5 entries).

use idelink_benches::measure::{ROUND, emit, time_op};
use idelink_benches::wire;
use idelink_core::{AuthToken, Config, ConnId, EditorEvent, Engine, Output, Timestamp};
use serde_json::json;

const PORT: u16 = 40_000;
const TOKEN: &str = "00112233445566778899aabbccddeeff";
const ROOT: &str = "/home/u/proj";
const FILES: usize = 20;

/// An engine with one ready client, 20 open documents with diagnostics, a selection.
struct Bench {
    engine: Engine,
    conn: ConnId,
    now: u64,
    line: u32,
    next_id: u64,
}

impl Bench {
    fn new() -> Bench {
        let mut config = json!({"port": PORT, "readyDelayMs": 0, "startupWindowMs": 0,
            "workspaceFolders": [ROOT], "ws": {"keepaliveIntervalMs": 0}});
        if let Ok(policy) = std::env::var("IDELINK_BENCH_POLICY") {
            config["policy"] = serde_json::from_str(&policy).expect("IDELINK_BENCH_POLICY is JSON");
        }
        let config = Config::from_json(&config.to_string()).expect("a config this engine reads");
        let token = AuthToken::parse(TOKEN).expect("TOKEN is 32 lowercase hex digits");
        let mut engine = Engine::new(config, token);
        let now = Timestamp::from_millis(0);
        let conn = engine.handle_accept(now);
        let mut hello = wire::upgrade_request(PORT, TOKEN);
        hello.extend(wire::client_frame(wire::initialize()));
        hello.extend(wire::client_frame(wire::initialized()));
        engine
            .handle_bytes(now, conn, &hello)
            .expect("a known connection");
        engine.handle_timeout(now);
        let mut bench = Bench {
            engine,
            conn,
            now: 0,
            line: 0,
            next_id: 1,
        };
        bench.drain();
        for n in 0..FILES {
            let path = format!("{ROOT}/src/module_{n}.rs");
            bench.event(&json!({"type": "documentOpened", "path": path, "languageId": "rust"}));
            let diagnostics: Vec<_> = (0..5)
                .map(|d| json!({"message": format!("unused variable {d}"), "severity": "Warning",
                    "range": {"start": {"line": d, "character": 4}, "end": {"line": d, "character": 9}}}))
                .collect();
            bench.event(
                &json!({"type": "diagnosticsChanged", "path": path, "diagnostics": diagnostics}),
            );
        }
        bench.push();
        bench
    }

    fn event(&mut self, event: &serde_json::Value) {
        let event: EditorEvent =
            serde_json::from_value(event.clone()).expect("an editor event this engine reads");
        self.engine
            .handle_editor_event(Timestamp::from_millis(self.now), &event);
        self.drain();
    }

    /// The selection moves; the debounce runs out; the push goes. Returns the bytes sent.
    fn push(&mut self) -> usize {
        self.line = (self.line + 1) % 1000;
        let event = json!({"type": "selectionChanged", "path": format!("{ROOT}/src/module_3.rs"),
            "text": "let x = 1;", "selection": {"start": {"line": self.line, "character": 0},
            "end": {"line": self.line, "character": 10}}});
        self.event(&event);
        self.now += 1_000;
        self.engine.handle_timeout(Timestamp::from_millis(self.now));
        self.drain()
    }

    /// One `tools/call` of `tool` with `{}`; returns the bytes sent.
    fn call(&mut self, tool: &str) -> usize {
        let id = self.next_id;
        self.next_id += 1;
        let frame = wire::client_frame(
            &json!({"jsonrpc": "2.0", "id": id, "method": "tools/call",
                "params": {"name": tool, "arguments": {}}})
            .to_string(),
        );
        let _ = self
            .engine
            .handle_bytes(Timestamp::from_millis(self.now), self.conn, &frame);
        self.drain()
    }

    fn run(&mut self, op: &str) -> usize {
        match op {
            "push" => self.push(),
            "selection" => self.call("getCurrentSelection"),
            "tabs" => self.call("getOpenEditors"),
            "diagnostics" => self.call("getDiagnostics"),
            other => panic!("no operation {other}: push, selection, tabs, diagnostics"),
        }
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
}

const OPS: [&str; 4] = ["push", "selection", "tabs", "diagnostics"];

fn main() {
    let args: Vec<String> = std::env::args().collect();
    if let Some(at) = args.iter().position(|a| a == "--callgrind") {
        let op = args.get(at + 1).map_or("push", String::as_str);
        let n: usize = args
            .get(at + 2)
            .and_then(|n| n.parse().ok())
            .unwrap_or(1000);
        let mut bench = Bench::new();
        for _ in 0..n {
            std::hint::black_box(bench.run(op));
        }
        return;
    }
    let quick = args.iter().any(|a| a == "--quick");
    let (rounds, round) = if quick { (1, ROUND / 10) } else { (7, ROUND) };
    let label = std::env::var("IDELINK_BENCH_LABEL").unwrap_or_else(|_| "engine".to_owned());
    for op in OPS {
        let mut bench = Bench::new();
        let ns = time_op(rounds, round, || bench.run(op));
        emit("policy", op, &label, "ns/op", &ns);
    }
}
