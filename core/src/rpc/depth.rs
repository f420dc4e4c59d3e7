//! The nesting-depth guard: a byte scan run before any JSON parser sees the text.

use crate::json::string_end;

/// Whether `text` nests arrays/objects deeper than `max_depth` levels (`{}` is one level).
///
/// A linear scan with no allocation and no recursion; it skips string contents, escapes
/// included, so brackets inside strings do not count (strings are skipped with `memchr`, so a
/// message that is mostly one long string, an `openDiff` of a big file, costs little). It does
/// not validate: on text that is not JSON the answer is meaningless, and the parser reports
/// that text as a parse error.
pub(super) fn exceeds(text: &[u8], max_depth: usize) -> bool {
    let mut depth = 0usize;
    let mut at = 0;
    while let Some(&byte) = text.get(at) {
        at += 1;
        match byte {
            b'"' => at = string_end(text, at),
            b'{' | b'[' => {
                depth += 1;
                if depth > max_depth {
                    return true;
                }
            }
            b'}' | b']' => depth = depth.saturating_sub(1),
            _ => {}
        }
    }
    false
}

#[cfg(test)]
mod tests {
    use super::exceeds;

    fn nested(levels: usize) -> String {
        format!("{}{}", "[".repeat(levels), "]".repeat(levels))
    }

    #[test]
    fn counts_arrays_and_objects() {
        assert!(!exceeds(b"1", 0));
        assert!(exceeds(b"{}", 0));
        assert!(!exceeds(b"{}", 1));
        assert!(!exceeds(br#"{"a":[{"b":[]}]}"#, 4));
        assert!(exceeds(br#"{"a":[{"b":[]}]}"#, 3));
        assert!(!exceeds(nested(64).as_bytes(), 64));
        assert!(exceeds(nested(65).as_bytes(), 64));
    }

    #[test]
    fn siblings_do_not_add_up() {
        assert!(!exceeds(b"[[],[],[[]],{}]", 3));
        assert!(exceeds(b"[[],[],[[[]]],{}]", 3));
    }

    #[test]
    fn brackets_inside_strings_do_not_count() {
        assert!(!exceeds(br#"{"a":"[[[[{{{{"}"#, 1));
        assert!(!exceeds(br#"{"a":"\"[[[["}"#, 1));
        assert!(!exceeds(br#"{"a\\":"x"}"#, 1));
        // An escaped backslash ends before the quote: the string closes there.
        assert!(exceeds(br#"[["\\",[]]]"#, 2));
    }

    /// The byte-at-a-time scan `exceeds` must agree with.
    fn reference(text: &[u8], max_depth: usize) -> bool {
        let mut depth = 0usize;
        let mut bytes = text.iter();
        while let Some(&byte) = bytes.next() {
            match byte {
                b'"' => {
                    while let Some(&byte) = bytes.next() {
                        match byte {
                            b'"' => break,
                            b'\\' => {
                                bytes.next();
                            }
                            _ => {}
                        }
                    }
                }
                b'{' | b'[' => {
                    depth += 1;
                    if depth > max_depth {
                        return true;
                    }
                }
                b'}' | b']' => depth = depth.saturating_sub(1),
                _ => {}
            }
        }
        false
    }

    proptest::proptest! {
        #[test]
        fn agrees_with_a_byte_at_a_time_scan(
            text in "[\\[\\]{}\"\\\\a,:]{0,40}|\"[a\\\\\"\\[]{30,90}\"[\\[\\]{}\"\\\\a]{0,20}",
            max_depth in 0usize..6,
        ) {
            proptest::prop_assert_eq!(
                exceeds(text.as_bytes(), max_depth),
                reference(text.as_bytes(), max_depth)
            );
        }
    }

    #[test]
    fn long_strings_are_skipped_whole() {
        let text = format!(r#"{{"a":"{}\"[[\\","b":[[]]}}"#, "x[{".repeat(100_000));
        assert!(!exceeds(text.as_bytes(), 3));
        assert!(exceeds(text.as_bytes(), 2));
    }

    #[test]
    fn unbalanced_text_does_not_panic() {
        assert!(!exceeds(b"]]]]}}}}", 0));
        assert!(!exceeds(b"\"unterminated \\", 0));
        assert!(exceeds(b"[[[", 2));
    }
}
