//! The one JSON scanner: RFC 8259's grammar checked in one pass over the bytes, values kept
//! as byte ranges, the nesting depth measured on the way.
//!
//! It decides exactly what serde_json 1.x decides when it reads a message into borrowed
//! raw values: the same grammar (no trailing commas, no leading zeros, no comments), the same
//! string rules (no raw control characters; the escapes of §7, with any four hex digits after
//! `\u`), and no limit of its own on nesting. Reading allocates nothing unless a text
//! nests deeper than [`INLINE_LEVELS`], which only a hostile peer sends.
//!
//! A reader made by [`Reader::trusted`] walks text this scanner (or serde_json) already
//! accepted, such as a raw value of a parsed message: it crosses a string value by searching
//! for its closing quote with `memchr` instead of checking every byte again, so walking an
//! `openDiff`'s arguments costs little more than a `memchr` over them.
//!
//! A reader made by [`Reader::serde_value`] adds the rules serde_json 1.x applies when it
//! reads a text into a `serde_json::Value` ([`super::value`]): no unpaired surrogate escape,
//! no number it reads as infinite, at most [`SERDE_NESTING`] open brackets, and its raw-value
//! token. Every refusal is placed where serde_json places its error ([`Reader::refusal`]).

use super::members::{Member, Name};
use super::string::decode;
use super::value::{Position, RAW_VALUE_TOKEN, check_value};

/// The text is not JSON (RFC 8259): where the answer is a parse error.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct NotJson;

/// Open brackets remembered without allocating; deeper ones spill into a `Vec`.
pub(super) const INLINE_LEVELS: usize = 256;

/// The open brackets serde_json reads at most into a `Value`, plus one: its recursion limit
/// refuses the 128th open bracket.
const SERDE_NESTING: usize = 128;

/// For each byte, whether it ends the fast run through a string's contents: `"`, `\`, and
/// the control characters that RFC 8259 §7 says MUST be escaped (U+0000 through U+001F).
const STRING_STOP: [bool; 256] = {
    let mut table = [false; 256];
    let mut byte = 0;
    while byte < 0x20 {
        table[byte] = true;
        byte += 1;
    }
    table[b'"' as usize] = true;
    table[b'\\' as usize] = true;
    table
};

/// A string just read: where it ends and whether it holds an escape.
#[derive(Debug, Clone, Copy)]
pub(crate) struct Str {
    /// Index just past the closing quote.
    pub(crate) end: usize,
    /// Whether a `\` occurs in it (its decoded text differs from its raw contents).
    pub(crate) escaped: bool,
}

/// A cursor over the text with the stack of open arrays and objects.
pub(crate) struct Reader<'a> {
    text: &'a str,
    bytes: &'a [u8],
    at: usize,
    /// Open brackets, innermost last: bit set for an object, clear for an array.
    inline: [u64; INLINE_LEVELS / 64],
    spill: Vec<u64>,
    depth: usize,
    deepest: usize,
    /// Whether the text was already accepted: string values are then crossed by
    /// [`string_end`], not checked again.
    trusted: bool,
    /// Whether serde_json's `Value` rules apply too ([`Reader::serde_value`]).
    value_rules: bool,
    /// Where the last refusal stopped, as serde_json places its errors: the index just past
    /// the last byte it read.
    stop: usize,
    /// A refusal inside the text of a raw value (serde_json's raw-value token), placed in that
    /// text, not in this one.
    inner: Option<Position>,
}

impl<'a> Reader<'a> {
    /// A reader at the start of `text`, which it checks.
    pub(crate) fn new(text: &'a str) -> Self {
        Reader {
            text,
            bytes: text.as_bytes(),
            at: 0,
            inline: [0; INLINE_LEVELS / 64],
            spill: Vec::new(),
            depth: 0,
            deepest: 0,
            trusted: false,
            value_rules: false,
            stop: 0,
            inner: None,
        }
    }

