'use strict';
// The npm package `idelink`: the engine (a native addon built from src/ with napi, or the same
// engine as WebAssembly where no addon fits: lib/addon.js picks) and the Node host around it
// (lib/). The API is documented in index.d.ts and README.md.

const addon = require('./lib/addon.js');
const { Engine } = require('./lib/engine.js');
const { defaultLockDir } = require('./lib/lock.js');
const { startHost } = require('./lib/host.js');

exports.Engine = Engine;
exports.lockFileJson = addon.lockFileJson;
exports.parseLockFile = addon.parseLockFile;
exports.defaultLockDir = defaultLockDir;
exports.startHost = startHost;
exports.languageId = addon.languageId;
// The claude CLI's discovery rules (core's discovery module; paths put in NFC by the binding).
exports.discover = function discover(start) {
  return JSON.parse(addon.discover(start));
};
exports.folderContains = addon.folderContains;
exports.binding = addon.binding;

// The variables a terminal exports so `claude` connects to `port` (core's terminal_env):
// `inherited` is the environment the terminal would start with (its no_proxy / NO_PROXY
// are kept and extended with loopback).
exports.terminalEnv = function terminalEnv(port, inherited = {}, options = {}) {
  const pairs = addon.terminalEnvPairs(
    port,
    inherited.no_proxy,
    inherited.NO_PROXY,
    Boolean(options.forceCodeTerminal),
  );
  return Object.fromEntries(pairs);
};
