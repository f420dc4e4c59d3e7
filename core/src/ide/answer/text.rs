//! Where an answer's JSON is written: plain, or escaped as the contents of the JSON string
//! that carries it. Structure comes as [`Lit`]s, escaped at compile time; string values are
//! escaped once or twice as they are copied.

use crate::ide::path::file_uri_prefix;
use crate::ide::{DiagnosticCode, Position};
use crate::json;

/// A piece of JSON structure (never a string's contents), in its two spellings: as is, and
/// escaped as the contents of a JSON string. Made by `lit!`, which escapes at compile time.
#[derive(Clone, Copy)]
pub(super) struct Lit {
    /// As JSON text.
    pub(super) plain: &'static [u8],
    /// Escaped as a string's contents.
    pub(super) nested: &'static [u8],
}

/// The length of `text` escaped by [`escape_lit`]. A control byte stops the build: structure
/// never holds one.
pub(super) const fn escaped_len(text: &[u8]) -> usize {
    let mut len = text.len();
    let mut at = 0;
    while at < text.len() {
        match text[at] {
            b'"' | b'\\' => len += 1,
            0..=0x1f => panic!("a control byte in a JSON literal"),
            _ => {}
        }
        at += 1;
    }
    len
}

/// `text` as the contents of a JSON string: a backslash before each `"` and `\` (RFC 8259 §7;
/// [`escaped_len`] refuses the control bytes).
pub(super) const fn escape_lit<const N: usize>(text: &[u8]) -> [u8; N] {
    let mut out = [0u8; N];
    let mut at = 0;
    let mut to = 0;
    while at < text.len() {
        if matches!(text[at], b'"' | b'\\') {
            out[to] = b'\\';
            to += 1;
        }
        out[to] = text[at];
        to += 1;
        at += 1;
    }
    out
}

/// A [`Lit`] for a string literal, both spellings computed at compile time.
macro_rules! lit {
    ($text:literal) => {{
        const PLAIN: &[u8] = $text.as_bytes();
        const NESTED: [u8; $crate::ide::answer::text::escaped_len(PLAIN)] =
            $crate::ide::answer::text::escape_lit(PLAIN);
        const LIT: $crate::ide::answer::text::Lit = $crate::ide::answer::text::Lit {
            plain: PLAIN,
            nested: &NESTED,
        };
        LIT
    }};
}
pub(super) use lit;

/// Where an answer's JSON goes: `out`, as plain JSON text, or (`nested`) escaped as the
/// contents of the JSON string it is carried in.
pub(super) struct JsonText<'o> {
    pub(super) out: &'o mut Vec<u8>,
    pub(super) nested: bool,
}

impl JsonText<'_> {
    pub(super) fn lit(&mut self, lit: Lit) {
        self.out
            .extend_from_slice(if self.nested { lit.nested } else { lit.plain });
    }

    /// The contents of a JSON string (no quotes).
    pub(super) fn contents(&mut self, text: &str) {
        if self.nested {
            json::escape_twice_into(self.out, text.as_bytes());
        } else {
            json::escape_into(self.out, text.as_bytes());
        }
    }

    pub(super) fn string(&mut self, text: &str) {
        self.lit(lit!("\""));
        self.contents(text);
        self.lit(lit!("\""));
    }

    /// The string `file://…` naming `normalized_path` (see [`crate::ide::file_uri`]).
    pub(super) fn uri(&mut self, normalized_path: &str) {
        self.lit(lit!("\""));
        self.out
            .extend_from_slice(file_uri_prefix(normalized_path).as_bytes());
        self.contents(normalized_path);
        self.lit(lit!("\""));
    }

    /// The string `_claude_fs_right:…` naming the proposal shown against `normalized_path`:
    /// the path spelled as in its `file://` URI (a drive path after a slash), the prefix the
    /// CLI's bundled code strips (`normalizeFileUri`).
    pub(super) fn proposal_uri(&mut self, normalized_path: &str) {
        self.lit(lit!("\""));
        self.out.extend_from_slice(b"_claude_fs_right:");
        let prefix = file_uri_prefix(normalized_path);
        self.out
            .extend_from_slice(&prefix.as_bytes()["file://".len()..]);
        self.contents(normalized_path);
        self.lit(lit!("\""));
    }

    pub(super) fn bool(&mut self, value: bool) {
        self.lit(if value { lit!("true") } else { lit!("false") });
    }

    pub(super) fn u64(&mut self, n: u64) {
        json::push_u64(self.out, n);
    }

    /// `{"line":L,"character":C}`.
    pub(super) fn position(&mut self, at: Position) {
        self.lit(lit!(r#"{"line":"#));
        self.u64(at.line.into());
        self.lit(lit!(r#","character":"#));
        self.u64(at.character.into());
        self.lit(lit!("}"));
    }

    /// A diagnostic's code: a string or an integer as serde_json writes it, any other code
    /// as its JSON text, kept as it came in ([`DiagnosticCode`]).
    pub(super) fn code(&mut self, code: &DiagnosticCode) {
        match code {
            DiagnosticCode::Text(text) => self.string(text),
            DiagnosticCode::Number(n) => {
                if *n < 0 {
                    self.out.push(b'-');
                }
                self.u64(n.unsigned_abs());
            }
            DiagnosticCode::Json(raw) if self.nested => {
                json::escape_into(self.out, raw.as_str().as_bytes())
            }
            DiagnosticCode::Json(raw) => self.out.extend_from_slice(raw.as_str().as_bytes()),
        }
    }
}
