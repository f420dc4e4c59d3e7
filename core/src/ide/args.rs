//! Reading a `tools/call`'s `arguments`: typed getters whose errors name the argument and
//! the rule it broke. Arguments a tool does not know are ignored.

use std::borrow::Cow;

use serde_json::value::RawValue;
use serde_json::{Map, Value};

use super::path::{PathStyle, normalize_path};

/// A call's arguments, consumed argument by argument.
pub(crate) struct Args(Map<String, Value>);

impl Args {
    /// Parses `arguments`; absent or `null` means no arguments. Anything but an object is
    /// refused.
    pub(crate) fn parse(arguments: Option<&RawValue>) -> Result<Args, String> {
        let Some(raw) = arguments else {
            return Ok(Args(Map::new()));
        };
        match serde_json::from_str::<Value>(raw.get()) {
            Ok(Value::Object(map)) => Ok(Args(map)),
            Ok(Value::Null) => Ok(Args(Map::new())),
            Ok(other) => Err(format!(
                "arguments: expected an object, got {}",
                kind(&other)
            )),
            Err(err) => Err(format!("arguments: {err}")),
        }
    }

    /// A required string argument.
    pub(crate) fn string(&mut self, key: &str) -> Result<String, String> {
        self.optional_string(key)?
            .ok_or_else(|| format!("missing required argument: {key}"))
    }

    /// A required, non-empty path argument, normalized with `style`.
    pub(crate) fn path(&mut self, key: &str, style: PathStyle) -> Result<String, String> {
        let path = self.string(key)?;
        if path.is_empty() {
            return Err(format!("argument {key}: must not be empty"));
        }
        Ok(match normalize_path(&path, style) {
            Cow::Borrowed(_) => path,
            Cow::Owned(normalized) => normalized,
        })
    }

    /// An optional string argument; `null` counts as absent.
    pub(crate) fn optional_string(&mut self, key: &str) -> Result<Option<String>, String> {
        match self.0.remove(key) {
            None | Some(Value::Null) => Ok(None),
            Some(Value::String(s)) => Ok(Some(s)),
            Some(other) => Err(mistyped(key, "a string", &other)),
        }
    }

    /// An optional boolean argument; `null` counts as absent.
    pub(crate) fn optional_bool(&mut self, key: &str) -> Result<Option<bool>, String> {
        match self.0.remove(key) {
            None | Some(Value::Null) => Ok(None),
            Some(Value::Bool(b)) => Ok(Some(b)),
            Some(other) => Err(mistyped(key, "a boolean", &other)),
        }
    }
}

fn mistyped(key: &str, expected: &str, got: &Value) -> String {
    format!("argument {key}: expected {expected}, got {}", kind(got))
}

fn kind(value: &Value) -> &'static str {
    match value {
        Value::Null => "null",
        Value::Bool(_) => "a boolean",
        Value::Number(_) => "a number",
        Value::String(_) => "a string",
        Value::Array(_) => "an array",
        Value::Object(_) => "an object",
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn args(json: &str) -> Result<Args, String> {
        let raw = RawValue::from_string(json.to_owned()).unwrap();
        Args::parse(Some(&raw))
    }

    #[test]
    fn absent_and_null_arguments_are_empty() {
        assert_eq!(Args::parse(None).unwrap().optional_string("x"), Ok(None));
        assert_eq!(args("null").unwrap().optional_bool("x"), Ok(None));
    }

    #[test]
    fn non_objects_are_refused() {
        assert_eq!(
            args("[1]").err().unwrap(),
            "arguments: expected an object, got an array"
        );
        assert_eq!(
            args(r#""x""#).err().unwrap(),
            "arguments: expected an object, got a string"
        );
    }

    #[test]
    fn too_deep_arguments_are_refused_not_panicked_on() {
        let deep = format!(r#"{{"a":{}{}}}"#, "[".repeat(200), "]".repeat(200));
        let err = args(&deep).err().unwrap();
        assert!(
            err.starts_with("arguments: recursion limit exceeded"),
            "{err}"
        );
    }

    #[test]
    fn getters_name_the_argument_and_the_rule() {
        let mut a = args(r#"{"s":"x","n":1,"b":true,"z":null,"o":{}}"#).unwrap();
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
        let mut a = args(r#"{"p":"c:\\a\\b.rs","q":"","r":"/a\\b"}"#).unwrap();
        assert_eq!(a.path("p", PathStyle::Windows), Ok("C:/a/b.rs".into()));
        assert_eq!(
            a.path("q", PathStyle::Windows),
            Err("argument q: must not be empty".into())
        );
        assert_eq!(a.path("r", PathStyle::Posix), Ok(r"/a\b".into()));
    }
}
