//! The members of an object and the elements of an array, as raw text, read by the one
//! scanner from a value it (or serde_json) already accepted.

use std::borrow::Cow;

use super::scan::Reader;
use super::string::decode;

/// The members of `object`, a JSON object the scanner already accepted (a raw value of a
/// parsed message), in text order. On text that is not such an object the members simply
/// end, never with a panic.
pub(crate) fn members(object: &str) -> Members<'_> {
    let mut reader = Reader::trusted(object);
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

/// The elements of `array`, a JSON array the scanner already accepted (a raw value of a
/// parsed message), as raw text in order. On text that is not such an array the elements
/// simply end, never with a panic.
pub(crate) fn elements(array: &str) -> Elements<'_> {
    let mut reader = Reader::trusted(array);
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
    /// The name `raw` (quotes included), as the scanner read it.
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

    /// The name's text: its contents when it has no escape, decoded otherwise; the error of
    /// [`decode`] when it holds a lone surrogate escape.
    pub(crate) fn text(&self) -> Result<Cow<'a, str>, &'static str> {
        if self.escaped {
            decode(self.raw)
        } else {
            self.raw
                .get(1..self.raw.len().saturating_sub(1))
                .map(Cow::Borrowed)
                .ok_or(super::string::NOT_A_STRING)
        }
    }
}

/// One member of an object, as the scanner reads it.
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
