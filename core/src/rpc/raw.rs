//! Borrowed `RawValue`s made from text the JSON scanner (`crate::json`) already accepted.

use std::fmt;

use serde::Deserialize;
use serde::de::value::{BorrowedStrDeserializer, MapAccessDeserializer};
use serde::de::{self, DeserializeSeed, Expected, MapAccess, Unexpected};
use serde_json::value::RawValue;

/// serde_json's key for an object that stands for a raw value (its `raw_value` feature): a
/// `&RawValue` deserializes from such a one-member map whose value is the borrowed JSON text.
const RAW_VALUE_TOKEN: &str = "$serde_json::private::RawValue";

/// `json` as a borrowed `RawValue`, without parsing it again: serde_json has no public
/// borrowed constructor, so the text is handed to `&RawValue`'s own `Deserialize`, which
/// takes it as given. `json` must be one JSON value with no surrounding whitespace, as the
/// reader accepted it.
pub(crate) fn borrowed(json: &str) -> &RawValue {
    <&RawValue>::deserialize(MapAccessDeserializer::new(OneMember(Some(json))))
        .expect("&RawValue deserializes from a map of serde_json's raw-value token")
}

/// The error of that deserialization, which never happens (the map is exactly the one
/// `&RawValue` asks for). It keeps no message: serde's own error type would format one,
/// and with it link serde's messages and the standard library's float formatting (some
/// 18 KB of the wasm module) for a path that cannot be taken.
#[derive(Debug)]
struct Refused;

impl fmt::Display for Refused {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("not serde_json's raw-value map")
    }
}

impl std::error::Error for Refused {}

/// Every constructor is overridden: serde's defaults format their arguments into `custom`.
impl de::Error for Refused {
    fn custom<T: fmt::Display>(_: T) -> Self {
        Refused
    }

    fn invalid_type(_: Unexpected<'_>, _: &dyn Expected) -> Self {
        Refused
    }

    fn invalid_value(_: Unexpected<'_>, _: &dyn Expected) -> Self {
        Refused
    }

    fn invalid_length(_: usize, _: &dyn Expected) -> Self {
        Refused
    }

    fn unknown_variant(_: &str, _: &'static [&'static str]) -> Self {
        Refused
    }

    fn unknown_field(_: &str, _: &'static [&'static str]) -> Self {
        Refused
    }

    fn missing_field(_: &'static str) -> Self {
        Refused
    }

    fn duplicate_field(_: &'static str) -> Self {
        Refused
    }
}

/// A map access yielding the single member `RAW_VALUE_TOKEN: json`.
struct OneMember<'a>(Option<&'a str>);

impl<'de> MapAccess<'de> for OneMember<'de> {
    type Error = Refused;

    fn next_key_seed<K: DeserializeSeed<'de>>(
        &mut self,
        seed: K,
    ) -> Result<Option<K::Value>, Refused> {
        if self.0.is_none() {
            return Ok(None);
        }
        seed.deserialize(BorrowedStrDeserializer::new(RAW_VALUE_TOKEN))
            .map(Some)
    }

    fn next_value_seed<V: DeserializeSeed<'de>>(&mut self, seed: V) -> Result<V::Value, Refused> {
        let json = self.0.take().unwrap_or_default();
        seed.deserialize(BorrowedStrDeserializer::new(json))
    }
}

#[cfg(test)]
mod tests {
    use super::borrowed;

    #[test]
    fn borrows_the_text_as_given() {
        for json in ["1", r#""a\"b""#, r#"{"a":[1,2]}"#, "[]", "null"] {
            let raw = borrowed(json);
            assert_eq!(raw.get(), json);
            assert!(std::ptr::eq(raw.get(), json), "{json} was copied");
        }
    }
}
