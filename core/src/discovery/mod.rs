//! The `claude` CLI's own rules for choosing an IDE, as pure functions, so that any editor
//! (Rust, Node, a browser page, C) can say "claude started in this folder would connect to
//! the server on port X", and why not when it would not. Read in the bundled code of CLI
//! 2.1.332 (the lock scan around `z="contains-cwd";else for(let Se of H.workspaceFolders)`);
//! `idelink doctor` and `idelink claude` judge with these.
//!
//! - [`paths`]: how the CLI spells a path before comparing ([`cli_path`]) and when a
//!   workspace folder contains its working directory ([`folder_contains`]), for the
//!   [`PathStyle`](crate::ide::PathStyle) of the machine the CLI runs on;
//! - [`switches`]: how it reads its environment variables ([`env_flag`], [`sse_port`],
//!   [`skip_valid_check`]) and which IDE terminal it detects ([`ide_terminal`]);
//! - [`connect`]: whether it looks for an IDE at start ([`auto_connect`]);
//! - [`choice`]: which live lock it takes ([`choose_lock`]);
//! - [`verdict`]: all of it at once, the question an editor asks: [`discover`] a
//!   [`ClaudeStart`] (the folder, the live locks, the environment) into a [`Verdict`] (the port
//!   claude connects to, or why none). These two have JSON forms (`protocol.d.ts`); the
//!   bindings export `discover` and [`folder_contains`].
//!
//! # Unicode: the caller gives NFC
//!
//! The CLI compares paths in Unicode normalization form C (`.normalize("NFC")` on its cwd and
//! on every workspace folder). These functions compare the text they are given and **do not
//! normalize**: the composition tables (the `unicode-normalization` crate's) would not fit the
//! WebAssembly module's size budget (scripts/test). Every path passed in must already be NFC.
//! Each face provides it: the wasm binding (and so the browser and the npm package's fallback)
//! with the JS engine's own `String.prototype.normalize("NFC")`, the Node addon and the C
//! binding with `unicode-normalization` before the call (the same normal form), and a Rust
//! host normalizes first (that crate's `nfc()`, as `idelink doctor` does). Text that is already NFC (ASCII paths, most of what an OS hands out) passes through
//! unchanged.
//!
//! Not modelled: the CLI's WSL mapping of a Windows editor's folders (`runningInWindows`
//! locks seen from inside WSL) and its `inside-cwd` case (a folder below the cwd, which only
//! decides the label of a lock the CLI lists, not whether it connects).

pub mod choice;
pub mod connect;
pub mod paths;
pub mod switches;
pub mod verdict;

pub use choice::{Candidate, LockChoice, choose_lock};
pub use connect::{AutoConnect, AutoConnectReason, ConnectFacts, auto_connect};
pub use paths::{cli_path, folder_contains};
pub use switches::{IdeTerminal, TerminalVars, env_flag, ide_terminal, skip_valid_check, sse_port};
pub use verdict::{ClaudeEnv, ClaudeStart, Verdict, discover};
