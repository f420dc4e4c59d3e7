//! A tokio editor with a buffer store, served to `claude` through idelink-tokio.
//!
//! ```text
//! cargo run -p idelink-tokio --example buffer_editor -- [--diff reject|accept] [--name NAME]
//!     [--lock-dir DIR] WORKSPACE
//! ```
//!
//! It loads the workspace's top-level files into its buffers, opens them as documents (language
//! ids from core), makes the first one active, and serves until its stdin closes. Every read
//! tool is pulled (`Config::reads`): claude's reads come here as tool calls, like its writes.
//! Each tool call is answered on tokio's blocking pool through the call's oneshot, from the
//! buffer store: `openDiff` by the `--diff` policy (`reject` unless told otherwise; an accept
//! carries the buffer as the diff's original, and one that would change nothing is refused; the
//! CLI writes the file itself, and the engine's `fileReplaced` event, the bytes the file then
//! holds, replaces the buffer), `openFile` and
//! `saveDocument` from the buffers, `getDiagnostics`
//! from a check of the buffers (trailing whitespace, where an editor with a language server
//! asks it for the file), `checkDocumentDirty` by comparing a buffer with its file,
//! `getOpenEditors`, `getCurrentSelection` and `getWorkspaceFolders` from the store. The
//! documents are still pushed as events: they are what `selection_changed` tells claude
//! about. One console line per tool call and engine event; the banner ends with
//! `on 127.0.0.1:<port>`. Then, in another shell: `eval "$(idelink env <port>)"; claude`.
//!
//! Tool arguments are untrusted text from the model (docs/embedding.md, "Tool arguments are
//! untrusted"), and this editor treats them so: a diff is rejected unless `--diff accept` says
//! otherwise, and even then one for a path outside the workspace is rejected and gets no
//! buffer; files are read and written by the rules of [`files`] (regular files only, opened
//! without blocking, capped) off the runtime's thread, so a FIFO or `/dev/zero` named by the
//! model cannot stall the engine task; and text printed to the console is escaped (`\u{1b}`,
//! `\u{202e}`), so a path or a client name cannot move the cursor, rewrite the clipboard or
//! reorder the line.

#[path = "buffer_editor/files.rs"]
mod files;

use idelink_core::ide::{
    Diagnostic, FileDiagnostics, NO_CHANGE_REASON, OpenTab, Position, Range, Severity, is_no_change,
};
use idelink_core::language::language_id;
use idelink_core::{EditorEvent, EngineEvent, ReadSource, ReadSources, ToolOutcome, ToolRequest};
use idelink_tokio::{Host, HostConfig, HostEvent, LockPlacement};
use std::collections::BTreeMap;
use std::path::PathBuf;
use std::sync::{Arc, Mutex, PoisonError};
use std::time::Duration;
use tokio::io::{AsyncBufReadExt, BufReader};
use tokio::task::spawn_blocking;

/// The editor's state, shared by the tasks answering tool calls.
#[derive(Default)]
struct Store {
    /// The open buffers, path → text, in tab order; every path is inside the workspace.
    buffers: BTreeMap<String, String>,
    /// The active buffer.
    active: Option<String>,
    /// The workspace folder.
    workspace: String,
}

type Shared = Arc<Mutex<Store>>;

/// Locks the store; a task that panicked holding it left it usable.
fn lock(store: &Shared) -> std::sync::MutexGuard<'_, Store> {
    store.lock().unwrap_or_else(PoisonError::into_inner)
}

struct Args {
    accept: bool,
    name: String,
    lock_dir: Option<PathBuf>,
    workspace: String,
}

