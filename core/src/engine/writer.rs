//! Every JSON-RPC message the engine sends is written here: replies to a client's requests
//! (protocol-level ones from the MCP session, tool results, errors), answers to calls the editor
//! finished, and the engine's own notifications. One reused buffer, so steady traffic does not
//! allocate.

use super::output::SentInstead;
use crate::ide::{Answer, AtMentioned, Position, SelectionChanged, ToolName, ToolResult};
use crate::json;
use crate::mcp::McpResult;
use crate::rpc::{self, RequestId, RpcError};
use crate::ws::ServerHeader;

/// What a request is answered with.
pub(crate) enum Reply<'a> {
    /// A protocol-level result from the MCP session (`initialize`, `ping`, `tools/list`, …).
    Mcp(McpResult<'a>),
    /// A tool's result.
    Tool(ToolName, &'a ToolResult),
    /// A read tool's answer, written straight into the reply.
    Answer(ToolName, &'a Answer<'a>),
    /// A tool's result already rendered as JSON (the selection tools, see `SelectionCache`).
    Rendered(ToolName, &'a [u8]),
    /// A JSON-RPC error.
    Error(RpcError),
}

impl Reply<'_> {
    /// What [`TooLarge::message`] calls it: its tool, or `response`.
    fn subject(&self) -> &'static str {
        match self {
            Reply::Tool(tool, _) | Reply::Answer(tool, _) | Reply::Rendered(tool, _) => {
                tool.as_str()
            }
            Reply::Mcp(_) | Reply::Error(_) => "response",
        }
    }
}

/// A message over the client's limit, not sent: for [`EngineEvent::MessageTooLarge`].
///
/// [`EngineEvent::MessageTooLarge`]: super::EngineEvent::MessageTooLarge
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct TooLarge {
    /// Its tool, notification method, or `response`.
    pub(crate) message: &'static str,
    /// Its size.
    pub(crate) bytes: usize,
    /// What was written in its place.
    pub(crate) sent: SentInstead,
}

/// The text of the error sent in place of an answer of `bytes` over `limit`.
fn too_large_message(bytes: usize, limit: usize) -> String {
    format!(
        "idelink: this answer is {bytes} bytes, over the client's limit of {limit} bytes per \
         message (max_client_message_bytes), which would close the connection: it was not sent"
    )
}

