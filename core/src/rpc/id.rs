//! Request ids: borrowed from the message text, echoed back byte-for-byte.

use std::cmp::Ordering;

use serde_json::value::RawValue;

/// A request id exactly as the client sent it (a JSON number or string), borrowed from the
/// message text.
///
/// It is echoed byte-for-byte in the reply, so `1.0`, `1e0` and `"1"` stay distinct ids, and a
/// string id keeps its escapes. Equality compares that raw text.
#[derive(Debug, Clone, Copy)]
pub struct RequestId<'a>(&'a RawValue);

impl<'a> RequestId<'a> {
    /// `raw` as a request id, or `None` when it is not a JSON number or string.
    pub fn from_raw(raw: &'a RawValue) -> Option<Self> {
        // JSON-RPC 2.0 §4: an id MUST contain a String, Number, or NULL value if included. A
        // null id is kept for replies to requests whose id could not be read: refused here.
        match raw.get().as_bytes().first()? {
            b'"' | b'-' | b'0'..=b'9' => Some(RequestId(raw)),
            _ => None,
        }
    }

    /// The id's JSON text, exactly as received (no surrounding whitespace).
    pub fn as_raw(&self) -> &'a RawValue {
        self.0
    }

    /// An owned copy of this id, for keeping past the message it came from (a map key for a
    /// pending call, say). Allocates once.
    pub fn to_owned(self) -> OwnedRequestId {
        OwnedRequestId(self.0.to_owned())
    }
}

impl PartialEq for RequestId<'_> {
    fn eq(&self, other: &Self) -> bool {
        self.0.get() == other.0.get()
    }
}

impl Eq for RequestId<'_> {}

/// An owned [`RequestId`]: the same raw JSON text, kept beyond the message it came from.
///
/// Ordered and compared by raw text, so it works as a `BTreeMap` key for pending calls; a
/// `notifications/cancelled` naming the id with the same spelling finds it.
#[derive(Debug, Clone)]
pub struct OwnedRequestId(Box<RawValue>);

impl OwnedRequestId {
    /// This id borrowed again, for writing a reply with it.
    pub fn as_borrowed(&self) -> RequestId<'_> {
        RequestId(&self.0)
    }
}

impl PartialEq for OwnedRequestId {
    fn eq(&self, other: &Self) -> bool {
        self.0.get() == other.0.get()
    }
}

impl Eq for OwnedRequestId {}

impl PartialOrd for OwnedRequestId {
    fn partial_cmp(&self, other: &Self) -> Option<Ordering> {
        Some(self.cmp(other))
    }
}

impl Ord for OwnedRequestId {
    fn cmp(&self, other: &Self) -> Ordering {
        self.0.get().cmp(other.0.get())
    }
}

#[cfg(test)]
mod tests {
    use std::collections::BTreeMap;

    use super::*;

    fn raw(text: &str) -> &RawValue {
        serde_json::from_str(text).unwrap()
    }

    #[test]
    fn numbers_and_strings_are_ids() {
        for text in ["0", "-1", "1.5", "1e3", r#""abc""#, r#""""#, r#""\u0041""#] {
            let id = RequestId::from_raw(raw(text)).unwrap();
            assert_eq!(id.as_raw().get(), text);
        }
    }

    #[test]
    fn null_bool_object_array_are_not_ids() {
        for text in ["null", "true", "false", "{}", "[1]"] {
            assert!(RequestId::from_raw(raw(text)).is_none(), "{text}");
        }
    }

    #[test]
    fn owned_round_trips_and_orders_by_raw_text() {
        let one = RequestId::from_raw(raw("1")).unwrap();
        let owned = one.to_owned();
        assert_eq!(owned.as_borrowed(), one);
        assert_eq!(owned.as_borrowed().as_raw().get(), "1");

        let mut pending = BTreeMap::new();
        pending.insert(owned, "first");
        pending.insert(
            RequestId::from_raw(raw(r#""1""#)).unwrap().to_owned(),
            "second",
        );
        assert_eq!(pending.len(), 2, "1 and \"1\" are different ids");
        assert_eq!(pending.get(&one.to_owned()), Some(&"first"));
        assert_ne!(
            RequestId::from_raw(raw("1")).unwrap(),
            RequestId::from_raw(raw("1.0")).unwrap()
        );
    }
}
