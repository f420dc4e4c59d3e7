//! A validating JSON reader over a message's bytes: RFC 8259's grammar checked in one pass,
//! values kept as byte ranges, the nesting depth measured on the way.
//!
//! It decides exactly what serde_json 1.x decides when it reads a message into borrowed
//! raw values: the same grammar (no trailing commas, no leading zeros, no comments), the same
//! string rules (no raw control characters; the escapes of §7, with any four hex digits after
//! `\u`), and no limit of its own on nesting. Reading allocates nothing unless a message
//! nests deeper than [`INLINE_LEVELS`], which only a hostile peer sends; [`decode`]
//! allocates for a string that holds escapes.

use std::borrow::Cow;

/// The text is not JSON (RFC 8259): where the answer is a parse error.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) struct NotJson;

/// Open brackets remembered without allocating; deeper ones spill into a `Vec`.
const INLINE_LEVELS: usize = 256;

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
pub(super) struct Str {
    /// Index just past the closing quote.
    pub(super) end: usize,
    /// Whether a `\` occurs in it (its decoded text differs from its raw contents).
    pub(super) escaped: bool,
}

/// A cursor over the text with the stack of open arrays and objects.
pub(super) struct Reader<'a> {
    bytes: &'a [u8],
    at: usize,
    /// Open brackets, innermost last: bit set for an object, clear for an array.
    inline: [u64; INLINE_LEVELS / 64],
    spill: Vec<u64>,
    depth: usize,
    deepest: usize,
}

impl<'a> Reader<'a> {
    /// A reader at the start of `text`.
    pub(super) fn new(text: &'a str) -> Self {
        Reader {
            bytes: text.as_bytes(),
            at: 0,
            inline: [0; INLINE_LEVELS / 64],
            spill: Vec::new(),
            depth: 0,
            deepest: 0,
        }
    }

    /// The index of the next byte to read.
    pub(super) fn at(&self) -> usize {
        self.at
    }

    /// The deepest nesting seen so far (`{}` is one level).
    pub(super) fn deepest(&self) -> usize {
        self.deepest
    }

    /// The next byte after insignificant whitespace (RFC 8259 §2: space, tab, line feed,
    /// carriage return), without consuming it.
    pub(super) fn peek(&mut self) -> Option<u8> {
        while let Some(&byte) = self.bytes.get(self.at) {
            if !matches!(byte, b' ' | b'\t' | b'\n' | b'\r') {
                return Some(byte);
            }
            self.at += 1;
        }
        None
    }

    /// Consumes `byte` if it is the next one after whitespace.
    pub(super) fn eat(&mut self, byte: u8) -> bool {
        let next = self.peek() == Some(byte);
        if next {
            self.at += 1;
        }
        next
    }

    /// Consumes `byte`, the next one after whitespace, or fails.
    pub(super) fn expect(&mut self, byte: u8) -> Result<(), NotJson> {
        if self.eat(byte) { Ok(()) } else { Err(NotJson) }
    }

    /// Whether the text holds nothing but whitespace from here on (RFC 8259 §2: a JSON text
    /// is one value, with whitespace around it).
    pub(super) fn at_end(&mut self) -> bool {
        self.peek().is_none()
    }

