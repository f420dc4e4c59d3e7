'use strict';
// Loads the native engine: idelink.node in the package root, or the file named by
// IDELINK_NODE_ADDON (a release build for the benchmark, a prebuilt binary elsewhere).

const fs = require('node:fs');
const path = require('node:path');

const file = process.env.IDELINK_NODE_ADDON || path.join(__dirname, '..', 'idelink.node');

if (!fs.existsSync(file)) {
  throw new Error(
    `idelink: the native addon ${file} is missing; build it with ` +
      '`cargo build --release -p idelink-node` and copy target/release/libidelink_node.so ' +
      '(libidelink_node.dylib on macOS, idelink_node.dll on Windows) to that path, ' +
      'or run scripts/test',
  );
}

// process.dlopen, unlike require, loads a library whatever its file name ends with.
const addon = { exports: {} };
process.dlopen(addon, file);
module.exports = addon.exports;
