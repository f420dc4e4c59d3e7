//! SHA-1 (FIPS 180-4 §6.1) of a message given in parts: RFC 6455's accept key, the ledger's
//! content digests and the `openDiff` proposal fingerprints. None of them is a security
//! boundary (the auth token is), so SHA-1's collision weakness does not matter here.
//!
//! Native builds use the `sha1` crate (its unrolled rounds, and SHA-NI where the CPU has it).
//! WebAssembly builds use the compact form below, one loop over the 80 rounds: the unrolled
//! rounds cost the wasm module 4 KB more, and a page hashes little (a handshake, the files of
//! one turn). The tests hold the compact form to the crate on every input.

/// The SHA-1 digest of the concatenation of `parts`.
#[cfg(not(target_family = "wasm"))]
pub(crate) fn digest(parts: &[&[u8]]) -> [u8; 20] {
    use sha1::{Digest, Sha1};
    let mut sha1 = Sha1::new();
    for part in parts {
        sha1.update(part);
    }
    sha1.finalize().into()
}

/// The SHA-1 digest of the concatenation of `parts`.
#[cfg(target_family = "wasm")]
pub(crate) fn digest(parts: &[&[u8]]) -> [u8; 20] {
    compact::digest(parts)
}

#[cfg(any(target_family = "wasm", test))]
mod compact {
    /// FIPS 180-4 §5.3.1: the initial hash value.
    const INITIAL: [u32; 5] = [
        0x6745_2301,
        0xEFCD_AB89,
        0x98BA_DCFE,
        0x1032_5476,
        0xC3D2_E1F0,
    ];

    /// The digest of the concatenation of `parts`, block by block (§6.1.2), then padded
    /// (§5.1.1: a 1 bit, zeros, the message's length in bits as 64-bit big-endian).
    pub(super) fn digest(parts: &[&[u8]]) -> [u8; 20] {
        let mut blocks = Blocks {
            state: INITIAL,
            block: [0; 64],
            filled: 0,
        };
        let mut length: u64 = 0;
        for part in parts {
            length = length.wrapping_add(part.len() as u64);
            blocks.absorb(part);
        }
        blocks.absorb(&[0x80]);
        while blocks.filled != 56 {
            blocks.absorb(&[0]);
        }
        blocks.absorb(&length.wrapping_mul(8).to_be_bytes());
        let mut out = [0u8; 20];
        for (word, bytes) in blocks.state.iter().zip(out.chunks_exact_mut(4)) {
            bytes.copy_from_slice(&word.to_be_bytes());
        }
        out
    }

    /// The hash state and the block being filled.
    struct Blocks {
        state: [u32; 5],
        block: [u8; 64],
        filled: usize,
    }

    impl Blocks {
        /// Appends `bytes`, compressing each block as it fills.
        fn absorb(&mut self, bytes: &[u8]) {
            for &byte in bytes {
                self.block[self.filled] = byte;
                self.filled += 1;
                if self.filled == 64 {
                    compress(&mut self.state, &self.block);
                    self.filled = 0;
                }
            }
        }
    }

    /// §6.1.2 steps 1-4 for one 512-bit block, the message schedule kept as a ring of 16 words.
    fn compress(state: &mut [u32; 5], block: &[u8; 64]) {
        let mut schedule = [0u32; 16];
        for (word, bytes) in schedule.iter_mut().zip(block.chunks_exact(4)) {
            *word = u32::from_be_bytes([bytes[0], bytes[1], bytes[2], bytes[3]]);
        }
        let [mut a, mut b, mut c, mut d, mut e] = *state;
        for t in 0..80 {
            if t >= 16 {
                let w = schedule[(t + 13) % 16]
                    ^ schedule[(t + 8) % 16]
                    ^ schedule[(t + 2) % 16]
                    ^ schedule[t % 16];
                schedule[t % 16] = w.rotate_left(1);
            }
            // §4.1.1 and §4.2.1: Ch, Parity, Maj, Parity and their constants.
            let (f, k) = match t / 20 {
                0 => ((b & c) | (!b & d), 0x5A82_7999),
                1 => (b ^ c ^ d, 0x6ED9_EBA1),
                2 => ((b & c) | (b & d) | (c & d), 0x8F1B_BCDC),
                _ => (b ^ c ^ d, 0xCA62_C1D6),
            };
            let temp = a
                .rotate_left(5)
                .wrapping_add(f)
                .wrapping_add(e)
                .wrapping_add(k)
                .wrapping_add(schedule[t % 16]);
            e = d;
            d = c;
            c = b.rotate_left(30);
            b = a;
            a = temp;
        }
        for (word, add) in state.iter_mut().zip([a, b, c, d, e]) {
            *word = word.wrapping_add(add);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::{compact, digest};
    use proptest::prelude::*;

    fn hex(bytes: &[u8]) -> String {
        bytes.iter().map(|byte| format!("{byte:02x}")).collect()
    }

    #[test]
    fn the_fips_examples_hash_to_their_digests() {
        // FIPS 180-4 example values (one block, two blocks) and the empty message.
        let two_blocks = b"abcdbcdecdefdefgefghfghighijhijkijkljklmklmnlmnomnopnopq";
        for (message, expected) in [
            (&b""[..], "da39a3ee5e6b4b0d3255bfef95601890afd80709"),
            (b"abc", "a9993e364706816aba3e25717850c26c9cd0d89d"),
            (two_blocks, "84983e441c3bd26ebaae4aa1f95129e5e54670f1"),
        ] {
            assert_eq!(hex(&compact::digest(&[message])), expected);
            assert_eq!(hex(&digest(&[message])), expected);
        }
    }

    proptest! {
        /// Every length around the padding's edges (55, 56, 63, 64 bytes of a block) and any
        /// split into parts gives the `sha1` crate's digest.
        #[test]
        fn the_compact_form_is_the_crates_sha1(
            message in proptest::collection::vec(any::<u8>(), 0..300),
            split in 0usize..300,
        ) {
            let split = split.min(message.len());
            let (head, tail) = message.split_at(split);
            prop_assert_eq!(compact::digest(&[head, tail]), digest(&[&message]));
        }
    }
}