    /// A reader at the start of `text`, which it checks with serde_json's `Value` rules too
    /// (see the module's docs).
    pub(crate) fn serde_value(text: &'a str) -> Self {
        Reader {
            value_rules: true,
            ..Reader::new(text)
        }
    }

    /// A reader at the start of `text`, one JSON value this scanner or serde_json already
    /// accepted: string values are crossed without being checked again. On text that was not
    /// accepted it still never panics; what it reads is then unspecified.
    pub(crate) fn trusted(text: &'a str) -> Self {
        Reader {
            trusted: true,
            ..Reader::new(text)
        }
    }

    /// The index of the next byte to read.
    pub(crate) fn at(&self) -> usize {
        self.at
    }

    /// Where the last refusal of this reader is, as serde_json places its error: the line
    /// and column of the last byte it read.
    pub(crate) fn refusal(&self) -> Position {
        self.inner
            .unwrap_or_else(|| Position::of(self.bytes, self.stop))
    }

    /// A refusal that stopped just past the byte at `index - 1` (serde_json's `error` when
    /// `index` is its read position).
    fn stop_at(&mut self, index: usize) -> NotJson {
        self.stop = index.min(self.bytes.len());
        NotJson
    }

    /// A refusal at the byte looked at and not yet read (serde_json's `peek_error`).
    pub(crate) fn refuse_peeked(&mut self) -> NotJson {
        self.stop_at(self.at + 1)
    }

    /// A refusal after the bytes read (serde_json's `error`).
    fn refuse_read(&mut self) -> NotJson {
        self.stop_at(self.at)
    }

    /// The deepest nesting seen so far (`{}` is one level).
    pub(crate) fn deepest(&self) -> usize {
        self.deepest
    }

    /// The next byte after insignificant whitespace (RFC 8259 §2: space, tab, line feed,
    /// carriage return), without consuming it.
    pub(crate) fn peek(&mut self) -> Option<u8> {
        while let Some(&byte) = self.bytes.get(self.at) {
            if !matches!(byte, b' ' | b'\t' | b'\n' | b'\r') {
                return Some(byte);
            }
            self.at += 1;
        }
        None
    }

    /// Consumes `byte` if it is the next one after whitespace.
    pub(crate) fn eat(&mut self, byte: u8) -> bool {
        let next = self.peek() == Some(byte);
        if next {
            self.at += 1;
        }
        next
    }

    /// Consumes `byte`, the next one after whitespace, or fails.
    pub(crate) fn expect(&mut self, byte: u8) -> Result<(), NotJson> {
        if self.eat(byte) {
            Ok(())
        } else {
            Err(self.refuse_peeked())
        }
    }

    /// Whether the text holds nothing but whitespace from here on (RFC 8259 §2: a JSON text
    /// is one value, with whitespace around it).
    pub(crate) fn at_end(&mut self) -> bool {
        self.peek().is_none()
    }

    /// Records an opened array or object.
    pub(crate) fn open(&mut self, object: bool) {
        let level = self.depth;
        self.depth += 1;
        self.deepest = self.deepest.max(self.depth);
        let (word, bit) = match level.checked_sub(INLINE_LEVELS) {
            None => (&mut self.inline[level / 64], level % 64),
            Some(over) => {
                if over / 64 == self.spill.len() {
                    self.spill.push(0);
                }
                (&mut self.spill[over / 64], over % 64)
            }
        };
        if object {
            *word |= 1 << bit;
        } else {
            *word &= !(1 << bit);
        }
    }

    /// Whether the innermost open bracket is an object's.
    fn in_object(&self) -> bool {
        let level = self.depth - 1;
        let (word, bit) = match level.checked_sub(INLINE_LEVELS) {
            None => (self.inline[level / 64], level % 64),
            Some(over) => (self.spill[over / 64], over % 64),
        };
        word & (1 << bit) != 0
    }

    /// Records the innermost array or object as closed.
    pub(crate) fn close(&mut self) {
        self.depth -= 1;
    }