    /// Records an opened array or object.
    pub(super) fn open(&mut self, object: bool) {
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
    pub(super) fn close(&mut self) {
        self.depth -= 1;
    }

    /// Reads a string whose opening quote is the next byte (after whitespace).
    ///
    /// RFC 8259 §7: any character may appear except `"`, `\` and U+0000 through U+001F, which
    /// MUST be escaped; an escape is one of `\" \\ \/ \b \f \n \r \t` or `\u` and four hex
    /// digits. A `\u` escape is not checked for surrogate pairing here ([`decode`] does that
    /// for the strings that are decoded).
    pub(super) fn string(&mut self) -> Result<Str, NotJson> {
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
                            let hex = self.bytes.get(self.at + 1..self.at + 5).ok_or(NotJson)?;
                            if !hex.iter().all(u8::is_ascii_hexdigit) {
                                return Err(NotJson);
                            }
                            self.at += 5;
                        }
                        _ => return Err(NotJson),
                    }
                }
                // A raw control character, or the text ends inside the string.
                _ => return Err(NotJson),
            }
        }
    }

    /// Moves to the first [`STRING_STOP`] byte of string contents (or the end): eight bytes
    /// at a time, the stop found in a word from its mask ([`crate::json::escape_mask`]: the
    /// bytes a JSON string must escape are exactly its stops).
    fn skip_plain(&mut self) {
        while let Some(word) = self.bytes.get(self.at..).and_then(<[u8]>::first_chunk::<8>) {
            let mask = crate::json::escape_mask(u64::from_le_bytes(*word));
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
    fn number(&mut self) -> Result<(), NotJson> {
        if self.bytes.get(self.at) == Some(&b'-') {
            self.at += 1;
        }
        match self.bytes.get(self.at) {
            Some(b'0') => self.at += 1,
            Some(b'1'..=b'9') => self.digits(),
            _ => return Err(NotJson),
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
            return Err(NotJson);
        }
        Ok(())
    }

    /// Reads `word` (RFC 8259 §3: the literal names are lowercase `true`, `false`, `null`).
    fn literal(&mut self, word: &[u8]) -> Result<(), NotJson> {
        if self.bytes.get(self.at..self.at + word.len()) != Some(word) {
            return Err(NotJson);
        }
        self.at += word.len();
        Ok(())
    }

    /// Reads one whole value (after whitespace) and returns where it starts, without
    /// recursion: nested arrays and objects are tracked on the bracket stack.
    pub(super) fn value(&mut self) -> Result<usize, NotJson> {
        let base = self.depth;
        let start = self.peek().map(|_| self.at).ok_or(NotJson)?;
        loop {
            // A value is due.
            match self.peek().ok_or(NotJson)? {
                b'{' => {
                    self.at += 1;
                    self.open(true);
                    if self.peek() == Some(b'}') {
                        self.at += 1;
                        self.close();
                    } else {
                        self.member_name()?;
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
                b'"' => {
                    self.string()?;
                }
                b'-' | b'0'..=b'9' => self.number()?,
                b't' => self.literal(b"true")?,
                b'f' => self.literal(b"false")?,
                b'n' => self.literal(b"null")?,
                _ => return Err(NotJson),
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
                    _ => return Err(NotJson),
                }
                self.at += 1;
                self.close();
            }
        }
    }

    /// Reads one member of an object (RFC 8259 §4: `string : value`) from `text`, the text
    /// this reader reads.
    pub(super) fn member(&mut self, text: &'a str) -> Result<Member<'a>, NotJson> {
        let name = self.name(text)?;
        let value_start = self.value()?;
        Ok(Member {
            name,
            value: text.get(value_start..self.at).ok_or(NotJson)?,
        })
    }

    /// Reads a member's name and the colon after it from `text`, the text this reader reads.
    pub(super) fn name(&mut self, text: &'a str) -> Result<Name<'a>, NotJson> {
        self.peek();
        let start = self.at;
        let name = self.member_name()?;
        Ok(Name {
            raw: text.get(start..name.end).ok_or(NotJson)?,
            escaped: name.escaped,
        })
    }

    /// Reads a member's name and the colon after it (RFC 8259 §4: `string : value`).
    fn member_name(&mut self) -> Result<Str, NotJson> {
        let name = self.string()?;
        self.expect(b':')?;
        Ok(name)
    }
}

/// The text of `raw`, a JSON string as [`Reader::string`] accepted it (quotes included):
/// borrowed when it has no escape, decoded otherwise; `None` when it is not a string or
/// holds a `\u` escape of a lone surrogate.
///
/// RFC 8259 §7: a character outside the Basic Multilingual Plane is escaped as a UTF-16
/// surrogate pair; serde_json refuses an unpaired surrogate in a string it decodes, and so
/// does this (§8.2 leaves such strings' behaviour unpredictable).
pub(crate) fn decode(raw: &str) -> Option<Cow<'_, str>> {
    let contents = raw.strip_prefix('"')?.strip_suffix('"')?;
    // Most strings decoded are short names: a plain loop beats a `memchr` call.
    if !contents.bytes().any(|byte| byte == b'\\') {
        return Some(Cow::Borrowed(contents));
    }
    let mut out = String::with_capacity(contents.len());
    let mut rest = contents;
    while let Some(at) = rest.find('\\') {
        out.push_str(&rest[..at]);
        let escape = rest.get(at + 1..at + 2)?;
        rest = &rest[at + 2..];
        let unit = match escape {
            "\"" => '"',
            "\\" => '\\',
            "/" => '/',
            "b" => '\u{8}',
            "f" => '\u{c}',
            "n" => '\n',
            "r" => '\r',
            "t" => '\t',
            "u" => {
                let (unit, after) = hex_unit(rest)?;
                rest = after;
                match unit {
                    0xD800..=0xDBFF => {
                        let (low, after) = rest.strip_prefix("\\u").and_then(hex_unit)?;
                        if !(0xDC00..=0xDFFF).contains(&low) {
                            return None;
                        }
                        rest = after;
                        let code = 0x1_0000
                            + ((u32::from(unit) - 0xD800) << 10)
                            + (u32::from(low) - 0xDC00);
                        char::from_u32(code)?
                    }
                    _ => char::from_u32(u32::from(unit))?,
                }
            }
            _ => return None,
        };
        out.push(unit);
    }
    out.push_str(rest);
    Some(Cow::Owned(out))
}

/// The UTF-16 code unit of the four hex digits `text` starts with, and the text after them.
fn hex_unit(text: &str) -> Option<(u16, &str)> {
    let digits = text.get(..4)?;
    let unit = u16::from_str_radix(digits, 16).ok()?;
    // from_str_radix also takes a sign; JSON's escape is exactly four hex digits.
    digits
        .bytes()
        .all(|byte| byte.is_ascii_hexdigit())
        .then_some((unit, &text[4..]))
}

/// The members of `object`, a JSON object this reader already accepted (a raw value of a
/// parsed message), in text order. On text that is not such an object the members simply
/// end, never with a panic.
pub(crate) fn members(object: &str) -> Members<'_> {
    let mut reader = Reader::new(object);
    let done = !reader.eat(b'{') || reader.eat(b'}');
    Members {
        text: object,
        reader,
        done,
    }
}

/// The iterator [`members`] returns.
pub(crate) struct Members<'a> {
    text: &'a str,
    reader: Reader<'a>,
    done: bool,
}

/// The elements of `array`, a JSON array this reader already accepted (a raw value of a
/// parsed message), as raw text in order. On text that is not such an array the elements
/// simply end, never with a panic.
pub(crate) fn elements(array: &str) -> Elements<'_> {
    let mut reader = Reader::new(array);
    let done = !reader.eat(b'[') || reader.eat(b']');
    Elements {
        text: array,
        reader,
        done,
    }
}

