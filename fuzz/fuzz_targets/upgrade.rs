//! `http::parse_upgrade` on arbitrary bytes, under two head caps.
//!
//! Oracles: no panic; `Partial` only within the cap; an accepted head lies within the buffer
//! and the cap, parses the same on its own (prefix consistency) and contains the token; the
//! response writers produce a complete HTTP/1.1 response for every outcome.
#![no_main]

use idelink_core::http::{
    DEFAULT_MAX_HEAD_BYTES, Upgrade, UpgradePolicy, parse_upgrade, write_accept, write_rejection,
};
use idelink_fuzz::{PORT, TOKEN, token};
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    let token = token();
    for max_head_bytes in [DEFAULT_MAX_HEAD_BYTES, data.len() / 2] {
        let policy = UpgradePolicy::claude(PORT, &token, max_head_bytes);
        let mut out = Vec::new();
        match parse_upgrade(data, &policy) {
            Upgrade::Partial => assert!(data.len() <= max_head_bytes, "partial past the cap"),
            Upgrade::Rejected(rejection) => write_rejection(&rejection, &mut out),
            Upgrade::Accepted(accepted) => {
                assert!(accepted.head_len <= data.len().min(max_head_bytes));
                let head = &data[..accepted.head_len];
                assert!(
                    head.windows(TOKEN.len()).any(|w| w == TOKEN.as_bytes()),
                    "accepted without the token"
                );
                assert_eq!(
                    parse_upgrade(head, &policy),
                    Upgrade::Accepted(accepted.clone())
                );
                write_accept(&accepted, &mut out);
                assert!(out.ends_with(b"\r\n\r\n"));
            }
        }
        if !out.is_empty() {
            assert!(out.starts_with(b"HTTP/1.1 "));
        }
    }
});
