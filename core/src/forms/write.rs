//! Writing a form: objects member by member, byte for byte as serde_json writes the derived
//! serde form (members in declaration order, no whitespace, strings escaped as it escapes).

use crate::json::{push_string, push_u64};

/// An object being written into `out`: `{` on the first member, `}` at [`Object::end`].
pub(super) struct Object<'o> {
    out: &'o mut Vec<u8>,
    first: bool,
}

impl<'o> Object<'o> {
    /// An object written into `out`.
    pub(super) fn new(out: &'o mut Vec<u8>) -> Self {
        out.push(b'{');
        Object { out, first: true }
    }

    /// The name of the next member and its colon; the value is the caller's to write.
    #[inline(never)]
    pub(super) fn key(&mut self, name: &str) -> &mut Vec<u8> {
        if !self.first {
            self.out.push(b',');
        }
        self.first = false;
        push_string(self.out, name);
        self.out.push(b':');
        self.out
    }

    /// A string member.
    #[inline(never)]
    pub(super) fn str(mut self, name: &str, value: &str) -> Self {
        push_string(self.key(name), value);
        self
    }

    /// An integer member.
    #[inline(never)]
    pub(super) fn u64(mut self, name: &str, value: impl Into<u64>) -> Self {
        push_u64(self.key(name), value.into());
        self
    }

    /// A boolean member.
    #[inline(never)]
    pub(super) fn bool(mut self, name: &str, value: bool) -> Self {
        let text: &[u8] = if value { b"true" } else { b"false" };
        self.key(name).extend_from_slice(text);
        self
    }

    /// An option written as `null` when None (serde's default for `Option`).
    pub(super) fn nullable<T>(
        mut self,
        name: &str,
        value: Option<T>,
        write: impl FnOnce(&mut Vec<u8>, T),
    ) -> Self {
        let out = self.key(name);
        match value {
            Some(value) => write(out, value),
            None => out.extend_from_slice(b"null"),
        }
        self
    }

    /// An option left out when None (`skip_serializing_if = "Option::is_none"`).
    pub(super) fn some_str(self, name: &str, value: Option<&str>) -> Self {
        match value {
            Some(value) => self.str(name, value),
            None => self,
        }
    }

    /// A member whose value `write` writes.
    pub(super) fn with(mut self, name: &str, write: impl FnOnce(&mut Vec<u8>)) -> Self {
        write(self.key(name));
        self
    }

    /// Closes the object.
    pub(super) fn end(self) {
        self.out.push(b'}');
    }
}

/// `items` as a JSON array, each written by `write`.
pub(super) fn list<T>(out: &mut Vec<u8>, items: &[T], write: fn(&mut Vec<u8>, &T)) {
    out.push(b'[');
    for (i, item) in items.iter().enumerate() {
        if i > 0 {
            out.push(b',');
        }
        write(out, item);
    }
    out.push(b']');
}
