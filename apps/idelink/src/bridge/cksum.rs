//! POSIX `cksum`'s checksum (the one every far side has: POSIX.1-2017, `cksum`, "DESCRIPTION":
//! a CRC with the generator 0x04C11DB7 over the bytes and then their count, complemented), so a
//! copied binary is checked where it lands with a command of the base system, before it runs.

/// The CRC generator polynomial of POSIX `cksum` (its G(x), the bit for x^32 left out).
const GENERATOR: u32 = 0x04C1_1DB7;

/// The words `cksum` prints for `bytes` read from stdin: `CRC SIZE`.
pub fn cksum_line(bytes: &[u8]) -> String {
    format!("{} {}", cksum(bytes), bytes.len())
}

/// POSIX `cksum` of `bytes`: the CRC of the bytes followed by their count (least significant
/// byte first, as few bytes as it takes), complemented.
pub fn cksum(bytes: &[u8]) -> u32 {
    let mut crc = bytes.iter().fold(0u32, |crc, &b| step(crc, b));
    let mut len = bytes.len() as u64;
    while len != 0 {
        crc = step(crc, (len & 0xff) as u8);
        len >>= 8;
    }
    !crc
}

/// One byte into the CRC, most significant bit first, by [`TABLE`].
fn step(crc: u32, byte: u8) -> u32 {
    (crc << 8) ^ TABLE[usize::from((crc >> 24) as u8 ^ byte)]
}

/// The CRC of each byte value alone: one look-up per byte instead of eight shifts (a debug
/// build checks a 40 MB binary in a fraction of a second).
const TABLE: [u32; 256] = {
    let mut table = [0u32; 256];
    let mut i = 0;
    while i < 256 {
        let mut crc = (i as u32) << 24;
        let mut bit = 0;
        while bit < 8 {
            crc = if crc & 0x8000_0000 == 0 {
                crc << 1
            } else {
                (crc << 1) ^ GENERATOR
            };
            bit += 1;
        }
        table[i] = crc;
        i += 1;
    }
    table
};

#[cfg(test)]
mod tests {
    use super::*;

    /// The figures printed by GNU coreutils' `cksum` for the same input.
    #[test]
    fn matches_the_posix_cksum_command() {
        assert_eq!(cksum_line(b""), "4294967295 0");
        assert_eq!(cksum_line(b"123456789"), "930766865 9");
        assert_eq!(cksum_line(&[0u8; 70_000]), "1774371287 70000");
    }
}
