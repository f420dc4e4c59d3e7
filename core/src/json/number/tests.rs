//! `in_range` and `serde_f64` against serde_json's own verdict and value, the oracle they
//! replaced.

use proptest::prelude::*;

use super::{in_range, serde_f64};

/// serde_json's verdict on the number `raw`.
fn serde_reads(raw: &str) -> bool {
    serde_json::from_str::<f64>(raw).is_ok()
}

/// serde_json's `f64` for the number `raw`, as bits (so that `-0.0` is not `0.0`).
fn serde_bits(raw: &str) -> Option<u64> {
    serde_json::from_str::<f64>(raw).ok().map(f64::to_bits)
}

#[test]
fn the_boundary_falls_where_serde_json_puts_it() {
    let cases = [
        ("0", true),
        ("-0.0e99999", true),
        ("1e308", true),
        ("1e309", false),
        ("1e400", false),
        ("-1e400", false),
        ("1e-400", true),
        ("0e400", true),
        ("1.7976931348623157e308", true),
        // `f64::MAX` correctly rounded, but serde_json's product of `17976931348623158`
        // and the `f64` nearest `1e292` is infinite.
        ("1.7976931348623158e308", false),
        ("1.7976931348623159e308", false),
        ("-1.7976931348623159e308", false),
        ("179769313486231570000000000000e279", false),
        ("0.00000000000000000000000000000000000000001e349", true),
        ("0.00000000000000000000000000000000000000001e350", false),
        ("1e2147483647", false),
        ("1e2147483648", false),
        ("1e-2147483648", true),
        ("0e2147483648", true),
        ("0.0000e99999999999999999999", true),
        ("18446744073709551615e289", false),
        ("18446744073709551616e288", true),
        ("18446744073709551616.5e288", true),
        ("99999999999999999999999999999999999999.9e270", true),
    ];
    for (raw, expected) in cases {
        assert_eq!(serde_reads(raw), expected, "serde_json on {raw}");
        assert_eq!(in_range(raw), expected, "{raw}");
    }
}

/// Leading digits of numbers near `f64::MAX` and near the `u64` significand's limit.
const PREFIXES: &[&str] = &[
    "17976931348623157",
    "17976931348623158",
    "1797693134862315708145274237317043567981",
    "17976931348623159",
    "18446744073709551615",
    "18446744073709551616",
    "1844674407370955161",
    "99999999999999999999",
    "1",
    "9",
];

proptest! {
    #[test]
    fn numbers_near_the_boundary_are_read_as_serde_json_reads_them(
        negative in any::<bool>(),
        leading_zeros in 0usize..45,
        prefix in prop::sample::select(PREFIXES),
        tail in "[0-9]{0,25}",
        point in 0usize..70,
        shift in -3i32..4,
        exponent_mark in prop::sample::select(&["e", "E", "e+"][..]),
    ) {
        let digits = format!("{}{prefix}{tail}", "0".repeat(leading_zeros));
        // The decimal point somewhere in the digits, keeping one integer digit at least;
        // a leading zero stays alone before it, as JSON has it.
        let point = point.min(digits.len());
        let (integer, fraction) = if leading_zeros > 0 {
            ("0", &digits[1..])
        } else {
            digits.split_at(point.max(1))
        };
        // The exponent that puts the value within a few powers of ten of `f64::MAX`.
        let magnitude = i32::try_from(integer.len()).unwrap()
            - i32::try_from(leading_zeros).unwrap();
        let exponent = 308 - magnitude + 1 + shift;
        let sign = if negative { "-" } else { "" };
        let raw = if fraction.is_empty() {
            format!("{sign}{integer}{exponent_mark}{exponent}")
        } else {
            format!("{sign}{integer}.{fraction}{exponent_mark}{exponent}")
        };
        let raw = raw.replace("e+-", "e-");
        prop_assert_eq!(in_range(&raw), serde_reads(&raw), "{}", raw);
        prop_assert_eq!(serde_f64(&raw).map(f64::to_bits), serde_bits(&raw), "{}", raw);
    }

    #[test]
    fn any_number_is_read_as_serde_json_reads_it(
        raw in "-?(0|[1-9][0-9]{0,40})(\\.[0-9]{1,40})?([eE][+-]?[0-9]{1,12})?",
    ) {
        prop_assert_eq!(in_range(&raw), serde_reads(&raw), "{}", raw);
        prop_assert_eq!(serde_f64(&raw).map(f64::to_bits), serde_bits(&raw), "{}", raw);
    }
}
