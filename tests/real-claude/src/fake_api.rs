//! A scripted Anthropic Messages API on loopback, so the real CLI runs a whole edit turn with no
//! network and no account: the model reads a file, edits it, then says it is done.
//!
//! `POST /v1/messages` is answered by [`reply`] (SSE when the request streams), `POST
//! /v1/messages/count_tokens` and `GET /v1/models` minimally; anything else gets 404 and is
//! recorded, so an unexpected request shows up in the failure output. The server is also the
//! CLI's HTTP(S) proxy: a proxied request (absolute URI or `CONNECT`) is an attempt to leave
//! loopback; it is refused with 403 and listed by [`FakeApi::egress`].

use serde_json::{Value, json};
use std::io::{self, BufRead, BufReader, Read, Write};
use std::net::{TcpListener, TcpStream};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex, PoisonError};
use std::thread::JoinHandle;

use crate::wait::STEP_DEADLINE;

/// The `tool_use` id of the scripted Read.
pub const READ_ID: &str = "toolu_idelink_read";
/// The `tool_use` id of the scripted Edit.
pub const EDIT_ID: &str = "toolu_idelink_edit";
/// The `tool_use` id of the scripted Write (a new file).
pub const WRITE_ID: &str = "toolu_idelink_write";
/// The `tool_use` id of the scripted call of the IDE's diagnostics tool.
pub const DIAGNOSTICS_ID: &str = "toolu_idelink_diagnostics";
/// The name the CLI gives the IDE's `getDiagnostics` tool in the model's tool list.
pub const DIAGNOSTICS_TOOL: &str = "mcp__ide__getDiagnostics";
/// The model's last words, once the Edit's result came back.
pub const FINAL_TEXT: &str = "idelink drift alarm: the edit turn is over";

/// The edit the model asks for.
#[derive(Debug, Clone)]
pub struct EditScript {
    /// The absolute path of the workspace file.
    pub file: String,
    /// The text to replace (once).
    pub old: String,
    /// Its replacement.
    pub new: String,
    /// When set, the model instead creates this file with `Write`: its absolute path and text.
    pub create: Option<(String, String)>,
    /// When true, the model instead asks the IDE for every file's diagnostics
    /// ([`DIAGNOSTICS_TOOL`]), then ends the turn: the tool's result is in the next request.
    pub diagnostics: bool,
    /// When not empty, the model instead runs this list: a whole session of tool calls
    /// ([`step`]) over several prompts, each prompt's turn ended by a `text` ([`end_turn`]),
    /// then [`FINAL_TEXT`] past its end.
    pub sequence: Vec<Value>,
}

/// One request the CLI made.
#[derive(Debug, Clone)]
pub struct Recorded {
    /// `POST /v1/messages?beta=true` and the like.
    pub line: String,
    /// The request body.
    pub body: String,
    /// The HTTP status we answered.
    pub status: u16,
}

/// The server; stops accepting when dropped.
pub struct FakeApi {
    port: u16,
    requests: Arc<Mutex<Vec<Recorded>>>,
    stop: Arc<AtomicBool>,
    accept: Option<JoinHandle<()>>,
}

impl FakeApi {
    /// Listens on 127.0.0.1, port 0.
    pub fn start(script: EditScript) -> io::Result<FakeApi> {
        let listener = TcpListener::bind(("127.0.0.1", 0))?;
        let port = listener.local_addr()?.port();
        let requests = Arc::new(Mutex::new(Vec::new()));
        let stop = Arc::new(AtomicBool::new(false));
        let accept = {
            let (requests, stop, script) = (requests.clone(), stop.clone(), Arc::new(script));
            std::thread::spawn(move || {
                for stream in listener.incoming() {
                    if stop.load(Ordering::SeqCst) {
                        return;
                    }
                    let Ok(stream) = stream else { continue };
                    let (requests, script) = (requests.clone(), script.clone());
                    std::thread::spawn(move || {
                        // A connection ends with the CLI or at the read deadline.
                        let _ = serve_connection(stream, &requests, &script);
                    });
                }
            })
        };
        Ok(FakeApi {
            port,
            requests,
            stop,
            accept: Some(accept),
        })
    }

