//! Big answers, engine only: a 5 MiB `selection_changed` push and a 50,000-entry
//! `getDiagnostics` answer, each next to its serialization floor (`serde_json::to_writer`
//! producing the same JSON into a reused `Vec`).

use crate::engine_ops::{Drained, SOURCE_TEXT, Session};
use crate::wire::{self, FILE_PATH};
use idelink_core::EditorEvent;
use idelink_core::ide::{Diagnostic, Position, Range, SelectionChanged, Severity, file_uri};
use std::io::Write;

/// `len` bytes of source code (lines with quotes and newlines, so escaping has work to do).
pub fn source_text(len: usize) -> String {
    let mut text: String = SOURCE_TEXT.repeat(len.div_ceil(SOURCE_TEXT.len()));
    text.truncate(len);
    text
}

/// A selection of `text` starting at `line` of the benchmark document.
pub fn big_selection(text: &str, line: u32) -> EditorEvent {
    EditorEvent::SelectionChanged {
        path: FILE_PATH.into(),
        text: text.into(),
        selection: Range {
            start: Position { line, character: 0 },
            end: Position {
                line: line + 100_000,
                character: 0,
            },
        },
    }
}

/// The push for a big selection: the editor reports it, the debounce runs out, the one client
/// gets `selection_changed`. Two selections alternate so each push is a change.
pub struct SelectionPush {
    session: Session,
    events: [EditorEvent; 2],
    next: usize,
}

impl SelectionPush {
    /// A session with one ready client and two selections of `len` bytes.
    pub fn new(len: usize) -> SelectionPush {
        let text = source_text(len);
        SelectionPush {
            session: Session::new(1),
            events: [big_selection(&text, 1), big_selection(&text, 2)],
            next: 0,
        }
    }

    /// One push; returns what was sent.
    pub fn push(&mut self) -> Drained {
        self.select();
        self.send()
    }

    /// The editor reports the next selection (the state keeps its own copy of the text).
    pub fn select(&mut self) {
        self.next ^= 1;
        self.session.editor_event_only(&self.events[self.next]);
    }

    /// The debounce runs out and the notification is sent: the output path alone.
    pub fn send(&mut self) -> Drained {
        self.session.debounce()
    }
}

/// The floor for the push: `serde_json::to_writer` of the same notification into a `Vec`.
pub struct SelectionFloor {
    params: SelectionChanged,
    out: Vec<u8>,
}

impl SelectionFloor {
    /// The notification for a selection of `len` bytes.
    pub fn new(len: usize) -> SelectionFloor {
        let range = Range {
            start: Position {
                line: 2,
                character: 0,
            },
            end: Position {
                line: 100_002,
                character: 0,
            },
        };
        SelectionFloor {
            params: SelectionChanged::new(FILE_PATH, &source_text(len), range),
            out: Vec::new(),
        }
    }

    /// Serializes the notification; returns its length.
    pub fn serialize(&mut self) -> usize {
        self.out.clear();
        self.out
            .extend_from_slice(br#"{"jsonrpc":"2.0","method":"selection_changed","params":"#);
        let written = serde_json::to_writer(&mut self.out, &self.params);
        self.out.push(b'}');
        written.map_or(0, |()| self.out.len())
    }

    /// The JSON it wrote last.
    pub fn json(&self) -> &[u8] {
        &self.out
    }
}

/// `count` diagnostics spread over files of 100 each, as `DiagnosticsChanged` events.
pub fn diagnostics_events(count: usize) -> Vec<EditorEvent> {
    let per_file = 100;
    (0..count.div_ceil(per_file))
        .map(|file| EditorEvent::DiagnosticsChanged {
            path: format!("/home/u/proj/src/module_{file:04}.rs"),
            diagnostics: (0..per_file.min(count - file * per_file))
                .map(|n| diagnostic(n as u32))
                .collect(),
        })
        .collect()
}

fn diagnostic(n: u32) -> Diagnostic {
    Diagnostic {
        message: format!("unused variable: `value_{n}`\nhelp: prefix it with an underscore"),
        severity: if n.is_multiple_of(3) {
            Severity::Error
        } else {
            Severity::Warning
        },
        range: Range {
            start: Position {
                line: n,
                character: 8,
            },
            end: Position {
                line: n,
                character: 16,
            },
        },
        source: Some("rustc".into()),
        code: None,
    }
}

/// `tools/call getDiagnostics` with no `uri` (every file), id `id`.
pub fn diagnostics_call(id: u64) -> Vec<u8> {
    wire::client_frame(&format!(
        r#"{{"jsonrpc":"2.0","id":{id},"method":"tools/call","params":{{"name":"getDiagnostics","arguments":{{}}}}}}"#
    ))
}

/// A session whose editor reported `count` diagnostics, answering `getDiagnostics`.
pub struct DiagnosticsAnswer {
    session: Session,
    calls: [Vec<u8>; 2],
    next: usize,
}

impl DiagnosticsAnswer {
    /// A session with one ready client and `count` diagnostics.
    pub fn new(count: usize) -> DiagnosticsAnswer {
        let mut session = Session::new(1);
        for event in diagnostics_events(count) {
            session.editor_event(&event);
        }
        DiagnosticsAnswer {
            session,
            calls: [diagnostics_call(1), diagnostics_call(2)],
            next: 0,
        }
    }