    /// Reads a string whose opening quote is the next byte (after whitespace).
    ///
    /// RFC 8259 §7: any character may appear except `"`, `\` and U+0000 through U+001F, which
    /// MUST be escaped; an escape is one of `\" \\ \/ \b \f \n \r \t` or `\u` and four hex
    /// digits. Under serde_json's `Value` rules a `\u`
    /// escape is checked for surrogate pairing too ([`super::decode`] checks it for the strings
    /// that are decoded).
    pub(crate) fn string(&mut self) -> Result<Str, NotJson> {
        self.expect(b'"')?;
        let mut escaped = false;
        loop {
            self.skip_plain();
            match self.bytes.get(self.at) {
                Some(b'"') => {
                    self.at += 1;
                    return Ok(Str {
                        end: self.at,
                        escaped,
                    });
                }
                Some(b'\\') => {
                    escaped = true;
                    self.at += 1;
                    match self.bytes.get(self.at) {
                        Some(b'"' | b'\\' | b'/' | b'b' | b'f' | b'n' | b'r' | b't') => {
                            self.at += 1
                        }
                        Some(b'u') => {
                            self.at += 1;
                            let unit = self.hex_unit()?;
                            if self.value_rules {
                                self.surrogate_pair(unit)?;
                            }
                        }
                        _ => return Err(self.refuse_peeked()),
                    }
                }
                // A raw control character, or the text ends inside the string.
                _ => return Err(self.refuse_peeked()),
            }
        }
    }

    /// Reads the four hex digits of a `\u` escape: the UTF-16 code unit they write.
    fn hex_unit(&mut self) -> Result<u32, NotJson> {
        let bytes = self.bytes;
        let Some(digits) = bytes.get(self.at..self.at + 4) else {
            return Err(self.stop_at(bytes.len()));
        };
        self.at += 4;
        super::string::hex_unit(Some(digits)).map_err(|_| self.refuse_read())
    }

    /// serde_json's `Value` rule for the `\u` escape of `unit` just read: a low surrogate
    /// alone is refused, and a high one must be followed by the `\u` escape of a low one
    /// (RFC 8259 §7, §8.2: a string holding a lone surrogate cannot be a Rust string).
    fn surrogate_pair(&mut self, unit: u32) -> Result<(), NotJson> {
        const LOW: std::ops::RangeInclusive<u32> = 0xDC00..=0xDFFF;
        if LOW.contains(&unit) {
            return Err(self.refuse_read());
        }
        if !(0xD800..=0xDBFF).contains(&unit) {
            return Ok(());
        }
        for expected in [b'\\', b'u'] {
            let next = self.bytes.get(self.at).copied();
            if next.is_some() {
                self.at += 1;
            }
            if next != Some(expected) {
                return Err(self.refuse_read());
            }
        }
        if LOW.contains(&self.hex_unit()?) {
            Ok(())
        } else {
            Err(self.refuse_read())
        }
    }

    /// Moves to the first [`STRING_STOP`] byte of string contents (or the end): eight bytes
    /// at a time, the stop found in a word from its mask ([`super::escape::escape_mask`]: the
    /// bytes a JSON string must escape are exactly its stops).
    fn skip_plain(&mut self) {
        while let Some(word) = self.bytes.get(self.at..).and_then(<[u8]>::first_chunk::<8>) {
            let mask = super::escape::escape_mask(u64::from_le_bytes(*word));
            if mask != 0 {
                // Little-endian: the lowest flagged byte comes first, and it is exact.
                self.at += (mask.trailing_zeros() / 8) as usize;
                return;
            }
            self.at += 8;
        }
        while let Some(&byte) = self.bytes.get(self.at) {
            if STRING_STOP[usize::from(byte)] {
                return;
            }
            self.at += 1;
        }
    }

