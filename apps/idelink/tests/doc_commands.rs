//! Every command line shown in README.md and docs/*.md, run, so the docs cannot drift from the
//! program.
//!
//! Each ```` ```sh ```` block is read line by line (`\` continuations joined, `# comments`
//! dropped) and run in a fresh sandbox folder with a private HOME, top to bottom, as a person
//! would type it:
//! - `idelink ARGS` and `cargo run [--release] -p idelink -- ARGS` run the built binary.
//!   `serve` and `relay` are servers: each must print its first line (or exit successfully)
//!   and then keeps running, as in another terminal, until the block ends. Everything else must
//!   exit 0 within the deadline. `idelink claude` starts `true` instead of a real claude.
//! - `cd DIR` moves into DIR (created in the sandbox); `bash FILE` needs FILE in the repository;
//!   a line of `NAME=value` words only sets variables.
//! - Any other program must be named in the marker line right above the block,
//!   `<!-- docs-test by hand: PROGRAM[, PROGRAM…] (why) -->`: the few lines no test can run
//!   (a real claude, a registry download) are listed there, explicitly.
//!
//! Placeholders: `/path/to/workspace` becomes a folder in the sandbox; relative folders
//! (`your/project`) are created there.
#![cfg(unix)]
#![expect(
    clippy::unwrap_used,
    reason = "a test: any failure must stop it loudly"
)]

use std::fs::File;
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::sync::mpsc::Receiver;

mod support;

use support::{DEADLINE, lines, wait_exit};

/// The marker naming the programs of the next block that are run by hand.
const MARKER: &str = "<!-- docs-test by hand:";
/// Placeholders in the docs and what they stand for, relative to the sandbox.
const PLACEHOLDERS: [(&str, &str); 1] = [("/path/to/workspace", "workspace")];

/// One ```sh block.
struct Block {
    /// `file:line` of the fence.
    place: String,
    /// Programs the marker lists.
    by_hand: Vec<String>,
    /// `(line number, command line)`, continuations joined, comments dropped.
    commands: Vec<(usize, String)>,
}

fn repo_root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../..")
        .canonicalize()
        .unwrap()
}

fn doc_files() -> Vec<PathBuf> {
    let root = repo_root();
    let mut files = vec![root.join("README.md")];
    let mut docs: Vec<PathBuf> = std::fs::read_dir(root.join("docs"))
        .unwrap()
        .map(|entry| entry.unwrap().path())
        .filter(|path| path.extension().is_some_and(|e| e == "md"))
        .collect();
    docs.sort();
    files.extend(docs);
    files
}

fn blocks(name: &str, text: &str) -> Vec<Block> {
    let mut blocks = Vec::new();
    let mut lines = text.lines().enumerate().peekable();
    let mut previous = "";
    while let Some((index, line)) = lines.next() {
        if line.trim() != "```sh" {
            previous = line;
            continue;
        }
        let by_hand = previous
            .trim()
            .strip_prefix(MARKER)
            .map(|rest| {
                let list = rest.split('(').next().unwrap_or("");
                list.split(',')
                    .map(|p| p.trim().trim_end_matches("-->").trim().to_owned())
                    .collect()
            })
            .unwrap_or_default();
        let mut block = Block {
            place: format!("{name}:{}", index + 1),
            by_hand,
            commands: Vec::new(),
        };
        let mut pending: Option<(usize, String)> = None;
        for (number, line) in lines.by_ref() {
            if line.trim() == "```" {
                break;
            }
            let (start, mut joined) = pending.take().unwrap_or((number + 1, String::new()));
            let code = strip_comment(line);
            if let Some(head) = code.trim_end().strip_suffix('\\') {
                joined.push_str(head);
                pending = Some((start, joined));
                continue;
            }
            joined.push_str(code);
            if !joined.trim().is_empty() {
                block.commands.push((start, joined.trim().to_owned()));
            }
        }
        blocks.push(block);
        previous = "";
    }
    blocks
}