    /// The port (for `ANTHROPIC_BASE_URL`).
    pub fn port(&self) -> u16 {
        self.port
    }

    /// Every request so far, in arrival order.
    pub fn requests(&self) -> Vec<Recorded> {
        self.requests
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .clone()
    }

    /// The request lines of every attempt to reach a host other than this server (proxied
    /// requests).
    pub fn egress(&self) -> Vec<String> {
        self.requests()
            .into_iter()
            .filter(|r| !is_origin_form(&r.line))
            .map(|r| r.line)
            .collect()
    }

    /// The bodies of the model turns (`POST /v1/messages` offering the Edit tool).
    pub fn turns(&self) -> Vec<Value> {
        self.requests()
            .iter()
            .filter(|r| r.line.starts_with("POST /v1/messages") && !r.line.contains("count_tokens"))
            .filter_map(|r| serde_json::from_str::<Value>(&r.body).ok())
            .filter(offers_edit)
            .collect()
    }
}

impl Drop for FakeApi {
    fn drop(&mut self) {
        self.stop.store(true, Ordering::SeqCst);
        // Wake the accept loop so it sees the flag.
        let _ = TcpStream::connect(("127.0.0.1", self.port));
        if let Some(accept) = self.accept.take() {
            let _ = accept.join();
        }
    }
}

fn serve_connection(
    stream: TcpStream,
    requests: &Mutex<Vec<Recorded>>,
    script: &EditScript,
) -> io::Result<()> {
    stream.set_read_timeout(Some(STEP_DEADLINE))?;
    let mut writer = stream.try_clone()?;
    let mut reader = BufReader::new(stream);
    loop {
        let mut line = String::new();
        if reader.read_line(&mut line)? == 0 {
            return Ok(());
        }
        let line = line.trim_end().to_owned();
        let (mut length, mut chunked) = (0, false);
        loop {
            let mut header = String::new();
            reader.read_line(&mut header)?;
            let header = header.trim_end();
            if header.is_empty() {
                break;
            }
            let (name, value) = header.split_once(':').unwrap_or((header, ""));
            let value = value.trim();
            if name.eq_ignore_ascii_case("content-length") {
                length = value.parse().unwrap_or(0);
            } else if name.eq_ignore_ascii_case("transfer-encoding") {
                chunked = value.eq_ignore_ascii_case("chunked");
            }
        }
        let body = if chunked {
            read_chunked(&mut reader)?
        } else {
            let mut body = vec![0; length];
            reader.read_exact(&mut body)?;
            body
        };
        let body = String::from_utf8_lossy(&body).into_owned();
        let (status, content_type, answer) = route(&line, &body, script);
        requests
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .push(Recorded { line, body, status });
        write!(
            writer,
            "HTTP/1.1 {status} {}\r\ncontent-type: {content_type}\r\ncontent-length: {}\r\n\
             request-id: req_idelink\r\nconnection: keep-alive\r\n\r\n",
            match status {
                200 => "OK",
                403 => "Forbidden",
                _ => "Not Found",
            },
            answer.len()
        )?;
        writer.write_all(answer.as_bytes())?;
        writer.flush()?;
    }
}

fn read_chunked(reader: &mut impl BufRead) -> io::Result<Vec<u8>> {
    let mut body = Vec::new();
    loop {
        let mut size = String::new();
        reader.read_line(&mut size)?;
        let size = usize::from_str_radix(size.trim().split(';').next().unwrap_or(""), 16)
            .map_err(|e| io::Error::new(io::ErrorKind::InvalidData, e))?;
        let mut chunk = vec![0; size + 2];
        reader.read_exact(&mut chunk)?;
        if size == 0 {
            return Ok(body);
        }
        body.extend_from_slice(&chunk[..size]);
    }
}

/// True for `METHOD /path HTTP/1.1`: a request to this server, not through it.
fn is_origin_form(line: &str) -> bool {
    line.split_whitespace()
        .nth(1)
        .is_some_and(|target| target.starts_with('/'))
}

