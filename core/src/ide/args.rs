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

/// A call's arguments, consumed argument by argument: each decoded name with its value's
/// raw JSON, in text order (a call's arguments are a handful of members: a list searched from
/// the end is smaller code than an ordered map, and no slower).
pub(crate) struct Args<'a>(Vec<(Cow<'a, str>, &'a str)>);

impl<'a> Args<'a> {
    /// Parses `arguments`; absent or `null` means no arguments. Anything but an object is
    /// refused. A member given twice counts once, with its last value.
    pub(crate) fn parse(arguments: Option<&'a RawValue>) -> Result<Args<'a>, String> {
        let Some(raw) = arguments else {
            return Ok(Args(Vec::new()));
        };
        match kind_of(raw.get()) {
            "null" => Ok(Args(Vec::new())),
            // The text was accepted when the message was read: the trusted walk finds the
            // members without checking their values again.
            "an object" => json::members(raw.get())
                .map(|member| Ok((member.name.text()?, member.value)))
                .collect::<Result<_, &str>>()
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
                "a string" => json::decode(raw)
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

/// What a raw JSON value is, in words (raw values and the member texts of
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
        let json = raw(r#"{"s":"\ud83dx"}"#);
        assert_eq!(
            Args::parse(Some(&json)).unwrap().string("s"),
            Err("argument s: a lone UTF-16 surrogate in a \\u escape".into())
        );
        let json = raw(r#"{"\ude00":1}"#);
        assert_eq!(
            Args::parse(Some(&json)).err(),
            Some("arguments: a lone UTF-16 surrogate in a \\u escape".into())
        );
    }
}
