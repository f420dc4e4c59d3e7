//! The lock file's auth token: minted from host entropy, parsed from other IDEs' locks, and
//! compared in constant time against what a client presents.

use std::fmt;

/// Longest token [`AuthToken::parse`] accepts, in bytes (other IDEs' tokens are 36-byte UUIDs).
pub const MAX_TOKEN_BYTES: usize = 256;

/// The lock file's `authToken`: the shared secret a client must present in the
/// `x-claude-code-ide-authorization` header to get a WebSocket upgrade.
///
/// Tokens minted here are 128 bits rendered as 32 lowercase hex characters; tokens parsed from
/// elsewhere are any 1 to [`MAX_TOKEN_BYTES`] visible-ASCII bytes. `Debug` and `Display` print
/// `<redacted>` instead of the secret, so a token never reaches a log by accident; use
/// [`AuthToken::as_str`] where the secret itself is wanted (the lock file body). There is no
/// `PartialEq`: compare with [`AuthToken::matches`], which takes constant time.
#[derive(Clone)]
pub struct AuthToken(String);

impl AuthToken {
    /// The token for 16 bytes of OS randomness the host supplies (the engine has no entropy of
    /// its own): each byte as two lowercase hex digits, in order.
    pub fn from_entropy(bytes: [u8; 16]) -> AuthToken {
        const HEX: &[u8; 16] = b"0123456789abcdef";
        let mut text = String::with_capacity(32);
        for byte in bytes {
            text.push(char::from(HEX[usize::from(byte >> 4)]));
            text.push(char::from(HEX[usize::from(byte & 0x0f)]));
        }
        AuthToken(text)
    }

    /// Accepts any token of 1 to [`MAX_TOKEN_BYTES`] bytes, each visible ASCII (`!` to `~`), as
    /// other IDEs write UUIDs and other shapes. The error never contains the token's text.
    pub fn parse(text: &str) -> Result<AuthToken, TokenError> {
        if text.is_empty() {
            return Err(TokenError::Empty);
        }
        if text.len() > MAX_TOKEN_BYTES {
            return Err(TokenError::TooLong {
                len_bytes: text.len(),
            });
        }
        if let Some(index) = text.bytes().position(|b| !b.is_ascii_graphic()) {
            return Err(TokenError::NotVisibleAscii { index });
        }
        Ok(AuthToken(text.to_owned()))
    }

    /// The secret itself, for the lock file body. Never log it.
    pub fn as_str(&self) -> &str {
        &self.0
    }

    /// Whether `presented` is exactly this token.
    ///
    /// The time taken depends only on the two lengths, never on where the bytes first differ:
    /// every position up to the longer length is XOR-folded into one accumulator, missing bytes
    /// count as zero, and a length mismatch is folded in as a difference of its own.
    pub fn matches(&self, presented: &[u8]) -> bool {
        let expected = self.0.as_bytes();
        let mut diff = u8::from(expected.len() != presented.len());
        for i in 0..expected.len().max(presented.len()) {
            let a = expected.get(i).copied().unwrap_or(0);
            let b = presented.get(i).copied().unwrap_or(0);
            diff |= a ^ b;
        }
        std::hint::black_box(diff) == 0
    }
}

impl fmt::Debug for AuthToken {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("AuthToken(<redacted>)")
    }
}

impl fmt::Display for AuthToken {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("<redacted>")
    }
}

/// Why [`AuthToken::parse`] refused a token. No variant carries the token's text.
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub enum TokenError {
    /// The token is the empty string.
    Empty,
    /// The token is longer than [`MAX_TOKEN_BYTES`].
    TooLong {
        /// The token's length in bytes.
        len_bytes: usize,
    },
    /// A byte is not visible ASCII (a space, a control character or non-ASCII).
    NotVisibleAscii {
        /// Byte offset of the first such byte.
        index: usize,
    },
}

impl fmt::Display for TokenError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            TokenError::Empty => f.write_str("auth token is empty"),
            TokenError::TooLong { len_bytes } => write!(
                f,
                "auth token is {len_bytes} bytes long, more than the {MAX_TOKEN_BYTES} allowed"
            ),
            TokenError::NotVisibleAscii { index } => {
                write!(f, "auth token byte {index} is not visible ascii")
            }
        }
    }
}

impl std::error::Error for TokenError {}

#[cfg(test)]
mod tests {
    use super::*;

    const ENTROPY: [u8; 16] = [
        0x00, 0x01, 0x23, 0x45, 0x67, 0x89, 0xab, 0xcd, 0xef, 0xff, 0x10, 0x20, 0x30, 0x40, 0x50,
        0x9a,
    ];

    #[test]
    fn from_entropy_renders_lowercase_hex_in_order() {
        let token = AuthToken::from_entropy(ENTROPY);
        assert_eq!(token.as_str(), "000123456789abcdefff10203040509a");
    }

    #[test]
    fn debug_and_display_redact() {
        let token = AuthToken::from_entropy(ENTROPY);
        assert_eq!(format!("{token:?}"), "AuthToken(<redacted>)");
        assert_eq!(format!("{token}"), "<redacted>");
    }

    #[test]
    fn matches_only_the_exact_token() {
        let token = AuthToken::from_entropy(ENTROPY);
        let text = token.as_str().as_bytes();
        assert!(token.matches(text));
        // A prefix, a longer string, the empty string, one flipped byte at each end.
        assert!(!token.matches(&text[..31]));
        assert!(!token.matches(&[text, b"0"].concat()));
        assert!(!token.matches(&[text, b"\0"].concat()));
        assert!(!token.matches(b""));
        let mut first = text.to_vec();
        first[0] ^= 1;
        assert!(!token.matches(&first));
        let mut last = text.to_vec();
        last[31] ^= 1;
        assert!(!token.matches(&last));
        assert!(!token.matches(token.as_str().to_uppercase().as_bytes()));
    }

    #[test]
    fn matches_a_parsed_uuid_token() {
        let token = AuthToken::parse("0f8fad5b-d9cb-469f-a165-70867728950e").unwrap();
        assert!(token.matches(b"0f8fad5b-d9cb-469f-a165-70867728950e"));
        assert!(!token.matches(b"0f8fad5b-d9cb-469f-a165-70867728950"));
    }

    #[test]
    fn parse_accepts_visible_ascii_up_to_the_limit() {
        let longest = "~".repeat(MAX_TOKEN_BYTES);
        assert_eq!(AuthToken::parse(&longest).unwrap().as_str(), longest);
        assert_eq!(AuthToken::parse("!").unwrap().as_str(), "!");
    }

    #[test]
    fn parse_rejects_empty_too_long_and_invisible_bytes() {
        assert_eq!(AuthToken::parse("").unwrap_err(), TokenError::Empty);
        let too_long = "a".repeat(MAX_TOKEN_BYTES + 1);
        let err = AuthToken::parse(&too_long).unwrap_err();
        assert_eq!(err, TokenError::TooLong { len_bytes: 257 });
        assert_eq!(
            err.to_string(),
            "auth token is 257 bytes long, more than the 256 allowed"
        );
        for (text, index) in [("ab c", 2), ("abc\n", 3), ("\u{7f}", 0), ("aé", 1)] {
            let err = AuthToken::parse(text).unwrap_err();
            assert_eq!(err, TokenError::NotVisibleAscii { index });
        }
        assert_eq!(
            AuthToken::parse("a\tb").unwrap_err().to_string(),
            "auth token byte 1 is not visible ascii"
        );
        assert_eq!(TokenError::Empty.to_string(), "auth token is empty");
    }
}
