//! Incremental UTF-8 validation that fails at the first invalid byte, across any split.

/// Validates a byte stream as UTF-8 chunk by chunk, carrying a code point that is split between
/// chunks (frames, fragments, partial reads) over to the next chunk.
///
/// It rejects exactly what `std::str::from_utf8` rejects (overlong forms, surrogates, code
/// points above U+10FFFF, stray continuation bytes), and does so at the first byte that makes
/// the stream invalid whatever follows, not at the end of the message.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub(crate) struct Utf8Validator {
    /// Continuation bytes still needed to finish the current code point (0-3).
    needed: u8,
    /// Smallest allowed value of the next continuation byte.
    low: u8,
    /// Largest allowed value of the next continuation byte.
    high: u8,
}

impl Utf8Validator {
    /// Feeds the next chunk. `Err(i)` gives the index in `bytes` of the first byte that makes
    /// the stream invalid; the validator must then be [`reset`](Self::reset) before reuse.
    pub(crate) fn feed(&mut self, bytes: &[u8]) -> Result<(), usize> {
        let mut index = 0;
        while self.needed > 0 {
            let Some(&byte) = bytes.get(index) else {
                return Ok(());
            };
            self.step(byte).map_err(|()| index)?;
            index += 1;
        }
        let rest = bytes.get(index..).unwrap_or_default();
        match std::str::from_utf8(rest) {
            Ok(_) => Ok(()),
            Err(error) => {
                let valid = index + error.valid_up_to();
                match error.error_len() {
                    Some(_) => {
                        // The first byte that cannot start or continue a sequence is the
                        // error; a truncated prefix before it is found by stepping through.
                        let mut probe = Utf8Validator::default();
                        let tail = bytes.get(valid..).unwrap_or_default();
                        let offset = tail.iter().position(|&byte| probe.step(byte).is_err());
                        Err(valid + offset.unwrap_or_default())
                    }
                    // An incomplete sequence at the end: remember it for the next chunk.
                    None => {
                        for &byte in bytes.get(valid..).unwrap_or_default() {
                            self.step(byte).map_err(|()| valid)?;
                        }
                        Ok(())
                    }
                }
            }
        }
    }

    /// True when the bytes fed so far end on a code point boundary.
    pub(crate) const fn is_complete(&self) -> bool {
        self.needed == 0
    }

    /// Forgets any partial code point, ready for a new message.
    pub(crate) fn reset(&mut self) {
        *self = Utf8Validator::default();
    }