/// Appends `result` as JSON: the bytes its `Serialize` impl gives, written in one escaping
/// pass straight into `out` (a tool's text can be the largest thing the engine sends; serde's
/// string escaping looks at it a byte at a time).
fn write_tool_result(out: &mut Vec<u8>, result: &ToolResult) {
    out.extend_from_slice(br#"{"content":["#);
    for (at, text) in result.texts.iter().enumerate() {
        if at > 0 {
            out.push(b',');
        }
        out.extend_from_slice(br#"{"type":"text","text":""#);
        crate::json::escape_into(out, text.as_bytes());
        out.extend_from_slice(br#""}"#);
    }
    out.push(b']');
    if result.is_error {
        out.extend_from_slice(br#","isError":true"#);
    }
    out.push(b'}');
}

/// Appends `{"line":L,"character":C}`.
fn push_position(out: &mut Vec<u8>, at: Position) {
    out.extend_from_slice(br#"{"line":"#);
    crate::json::push_u64(out, at.line.into());
    out.extend_from_slice(br#","character":"#);
    crate::json::push_u64(out, at.character.into());
    out.push(b'}');
}

/// Writes the reply `{"jsonrpc":"2.0","id":<id>,"result":…}` whose result `write_cut` writes
/// within what is left of a message that may end at `end` in `out` (false: it could not, and
/// nothing is written).
fn cut_within(
    out: &mut Vec<u8>,
    id: RequestId<'_>,
    end: usize,
    write_cut: impl FnOnce(&mut Vec<u8>, usize) -> bool,
) -> bool {
    let start = out.len();
    let mut fits = false;
    rpc::write_result_with(out, id, |out| {
        // The closing `}` of the reply after the result.
        let budget = end.saturating_sub(out.len() + 1);
        fits = write_cut(out, budget);
        if fits { Ok(()) } else { Err(()) }
    });
    if !fits {
        out.truncate(start);
    }
    fits
}

/// The JSON messages written for one step of the engine, in order, until they are sent.
///
/// Each message is written after room for its WebSocket frame header, so that a lone message
/// for one client is framed where it lies and its buffer handed to the connection whole
/// ([`Writer::take_framed`]): a big answer is never copied into the outbound buffer.
///
/// No message written is over `limit` bytes ([`Config::max_client_message_bytes`]: the CLI
/// closes its connection on one): a reply over it is written again as its fallback (a cut
/// `getDiagnostics`, an error), a notification over it is not written, and each is recorded
/// for the engine to report ([`Writer::take_too_large`]).
///
/// [`Config::max_client_message_bytes`]: super::Config::max_client_message_bytes
pub(crate) struct Writer {
    json: Vec<u8>,
    /// Where each message in `json` ends.
    ends: Vec<usize>,
    /// The largest message payload written.
    limit: usize,
    /// The messages over `limit` since the engine last took them.
    too_large: Vec<TooLarge>,
}

impl Default for Writer {
    /// A writer with no limit.
    fn default() -> Self {
        Writer::new(usize::MAX)
    }
}

/// Room left before each message for its frame header.
const FRAME_ROOM: usize = crate::ws::MAX_HEADER;

impl Writer {
    /// A writer that writes no message over `limit` bytes.
    pub(crate) fn new(limit: usize) -> Self {
        Writer {
            json: Vec::new(),
            ends: Vec::new(),
            limit,
            too_large: Vec::new(),
        }
    }

    /// The messages over the limit since the last call, oldest first.
    pub(crate) fn take_too_large(&mut self) -> Vec<TooLarge> {
        std::mem::take(&mut self.too_large)
    }

    /// Forgets the messages written (capacity kept: one buffer per engine, as large as the
    /// largest step so far, so big answers are not re-grown each time; a buffer handed to a
    /// connection comes back through [`Writer::offer`] once sent).
    pub(crate) fn clear(&mut self) {
        self.json.clear();
        self.ends.clear();
    }

    /// Takes `buf`, a buffer a connection sent and does not keep (a big answer handed over
    /// by [`Writer::take_framed`]), in place of its own when it is larger: the next big
    /// answer is written without growing a buffer again. Between steps only: the messages
    /// written are forgotten.
    pub(crate) fn offer(&mut self, mut buf: Vec<u8>) {
        if buf.capacity() > self.json.capacity() {
            buf.clear();
            self.json = buf;
            self.ends.clear();
        }
    }

    /// Leaves the room for the next message's frame header.
    fn begin(&mut self) {
        self.json.extend_from_slice(&[0; FRAME_ROOM]);
    }

    /// Writes the reply to request `id`; over the limit, its fallback
    /// ([`Writer::reply_within`] then [`Writer::reply_refused`]).
    pub(crate) fn reply(&mut self, id: RequestId<'_>, reply: &Reply<'_>) {
        if let Err(bytes) = self.reply_within(id, reply) {
            self.reply_refused(id, reply, bytes);
        }
    }

    /// Writes the reply to request `id` when it is within the limit; otherwise writes nothing
    /// and returns its size.
    pub(crate) fn reply_within(
        &mut self,
        id: RequestId<'_>,
        reply: &Reply<'_>,
    ) -> Result<(), usize> {
        let start = self.json.len();
        self.begin();
        match reply {
            Reply::Mcp(result) => rpc::write_result_with(&mut self.json, id, |out| {
                result.write_json(out);
                Ok::<(), std::convert::Infallible>(())
            }),
            Reply::Tool(_, result) => rpc::write_result_with(&mut self.json, id, |out| {
                write_tool_result(out, result);
                Ok::<(), std::convert::Infallible>(())
            }),
            Reply::Answer(_, answer) => rpc::write_result_with(&mut self.json, id, |out| {
                answer.write_result(out);
                Ok::<(), std::convert::Infallible>(())
            }),
            Reply::Rendered(_, json) => rpc::write_result_with(&mut self.json, id, |out| {
                out.extend_from_slice(json);
                Ok::<(), std::convert::Infallible>(())
            }),
            Reply::Error(error) => rpc::write_error(&mut self.json, Some(id), error),
        }
        self.end_message(start)
    }

    /// Writes what goes in place of `reply`, `bytes` over the limit, and records it: a
    /// `getDiagnostics` answer cut to fit, an error result for any other tool's answer, a
    /// JSON-RPC error for any other reply; nothing when even that is over the limit (an id
    /// that alone passes it).
    pub(crate) fn reply_refused(&mut self, id: RequestId<'_>, reply: &Reply<'_>, bytes: usize) {
        let limit = self.limit;
        let start = self.json.len();
        self.begin();
        let sent = match reply {
            Reply::Answer(_, answer)
                if cut_within(
                    &mut self.json,
                    id,
                    start + FRAME_ROOM + limit,
                    |out, budget| answer.write_cut_result(out, budget, limit),
                ) =>
            {
                SentInstead::Truncated
            }
            Reply::Tool(..) | Reply::Answer(..) | Reply::Rendered(..) => {
                let error = ToolResult::error(too_large_message(bytes, limit));
                rpc::write_result_with(&mut self.json, id, |out| {
                    write_tool_result(out, &error);
                    Ok::<(), std::convert::Infallible>(())
                });
                SentInstead::Error
            }
            Reply::Mcp(_) | Reply::Error(_) => {
                let error = RpcError::new(RpcError::TOO_LARGE, too_large_message(bytes, limit));
                rpc::write_error(&mut self.json, Some(id), &error);
                SentInstead::Error
            }
        };
        let sent = match self.end_message(start) {
            Ok(()) => sent,
            Err(_) => SentInstead::Nothing,
        };
        self.too_large.push(TooLarge {
            message: reply.subject(),
            bytes,
            sent,
        });
    }

    /// Writes `TAB_CLOSED` as the reply to request `id`, an accepted `openDiff` whose
    /// `FILE_SAVED` answer, `bytes` over the limit, carries the proposal unchanged (the CLI
    /// reads both as that accept), and records it.
    pub(crate) fn tab_closed_in_place_of(&mut self, id: RequestId<'_>, bytes: usize) {
        let result = ToolResult::text("TAB_CLOSED");
        let reply = Reply::Tool(ToolName::OpenDiff, &result);
        let sent = match self.reply_within(id, &reply) {
            Ok(()) => SentInstead::TabClosed,
            Err(_) => SentInstead::Nothing,
        };
        self.too_large.push(TooLarge {
            message: ToolName::OpenDiff.as_str(),
            bytes,
            sent,
        });
    }

    /// Ends the message begun at `start` (its frame room included): kept when within the
    /// limit, else removed, with its size returned.
    fn end_message(&mut self, start: usize) -> Result<(), usize> {
        let bytes = self.json.len() - start - FRAME_ROOM;
        if bytes > self.limit {
            self.json.truncate(start);
            return Err(bytes);
        }
        self.ends.push(self.json.len());
        Ok(())
    }

    /// A notification of `bytes` over the limit was not written: records it.
    fn refuse_notification(&mut self, method: &'static str, bytes: usize) {
        self.too_large.push(TooLarge {
            message: method,
            bytes,
            sent: SentInstead::Nothing,
        });
    }

    /// Writes an error reply to a message whose id could not be read (`id: null`).
    pub(crate) fn error_without_id(&mut self, error: &RpcError) {
        let start = self.json.len();
        self.begin();
        rpc::write_error(&mut self.json, None, error);
        // The error's text is the engine's own, and short.
        let _ = self.end_message(start);
    }

    /// Writes `json`, a message this writer wrote before (a session's last selection, kept
    /// by the routing), again as it was.
    pub(crate) fn again(&mut self, json: &[u8]) {
        let start = self.json.len();
        self.begin();
        self.json.extend_from_slice(json);
        // It fit when it was first written, under the same limit.
        let _ = self.end_message(start);
    }

    /// Writes our request `roots/list` with id `id` (MCP roots: no params).
    pub(crate) fn roots_list_request(&mut self, id: u64) {
        let start = self.json.len();
        self.begin();
        self.json.extend_from_slice(br#"{"jsonrpc":"2.0","id":"#);
        json::push_u64(&mut self.json, id);
        self.json.extend_from_slice(br#","method":"roots/list"}"#);
        // Some 50 bytes: within any limit.
        let _ = self.end_message(start);
    }

    /// Writes a notification through serde: the oracle of the engine's own notification
    /// writers. False (nothing written) when `params` cannot be serialized, or when it is
    /// over the limit (recorded).
    #[cfg(test)]
    pub(crate) fn notification(
        &mut self,
        method: &'static str,
        params: &impl serde::Serialize,
    ) -> bool {
        let start = self.json.len();
        self.begin();
        if rpc::write_notification(&mut self.json, method, params).is_err() {
            self.json.truncate(start);
            return false;
        }
        self.end_notification(start, method)
    }

    /// Writes `selection_changed` with `params`: the bytes [`Writer::notification`] writes,
    /// in one escaping pass (a selection can be a whole file). False, with nothing written,
    /// when it is over the limit (recorded).
    pub(crate) fn selection_changed(&mut self, params: &SelectionChanged) -> bool {
        let start = self.json.len();
        self.begin();
        let out = &mut self.json;
        out.extend_from_slice(
            br#"{"jsonrpc":"2.0","method":"selection_changed","params":{"text":""#,
        );
        crate::json::escape_into(out, params.text.as_bytes());
        out.extend_from_slice(br#"","filePath":""#);
        crate::json::escape_into(out, params.file_path.as_bytes());
        out.extend_from_slice(br#"","fileUrl":""#);
        crate::json::escape_into(out, params.file_url.as_bytes());
        out.extend_from_slice(br#"","selection":{"start":"#);
        push_position(out, params.selection.start);
        out.extend_from_slice(br#","end":"#);
        push_position(out, params.selection.end);
        out.extend_from_slice(if params.selection.is_empty {
            br#","isEmpty":true}}}"#
        } else {
            br#","isEmpty":false}}}"#
        });
        self.end_notification(start, SelectionChanged::METHOD)
    }

    /// Writes `at_mentioned` with `params`: the bytes serde_json writes for them
    /// (`lineStart` and `lineEnd` left out when unknown). False, with nothing written, when
    /// it is over the limit (recorded).
    pub(crate) fn at_mentioned(&mut self, params: &AtMentioned) -> bool {
        let start = self.json.len();
        self.begin();
        let out = &mut self.json;
        out.extend_from_slice(br#"{"jsonrpc":"2.0","method":"at_mentioned","params":{"filePath":"#);
        crate::json::push_string(out, &params.file_path);
        if let Some(line) = params.line_start {
            out.extend_from_slice(br#","lineStart":"#);
            crate::json::push_u64(out, line.into());
        }
        if let Some(line) = params.line_end {
            out.extend_from_slice(br#","lineEnd":"#);
            crate::json::push_u64(out, line.into());
        }
        out.extend_from_slice(b"}}");
        self.end_notification(start, AtMentioned::METHOD)
    }

    /// Writes `selection_changed` with [`crate::ide::NoFileSelected::PARAMS`]: the bytes serde_json
    /// writes for them. False, with nothing written, when it is over the limit (recorded: a
    /// limit below ~150 bytes).
    pub(crate) fn no_file_selected(&mut self) -> bool {
        let start = self.json.len();
        self.begin();
        self.json.extend_from_slice(
            br#"{"jsonrpc":"2.0","method":"selection_changed","params":{"text":"","selection":{"start":{"line":0,"character":0},"end":{"line":0,"character":0},"isEmpty":true}}}"#,
        );
        self.end_notification(start, SelectionChanged::METHOD)
    }

    /// Ends the notification `method` begun at `start`: true when kept within the limit,
    /// else false, removed and recorded.
    fn end_notification(&mut self, start: usize, method: &'static str) -> bool {
        match self.end_message(start) {
            Ok(()) => true,
            Err(bytes) => {
                self.refuse_notification(method, bytes);
                false
            }
        }
    }

    /// The messages written since the last `clear`, in order.
    pub(crate) fn messages(&self) -> impl Iterator<Item = &[u8]> {
        let starts = std::iter::once(0).chain(self.ends.iter().copied());
        starts
            .zip(self.ends.iter().copied())
            .map(|(start, end)| &self.json[start + FRAME_ROOM..end])
    }

    /// The length of the one message written since the last `clear`; `None` for none or
    /// several.
    pub(crate) fn lone_len(&self) -> Option<usize> {
        match self.ends[..] {
            [end] => Some(end - FRAME_ROOM),
            _ => None,
        }
    }

    /// Frames the one message written in place and hands its buffer over: `header` gives the
    /// frame header for the message's length (or `None`: it may not be sent), written at the
    /// end of the room before the message, and the buffer is swapped with `into` (an empty
    /// buffer, which the writer keeps). Returns where the frame starts in the buffer handed
    /// over; the writer is left cleared. `None`, with nothing changed, when no header was
    /// given or not exactly one message was written.
    pub(crate) fn take_framed(
        &mut self,
        header: impl FnOnce(usize) -> Option<ServerHeader>,
        into: &mut Vec<u8>,
    ) -> Option<usize> {
        let header = header(self.lone_len()?)?;
        let header = header.as_bytes();
        let start = FRAME_ROOM - header.len();
        self.json[start..FRAME_ROOM].copy_from_slice(header);
        std::mem::swap(&mut self.json, into);
        self.clear();
        Some(start)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    /// A text frame of `payload` as `ServerSocket::send_text` writes it.
    fn copied_frame(payload: &[u8]) -> Vec<u8> {
        let mut frame = Vec::new();
        crate::ws::write_frame_header(&mut frame, true, crate::ws::OpCode::Text, payload.len());
        frame.extend_from_slice(payload);
        frame
    }

    #[test]
    fn a_lone_message_is_framed_in_place_as_it_would_be_copied() {
        let socket = crate::ws::ServerSocket::new(
            crate::ws::WsConfig::default(),
            crate::time::Timestamp::from_millis(0),
        );
        // Payloads around the length encodings' limits (RFC 6455 §5.2: 125, 65535).
        let sizes = (60..80).chain(65_470..65_490).chain([200_000]);
        for size in sizes {
            let mut writer = Writer::default();
            assert!(writer.notification("m", &"x".repeat(size)));
            let message = writer.messages().next().unwrap().to_vec();
            assert_eq!(writer.lone_len(), Some(message.len()));
            let mut spare = Vec::with_capacity(7);
            let start = writer.take_framed(|len| socket.text_header(len), &mut spare);
            let start = start.unwrap();
            assert_eq!(&spare[start..], copied_frame(&message), "{size}");
            assert_eq!(writer.messages().count(), 0);
            assert!(writer.json.is_empty() && writer.json.capacity() >= 7);
        }
    }

    #[test]
    fn the_larger_buffer_is_kept() {
        let mut writer = Writer::default();
        assert!(writer.notification("m", &1));
        writer.offer(Vec::with_capacity(1 << 20));
        assert_eq!(writer.messages().count(), 0);
        assert!(writer.json.capacity() >= 1 << 20);
        writer.offer(b"small".to_vec());
        assert!(writer.json.capacity() >= 1 << 20);
    }

    #[test]
    fn only_a_lone_message_with_a_header_is_taken() {
        let mut writer = Writer::default();
        let mut spare = Vec::new();
        assert_eq!(
            writer.take_framed(|_| panic!("no message"), &mut spare),
            None
        );
        assert!(writer.notification("a", &1));
        assert_eq!(writer.take_framed(|_| None, &mut spare), None);
        assert!(writer.notification("b", &2));
        let unencodable = std::collections::BTreeMap::from([((1, 2), 3)]);
        assert!(!writer.notification("c", &unencodable));
        assert_eq!(writer.lone_len(), None);
        assert_eq!(
            writer.take_framed(|_| panic!("two messages"), &mut spare),
            None
        );
        let messages: Vec<&[u8]> = writer.messages().collect();
        assert_eq!(
            messages,
            [
                &br#"{"jsonrpc":"2.0","method":"a","params":1}"#[..],
                &br#"{"jsonrpc":"2.0","method":"b","params":2}"#[..],
            ]
        );
        assert!(spare.is_empty());
    }

    proptest! {
        #[test]
        fn tool_results_are_written_as_they_serialize(
            texts in prop::collection::vec("[a-z\"\\\\\\x00-\\x1f é✻]{0,24}", 0..4),
            is_error in any::<bool>(),
        ) {
            let result = ToolResult { texts, is_error };
            let mut ours = Vec::new();
            write_tool_result(&mut ours, &result);
            prop_assert_eq!(ours, serde_json::to_vec(&result).unwrap());
        }

        #[test]
        fn at_mentioned_is_written_as_it_serializes(
            path in "/[a-z\"\\\\\\x00-\\x1f é✻]{0,12}",
            line_start in proptest::option::of(any::<u32>()),
            line_end in proptest::option::of(any::<u32>()),
        ) {
            let params = AtMentioned { file_path: path, line_start, line_end };
            let mut ours = Writer::default();
            ours.at_mentioned(&params);
            let mut theirs = Writer::default();
            prop_assert!(theirs.notification(AtMentioned::METHOD, &params));
            prop_assert_eq!(ours.messages().collect::<Vec<_>>(), theirs.messages().collect::<Vec<_>>());
        }

        #[test]
        fn selection_changed_is_written_as_it_serializes(
            text in "[a-z\"\\\\\\x00-\\x1f é✻]{0,24}",
            path in "/[a-z\"\\\\ é]{0,12}",
            lines in (any::<u32>(), any::<u32>(), 0..3u32, 0..3u32),
        ) {
            let range = crate::ide::Range {
                start: Position { line: lines.0, character: lines.2 },
                end: Position { line: lines.1, character: lines.3 },
            };
            let params = SelectionChanged::new(&path, &text, range);
            let mut ours = Writer::default();
            ours.selection_changed(&params);
            let mut theirs = Writer::default();
            prop_assert!(theirs.notification(SelectionChanged::METHOD, &params));
            prop_assert_eq!(&ours.json, &theirs.json);
            prop_assert_eq!(&ours.ends, &theirs.ends);
        }
    }

    #[test]
    fn no_file_selected_is_written_as_it_serializes() {
        use crate::ide::NoFileSelected;
        let mut ours = Writer::default();
        ours.no_file_selected();
        let mut theirs = Writer::default();
        assert!(theirs.notification(SelectionChanged::METHOD, &NoFileSelected::PARAMS));
        assert_eq!(
            ours.messages().collect::<Vec<_>>(),
            theirs.messages().collect::<Vec<_>>()
        );
    }
}