fn parse_args() -> Result<Args, String> {
    let mut args = std::env::args().skip(1);
    let mut parsed = Args {
        accept: false,
        name: "buffer_editor".to_owned(),
        lock_dir: None,
        workspace: String::new(),
    };
    while let Some(arg) = args.next() {
        match arg.as_str() {
            "--diff" => match args.next().as_deref() {
                Some("accept") => parsed.accept = true,
                Some("reject") => parsed.accept = false,
                other => return Err(format!("--diff takes accept or reject, got {other:?}")),
            },
            "--name" => parsed.name = args.next().ok_or("--name takes a name")?,
            "--lock-dir" => {
                parsed.lock_dir = Some(args.next().ok_or("--lock-dir takes a folder")?.into());
            }
            folder if !folder.starts_with("--") => parsed.workspace = folder.to_owned(),
            other => return Err(format!("unknown option {other}")),
        }
    }
    if parsed.workspace.is_empty() {
        return Err("usage: buffer_editor [--diff reject|accept] [--name NAME] \
                    [--lock-dir DIR] WORKSPACE"
            .to_owned());
    }
    let absolute = std::path::absolute(&parsed.workspace).map_err(|e| e.to_string())?;
    parsed.workspace = absolute.to_string_lossy().into_owned();
    Ok(parsed)
}

#[tokio::main(flavor = "current_thread")]
async fn main() -> Result<(), Box<dyn std::error::Error>> {
    let args = parse_args()?;
    let mut config = HostConfig::new(args.name.clone(), vec![args.workspace.clone()]);
    if let Some(dir) = &args.lock_dir {
        config.lock = LockPlacement::At(dir.clone());
    }
    config.engine.reads = ReadSources::all(ReadSource::Editor);
    let (host, mut events) = Host::start(config)?;
    println!(
        "{}: serving {} on 127.0.0.1:{}",
        shown(&args.name),
        shown(&args.workspace),
        host.port()
    );

    let store: Shared = Arc::default();
    lock(&store).workspace = args.workspace.clone();
    let loaded = {
        let store = Arc::clone(&store);
        spawn_blocking(move || load_workspace(&store)).await?
    };
    for path in loaded {
        let language_id = language_id(&path).map(str::to_owned);
        host.handle_editor_event(EditorEvent::DocumentOpened {
            path,
            language_id,
            is_dirty: false,
            is_untitled: false,
        })
        .await?;
    }
    let first = {
        let mut store = lock(&store);
        store.active = store.buffers.keys().next().cloned();
        store.active.clone()
    };
    if let Some(path) = first {
        host.handle_editor_event(EditorEvent::DocumentActivated { path })
            .await?;
    }

    let mut stdin = BufReader::new(tokio::io::stdin()).lines();
    loop {
        tokio::select! {
            event = events.recv() => match event {
                Some(HostEvent::ToolCall { conn, request, reply, .. }) => {
                    println!("{conn} {}", describe(&request, &args.workspace));
                    let store = Arc::clone(&store);
                    // Off the runtime's thread: answering may read or write files.
                    spawn_blocking(move || reply.send(answer(request, &store, args.accept)));
                }
                Some(HostEvent::Engine(event)) => {
                    if let Some(line) = status_line(&event) {
                        println!("{line}");
                    }
                    // The file now holds exactly this text: the buffer takes it, with no
                    // conflict to resolve.
                    if let EngineEvent::FileReplaced { path, text, .. } = event {
                        lock(&store).buffers.insert(path, text);
                    }
                }
                Some(HostEvent::HandshakesClosed { count, last }) => {
                    let last = shown(&last.to_string());
                    println!("{count} unauthenticated connection(s) closed, the last: {last}");
                }
                None => break,
            },
            line = stdin.next_line() => {
                if !matches!(line, Ok(Some(_))) {
                    break;
                }
            }
        }
    }
    host.shutdown(Duration::from_secs(1)).await;
    Ok(())
}

/// Reads the workspace's top-level text files (regular files only, by the rules of [`files`])
/// into the buffers; returns their paths.
fn load_workspace(store: &Shared) -> Vec<String> {
    let workspace = lock(store).workspace.clone();
    let entries = std::fs::read_dir(&workspace)
        .into_iter()
        .flatten()
        .flatten();
    let loaded: Vec<(String, String)> = entries
        .filter_map(|entry| {
            let path = entry.path().to_str()?.to_owned();
            let text = files::read_text(&path).ok()??;
            Some((path, text))
        })
        .collect();
    let mut store = lock(store);
    store.buffers.extend(loaded);
    store.buffers.keys().cloned().collect()
}

