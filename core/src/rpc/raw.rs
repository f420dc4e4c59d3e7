//! Borrowed `RawValue`s made from text the reader of [`super::syntax`] already accepted.

use serde::Deserialize;
use serde::de::value::{BorrowedStrDeserializer, Error, MapAccessDeserializer};
use serde::de::{DeserializeSeed, MapAccess};
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

/// A map access yielding the single member `RAW_VALUE_TOKEN: json`.
struct OneMember<'a>(Option<&'a str>);

impl<'de> MapAccess<'de> for OneMember<'de> {
    type Error = Error;

    fn next_key_seed<K: DeserializeSeed<'de>>(
        &mut self,
        seed: K,
    ) -> Result<Option<K::Value>, Error> {
        if self.0.is_none() {
            return Ok(None);
        }
        seed.deserialize(BorrowedStrDeserializer::new(RAW_VALUE_TOKEN))
            .map(Some)
    }

    fn next_value_seed<V: DeserializeSeed<'de>>(&mut self, seed: V) -> Result<V::Value, Error> {
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
