//! The range of a JSON number, as serde_json 1.x reads it into an `f64`.
//!
//! RFC 8259 §6 lets an implementation limit the range of numbers; serde_json refuses one
//! whose value it makes infinite. Its reading (without the `float_roundtrip` feature) is
//! not correctly rounded: it keeps the leading digits that fit a `u64`, counts the other
//! integer digits into the exponent, drops the other fraction digits, and multiplies by the
//! `f64` nearest the power of ten. The boundary follows that reading, step for step, so a
//! number refused here is exactly one serde_json refuses.

/// The `f64`s nearest `1e289` through `1e308`: below `1e289`, no `u64` times the power
/// reaches `f64::MAX` (`2^64 · 1e288 ≈ 1.8e307`).
const POW10_TOP: [f64; 20] = [
    1e289, 1e290, 1e291, 1e292, 1e293, 1e294, 1e295, 1e296, 1e297, 1e298, 1e299, 1e300, 1e301,
    1e302, 1e303, 1e304, 1e305, 1e306, 1e307, 1e308,
];

/// The power of ten the first of [`POW10_TOP`] stands for.
const POW10_TOP_FROM: i32 = 289;

/// Whether `raw`, a JSON number the reader accepted, is within `f64`'s range as serde_json
/// reads it (`1e400` is not; `1e-400` is, as zero).
pub(super) fn in_range(raw: &str) -> bool {
    let bytes = raw.as_bytes();
    let mut at = usize::from(bytes.first() == Some(&b'-'));
    let digit = |at: usize| bytes.get(at).filter(|byte| byte.is_ascii_digit()).copied();
    let mut significand: u64 = 0;
    let mut exponent: i32 = 0;
    // The integer digits: those after the first that would overflow the significand only
    // scale it.
    let mut full = false;
    while let Some(next) = digit(at) {
        at += 1;
        match push(significand, next) {
            Some(more) if !full => significand = more,
            _ => {
                full = true;
                exponent = exponent.saturating_add(1);
            }
        }
    }
    // The fraction digits, tried afresh: those from the first that would overflow are
    // dropped.
    if bytes.get(at) == Some(&b'.') {
        at += 1;
        let mut full = false;
        while let Some(next) = digit(at) {
            at += 1;
            match push(significand, next) {
                Some(more) if !full => {
                    significand = more;
                    exponent = exponent.saturating_sub(1);
                }
                _ => full = true,
            }
        }
    }
    if let Some(b'e' | b'E') = bytes.get(at) {
        at += 1;
        let negative = bytes.get(at) == Some(&b'-');
        at += usize::from(matches!(bytes.get(at), Some(b'-' | b'+')));
        let mut exp: i32 = 0;
        while let Some(next) = digit(at) {
            at += 1;
            let Some(more) = exp
                .checked_mul(10)
                .and_then(|exp| exp.checked_add(i32::from(next - b'0')))
            else {
                // An exponent past `i32::MAX`: infinite unless the value is zero or tiny.
                return significand == 0 || negative;
            };
            exp = more;
        }
        exponent = if negative {
            exponent.saturating_sub(exp)
        } else {
            exponent.saturating_add(exp)
        };
    }
    if significand == 0 || exponent < POW10_TOP_FROM {
        return true;
    }
    usize::try_from(exponent - POW10_TOP_FROM)
        .ok()
        .and_then(|at| POW10_TOP.get(at))
        .is_some_and(|&pow| (significand as f64 * pow).is_finite())
}

/// `significand` with `digit` (an ASCII digit) appended, unless that overflows a `u64`.
fn push(significand: u64, digit: u8) -> Option<u64> {
    significand
        .checked_mul(10)?
        .checked_add(u64::from(digit - b'0'))
}

#[cfg(test)]
mod tests;