/// Carries out one tool request: the outcome its oneshot answers with. Runs on the blocking
/// pool; the store is locked only to copy from it or update it, never across file access.
fn answer(request: ToolRequest, store: &Shared, accept: bool) -> ToolOutcome {
    match request {
        ToolRequest::OpenDiff {
            new_file_path,
            new_file_contents,
            ..
        } if accept => {
            let store = lock(store);
            if !files::inside(&store.workspace, &new_file_path) {
                println!("rejected {}: outside the workspace", shown(&new_file_path));
                return ToolOutcome::DiffRejected;
            }
            let original = store.buffers.get(&new_file_path).cloned();
            if is_no_change(original.as_deref(), &new_file_contents, &new_file_contents) {
                println!("not accepted {}: it changes nothing", shown(&new_file_path));
                return ToolOutcome::DiffRefused {
                    reason: NO_CHANGE_REASON.to_owned(),
                };
            }
            ToolOutcome::DiffSaved {
                final_text: new_file_contents,
                original_text: original,
            }
        }
        ToolRequest::OpenDiff { .. } => ToolOutcome::DiffRejected,
        ToolRequest::OpenFile { path, .. } => {
            let store = lock(store);
            match store.buffers.get(&path) {
                Some(text) => ToolOutcome::FileOpened {
                    language_id: language_id(&path).map(str::to_owned),
                    line_count: u32::try_from(text.lines().count()).ok(),
                },
                None => ToolOutcome::Failed {
                    message: format!("{path} is not open"),
                },
            }
        }
        ToolRequest::SaveDocument { path } => {
            let text = lock(store).buffers.get(&path).cloned();
            match text.map(|text| files::write_text(&path, &text)) {
                Some(Ok(())) => ToolOutcome::DocumentSaved,
                Some(Err(message)) => ToolOutcome::Failed { message },
                None => ToolOutcome::Failed {
                    message: format!("{path:?} is not open"),
                },
            }
        }
        ToolRequest::GetOpenEditors => {
            let (buffers, active) = {
                let store = lock(store);
                (store.buffers.clone(), store.active.clone())
            };
            ToolOutcome::OpenEditors {
                tabs: buffers
                    .iter()
                    .map(|(path, text)| OpenTab {
                        path: path.clone(),
                        language_id: language_id(path).map(str::to_owned),
                        is_dirty: is_dirty(path, text),
                        is_untitled: false,
                        is_active: active.as_ref() == Some(path),
                    })
                    .collect(),
            }
        }
        ToolRequest::CheckDocumentDirty { path } => {
            let text = lock(store).buffers.get(&path).cloned();
            match text {
                Some(text) => ToolOutcome::DocumentDirty {
                    is_dirty: is_dirty(&path, &text),
                    is_untitled: false,
                },
                None => ToolOutcome::DocumentNotOpen,
            }
        }
        request => read(request, &lock(store)),
    }
}

/// Answers a pulled read that needs the store only (no file access).
fn read(request: ToolRequest, store: &Store) -> ToolOutcome {
    match request {
        ToolRequest::GetDiagnostics { path } => ToolOutcome::Diagnostics {
            files: store
                .buffers
                .iter()
                .filter(|(buffer, _)| path.as_ref().is_none_or(|p| p == *buffer))
                .map(|(buffer, text)| FileDiagnostics {
                    path: buffer.clone(),
                    diagnostics: trailing_whitespace(text),
                })
                .collect(),
        },
        ToolRequest::GetCurrentSelection => match &store.active {
            // This editor has no caret: the active buffer, at its start.
            Some(path) => ToolOutcome::Selection {
                path: path.clone(),
                text: String::new(),
                selection: Range::default(),
            },
            None => ToolOutcome::NoSelection,
        },
        // Nothing was ever selected here.
        ToolRequest::GetLatestSelection => ToolOutcome::NoSelection,
        ToolRequest::GetWorkspaceFolders => ToolOutcome::WorkspaceFolders {
            folders: vec![store.workspace.clone()],
        },
        _ => ToolOutcome::Failed {
            message: "this editor does not do that".to_owned(),
        },
    }
}

