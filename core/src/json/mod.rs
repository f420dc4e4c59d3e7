//! JSON (RFC 8259) at the bottom floor: the one scanner, the one string decoder, the member
//! and element walks and the writer's escaping, for every layer above (`rpc`, `mcp`, `ide`,
//! `engine`, `lockfile`). It knows nothing of those layers.
//!
//! serde_json stays the reference: the tests hold the scanner to serde_json's verdicts, the
//! decoder to its strings, the walks to its maps and the escaping to its output, byte for
//! byte. What serde_json does not offer is why this exists: values kept as byte ranges of
//! the message (no tree built, a big string never copied to be skipped), nesting measured
//! without recursion, and strings crossed a word or a `memchr` at a time, so a message that
//! is mostly one long string (an `openDiff` of a big file) costs little.
//!
//! - [`scan`]: the [`Reader`], validating (a message as it arrives) or trusted (a raw value
//!   already accepted).
//! - [`string`]: [`decode`], a string's text.
//! - [`mod@members`]: [`members()`] of an object and [`elements`] of an array.
//! - [`number`]: [`in_range`], whether serde_json reads a number (as a finite `f64`).
//! - [`escape`]: [`escape_into`], [`escape_twice_into`], [`push_string`] and [`push_u64`], as
//!   serde_json writes.
//! - [`value`]: [`check_value`], a text as serde_json reads it into a `Value` (its error's line
//!   and column included), and the reading of [`field`]s of the text it accepted.

mod escape;
mod members;
mod number;
mod scan;
mod string;
mod value;

pub(crate) use escape::{escape_into, escape_twice_into, push_string, push_u64};
pub(crate) use members::{Elements, Member, Name, elements, members};
pub(crate) use number::in_range;
pub(crate) use scan::{NotJson, Reader};
pub(crate) use string::decode;
pub(crate) use value::{check_value, field, text, unsigned, unwrapped};

#[cfg(test)]
pub(crate) use scan::string_end;

#[cfg(test)]
mod tests;