/// The iterator [`elements`] returns.
pub(crate) struct Elements<'a> {
    text: &'a str,
    reader: Reader<'a>,
    done: bool,
}

impl<'a> Iterator for Elements<'a> {
    type Item = &'a str;

    fn next(&mut self) -> Option<&'a str> {
        if self.done {
            return None;
        }
        let element = self
            .reader
            .value()
            .ok()
            .and_then(|start| self.text.get(start..self.reader.at()));
        self.done = element.is_none() || !self.reader.eat(b',');
        element
    }
}

/// A member's name as read: raw, and whether it holds an escape.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct Name<'a> {
    /// The name as written, quotes included.
    raw: &'a str,
    escaped: bool,
}

impl<'a> Name<'a> {
    /// The name `raw` (quotes included), as [`Reader::string`] read it.
    pub(crate) fn new(raw: &'a str, escaped: bool) -> Self {
        Name { raw, escaped }
    }

    /// The name as written, quotes included.
    pub(crate) fn raw(&self) -> &'a str {
        self.raw
    }

    /// Whether the name holds an escape.
    pub(crate) fn escaped(&self) -> bool {
        self.escaped
    }

    /// The name's text: its contents when it has no escape, decoded otherwise; `None` when
    /// it holds a lone surrogate escape (see [`decode`]).
    pub(crate) fn text(&self) -> Option<Cow<'a, str>> {
        if self.escaped {
            decode(self.raw)
        } else {
            self.raw
                .get(1..self.raw.len().saturating_sub(1))
                .map(Cow::Borrowed)
        }
    }
}

/// One member of an object, as [`Reader::member`] reads it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct Member<'a> {
    pub(crate) name: Name<'a>,
    /// The value's raw text.
    pub(crate) value: &'a str,
}

impl<'a> Iterator for Members<'a> {
    type Item = Member<'a>;

    fn next(&mut self) -> Option<Member<'a>> {
        if self.done {
            return None;
        }
        let member = self.reader.member(self.text).ok();
        self.done = member.is_none() || !self.reader.eat(b',');
        member
    }
}

#[cfg(test)]
mod tests;