    /// Advances by one byte (Unicode 15 §3.9 table 3-7, well-formed UTF-8 byte sequences).
    fn step(&mut self, byte: u8) -> Result<(), ()> {
        if self.needed > 0 {
            if byte < self.low || byte > self.high {
                return Err(());
            }
            self.needed -= 1;
            self.low = 0x80;
            self.high = 0xBF;
            return Ok(());
        }
        let (needed, low, high) = match byte {
            0x00..=0x7F => (0, 0x80, 0xBF),
            0xC2..=0xDF => (1, 0x80, 0xBF),
            0xE0 => (2, 0xA0, 0xBF),
            0xE1..=0xEC | 0xEE..=0xEF => (2, 0x80, 0xBF),
            0xED => (2, 0x80, 0x9F),
            0xF0 => (3, 0x90, 0xBF),
            0xF1..=0xF3 => (3, 0x80, 0xBF),
            0xF4 => (3, 0x80, 0x8F),
            _ => return Err(()),
        };
        self.needed = needed;
        self.low = low;
        self.high = high;
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    fn feed_all(chunks: &[&[u8]]) -> Result<bool, (usize, usize)> {
        let mut validator = Utf8Validator::default();
        for (n, chunk) in chunks.iter().enumerate() {
            validator.feed(chunk).map_err(|i| (n, i))?;
        }
        Ok(validator.is_complete())
    }

    #[test]
    fn accepts_ascii_and_multibyte() {
        assert_eq!(feed_all(&["héllo €𝄞".as_bytes()]), Ok(true));
        assert_eq!(feed_all(&[b""]), Ok(true));
    }

    #[test]
    fn carries_a_code_point_split_between_chunks() {
        // U+1D11E is F0 9D 84 9E: split after every byte.
        assert_eq!(feed_all(&[b"a\xF0", b"\x9D", b"\x84", b"\x9Eb"]), Ok(true));
        assert_eq!(feed_all(&[b"a\xE2\x82"]), Ok(false));
        assert_eq!(feed_all(&[b"a\xE2\x82", b"\xAC"]), Ok(true));
    }

    #[test]
    fn fails_at_the_first_invalid_byte() {
        assert_eq!(feed_all(&[b"ab\xFFcd"]), Err((0, 2)));
        assert_eq!(feed_all(&[b"ab\x80"]), Err((0, 2)));
        // Overlong "/" (C0 AF), surrogate U+D800 (ED A0 80), above U+10FFFF (F4 90 80 80).
        assert_eq!(feed_all(&[b"\xC0\xAF"]), Err((0, 0)));
        assert_eq!(feed_all(&[b"x\xED\xA0\x80"]), Err((0, 2)));
        assert_eq!(feed_all(&[b"\xF4\x90\x80\x80"]), Err((0, 1)));
        // Overlong 3-byte form E0 80 AF fails at its second byte.
        assert_eq!(feed_all(&[b"\xE0\x80\xAF"]), Err((0, 1)));
        // Truncated sequence followed by ASCII fails at the ASCII byte.
        assert_eq!(feed_all(&[b"\xE2\x82x"]), Err((0, 2)));
    }

    #[test]
    fn fails_at_the_first_invalid_byte_of_a_later_chunk() {
        assert_eq!(feed_all(&[b"ok\xED", b"\xA0\x80"]), Err((1, 0)));
        assert_eq!(feed_all(&[b"ok\xF0\x90", b"\x80x"]), Err((1, 1)));
        assert_eq!(feed_all(&[b"ok", b"\xE2\x82", b"\xAC\xFE"]), Err((2, 1)));
    }

    #[test]
    fn reset_forgets_a_partial_code_point() {
        let mut validator = Utf8Validator::default();
        assert_eq!(validator.feed(b"\xE2"), Ok(()));
        assert!(!validator.is_complete());
        validator.reset();
        assert!(validator.is_complete());
        assert_eq!(validator.feed(b"a"), Ok(()));
    }

    /// Where std finds the first byte that makes a stream invalid whatever follows.
    fn std_first_error(bytes: &[u8]) -> Option<usize> {
        (1..=bytes.len()).find_map(|n| {
            let prefix = &bytes[..n];
            match std::str::from_utf8(prefix) {
                Err(e) if e.error_len().is_some() => Some(n - 1),
                _ => None,
            }
        })
    }

    proptest! {
        #[test]
        fn agrees_with_std_at_every_split(
            bytes in prop::collection::vec(
                prop_oneof![any::<u8>(), 0x80u8..=0xBF, Just(0xE0u8), Just(0xEDu8), Just(0xF0u8), Just(0xF4u8)],
                0..24,
            ),
            split in any::<prop::sample::Index>(),
        ) {
            let at = split.index(bytes.len() + 1);
            let (head, tail) = bytes.split_at(at);
            let mut validator = Utf8Validator::default();
            let result = validator.feed(head).and_then(|()| {
                validator.feed(tail).map_err(|i| at + i)
            });
            match std_first_error(&bytes) {
                Some(index) => prop_assert_eq!(result, Err(index)),
                None => {
                    prop_assert_eq!(result, Ok(()));
                    prop_assert_eq!(validator.is_complete(), std::str::from_utf8(&bytes).is_ok());
                }
            }
        }
    }
}
