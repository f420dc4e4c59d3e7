//! A JSON number as serde_json 1.x reads it into an `f64`.
//!
//! RFC 8259 §6 lets an implementation limit the range of numbers; serde_json refuses one
//! whose value it makes infinite. Its reading (without the `float_roundtrip` feature) is
//! not correctly rounded: it keeps the leading digits that fit a `u64`, counts the other
//! integer digits into the exponent, drops the other fraction digits, and multiplies (or
//! divides) by the `f64` nearest the power of ten. This follows that reading step for step,
//! so a number refused here is exactly one serde_json refuses, and a number read is the
//! very `f64` serde_json reads (a diagnostic's `code` is written back as serde_json would).

/// The `f64`s nearest `1e0` through `1e308`: serde_json's table.
const POW10: [f64; 309] = [
    1e0, 1e1, 1e2, 1e3, 1e4, 1e5, 1e6, 1e7, 1e8, 1e9, 1e10, 1e11, 1e12, 1e13, 1e14, 1e15, 1e16,
    1e17, 1e18, 1e19, 1e20, 1e21, 1e22, 1e23, 1e24, 1e25, 1e26, 1e27, 1e28, 1e29, 1e30, 1e31, 1e32,
    1e33, 1e34, 1e35, 1e36, 1e37, 1e38, 1e39, 1e40, 1e41, 1e42, 1e43, 1e44, 1e45, 1e46, 1e47, 1e48,
    1e49, 1e50, 1e51, 1e52, 1e53, 1e54, 1e55, 1e56, 1e57, 1e58, 1e59, 1e60, 1e61, 1e62, 1e63, 1e64,
    1e65, 1e66, 1e67, 1e68, 1e69, 1e70, 1e71, 1e72, 1e73, 1e74, 1e75, 1e76, 1e77, 1e78, 1e79, 1e80,
    1e81, 1e82, 1e83, 1e84, 1e85, 1e86, 1e87, 1e88, 1e89, 1e90, 1e91, 1e92, 1e93, 1e94, 1e95, 1e96,
    1e97, 1e98, 1e99, 1e100, 1e101, 1e102, 1e103, 1e104, 1e105, 1e106, 1e107, 1e108, 1e109, 1e110,
    1e111, 1e112, 1e113, 1e114, 1e115, 1e116, 1e117, 1e118, 1e119, 1e120, 1e121, 1e122, 1e123,
    1e124, 1e125, 1e126, 1e127, 1e128, 1e129, 1e130, 1e131, 1e132, 1e133, 1e134, 1e135, 1e136,
    1e137, 1e138, 1e139, 1e140, 1e141, 1e142, 1e143, 1e144, 1e145, 1e146, 1e147, 1e148, 1e149,
    1e150, 1e151, 1e152, 1e153, 1e154, 1e155, 1e156, 1e157, 1e158, 1e159, 1e160, 1e161, 1e162,
    1e163, 1e164, 1e165, 1e166, 1e167, 1e168, 1e169, 1e170, 1e171, 1e172, 1e173, 1e174, 1e175,
    1e176, 1e177, 1e178, 1e179, 1e180, 1e181, 1e182, 1e183, 1e184, 1e185, 1e186, 1e187, 1e188,
    1e189, 1e190, 1e191, 1e192, 1e193, 1e194, 1e195, 1e196, 1e197, 1e198, 1e199, 1e200, 1e201,
    1e202, 1e203, 1e204, 1e205, 1e206, 1e207, 1e208, 1e209, 1e210, 1e211, 1e212, 1e213, 1e214,
    1e215, 1e216, 1e217, 1e218, 1e219, 1e220, 1e221, 1e222, 1e223, 1e224, 1e225, 1e226, 1e227,
    1e228, 1e229, 1e230, 1e231, 1e232, 1e233, 1e234, 1e235, 1e236, 1e237, 1e238, 1e239, 1e240,
    1e241, 1e242, 1e243, 1e244, 1e245, 1e246, 1e247, 1e248, 1e249, 1e250, 1e251, 1e252, 1e253,
    1e254, 1e255, 1e256, 1e257, 1e258, 1e259, 1e260, 1e261, 1e262, 1e263, 1e264, 1e265, 1e266,
    1e267, 1e268, 1e269, 1e270, 1e271, 1e272, 1e273, 1e274, 1e275, 1e276, 1e277, 1e278, 1e279,
    1e280, 1e281, 1e282, 1e283, 1e284, 1e285, 1e286, 1e287, 1e288, 1e289, 1e290, 1e291, 1e292,
    1e293, 1e294, 1e295, 1e296, 1e297, 1e298, 1e299, 1e300, 1e301, 1e302, 1e303, 1e304, 1e305,
    1e306, 1e307, 1e308,
];

/// Whether `raw`, a JSON number the reader accepted, is within `f64`'s range as serde_json
/// reads it (`1e400` is not; `1e-400` is, as zero).
pub(crate) fn in_range(raw: &str) -> bool {
    serde_f64(raw).is_some()
}

/// The `f64` serde_json reads `raw` as, a JSON number the reader accepted (an integer too:
/// serde_json reads integers that fit a `u64` or an `i64` as integers, which a caller tries
/// first); `None` where serde_json refuses it as out of range.
pub(crate) fn serde_f64(raw: &str) -> Option<f64> {
    f64_of(raw.as_bytes()).ok()
}

/// [`serde_f64`] of the bytes of `raw`; where serde_json refuses it, the index just past the
/// byte at which it gives up (its error's place): the digit that overflows the exponent, or
/// the number's end.
pub(super) fn f64_of(bytes: &[u8]) -> Result<f64, usize> {
    let positive = bytes.first() != Some(&b'-');
    let mut at = usize::from(!positive);
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
                // An exponent past `i32::MAX`: infinite unless the value is zero or tiny,
                // and zero then.
                return (significand == 0 || negative)
                    .then_some(if positive { 0.0 } else { -0.0 })
                    .ok_or(at);
            };
            exp = more;
        }
        exponent = if negative {
            exponent.saturating_sub(exp)
        } else {
            exponent.saturating_add(exp)
        };
    }
    f64_from_parts(positive, significand, exponent).ok_or(bytes.len())
}

/// serde_json's `f64_from_parts`: `significand` times ten to `exponent`, in its steps.
fn f64_from_parts(positive: bool, significand: u64, mut exponent: i32) -> Option<f64> {
    let mut f = significand as f64;
    loop {
        let power = usize::try_from(exponent.unsigned_abs()).ok();
        match power.and_then(|power| POW10.get(power)) {
            Some(&pow) => {
                if exponent >= 0 {
                    f *= pow;
                    if f.is_infinite() {
                        return None;
                    }
                } else {
                    f /= pow;
                }
                break;
            }
            None => {
                if f == 0.0 {
                    break;
                }
                if exponent >= 0 {
                    return None;
                }
                f /= 1e308;
                exponent += 308;
            }
        }
    }
    Some(if positive { f } else { -f })
}

/// `significand` with `digit` (an ASCII digit) appended, unless that overflows a `u64`.
fn push(significand: u64, digit: u8) -> Option<u64> {
    significand
        .checked_mul(10)?
        .checked_add(u64::from(digit - b'0'))
}

#[cfg(test)]
mod tests;