    /// One call and its answer; returns what was sent.
    pub fn call(&mut self) -> Drained {
        self.next ^= 1;
        self.session.call(&self.calls[self.next])
    }

    /// The last answer's bytes (a frame), when the session keeps them: see
    /// [`Session::call_bytes`].
    pub fn answer(&mut self) -> Vec<u8> {
        self.next ^= 1;
        self.session.call_bytes(&self.calls[self.next])
    }
}

/// The floor for the answer: the diagnostics serialized by `serde_json::to_writer`, then that
/// text serialized as the JSON string of the tool result's one text item, the way a server
/// built on serde writes it (two passes, the second escaping the first).
pub struct DiagnosticsFloor {
    files: Vec<(String, Vec<Diagnostic>)>,
    inner: Vec<u8>,
    out: Vec<u8>,
}

impl DiagnosticsFloor {
    /// The answer for `count` diagnostics.
    pub fn new(count: usize) -> DiagnosticsFloor {
        let files = diagnostics_events(count)
            .into_iter()
            .filter_map(|event| match event {
                EditorEvent::DiagnosticsChanged { path, diagnostics } => Some((path, diagnostics)),
                _ => None,
            })
            .collect();
        DiagnosticsFloor {
            files,
            inner: Vec::new(),
            out: Vec::new(),
        }
    }

    /// Serializes the answer to call `id`; returns its length.
    pub fn serialize(&mut self, id: u64) -> usize {
        self.inner.clear();
        self.inner.push(b'[');
        for (at, (path, diagnostics)) in self.files.iter().enumerate() {
            if at > 0 {
                self.inner.push(b',');
            }
            self.inner.extend_from_slice(br#"{"uri":"#);
            let _ = serde_json::to_writer(&mut self.inner, &file_uri(path));
            self.inner.extend_from_slice(br#","diagnostics":"#);
            let _ = serde_json::to_writer(&mut self.inner, diagnostics);
            self.inner.push(b'}');
        }
        self.inner.push(b']');
        self.out.clear();
        let _ = write!(
            self.out,
            r#"{{"jsonrpc":"2.0","id":{id},"result":{{"content":[{{"type":"text","text":"#
        );
        let text = std::str::from_utf8(&self.inner).unwrap_or_default();
        let _ = serde_json::to_writer(&mut self.out, text);
        self.out.extend_from_slice(b"}]}}");
        self.out.len()
    }

    /// The JSON it wrote last.
    pub fn json(&self) -> &[u8] {
        &self.out
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::Value;

    /// The payload of the one unmasked server frame in `bytes`.
    fn payload(bytes: &[u8]) -> Value {
        let mut reader = wire::FrameReader::default();
        let mut stream = std::io::Cursor::new(bytes);
        let frame = reader.read_frame(&mut stream).ok();
        let payload = frame.map_or(&[][..], |f| reader.payload(f));
        serde_json::from_slice(payload).unwrap_or(Value::Null)
    }

    #[test]
    fn the_push_and_its_floor_carry_the_same_json() {
        let mut push = SelectionPush::new(100_000);
        let mut session = Session::new(1);
        let sent = session.editor_event_bytes(&big_selection(&source_text(100_000), 2));
        assert!(push.push().sent > 100_000);
        let mut floor = SelectionFloor::new(100_000);
        assert!(floor.serialize() > 100_000);
        let expected: Value = serde_json::from_slice(floor.json()).unwrap_or_default();
        assert_eq!(payload(&sent), expected);
    }

    #[test]
    fn the_diagnostics_answer_and_its_floor_carry_the_same_json() {
        let mut answer = DiagnosticsAnswer::new(1_000);
        assert!(answer.call().sent > 100_000);
        let bytes = answer.answer();
        let mut floor = DiagnosticsFloor::new(1_000);
        floor.serialize(1);
        let expected: Value = serde_json::from_slice(floor.json()).unwrap_or_default();
        let got = payload(&bytes);
        assert!(got == expected, "the answer differs from the floor's JSON");
        let text = got["result"]["content"][0]["text"]
            .as_str()
            .unwrap_or_default();
        let files: Value = serde_json::from_str(text).unwrap_or_default();
        let entries: usize = files.as_array().map_or(0, |f| {
            f.iter()
                .map(|f| f["diagnostics"].as_array().map_or(0, Vec::len))
                .sum()
        });
        assert_eq!(entries, 1_000);
    }
}