/// The line without a `#` comment (a `#` at the start or after a space, outside quotes).
fn strip_comment(line: &str) -> &str {
    let mut quote = None;
    let mut after_space = true;
    for (i, c) in line.char_indices() {
        match (quote, c) {
            (None, '\'' | '"') => quote = Some(c),
            (Some(q), c) if c == q => quote = None,
            (None, '#') if after_space => return &line[..i],
            _ => {}
        }
        after_space = c.is_whitespace();
    }
    line
}

/// Shell words: whitespace-separated, `'…'` and `"…"` quoting (no expansions).
fn words(line: &str) -> Vec<String> {
    let mut words = Vec::new();
    let mut word: Option<String> = None;
    let mut quote = None;
    for c in line.chars() {
        match (quote, c) {
            (None, '\'' | '"') => {
                quote = Some(c);
                word.get_or_insert_with(String::new);
            }
            (Some(q), c) if c == q => quote = None,
            (None, c) if c.is_whitespace() => words.extend(word.take()),
            (_, c) => word.get_or_insert_with(String::new).push(c),
        }
    }
    words.extend(word);
    words
}

/// The idelink arguments of a line that runs idelink, or `None`.
fn idelink_args(words: &[String]) -> Option<Vec<String>> {
    match words.first().map(String::as_str) {
        Some("idelink") => Some(words[1..].to_vec()),
        Some("cargo") if words.get(1).is_some_and(|w| w == "run") => {
            let package = words.windows(2).any(|w| w[0] == "-p" && w[1] == "idelink");
            let dashes = words.iter().position(|w| w == "--")?;
            package.then(|| words[dashes + 1..].to_vec())
        }
        _ => None,
    }
}

/// A block's sandbox and the servers it left running.
struct Run {
    sandbox: PathBuf,
    cwd: PathBuf,
    servers: Vec<(Child, Receiver<String>)>,
}

impl Drop for Run {
    fn drop(&mut self) {
        for (child, _) in &mut self.servers {
            let _ = child.kill();
            let _ = child.wait();
        }
    }
}

impl Run {
    fn new(index: usize) -> Run {
        let sandbox = std::env::temp_dir().join(format!(
            "idelink-doc-commands-{index}-{}",
            std::process::id()
        ));
        let _ = std::fs::remove_dir_all(&sandbox);
        std::fs::create_dir_all(sandbox.join("home/.claude")).unwrap();
        for (_, folder) in PLACEHOLDERS {
            std::fs::create_dir_all(sandbox.join(folder)).unwrap();
        }
        Run {
            cwd: sandbox.clone(),
            sandbox,
            servers: Vec::new(),
        }
    }

    fn idelink(&mut self, place: &str, mut args: Vec<String>) {
        for arg in &mut args {
            for (placeholder, folder) in PLACEHOLDERS {
                if arg == placeholder {
                    *arg = self.sandbox.join(folder).to_str().unwrap().to_owned();
                }
            }
        }
        let redirect = args.iter().position(|a| a == ">");
        let stdout_file = redirect.map(|i| self.cwd.join(&args[i + 1]));
        args.truncate(redirect.unwrap_or(args.len()));
        for arg in args.iter().filter(|a| !a.starts_with('-')).skip(1) {
            let folder = self.cwd.join(arg);
            if arg.contains('/') && !arg.starts_with('/') && !folder.exists() {
                std::fs::create_dir_all(folder).unwrap();
            }
        }
        let home = self.sandbox.join("home");
        let stderr = self.sandbox.join("stderr.txt");
        let mut command = Command::new(env!("CARGO_BIN_EXE_idelink"));
        command
            .args(&args)
            .current_dir(&self.cwd)
            .env_clear()
            .env("PATH", std::env::var_os("PATH").unwrap_or_default())
            .env("HOME", &home)
            .env("CLAUDE_CONFIG_DIR", home.join(".claude"))
            .env("IDELINK_CLAUDE", "true")
            .stdin(Stdio::null())
            .stderr(File::create(&stderr).unwrap());
        let server = matches!(args.first().map(String::as_str), Some("serve" | "relay"));
        match (server, stdout_file) {
            (true, _) => {
                let mut child = command.stdout(Stdio::piped()).spawn().unwrap();
                let out = lines(child.stdout.take().unwrap());
                let first = out.recv_timeout(DEADLINE);
                match child.try_wait().unwrap() {
                    Some(status) if !status.success() => fail(place, &args, &stderr),
                    Some(_) => {}
                    None => {
                        assert!(first.is_ok(), "{place}: idelink {args:?} printed nothing");
                        self.servers.push((child, out));
                    }
                }
            }
            (false, file) => {
                let stdout = file.map_or(Stdio::null(), |f| File::create(f).unwrap().into());
                let mut child = command.stdout(stdout).spawn().unwrap();
                if !wait_exit(&mut child).success() {
                    fail(place, &args, &stderr);
                }
            }
        }
    }
}

