// Replays the shared transcript vectors through the napi addon, byte for byte
// (the runner: tests/vectors/replay.mjs).
import { Engine } from 'idelink';
import { defineVectorTests } from '../../../tests/vectors/replay.mjs';

defineVectorTests((config, token) => new Engine(config, token));
