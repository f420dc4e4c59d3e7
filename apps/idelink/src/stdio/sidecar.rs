//! The sidecar loop: editor messages from stdin in, engine events out on stdout.

use super::framing::StdioFraming;
use super::framing::{self, FrameError};
use crate::signals::StopFlag;
use idelink_core::EditorSnapshot;
use idelink_core::rpc::{self, Message, RequestId, RpcError, RpcLimits};
use idelink_core::{EditorEvent, EngineEvent, SessionChoice, ToolCallId, ToolOutcome};
use idelink_mio::{Host, ResumeOutcome};
use serde::Serialize;
use std::error::Error;
use std::io;
use std::sync::mpsc::{self, Receiver};
use std::time::Duration;

/// Serves until stdin closes, `shutdown` is called, or a termination signal arrives.
pub fn run(mut host: Host, stop: &StopFlag, framing: StdioFraming) -> Result<(), Box<dyn Error>> {
    let mut out = Output {
        stdout: io::stdout().lock(),
        framing,
        buf: Vec::new(),
    };
    let incoming = spawn_reader(framing, host.waker())?;
    out.notify("idelink/ready", &ready(&host))?;
    let mut events = Vec::new();
    while !stop.stop_requested() {
        // No timeout: stdin messages and signals wake the poll (both through the host's
        // waker), and the host's own deadlines (engine timers, the lock check) bound it.
        host.poll(None, &mut events)?;
        for event in events.drain(..) {
            out.forward(event)?;
        }
        while let Ok(frame) = incoming.try_recv() {
            match frame {
                Ok(text) => {
                    if handle_message(&mut host, &mut out, &text)? == Flow::Stop {
                        stop.request_stop();
                    }
                }
                Err(FrameError::Closed) => stop.request_stop(),
                Err(e) => {
                    out.log("error", &format!("stopping: {e}"))?;
                    stop.request_stop();
                }
            }
        }
    }
    host.shutdown(Duration::from_secs(1), &mut events);
    for event in events.drain(..) {
        // The editor may be gone already: nothing left to tell it then.
        if out.forward(event).is_err() {
            break;
        }
    }
    Ok(())
}

#[derive(Debug, PartialEq, Eq)]
enum Flow {
    Continue,
    Stop,
}

/// The `idelink/ready` notification: where claude connects and where the lock is.
#[derive(Serialize)]
#[serde(rename_all = "camelCase")]
struct Ready {
    port: u16,
    lock_file: Option<String>,
    workspace_folders: Vec<String>,
    pid: u32,
    /// True when `--resume` took back the last session's port and token.
    resumed: bool,
}

fn ready(host: &Host) -> Ready {
    Ready {
        port: host.port(),
        lock_file: host.lock_path().map(|p| p.display().to_string()),
        workspace_folders: host.engine().editor_state().workspace_folders().to_vec(),
        pid: std::process::id(),
        resumed: matches!(host.resume(), ResumeOutcome::Resumed { .. }),
    }
}

