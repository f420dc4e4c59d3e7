// Replays the shared transcript vectors through both wasm modules (the Node one and the
// browser one), byte for byte (the runner: tests/vectors/replay.mjs).
import { describe } from 'node:test';
import { defineVectorTests } from '../../../tests/vectors/replay.mjs';
import { loadBuilds } from '../testkit/load.mjs';

for (const [build, { Engine }] of await loadBuilds()) {
  describe(build, () => {
    defineVectorTests((config, token) => new Engine(config, token), (engine) => engine.free());
  });
}