    /// Reads a number (RFC 8259 §6): `-`? then `0` or a digit run not starting with `0`,
    /// then optionally `.` and digits, then optionally `e`/`E`, a sign and digits.
    ///
    /// Under serde_json's `Value` rules a number it reads as infinite is refused too
    /// ([`super::number`]).
    fn number(&mut self) -> Result<(), NotJson> {
        let start = self.at;
        if self.bytes.get(self.at) == Some(&b'-') {
            self.at += 1;
        }
        match self.bytes.get(self.at) {
            Some(b'0') => self.at += 1,
            Some(b'1'..=b'9') => self.digits(),
            _ => return Err(self.refuse_peeked()),
        }
        if self.bytes.get(self.at) == Some(&b'.') {
            self.at += 1;
            self.some_digits()?;
        }
        if matches!(self.bytes.get(self.at), Some(b'e' | b'E')) {
            self.at += 1;
            if matches!(self.bytes.get(self.at), Some(b'+' | b'-')) {
                self.at += 1;
            }
            self.some_digits()?;
        }
        if self.value_rules {
            let raw = self.bytes.get(start..self.at).unwrap_or_default();
            if let Err(stop) = super::number::f64_of(raw) {
                return Err(self.stop_at(start + stop));
            }
        }
        Ok(())
    }

    fn digits(&mut self) {
        while self.bytes.get(self.at).is_some_and(u8::is_ascii_digit) {
            self.at += 1;
        }
    }

    fn some_digits(&mut self) -> Result<(), NotJson> {
        let start = self.at;
        self.digits();
        if self.at == start {
            return Err(self.refuse_peeked());
        }
        Ok(())
    }

    /// Reads `word` (RFC 8259 §3: the literal names are lowercase `true`, `false`, `null`).
    fn literal(&mut self, word: &[u8]) -> Result<(), NotJson> {
        if self.bytes.get(self.at..self.at + word.len()) != Some(word) {
            // Refused just past the first byte that differs (the first one was peeked at).
            let differs = (1..word.len())
                .find(|&offset| self.bytes.get(self.at + offset) != word.get(offset))
                .unwrap_or(word.len());
            return Err(self.stop_at(self.at + differs + 1));
        }
        self.at += word.len();
        Ok(())
    }

    /// Reads one whole value (after whitespace) and returns where it starts, without
    /// recursion: nested arrays and objects are tracked on the bracket stack.
    pub(crate) fn value(&mut self) -> Result<usize, NotJson> {
        let base = self.depth;
        self.due()?;
        let start = self.at;
        loop {
            // A value is due.
            match self.due()? {
                b'{' | b'[' if self.value_rules && self.depth + 1 >= SERDE_NESTING => {
                    return Err(self.refuse_peeked());
                }
                b'{' => {
                    self.at += 1;
                    self.open(true);
                    if self.peek() == Some(b'}') {
                        self.at += 1;
                        self.close();
                    } else if !self.first_name()? {
                        continue;
                    }
                }
                b'[' => {
                    self.at += 1;
                    self.open(false);
                    if self.peek() == Some(b']') {
                        self.at += 1;
                        self.close();
                    } else {
                        continue;
                    }
                }
                b'"' if self.trusted => {
                    self.at = string_end(self.bytes, self.at + 1);
                }
                b'"' => {
                    self.string()?;
                }
                b'-' | b'0'..=b'9' => self.number()?,
                b't' => self.literal(b"true")?,
                b'f' => self.literal(b"false")?,
                b'n' => self.literal(b"null")?,
                _ => return Err(self.refuse_peeked()),
            }
            // A value ended: close the brackets it ends, until a comma asks for the next one.
            loop {
                if self.depth == base {
                    return Ok(start);
                }
                let object = self.in_object();
                match self.peek() {
                    Some(b',') => {
                        self.at += 1;
                        if object {
                            self.member_name()?;
                        }
                        break;
                    }
                    Some(b'}') if object => {}
                    Some(b']') if !object => {}
                    _ => return Err(self.refuse_peeked()),
                }
                self.at += 1;
                self.close();
            }
        }
    }