/// Status, content type and body for one request.
fn route(line: &str, body: &str, script: &EditScript) -> (u16, &'static str, String) {
    if !is_origin_form(line) {
        return (
            403,
            JSON,
            error("idelink drift alarm: the CLI must not leave loopback"),
        );
    }
    let mut parts = line.split_whitespace();
    let (method, target) = (parts.next().unwrap_or(""), parts.next().unwrap_or(""));
    let path = target.split('?').next().unwrap_or("");
    match (method, path) {
        ("POST", "/v1/messages/count_tokens") => {
            (200, JSON, json!({"input_tokens": 100}).to_string())
        }
        ("GET", "/v1/models") => (
            200,
            JSON,
            json!({"data": [], "has_more": false, "first_id": null, "last_id": null}).to_string(),
        ),
        ("POST", "/v1/messages") => {
            let Ok(request) = serde_json::from_str::<Value>(body) else {
                return (404, JSON, error("the request body is not JSON"));
            };
            let (content, stop_reason) = reply(&request, script);
            if request["stream"] == true {
                (200, "text/event-stream", sse(&content, stop_reason))
            } else {
                (200, JSON, message(content, stop_reason).to_string())
            }
        }
        _ => (404, JSON, error("not served by the idelink fake API")),
    }
}

const JSON: &str = "application/json";

fn error(message: &str) -> String {
    json!({"type": "error", "error": {"type": "not_found_error", "message": message}}).to_string()
}

/// The scripted model: the content blocks and stop reason answering `request`. A side request
/// (one not offering the Edit tool: titles, summaries) gets a short text.
pub fn reply(request: &Value, script: &EditScript) -> (Vec<Value>, &'static str) {
    if !offers_edit(request) {
        return (vec![json!({"type": "text", "text": "ok"})], "end_turn");
    }
    if !script.sequence.is_empty() {
        return sequence_reply(request, &script.sequence);
    }
    let answered = tool_results(request);
    if script.diagnostics {
        return if answered.iter().any(|id| id == DIAGNOSTICS_ID) {
            (
                vec![json!({"type": "text", "text": FINAL_TEXT})],
                "end_turn",
            )
        } else {
            (
                vec![tool_use(DIAGNOSTICS_ID, DIAGNOSTICS_TOOL, json!({}))],
                "tool_use",
            )
        };
    }
    if let Some((path, text)) = &script.create {
        return if answered.iter().any(|id| id == WRITE_ID) {
            (
                vec![json!({"type": "text", "text": FINAL_TEXT})],
                "end_turn",
            )
        } else {
            let input = json!({"file_path": path, "content": text});
            (vec![tool_use(WRITE_ID, "Write", input)], "tool_use")
        };
    }
    if answered.iter().any(|id| id == EDIT_ID) {
        (
            vec![json!({"type": "text", "text": FINAL_TEXT})],
            "end_turn",
        )
    } else if answered.iter().any(|id| id == READ_ID) {
        let input =
            json!({"file_path": script.file, "old_string": script.old, "new_string": script.new});
        (vec![tool_use(EDIT_ID, "Edit", input)], "tool_use")
    } else {
        let input = json!({"file_path": script.file});
        (vec![tool_use(READ_ID, "Read", input)], "tool_use")
    }
}

/// A block of [`EditScript::sequence`]: the model calls tool `name` with `input` (its
/// `tool_use` id made from `index`, the block's place in the list).
pub fn step(index: usize, name: &str, input: Value) -> Value {
    tool_use(&format!("toolu_idelink_step_{index}"), name, input)
}

/// A block of [`EditScript::sequence`] that ends the prompt's turn with `text`.
pub fn end_turn(text: &str) -> Value {
    json!({"type": "text", "text": text})
}

