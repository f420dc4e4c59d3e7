#!/usr/bin/env node
// What napi adds per engine call. Builds the release addon and the engine-only loop
// (examples/engine_loop.rs), then runs the same loop both ways: one small `tools/call`
// (getCurrentSelection) in with handleBytes, then pollOutput until null, with outbound +
// handleSent for the transmit — 6 engine calls per iteration. The difference, per call, is
// what the binding adds: argument conversion, the output object, the Buffer copy, the panic
// guard and napi itself.
//
//   node bindings/node/bench/overhead.mjs [iterations] [--callgrind]
//
// The same loop also runs on the WebAssembly fallback (IDELINK_FORCE_WASM=1, lib/wasm.js over
// the idelink-wasm Node build) when bindings/wasm/build.sh has built it
// (bindings/wasm/pkg/nodejs; IDELINK_WASM_MODULE names another build).
//
// Wall-clock figures are the best of 5 runs (they vary up to 2x on a busy machine). With
// --callgrind it also counts instructions per iteration under valgrind (two runs of each loop,
// differenced, so start-up cancels out): a figure that does not depend on machine load.

import { execFileSync, spawnSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

const WARMUP = 20_000;
const TOKEN = '00112233445566778899aabbccddeeff';
const MASK = [0x37, 0xfa, 0x21, 0x3d];
/** The same bytes as CALL in examples/engine_loop.rs. */
const CALL = '{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"getCurrentSelection","arguments":{}}}';

function clientFrame(text) {
  const payload = Buffer.from(text);
  const length = payload.length < 126 ? [payload.length] : [126, payload.length >> 8, payload.length & 0xff];
  return Buffer.from([0x81, 0x80 | length[0], ...length.slice(1), ...MASK, ...payload.map((b, i) => b ^ MASK[i % 4])]);
}

/** Drains the outputs; returns the number of engine calls made (as engine_loop.rs counts). */
function drain(engine) {
  let calls = 1;
  for (let out = engine.pollOutput(); out !== null; out = engine.pollOutput()) {
    calls += 1;
    if (out.kind === 'transmit') {
      const bytes = engine.outbound(out.conn);
      engine.handleSent(out.conn, bytes.length);
      calls += 2;
    }
  }
  return calls;
}

/** An engine with one initialized session and a selection to answer from (as engine_loop.rs). */
function session(Engine) {
  const engine = new Engine({ port: 40000, readyDelayMs: 0 }, TOKEN);
  const conn = engine.handleAccept(1);
  const upgrade =
    'GET / HTTP/1.1\r\nHost: 127.0.0.1:40000\r\nConnection: Upgrade\r\nUpgrade: websocket\r\n' +
    'Sec-WebSocket-Version: 13\r\nSec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==\r\n' +
    `Sec-WebSocket-Protocol: mcp\r\nX-Claude-Code-Ide-Authorization: ${TOKEN}\r\n\r\n`;
  const init =
    '{"jsonrpc":"2.0","id":0,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"claude-code","version":"2.1.332"}}}';
  engine.handleBytes(1, conn, Buffer.concat([
    Buffer.from(upgrade),
    clientFrame(init),
    clientFrame('{"jsonrpc":"2.0","method":"notifications/initialized"}'),
  ]));
  engine.handleEditorEvent(1, {
    type: 'selectionChanged',
    path: '/w/a.rs',
    text: 'fn main',
    selection: { start: { line: 0, character: 0 }, end: { line: 0, character: 7 } },
  });
  engine.handleTimeout(1000);
  drain(engine);
  return { engine, conn };
}

/** The JS loop (child mode): warm up, then the best of `runs` timed runs, as JSON. */
async function jsLoop(iterations, runs) {
  const { Engine } = await import('idelink');
  const { engine, conn } = session(Engine);
  const frame = clientFrame(CALL);
  let calls = 0;
  const run = (count) => {
    const start = process.hrtime.bigint();
    for (let i = 0; i < count; i++) {
      engine.handleBytes(1000, conn, frame);
      calls = 1 + drain(engine);
    }
    return Number(process.hrtime.bigint() - start) / count;
  };
  run(WARMUP);
  let best = Infinity;
  for (let r = 0; r < runs; r++) best = Math.min(best, run(iterations));
  const idle = () => {
    const start = process.hrtime.bigint();
    for (let i = 0; i < iterations; i++) engine.pollOutput();
    return Number(process.hrtime.bigint() - start) / iterations;
  };
  // Timed runs also time the cheapest call; a counting run (runs = 1) must count the loop only.
  let emptyCall = Infinity;
  for (let r = 0; r < runs && runs > 1; r++) emptyCall = Math.min(emptyCall, idle());
  console.log(JSON.stringify({ iterations, nsPerIteration: best, callsPerIteration: calls, emptyCallNs: emptyCall }));
}

const args = process.argv.slice(2);
if (args[0] === '--loop') {
  await jsLoop(Number(args[1]), Number(args[2]));
  process.exit(0);
}

const callgrind = args.includes('--callgrind');
const iterations = Number(args.find((a) => !a.startsWith('--')) ?? 200_000);
const root = fileURLToPath(new URL('../../..', import.meta.url));
const self = fileURLToPath(import.meta.url);
const run = (cmd, argv, env = process.env) =>
  execFileSync(cmd, argv, { cwd: root, env, encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe'] });

run('cargo', ['build', '--release', '-q', '-p', 'idelink-node', '--lib', '--example', 'engine_loop']);
const target = JSON.parse(run('cargo', ['metadata', '--format-version', '1', '--no-deps'])).target_directory;
const library = { linux: 'libidelink_node.so', darwin: 'libidelink_node.dylib', win32: 'idelink_node.dll' }[process.platform];
const env = { ...process.env, IDELINK_NODE_ADDON: join(target, 'release', library) };
const rustBin = join(target, 'release', 'examples', 'engine_loop');
const rustCmd = (n, runs) => [rustBin, [String(n), String(runs)]];
const jsCmd = (n, runs) => [process.execPath, [self, '--loop', String(n), String(runs)]];

const wasmModule = process.env.IDELINK_WASM_MODULE ?? join(root, 'bindings', 'wasm', 'pkg', 'nodejs', 'idelink_wasm.js');
const wasmEnv = { ...process.env, IDELINK_FORCE_WASM: '1', IDELINK_WASM_MODULE: wasmModule };
delete wasmEnv.IDELINK_NODE_ADDON;

const rust = JSON.parse(run(...rustCmd(iterations, 5)));
const js = JSON.parse(run(...jsCmd(iterations, 5), env));
const wasm = existsSync(wasmModule) ? JSON.parse(run(...jsCmd(iterations, 5), wasmEnv)) : null;
if (js.callsPerIteration !== rust.callsPerIteration) {
  throw new Error(`the loops differ: ${js.callsPerIteration} calls per iteration in JS, ${rust.callsPerIteration} in Rust`);
}
const calls = js.callsPerIteration;
const added = (js.nsPerIteration - rust.nsPerIteration) / calls;
const fmt = (n, unit) => `${n.toFixed(0).padStart(7)} ${unit}`;
console.log(`tools/call getCurrentSelection: ${calls} engine calls per iteration (Node ${process.versions.node})`);
console.log(`wall clock, best of 5 x ${iterations}:`);
console.log(`  engine only (Rust, release)  ${fmt(rust.nsPerIteration, 'ns')} per iteration`);
console.log(`  through napi                 ${fmt(js.nsPerIteration, 'ns')} per iteration`);
console.log(`  added by the binding         ${fmt(added, 'ns')} per call`);
console.log(`  pollOutput() -> null         ${fmt(js.emptyCallNs, 'ns')} per call (the cheapest round trip)`);
const result = { iterations, calls, rustNs: rust.nsPerIteration, napiNs: Math.round(js.nsPerIteration), addedNsPerCall: Math.round(added) };
if (wasm === null) {
  console.log(`  WebAssembly fallback         not measured: ${wasmModule} is missing (bash bindings/wasm/build.sh)`);
} else {
  const wasmAdded = (wasm.nsPerIteration - rust.nsPerIteration) / calls;
  console.log(`  through the wasm fallback    ${fmt(wasm.nsPerIteration, 'ns')} per iteration`);
  console.log(`  added by the fallback        ${fmt(wasmAdded, 'ns')} per call (engine in wasm + JSON across the boundary)`);
  console.log(`  wasm pollOutput() -> null    ${fmt(wasm.emptyCallNs, 'ns')} per call`);
  Object.assign(result, { wasmNs: Math.round(wasm.nsPerIteration), wasmAddedNsPerCall: Math.round(wasmAdded) });
}

if (callgrind) {
  const [small, large] = [2_000, 12_000];
  /** Instructions callgrind counts for one run of `cmd` (warm-up plus one pass of `n`). */
  const collected = ([cmd, argv], childEnv) => {
    const out = spawnSync('valgrind', ['--tool=callgrind', '--callgrind-out-file=/dev/null', cmd, ...argv], {
      cwd: root, env: childEnv, encoding: 'utf8',
    });
    const match = /Collected : (\d+)/.exec(out.stderr ?? '');
    if (out.status !== 0 || !match) throw new Error(`valgrind failed (is it installed?): ${out.error ?? out.stderr}`);
    return Number(match[1]);
  };
  /** Instructions per iteration: two runs differenced, so start-up and warm-up cancel out. */
  const perIteration = (command, childEnv) =>
    (collected(command(large, 1), childEnv) - collected(command(small, 1), childEnv)) / (large - small);
  const rustIr = perIteration(rustCmd, process.env);
  const jsIr = perIteration(jsCmd, env);
  const addedIr = (jsIr - rustIr) / calls;
  // Calibrate with the Rust loop's own speed on this machine (its wall clock per instruction).
  const nsPerIr = rust.nsPerIteration / rustIr;
  console.log(`instructions (callgrind, ${large} - ${small} iterations):`);
  console.log(`  engine only (Rust, release)  ${fmt(rustIr, 'Ir')} per iteration`);
  console.log(`  through napi                 ${fmt(jsIr, 'Ir')} per iteration`);
  console.log(`  added by the binding         ${fmt(addedIr, 'Ir')} per call, about ${(addedIr * nsPerIr).toFixed(0)} ns at the Rust loop's ${nsPerIr.toFixed(3)} ns/Ir`);
  Object.assign(result, { rustIr: Math.round(rustIr), napiIr: Math.round(jsIr), addedIrPerCall: Math.round(addedIr) });
  if (wasm !== null) {
    const wasmIr = perIteration(jsCmd, wasmEnv);
    const wasmAddedIr = (wasmIr - rustIr) / calls;
    console.log(`  through the wasm fallback    ${fmt(wasmIr, 'Ir')} per iteration`);
    console.log(`  added by the fallback        ${fmt(wasmAddedIr, 'Ir')} per call, about ${(wasmAddedIr * nsPerIr).toFixed(0)} ns`);
    Object.assign(result, { wasmIr: Math.round(wasmIr), wasmAddedIrPerCall: Math.round(wasmAddedIr) });
  }
}

console.log(JSON.stringify(result));
