//! The handshake's base64 against the `base64` crate it replaced.

use base64::Engine as _;
use base64::engine::general_purpose::STANDARD;
use proptest::prelude::*;

use super::{encode_digest, is_16_bytes};

/// The key check as it was: the crate's canonical decoding of 24 characters to 16 bytes.
fn crate_is_16_bytes(key: &[u8]) -> bool {
    let mut decoded = [0u8; 18];
    key.len() == 24 && matches!(STANDARD.decode_slice(key, &mut decoded), Ok(16))
}

#[test]
fn rfc_6455_s_sample_key_is_16_bytes() {
    assert!(is_16_bytes(b"dGhlIHNhbXBsZSBub25jZQ=="));
    assert!(!is_16_bytes(b"dGhlIHNhbXBsZSBub25jZR=="));
    assert!(!is_16_bytes(b"dGhlIHNhbXBsZSBub25jZQ="));
    assert!(!is_16_bytes(b"dGhlIHNhbXBsZSBub25jZQ==="));
    assert!(!is_16_bytes(b"dGhlIHNhbXBsZSBub25jZ==="));
}

proptest! {
    #[test]
    fn digests_are_encoded_as_the_crate_encodes_them(digest in any::<[u8; 20]>()) {
        let expected = STANDARD.encode(digest);
        prop_assert_eq!(&encode_digest(&digest)[..], expected.as_bytes());
    }

    #[test]
    fn keys_of_16_bytes_are_accepted(nonce in any::<[u8; 16]>()) {
        prop_assert!(is_16_bytes(STANDARD.encode(nonce).as_bytes()));
    }

    #[test]
    fn keys_are_judged_as_the_crate_judges_them(
        key in prop_oneof![
            "[A-Za-z0-9+/]{22}==",
            "[A-Za-z0-9+/]{22}[A-Za-z0-9+/=]{2}",
            "[A-Za-z0-9+/=]{0,30}",
            prop::collection::vec(any::<u8>(), 0..30)
                .prop_map(|bytes| String::from_utf8_lossy(&bytes).into_owned()),
        ],
    ) {
        prop_assert_eq!(is_16_bytes(key.as_bytes()), crate_is_16_bytes(key.as_bytes()), "{}", key);
    }
}