/// The block of `sequence` for `request`: the one after the last step whose `tool_use` the
/// conversation answers, past any `text` the model already said (a new prompt after it).
fn sequence_reply(request: &Value, sequence: &[Value]) -> (Vec<Value>, &'static str) {
    let answered = tool_results(request);
    let mut next = sequence
        .iter()
        .rposition(|block| answered.iter().any(|id| block["id"] == id.as_str()))
        .map_or(0, |i| i + 1);
    let said = request.to_string();
    while sequence.get(next).is_some_and(|block| {
        block["type"] == "text" && block["text"].as_str().is_some_and(|t| said.contains(t))
    }) {
        next += 1;
    }
    match sequence.get(next) {
        Some(block) if block["type"] == "tool_use" => (vec![block.clone()], "tool_use"),
        Some(block) => (vec![block.clone()], "end_turn"),
        None => (
            vec![json!({"type": "text", "text": FINAL_TEXT})],
            "end_turn",
        ),
    }
}

fn tool_use(id: &str, name: &str, input: Value) -> Value {
    json!({"type": "tool_use", "id": id, "name": name, "input": input})
}

fn offers_edit(request: &Value) -> bool {
    request["tools"]
        .as_array()
        .is_some_and(|tools| tools.iter().any(|t| t["name"] == "Edit"))
}

/// The ids of every `tool_result` in the conversation.
fn tool_results(request: &Value) -> Vec<String> {
    let messages = request["messages"]
        .as_array()
        .map_or(&[][..], Vec::as_slice);
    messages
        .iter()
        .filter_map(|m| m["content"].as_array())
        .flatten()
        .filter(|block| block["type"] == "tool_result")
        .filter_map(|block| block["tool_use_id"].as_str().map(str::to_owned))
        .collect()
}

fn message(content: Vec<Value>, stop_reason: &str) -> Value {
    json!({
        "id": "msg_idelink", "type": "message", "role": "assistant",
        "model": "claude-idelink-fake", "content": content,
        "stop_reason": stop_reason, "stop_sequence": null,
        "usage": {"input_tokens": 100, "output_tokens": 10},
    })
}

