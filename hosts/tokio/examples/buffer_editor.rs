//! A tokio editor with a buffer store, served to `claude` through idelink-tokio.
//!
//! ```text
//! cargo run -p idelink-tokio --example buffer_editor -- [--diff accept|reject] [--name NAME]
//!     [--lock-dir DIR] WORKSPACE
//! ```
//!
//! It loads the workspace's top-level files into its buffers, opens them as documents (language
//! ids from core), makes the first one active, and serves until its stdin closes. Each tool
//! call is answered from its own task through the call's oneshot: `openDiff` by the `--diff`
//! policy (an accepted diff replaces the buffer; the CLI writes the file itself), `openFile`
//! and `saveDocument` from the buffers. One console line per engine event; the banner ends with
//! `on 127.0.0.1:<port>`. Then, in another shell: `eval "$(idelink env <port>)"; claude`.
//! (The engine answers read tools from the state pushed here; with pulled reads the buffers
//! would answer them too.)

use idelink_core::language::language_id;
use idelink_core::{EditorEvent, Event, ToolOutcome, ToolRequest};
use idelink_tokio::{Host, HostConfig, HostEvent, LockPlacement, ToolReply};
use std::collections::BTreeMap;
use std::path::PathBuf;
use std::sync::{Arc, Mutex, PoisonError};
use std::time::Duration;
use tokio::io::{AsyncBufReadExt, BufReader};

/// The editor's open buffers: path → text.
type Buffers = Arc<Mutex<BTreeMap<String, String>>>;

struct Args {
    accept: bool,
    name: String,
    lock_dir: Option<PathBuf>,
    workspace: String,
}

fn parse_args() -> Result<Args, String> {
    let mut args = std::env::args().skip(1);
    let mut parsed = Args {
        accept: true,
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
        return Err("usage: buffer_editor [--diff accept|reject] [--name NAME] \
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
    let (host, mut events) = Host::start(config)?;
    println!(
        "{}: serving {} on 127.0.0.1:{}",
        args.name,
        args.workspace,
        host.port()
    );

    let buffers: Buffers = Arc::default();
    for path in load_workspace(&args.workspace, &buffers) {
        let language_id = language_id(&path).map(str::to_owned);
        host.handle_editor_event(EditorEvent::DocumentOpened {
            path,
            language_id,
            is_dirty: false,
            is_untitled: false,
        })
        .await?;
    }
    let first = buffers
        .lock()
        .unwrap_or_else(PoisonError::into_inner)
        .keys()
        .next()
        .cloned();
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
                    let buffers = Arc::clone(&buffers);
                    tokio::spawn(answer(request, reply, buffers, args.accept));
                }
                Some(HostEvent::Engine(event)) => {
                    if let Some(line) = status_line(&event) {
                        println!("{line}");
                    }
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

/// Reads the workspace's top-level text files into the buffers; returns their paths.
fn load_workspace(workspace: &str, buffers: &Buffers) -> Vec<String> {
    let mut store = buffers.lock().unwrap_or_else(PoisonError::into_inner);
    let entries = std::fs::read_dir(workspace).into_iter().flatten().flatten();
    for entry in entries {
        let path = entry.path();
        if let Ok(text) = std::fs::read_to_string(&path) {
            store.insert(path.to_string_lossy().into_owned(), text);
        }
    }
    store.keys().cloned().collect()
}

/// Carries out one tool request and answers it through its oneshot.
async fn answer(request: ToolRequest, reply: ToolReply, buffers: Buffers, accept: bool) {
    let outcome = match request {
        ToolRequest::OpenDiff {
            new_file_path,
            new_file_contents,
            ..
        } if accept => {
            buffers
                .lock()
                .unwrap_or_else(PoisonError::into_inner)
                .insert(new_file_path, new_file_contents.clone());
            ToolOutcome::DiffSaved {
                final_text: new_file_contents,
            }
        }
        ToolRequest::OpenDiff { .. } => ToolOutcome::DiffRejected,
        ToolRequest::OpenFile { path, .. } => {
            let store = buffers.lock().unwrap_or_else(PoisonError::into_inner);
            match store.get(&path) {
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
            let text = buffers
                .lock()
                .unwrap_or_else(PoisonError::into_inner)
                .get(&path)
                .cloned();
            match text.map(|text| std::fs::write(&path, text)) {
                Some(Ok(())) => ToolOutcome::DocumentSaved,
                Some(Err(e)) => ToolOutcome::Failed {
                    message: format!("cannot save {path}: {e}"),
                },
                None => ToolOutcome::Failed {
                    message: format!("{path} is not open"),
                },
            }
        }
        _ => ToolOutcome::Failed {
            message: "this editor does not do that".to_owned(),
        },
    };
    reply.send(outcome);
}

/// What a tool request asks, with workspace paths shown relative.
fn describe(request: &ToolRequest, workspace: &str) -> String {
    let relative = |path: &str| {
        path.strip_prefix(workspace)
            .map(|rest| rest.trim_start_matches('/').to_owned())
            .unwrap_or_else(|| path.to_owned())
    };
    match request {
        ToolRequest::OpenDiff { new_file_path, .. } => {
            format!("openDiff {}", relative(new_file_path))
        }
        ToolRequest::OpenFile { path, .. } => format!("openFile {}", relative(path)),
        ToolRequest::SaveDocument { path } => format!("saveDocument {}", relative(path)),
        _ => "tool request".to_owned(),
    }
}

/// One console line per engine event worth one.
fn status_line(event: &Event) -> Option<String> {
    Some(match event {
        Event::SessionReady {
            conn,
            client,
            client_pid,
        } => {
            let pid = client_pid.map_or(String::new(), |pid| format!(", pid {pid}"));
            format!(
                "{conn} session ready: {} {}{pid} (MCP {})",
                client.name, client.version, client.protocol_version
            )
        }
        Event::ToolCallCancelled { id, reason } => format!("{id} cancelled: {reason}"),
        Event::ToolServed { conn, tool } => format!("{conn} {}", tool.as_str()),
        Event::Closed { conn, reason } => format!("{conn} closed: {reason}"),
        _ => return None,
    })
}
