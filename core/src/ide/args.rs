//! Reading a `tools/call`'s `arguments`: typed getters whose errors name the argument and
//! the rule it broke. Arguments a tool does not know are ignored.
//!
//! The values stay raw JSON, borrowed from the message, until a getter asks for one: a
//! string is then unescaped once, straight into a string of its size. (An `openDiff` carries
//! a whole file; decoding it through a general JSON value would hold it twice more, and
//! parsing the object with serde_json would cross it once more.)

use std::borrow::Cow;

use serde_json::value::RawValue;

use super::path::{PathStyle, normalize_path};
use crate::json;

/// A call's arguments, consumed argument by argument: each name with its value's raw JSON.
pub(crate) struct Args<'a>(Vec<json::Member<'a>>);

impl<'a> Args<'a> {
    /// Parses `arguments`; absent or `null` means no arguments. Anything but an object is
    /// refused. A member given twice counts once, with its last value.
    pub(crate) fn parse(arguments: Option<&'a RawValue>) -> Result<Args<'a>, String> {
        let Some(raw) = arguments else {
            return Ok(Args(Vec::new()));
        };
        match kind_of(raw.get()) {
            "null" => Ok(Args(Vec::new())),
            // serde_json validated the text when it made the RawValue: a byte scan finds the
            // members without a second parse of their values.
            "an object" => json::members(raw.get(), decode_string)
                .map(Args)
                .map_err(|why| format!("arguments: {why}")),
            other => Err(format!("arguments: expected an object, got {other}")),
        }
    }

    /// A required string argument.
    pub(crate) fn string(&mut self, key: &str) -> Result<String, String> {
        self.optional_string(key)?
            .ok_or_else(|| format!("missing required argument: {key}"))
    }

    /// A required, non-empty path argument, normalized with `style`.
    pub(crate) fn path(&mut self, key: &str, style: PathStyle) -> Result<String, String> {
        self.borrowed_path(key, style).map(Cow::into_owned)
    }

    /// [`Args::path`], borrowed from the message when it holds no escape and normalizing
    /// leaves it as it is (a path can be as big as a message: it is not copied to be read).
    pub(crate) fn borrowed_path(
        &mut self,
        key: &str,
        style: PathStyle,
    ) -> Result<Cow<'a, str>, String> {
        let path = self
            .optional_str(key)?
            .ok_or_else(|| format!("missing required argument: {key}"))?;
        if path.is_empty() {
            return Err(format!("argument {key}: must not be empty"));
        }
        Ok(match path {
            Cow::Borrowed(raw) => normalize_path(raw, style),
            Cow::Owned(decoded) => match normalize_path(&decoded, style) {
                Cow::Borrowed(_) => Cow::Owned(decoded),
                Cow::Owned(normalized) => Cow::Owned(normalized),
            },
        })
    }

    /// An optional string argument; `null` counts as absent.
    pub(crate) fn optional_string(&mut self, key: &str) -> Result<Option<String>, String> {
        Ok(self.optional_str(key)?.map(Cow::into_owned))
    }

    /// [`Args::optional_string`], borrowed from the message when it holds no escape.
    fn optional_str(&mut self, key: &str) -> Result<Option<Cow<'a, str>>, String> {
        match self.take(key) {
            None => Ok(None),
            Some(raw) => match kind_of(raw) {
                "null" => Ok(None),
                "a string" => decode_str(raw)
                    .map(Some)
                    .map_err(|why| format!("argument {key}: {why}")),
                other => Err(mistyped(key, "a string", other)),
            },
        }
    }

    /// The raw value of argument `key` (its last, when given twice), taken out with every
    /// other member of that name so that it is read once.
    fn take(&mut self, key: &str) -> Option<&'a str> {
        let (_, value) = *self.0.iter().rev().find(|(name, _)| name == key)?;
        self.0.retain(|(name, _)| name != key);
        Some(value)
    }

    /// An optional boolean argument; `null` counts as absent.
    pub(crate) fn optional_bool(&mut self, key: &str) -> Result<Option<bool>, String> {
        match self.take(key) {
            None | Some("null") => Ok(None),
            Some("true") => Ok(Some(true)),
            Some("false") => Ok(Some(false)),
            Some(other) => Err(mistyped(key, "a boolean", kind_of(other))),
        }
    }
}

fn mistyped(key: &str, expected: &str, got: &str) -> String {
    format!("argument {key}: expected {expected}, got {got}")
}

/// What a raw JSON value is, in words (serde_json's raw values and the member texts of
/// [`json::members`] carry no leading whitespace).
fn kind_of(json: &str) -> &'static str {
    match json.as_bytes().first() {
        Some(b'n') => "null",
        Some(b't' | b'f') => "a boolean",
        Some(b'"') => "a string",
        Some(b'[') => "an array",
        Some(b'{') => "an object",
        _ => "a number",
    }
}