/// The same message as a Messages API event stream.
fn sse(content: &[Value], stop_reason: &str) -> String {
    let mut events = vec![json!({"type": "message_start", "message": message(Vec::new(), "")})];
    events[0]["message"]["stop_reason"] = Value::Null;
    for (index, block) in content.iter().enumerate() {
        let (start, delta) = if block["type"] == "text" {
            (
                json!({"type": "text", "text": ""}),
                json!({"type": "text_delta", "text": block["text"]}),
            )
        } else {
            let mut start = block.clone();
            start["input"] = json!({});
            let partial = block["input"].to_string();
            (
                start,
                json!({"type": "input_json_delta", "partial_json": partial}),
            )
        };
        events.push(json!({"type": "content_block_start", "index": index, "content_block": start}));
        events.push(json!({"type": "content_block_delta", "index": index, "delta": delta}));
        events.push(json!({"type": "content_block_stop", "index": index}));
    }
    events.push(json!({
        "type": "message_delta",
        "delta": {"stop_reason": stop_reason, "stop_sequence": null},
        "usage": {"output_tokens": 10},
    }));
    events.push(json!({"type": "message_stop"}));
    events
        .iter()
        .map(|event| {
            format!(
                "event: {}\ndata: {event}\n\n",
                event["type"].as_str().unwrap_or("")
            )
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn script() -> EditScript {
        EditScript {
            file: "/w/a.txt".into(),
            old: "a".into(),
            new: "b".into(),
            create: None,
            diagnostics: false,
            sequence: Vec::new(),
        }
    }

    #[test]
    fn a_sequence_goes_on_after_its_last_answered_step() {
        let sequence = EditScript {
            sequence: vec![
                step(0, "Read", json!({"file_path": "/w/a.txt"})),
                end_turn("done"),
                step(2, "Read", json!({"file_path": "/w/a.txt"})),
            ],
            ..script()
        };
        let (first, stop) = reply(&turn(&[]), &sequence);
        assert_eq!(
            (first[0]["name"].as_str(), stop),
            (Some("Read"), "tool_use")
        );
        let mut later = turn(&["toolu_idelink_step_0"]);
        later["messages"] = json!([
            {"role": "user", "content": "go"},
            {"role": "assistant", "content": [first[0].clone()]},
            {"role": "user", "content": [{"type": "tool_result", "tool_use_id": "toolu_idelink_step_0"}]},
        ]);
        let (second, stop) = reply(&later, &sequence);
        assert_eq!(
            (second[0]["text"].as_str(), stop),
            (Some("done"), "end_turn")
        );
        // The next prompt: the turn's text was said, the step after it comes.
        later["messages"]
            .as_array_mut()
            .unwrap_or_else(|| panic!("messages"))
            .extend([
                json!({"role": "assistant", "content": [second[0].clone()]}),
                json!({"role": "user", "content": "again"}),
            ]);
        let (third, stop) = reply(&later, &sequence);
        assert_eq!(
            (third[0]["id"].as_str(), stop),
            (Some("toolu_idelink_step_2"), "tool_use")
        );
    }

    #[test]
    fn a_diagnostics_script_asks_the_ide_then_ends() {
        let asking = EditScript {
            diagnostics: true,
            ..script()
        };
        let (first, stop) = reply(&turn(&[]), &asking);
        assert_eq!(
            (first[0]["name"].as_str(), stop),
            (Some(DIAGNOSTICS_TOOL), "tool_use")
        );
        let (second, stop) = reply(&turn(&[DIAGNOSTICS_ID]), &asking);
        assert_eq!(
            (second[0]["text"].as_str(), stop),
            (Some(FINAL_TEXT), "end_turn")
        );
    }

    #[test]
    fn a_creating_script_writes_then_ends() {
        let creating = EditScript {
            create: Some(("/w/new.txt".into(), "new\n".into())),
            ..script()
        };
        let (first, stop) = reply(&turn(&[]), &creating);
        assert_eq!(
            (first[0]["name"].as_str(), stop),
            (Some("Write"), "tool_use")
        );
        assert_eq!(first[0]["input"]["content"], "new\n");
        let (second, stop) = reply(&turn(&[WRITE_ID]), &creating);
        assert_eq!(
            (second[0]["text"].as_str(), stop),
            (Some(FINAL_TEXT), "end_turn")
        );
    }

    fn turn(results: &[&str]) -> Value {
        let content: Vec<Value> = results
            .iter()
            .map(|id| json!({"type": "tool_result", "tool_use_id": id, "content": "x"}))
            .collect();
        json!({"tools": [{"name": "Read"}, {"name": "Edit"}], "stream": true,
               "messages": [{"role": "user", "content": "go"}, {"role": "user", "content": content}]})
    }

    #[test]
    fn the_script_reads_then_edits_then_ends() {
        let (first, stop) = reply(&turn(&[]), &script());
        assert_eq!((first[0]["id"].as_str(), stop), (Some(READ_ID), "tool_use"));
        let (second, _) = reply(&turn(&[READ_ID]), &script());
        assert_eq!(second[0]["name"], "Edit");
        assert_eq!(second[0]["input"]["new_string"], "b");
        let (third, stop) = reply(&turn(&[READ_ID, EDIT_ID]), &script());
        assert_eq!(
            (third[0]["text"].as_str(), stop),
            (Some(FINAL_TEXT), "end_turn")
        );
        let (side, _) = reply(&json!({"messages": []}), &script());
        assert_eq!(side[0]["text"], "ok");
    }

    #[test]
    fn the_stream_carries_the_tool_input_as_one_json_delta() {
        let (content, stop) = reply(&turn(&[READ_ID]), &script());
        let stream = sse(&content, stop);
        let data: Vec<Value> = stream
            .lines()
            .filter_map(|line| line.strip_prefix("data: "))
            .map(|data| serde_json::from_str(data).unwrap())
            .collect();
        assert_eq!(data[0]["type"], "message_start");
        assert_eq!(data[1]["content_block"]["input"], json!({}));
        let partial = data[2]["delta"]["partial_json"].as_str().unwrap();
        assert_eq!(
            serde_json::from_str::<Value>(partial).unwrap()["old_string"],
            "a"
        );
        assert_eq!(data[4]["delta"]["stop_reason"], "tool_use");
        assert_eq!(data.last().unwrap()["type"], "message_stop");
    }
}
