// Replays the shared transcript vectors through the wasm build (nodejs target), byte for byte
// (the runner: tests/vectors/replay.mjs).
import { defineVectorTests } from '../../../tests/vectors/replay.mjs';
import { loadEngine } from '../testkit/load.mjs';

const { Engine } = loadEngine();
defineVectorTests((config, token) => new Engine(config, token), (engine) => engine.free());