/// A buffer differs from its file on disk (or the file cannot be read by the rules of
/// [`files`]: a FIFO, a device, too large).
fn is_dirty(path: &str, text: &str) -> bool {
    files::read_text(path).ok().flatten().as_deref() != Some(text)
}

/// The buffer's one check: a hint on each line that ends in spaces or tabs.
fn trailing_whitespace(text: &str) -> Vec<Diagnostic> {
    text.lines()
        .zip(0_u32..)
        .filter_map(|(line, number)| {
            let kept = line.trim_end_matches([' ', '\t']).len();
            (kept < line.len()).then(|| {
                let at = |character: usize| Position {
                    line: number,
                    character: u32::try_from(character).unwrap_or(u32::MAX),
                };
                Diagnostic {
                    message: "trailing whitespace".to_owned(),
                    severity: Severity::Hint,
                    range: Range {
                        start: at(kept),
                        end: at(line.len()),
                    },
                    source: Some("buffer_editor".to_owned()),
                    code: None,
                }
            })
        })
        .collect()
}

/// `text` with every character a terminal would act on or not draw escaped the way Rust's
/// `Debug` escapes it (`\u{1b}`, `\r`, `\u{202e}`, `\u{200b}`), without the quotes: what a
/// console line shows of untrusted text.
fn shown(text: &str) -> String {
    let quoted = format!("{text:?}");
    let inner = quoted.strip_prefix('"').and_then(|q| q.strip_suffix('"'));
    inner.unwrap_or(&quoted).to_owned()
}

/// What a tool request asks, with workspace paths shown relative, escaped.
fn describe(request: &ToolRequest, workspace: &str) -> String {
    let relative = |path: &str| {
        shown(
            path.strip_prefix(workspace)
                .map_or(path, |rest| rest.trim_start_matches('/')),
        )
    };
    match request {
        ToolRequest::OpenDiff { new_file_path, .. } => {
            format!("openDiff {}", relative(new_file_path))
        }
        ToolRequest::OpenFile { path, .. } => format!("openFile {}", relative(path)),
        ToolRequest::SaveDocument { path } => format!("saveDocument {}", relative(path)),
        ToolRequest::GetDiagnostics { path: Some(path) } => {
            format!("getDiagnostics {}", relative(path))
        }
        ToolRequest::CheckDocumentDirty { path } => {
            format!("checkDocumentDirty {}", relative(path))
        }
        other => other.tool().as_str().to_owned(),
    }
}

/// One console line per engine event worth one.
fn status_line(event: &EngineEvent) -> Option<String> {
    Some(match event {
        EngineEvent::SessionReady {
            conn,
            client,
            client_pid,
        } => {
            let pid = client_pid.map_or(String::new(), |pid| format!(", pid {pid}"));
            format!(
                "{conn} session ready: {} {}{pid} (MCP {})",
                shown(&client.name),
                shown(&client.version),
                shown(client.protocol_version)
            )
        }
        EngineEvent::ToolCallCancelled { id, reason } => format!("{id} cancelled: {reason}"),
        EngineEvent::FileReplaced { id, path, text } => format!(
            "{id} {} now holds the accepted text ({} bytes)",
            shown(path),
            text.len()
        ),
        EngineEvent::ToolServed { conn, tool } => format!("{conn} {}", tool.as_str()),
        EngineEvent::Closed { conn, reason } => {
            format!("{conn} closed: {}", shown(&reason.to_string()))
        }
        _ => return None,
    })
}
