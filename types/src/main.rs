//! Writes the TypeScript declarations of idelink-core's JSON forms into both npm packages, or,
//! with `--check`, fails when the committed files differ from what the types generate.
//!
//! Each package keeps its own copy, so neither reaches into the other's folder: the Node
//! package ships `protocol.d.ts`, the wasm crate embeds `src/protocol.d.ts` in the
//! declarations wasm-bindgen writes.

mod declarations;
mod docs;
mod format;
mod parse;

use std::path::{Path, PathBuf};
use std::process::ExitCode;

/// The generated files, relative to the workspace root.
const TARGETS: [&str; 2] = [
    "bindings/node/protocol.d.ts",
    "bindings/wasm/src/protocol.d.ts",
];

/// The command that rewrites the files.
const REGENERATE: &str = "cargo run -p idelink-types";

fn main() -> ExitCode {
    let check = match std::env::args().nth(1).as_deref() {
        None => false,
        Some("--check") => true,
        Some(other) => {
            eprintln!("unknown argument {other}: usage: {REGENERATE} [-- --check]");
            return ExitCode::FAILURE;
        }
    };
    let text = match declarations::generate() {
        Ok(text) => text,
        Err(problems) => {
            eprintln!("{problems}");
            return ExitCode::FAILURE;
        }
    };
    // A development tool run from the checkout: the workspace root is this crate's parent.
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("..");
    let mut ok = true;
    for target in TARGETS {
        let path: PathBuf = root.join(target);
        let result = if check {
            compare(&path, target, &text)
        } else {
            std::fs::write(&path, &text)
                .map(|()| println!("wrote {target} ({} bytes)", text.len()))
                .map_err(|e| format!("cannot write {target}: {e}"))
        };
        if let Err(message) = result {
            eprintln!("{message}");
            ok = false;
        }
    }
    if ok {
        ExitCode::SUCCESS
    } else {
        ExitCode::FAILURE
    }
}

/// Whether the committed `path` holds `text`; the error names the first differing line.
fn compare(path: &Path, target: &str, text: &str) -> Result<(), String> {
    let committed = std::fs::read_to_string(path).unwrap_or_default();
    if committed == text {
        return Ok(());
    }
    let line = committed
        .lines()
        .zip(text.lines())
        .position(|(a, b)| a != b)
        .unwrap_or_else(|| committed.lines().count().min(text.lines().count()));
    Err(format!(
        "{target} differs from what the Rust types generate (first at line {}): run `{REGENERATE}` and commit the result",
        line + 1
    ))
}