/// Why a JSON string could not be decoded.
const BROKEN: &str = "not a valid JSON string";

/// The text of the JSON string `json` (quotes included, as serde_json validated it),
/// unescaped into a string of exactly its size. Errors name a lone UTF-16 surrogate, which
/// no Rust string can hold.
pub(crate) fn decode_string(json: &str) -> Result<String, &'static str> {
    decode_str(json).map(Cow::into_owned)
}

/// [`decode_string`], borrowed from `json` when the string holds no escape.
fn decode_str(json: &str) -> Result<Cow<'_, str>, &'static str> {
    let inner = json
        .strip_prefix('"')
        .and_then(|rest| rest.strip_suffix('"'))
        .ok_or(BROKEN)?;
    let bytes = inner.as_bytes();
    let Some(first) = memchr::memchr(b'\\', bytes) else {
        return Ok(Cow::Borrowed(inner));
    };
    let mut out = Vec::with_capacity(bytes.len());
    let mut at = 0;
    let mut found = Some(first);
    while let Some(offset) = found {
        out.extend_from_slice(&bytes[at..at + offset]);
        let escape = at + offset + 1;
        at = match bytes.get(escape).ok_or(BROKEN)? {
            b'u' => {
                let (decoded, len) = decode_unicode_escape(inner.get(escape..).ok_or(BROKEN)?)?;
                out.extend_from_slice(decoded.encode_utf8(&mut [0; 4]).as_bytes());
                escape + len
            }
            letter => {
                out.push(match letter {
                    b'"' => b'"',
                    b'\\' => b'\\',
                    b'/' => b'/',
                    b'b' => 0x08,
                    b'f' => 0x0c,
                    b'n' => b'\n',
                    b'r' => b'\r',
                    b't' => b'\t',
                    _ => return Err(BROKEN),
                });
                escape + 1
            }
        };
        found = memchr::memchr(b'\\', &bytes[at..]);
    }
    out.extend_from_slice(&bytes[at..]);
    // Text was cut only at ASCII backslashes and joined with whole characters: still UTF-8.
    String::from_utf8(out).map(Cow::Owned).map_err(|_| BROKEN)
}