    /// Reads one member of an object (RFC 8259 §4: `string : value`) from `text`, the text
    /// this reader reads.
    pub(crate) fn member(&mut self, text: &'a str) -> Result<Member<'a>, NotJson> {
        let name = self.name(text)?;
        let value_start = self.value()?;
        Ok(Member {
            name,
            value: text.get(value_start..self.at).ok_or(NotJson)?,
        })
    }

    /// Reads a member's name and the colon after it from `text`, the text this reader reads.
    pub(crate) fn name(&mut self, text: &'a str) -> Result<Name<'a>, NotJson> {
        self.peek();
        let start = self.at;
        let name = self.member_name()?;
        Ok(Name::new(
            text.get(start..name.end).ok_or(NotJson)?,
            name.escaped,
        ))
    }

    /// Reads a member's name and the colon after it (RFC 8259 §4: `string : value`).
    fn member_name(&mut self) -> Result<Str, NotJson> {
        let name = self.string()?;
        self.expect(b':')?;
        Ok(name)
    }

    /// The first byte of the value due (after whitespace), or a refusal at the text's end.
    fn due(&mut self) -> Result<u8, NotJson> {
        self.peek().ok_or_else(|| self.refuse_peeked())
    }

    /// Reads an object's first name and the colon after it. Under serde_json's `Value` rules,
    /// an object whose first name is serde_json's raw-value token is read whole here
    /// ([`Reader::raw_value`]): true then, false when the first member's value is due.
    fn first_name(&mut self) -> Result<bool, NotJson> {
        self.peek();
        let start = self.at;
        let name = self.member_name()?;
        let text = self.text;
        if !self.value_rules
            || text.get(start..name.end).map(decode) != Some(Ok(RAW_VALUE_TOKEN.into()))
        {
            return Ok(false);
        }
        self.raw_value()?;
        Ok(true)
    }

    /// serde_json's raw-value object (its `raw_value` feature), its token and colon read:
    /// `Value` reads `{"$serde_json::private::RawValue": "<text>"}` as the JSON value `<text>`
    /// holds. Reads the string, checks its text afresh (a refusal there is placed in that
    /// text), then the object's `}`; a value that is not a string is read whole, then refused
    /// where the object ends (serde_json's "invalid type" error, placed there).
    fn raw_value(&mut self) -> Result<(), NotJson> {
        if self.peek() != Some(b'"') {
            self.value()?;
            if self.peek() == Some(b'}') {
                self.at += 1;
            }
            return Err(self.refuse_read());
        }
        let start = self.at;
        let end = self.string()?.end;
        let text = self.text;
        let Some(Ok(inner)) = text.get(start..end).map(decode) else {
            return Err(self.refuse_read());
        };
        if let Err(position) = check_value(&inner) {
            self.inner = Some(position);
            return Err(NotJson);
        }
        self.expect(b'}')?;
        self.close();
        Ok(())
    }
}

/// Bytes of a string read one by one before switching to `memchr`: names and most values
/// end sooner, and a loop beats a call for them.
const SHORT_STRING: usize = 32;

/// The index just past the quote that closes the string whose contents start at `at`, or the
/// text's length when it never closes. Past the first few bytes only quotes are searched for:
/// a quote preceded by an odd run of backslashes is escaped, so escapes without a quote
/// (`\n`, most of them) cost nothing.
pub(crate) fn string_end(text: &[u8], at: usize) -> usize {
    let mut i = at;
    let short_end = text.len().min(at.saturating_add(SHORT_STRING));
    while i < short_end {
        match text[i] {
            b'"' => return i + 1,
            b'\\' => i += 2,
            _ => i += 1,
        }
    }
    loop {
        let Some(found) = text.get(i..).and_then(|rest| memchr::memchr(b'"', rest)) else {
            return text.len();
        };
        let quote = i + found;
        let backslashes = text[at..quote]
            .iter()
            .rev()
            .take_while(|&&byte| byte == b'\\')
            .count();
        if backslashes % 2 == 0 {
            return quote + 1;
        }
        i = quote + 1;
    }
}