/// One message from the editor.
fn handle_message(host: &mut Host, out: &mut Output<'_>, text: &str) -> io::Result<Flow> {
    let message = match rpc::parse(text, &RpcLimits::default()) {
        Ok(message) => message,
        Err(invalid) => {
            if invalid.reply {
                out.error(invalid.id, &invalid.error)?;
            } else {
                out.log(
                    "warn",
                    &format!("ignored a malformed message: {}", invalid.error.message),
                )?;
            }
            return Ok(Flow::Continue);
        }
    };
    match message {
        Message::Notification { method, params } if method == "editor/event" => {
            let parsed = params
                .ok_or_else(|| "editor/event needs params: an editor event object".to_owned())
                .and_then(|p| {
                    serde_json::from_str::<EditorEvent>(p.get()).map_err(|e| e.to_string())
                });
            match parsed {
                Ok(event) => {
                    if let Err(e) = host.handle_editor_event(&event) {
                        out.log("error", &format!("editor/event: {e}"))?;
                    }
                }
                Err(e) => out.log("warn", &format!("editor/event ignored: {e}"))?,
            }
        }
        Message::Notification { method, params } if method == "editor/snapshot" => {
            let parsed = params
                .ok_or_else(|| "editor/snapshot needs params: an editor snapshot object".to_owned())
                .and_then(|p| {
                    serde_json::from_str::<EditorSnapshot>(p.get()).map_err(|e| e.to_string())
                });
            match parsed {
                Ok(snapshot) => {
                    if let Err(e) = snapshot.with_view(|view| host.handle_snapshot(view)) {
                        out.log("error", &format!("editor/snapshot: {e}"))?;
                    }
                }
                Err(e) => out.log("warn", &format!("editor/snapshot ignored: {e}"))?,
            }
        }
        Message::Notification { method, .. } if method == "exit" => return Ok(Flow::Stop),
        Message::Notification { method, .. } => {
            out.log("warn", &format!("unknown notification ignored: {method}"))?;
        }
        Message::Request {
            id, method, params, ..
        } => match method.as_ref() {
            "idelink/info" => out.result(id, &ready(host))?,
            "idelink/sessions" => out.result(id, &host.sessions())?,
            "idelink/chooseSession" => match choose_session(host, params) {
                Ok(()) => out.result(id, &())?,
                Err(error) => out.error(Some(id), &error)?,
            },
            method if method.starts_with("idelink/ledger") || method == "idelink/fileSeen" => {
                match super::ledger::request(host, method, params) {
                    Ok(result) => out.result(id, &result)?,
                    Err(error) => out.error(Some(id), &error)?,
                }
            }
            "shutdown" => {
                out.result(id, &())?;
                return Ok(Flow::Stop);
            }
            other => {
                let message = format!("unknown method: {other} (see docs/sidecar.md)");
                out.error(
                    Some(id),
                    &RpcError::new(RpcError::METHOD_NOT_FOUND, message),
                )?;
            }
        },
        Message::Response { id, outcome } => answer_tool_call(host, out, id, outcome)?,
    }
    Ok(Flow::Continue)
}

/// `idelink/chooseSession {choice}`: `choice` is `{"by":"conn","conn":N}`,
/// `{"by":"pid","pid":N}` or `null` (none). A malformed choice or a connection that is no
/// session is answered with an error and changes nothing.
fn choose_session(
    host: &mut Host,
    params: Option<&serde_json::value::RawValue>,
) -> Result<(), RpcError> {
    #[derive(serde::Deserialize)]
    #[serde(deny_unknown_fields)]
    struct Params {
        choice: Option<SessionChoice>,
    }
    let params = params.map_or("null", |p| p.get());
    let Params { choice } = serde_json::from_str(params).map_err(|e| {
        RpcError::new(
            RpcError::INVALID_PARAMS,
            format!("idelink/chooseSession needs {{\"choice\": {{\"by\": \"conn\"|\"pid\", …}} or null}}: {e}"),
        )
    })?;
    host.choose_session(choice)
        .map_err(|e| RpcError::new(RpcError::INVALID_PARAMS, e.to_string()))
}

/// The editor's response to a `tool/call` request: its result is the outcome.
fn answer_tool_call(
    host: &mut Host,
    out: &mut Output<'_>,
    id: RequestId<'_>,
    outcome: Result<&serde_json::value::RawValue, &serde_json::value::RawValue>,
) -> io::Result<()> {
    let Ok(call) = id.as_raw().get().parse::<u64>().map(ToolCallId::from_u64) else {
        return out.log(
            "warn",
            &format!("response to an unknown request {}", id.as_raw()),
        );
    };
    let outcome = match outcome {
        Ok(result) => match serde_json::from_str::<ToolOutcome>(result.get()) {
            Ok(outcome) => outcome,
            Err(e) => {
                return out.log(
                    "error",
                    &format!("{call}: the result is not a tool outcome ({e}); answer again"),
                );
            }
        },
        Err(error) => ToolOutcome::Failed {
            message: serde_json::from_str::<ErrorObject>(error.get())
                .map(|e| e.message)
                .unwrap_or_else(|_| "the editor answered with an error".to_owned()),
        },
    };
    if let Err(e) = host.handle_tool_outcome(call, &outcome) {
        out.log("warn", &format!("answer not delivered: {e}"))?;
    }
    Ok(())
}