/// `u` + 4 hex digits at the start of `escape` (the text after a backslash), joined with a
/// following `\uDC00`-`\uDFFF` when it is a high surrogate (RFC 8259 §7): the character and
/// the bytes it took.
fn decode_unicode_escape(escape: &str) -> Result<(char, usize), &'static str> {
    const LONE: &str = "a lone UTF-16 surrogate in a \\u escape";
    let hex = |at: usize| {
        escape
            .get(at..at + 4)
            .and_then(|digits| u32::from_str_radix(digits, 16).ok())
            .ok_or("not a valid JSON string")
    };
    let first = hex(1)?;
    match first {
        0xD800..=0xDBFF => {
            if escape.get(5..7) != Some("\\u") {
                return Err(LONE);
            }
            let second = hex(7)?;
            if !(0xDC00..=0xDFFF).contains(&second) {
                return Err(LONE);
            }
            let code = 0x10000 + ((first - 0xD800) << 10) + (second - 0xDC00);
            char::from_u32(code).map(|c| (c, 11)).ok_or(LONE)
        }
        _ => char::from_u32(first).map(|c| (c, 5)).ok_or(LONE),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn raw(json: &str) -> Box<RawValue> {
        RawValue::from_string(json.to_owned()).unwrap()
    }

    #[test]
    fn absent_and_null_arguments_are_empty() {
        assert_eq!(Args::parse(None).unwrap().optional_string("x"), Ok(None));
        let null = raw("null");
        assert_eq!(
            Args::parse(Some(&null)).unwrap().optional_bool("x"),
            Ok(None)
        );
    }

    #[test]
    fn a_member_given_twice_is_read_once_with_its_last_value() {
        let json = raw(r#"{"a":"first","b":true,"a":"last","b":false}"#);
        let mut args = Args::parse(Some(&json)).unwrap();
        assert_eq!(args.optional_string("a"), Ok(Some("last".to_owned())));
        assert_eq!(args.optional_string("a"), Ok(None));
        assert_eq!(args.optional_bool("b"), Ok(Some(false)));
        assert_eq!(args.optional_bool("b"), Ok(None));
    }

    #[test]
    fn non_objects_are_refused() {
        for (json, kind) in [
            ("[1]", "an array"),
            (r#""x""#, "a string"),
            ("-1", "a number"),
        ] {
            let json = raw(json);
            assert_eq!(
                Args::parse(Some(&json)).err().unwrap(),
                format!("arguments: expected an object, got {kind}")
            );
        }
    }

    #[test]
    fn deep_arguments_are_skipped_without_recursion() {
        let deep = raw(&format!(
            r#"{{"a":{}{},"s":"x"}}"#,
            "[".repeat(100_000),
            "]".repeat(100_000)
        ));
        let mut a = Args::parse(Some(&deep)).unwrap();
        assert_eq!(a.string("s"), Ok("x".into()));
        assert_eq!(
            a.string("a"),
            Err("argument a: expected a string, got an array".into())
        );
    }

    #[test]
    fn getters_name_the_argument_and_the_rule() {
        let json = raw(r#"{"s":"x","n":1,"b":true,"z":null,"o":{},"t":"a","t":"b"}"#);
        let mut a = Args::parse(Some(&json)).unwrap();
        assert_eq!(a.string("t"), Ok("b".into()));
        assert_eq!(a.string("s"), Ok("x".into()));
        assert_eq!(
            a.string("n"),
            Err("argument n: expected a string, got a number".into())
        );
        assert_eq!(a.string("s"), Err("missing required argument: s".into()));
        assert_eq!(a.string("z"), Err("missing required argument: z".into()));
        assert_eq!(a.optional_bool("b"), Ok(Some(true)));
        assert_eq!(
            a.optional_bool("o"),
            Err("argument o: expected a boolean, got an object".into())
        );
    }

    #[test]
    fn paths_are_non_empty_and_normalized() {
        let json = raw(r#"{"p":"c:\\a\\b.rs","q":"","r":"/a\\b"}"#);
        let mut a = Args::parse(Some(&json)).unwrap();
        assert_eq!(a.path("p", PathStyle::Windows), Ok("C:/a/b.rs".into()));
        assert_eq!(
            a.path("q", PathStyle::Windows),
            Err("argument q: must not be empty".into())
        );
        assert_eq!(a.path("r", PathStyle::Posix), Ok(r"/a\b".into()));
    }

    #[test]
    fn a_plain_path_is_borrowed_from_the_message() {
        let json = raw(r#"{"p":"/w/a.rs","e":"/w/\u0061.rs","n":"c:\\w"}"#);
        let mut a = Args::parse(Some(&json)).unwrap();
        let plain = a.borrowed_path("p", PathStyle::Posix);
        assert!(matches!(plain, Ok(Cow::Borrowed("/w/a.rs"))), "{plain:?}");
        let escaped = a.borrowed_path("e", PathStyle::Posix);
        assert!(
            matches!(&escaped, Ok(Cow::Owned(p)) if p == "/w/a.rs"),
            "{escaped:?}"
        );
        let normalized = a.borrowed_path("n", PathStyle::Windows);
        assert!(
            matches!(&normalized, Ok(Cow::Owned(p)) if p == "C:/w"),
            "{normalized:?}"
        );
    }

    #[test]
    fn strings_are_unescaped_as_serde_json_does() {
        let json = raw(r#"{"s":"a\"b\\c\/d\b\f\n\r\t\u00e9\ud83d\ude00\u2028 é"}"#);
        let expected: String =
            serde_json::from_str(r#""a\"b\\c\/d\b\f\n\r\t\u00e9\ud83d\ude00\u2028 é""#).unwrap();
        assert_eq!(Args::parse(Some(&json)).unwrap().string("s"), Ok(expected));
    }

    #[test]
    fn lone_surrogates_are_refused_by_name() {
        for text in [
            r#""\ud83d""#,
            r#""\ud83dx""#,
            r#""\ud83d\u0041""#,
            r#""\ude00""#,
        ] {
            assert_eq!(
                decode_string(text),
                Err("a lone UTF-16 surrogate in a \\u escape"),
                "{text}"
            );
        }
    }

    proptest::proptest! {
        #[test]
        fn any_string_survives_encoding_and_decoding(text in proptest::prelude::any::<String>()) {
            let json = serde_json::to_string(&text).unwrap();
            proptest::prop_assert_eq!(decode_string(&json), Ok(text));
        }

        #[test]
        fn unicode_escapes_decode_as_serde_json_does(units in proptest::collection::vec(0u16..=0xffff, 0..6)) {
            let json: String = std::iter::once("\"".to_owned())
                .chain(units.iter().map(|u| format!("\\u{u:04x}")))
                .chain(std::iter::once("\"".to_owned()))
                .collect();
            let ours = decode_string(&json).ok();
            let theirs = serde_json::from_str::<String>(&json).ok();
            proptest::prop_assert_eq!(ours, theirs);
        }
    }
}