fn fail(place: &str, args: &[String], stderr: &Path) -> ! {
    panic!(
        "{place}: idelink {args:?} failed:\n{}",
        std::fs::read_to_string(stderr).unwrap_or_default()
    )
}

#[test]
fn every_command_line_in_the_docs_runs() {
    let root = repo_root();
    let mut ran = 0;
    let mut index = 0;
    for file in doc_files() {
        let name = file.strip_prefix(&root).unwrap().display().to_string();
        for block in blocks(&name, &std::fs::read_to_string(&file).unwrap()) {
            index += 1;
            let mut run = Run::new(index);
            for (number, line) in &block.commands {
                let place = format!("{name}:{number}");
                let words = words(line);
                let program_at = words.iter().position(|w| !is_assignment(w));
                let Some(program_at) = program_at else {
                    continue;
                };
                let words = &words[program_at..];
                if let Some(args) = idelink_args(words) {
                    run.idelink(&place, args);
                    ran += 1;
                    continue;
                }
                match words[0].as_str() {
                    "cd" => {
                        run.cwd = run.cwd.join(&words[1]);
                        std::fs::create_dir_all(&run.cwd).unwrap();
                    }
                    "bash" => assert!(root.join(&words[1]).is_file(), "{place}: no {}", words[1]),
                    program => assert!(
                        block.by_hand.iter().any(|p| p == program),
                        "{place}: `{program}` is neither run by this test nor listed in a \
                         `{MARKER} {program} (why) -->` line above the block at {}",
                        block.place
                    ),
                }
            }
        }
    }
    assert!(
        ran >= 8,
        "only {ran} idelink command lines found: is the extraction broken?"
    );
}

fn is_assignment(word: &str) -> bool {
    word.split_once('=').is_some_and(|(name, _)| {
        !name.is_empty() && name.chars().all(|c| c.is_ascii_alphanumeric() || c == '_')
    })
}

#[test]
fn extraction_joins_continuations_drops_comments_and_reads_the_marker() {
    let text = "x\n<!-- docs-test by hand: npm, cargo (why) -->\n```sh\n\
                a 'b # c' # comment\n\nd \\\n  e\n```\n```sh\nf#g\n```\n";
    let found = blocks("t.md", text);
    assert_eq!(found.len(), 2);
    assert_eq!(found[0].by_hand, ["npm", "cargo"]);
    assert_eq!(
        found[0].commands,
        [(4, "a 'b # c'".to_owned()), (6, "d   e".to_owned())]
    );
    assert!(found[1].by_hand.is_empty());
    assert_eq!(found[1].commands, [(10, "f#g".to_owned())]);
    assert_eq!(words("a 'b # c' \"d e\" ''"), ["a", "b # c", "d e", ""]);
    let cargo = words("cargo run --release -p idelink -- serve --stdio x");
    assert_eq!(idelink_args(&cargo).unwrap(), ["serve", "--stdio", "x"]);
    assert_eq!(idelink_args(&words("cargo run -p other -- serve")), None);
}