#[derive(serde::Deserialize)]
struct ErrorObject {
    message: String,
}

/// Stdout, framed, with a reused buffer.
struct Output<'a> {
    stdout: io::StdoutLock<'a>,
    framing: StdioFraming,
    buf: Vec<u8>,
}

impl Output<'_> {
    /// An engine event: tool requests become `tool/call` requests, the rest `idelink/event`.
    fn forward(&mut self, event: EngineEvent) -> io::Result<()> {
        match event {
            EngineEvent::ToolCall {
                id,
                conn,
                request,
                context_denied,
            } => {
                #[derive(Serialize)]
                #[serde(rename_all = "camelCase")]
                struct Params<'r> {
                    conn: idelink_core::ConnId,
                    request: &'r idelink_core::ToolRequest,
                    /// The file is one the context policy denies (left out when not).
                    #[serde(skip_serializing_if = "std::ops::Not::not")]
                    context_denied: bool,
                }
                #[derive(Serialize)]
                struct Request<'r> {
                    jsonrpc: &'static str,
                    id: ToolCallId,
                    method: &'static str,
                    params: Params<'r>,
                }
                let request = Request {
                    jsonrpc: "2.0",
                    id,
                    method: "tool/call",
                    params: Params {
                        conn,
                        request: &request,
                        context_denied,
                    },
                };
                self.buf.clear();
                serde_json::to_writer(&mut self.buf, &request).map_err(io::Error::other)?;
                self.flush_buf()
            }
            other => self.notify("idelink/event", &other),
        }
    }

    fn notify(&mut self, method: &str, params: &impl Serialize) -> io::Result<()> {
        self.buf.clear();
        rpc::write_notification(&mut self.buf, method, params).map_err(io::Error::other)?;
        self.flush_buf()
    }

    fn log(&mut self, level: &str, message: &str) -> io::Result<()> {
        tracing::warn!("{message}");
        #[derive(Serialize)]
        struct Log<'m> {
            level: &'m str,
            message: &'m str,
        }
        self.notify("idelink/log", &Log { level, message })
    }

    fn result(&mut self, id: RequestId<'_>, result: &impl Serialize) -> io::Result<()> {
        self.buf.clear();
        rpc::write_result(&mut self.buf, id, result);
        self.flush_buf()
    }

    fn error(&mut self, id: Option<RequestId<'_>>, error: &RpcError) -> io::Result<()> {
        self.buf.clear();
        rpc::write_error(&mut self.buf, id, error);
        self.flush_buf()
    }

    fn flush_buf(&mut self) -> io::Result<()> {
        framing::write_message(&mut self.stdout, self.framing, &self.buf)
    }
}

/// Reads frames from stdin on a thread; each one wakes the host.
fn spawn_reader(
    framing: StdioFraming,
    waker: std::sync::Arc<idelink_mio::Waker>,
) -> io::Result<Receiver<Result<String, FrameError>>> {
    let (send, receive) = mpsc::channel();
    std::thread::Builder::new()
        .name("idelink-stdio".into())
        .spawn(move || {
            let mut stdin = io::stdin().lock();
            loop {
                let frame = framing::read_message(&mut stdin, framing);
                let last = frame.is_err();
                if send.send(frame).is_err() {
                    return;
                }
                let _ = waker.wake();
                if last {
                    return;
                }
            }
        })?;
    Ok(receive)
}
