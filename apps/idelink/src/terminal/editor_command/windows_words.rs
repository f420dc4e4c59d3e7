//! A command line split into words the way a Windows program splits its own (Microsoft C
//! runtime, "Parsing C command-line arguments", learn.microsoft.com/cpp/c-language/
//! parsing-c-command-line-arguments), which is what `%EDITOR%` users write:
//! `"C:\Program Files\Notepad++\notepad++.exe" -multiInst` is two words, its backslashes kept.
//!
//! - Spaces and tabs outside double quotes separate words.
//! - `"` starts or ends a quoted part of a word; inside one, `""` is a literal `"`.
//! - Backslashes are literal unless a `"` follows them: then each pair is one backslash, and an
//!   odd one left over makes the `"` literal instead of a quote.
//! - Single quotes, `%`, `^` and everything else are plain characters: no shell runs.
//!
//! Pure text rules, so they are tested on every platform.

use super::unterminated;

/// `command` split into words by the rules above; an unterminated `"` is an error (the C
/// runtime would run the word to the end of the line; a setting that ends inside a quote is
/// more likely a mistake).
pub fn words(command: &str) -> Result<Vec<String>, String> {
    let mut words = Vec::new();
    let mut word: Option<String> = None;
    let mut quoted = false;
    let mut chars = command.chars().peekable();
    while let Some(c) = chars.next() {
        match c {
            ' ' | '\t' if !quoted => words.extend(word.take()),
            '\\' => {
                let mut backslashes = 1;
                while chars.next_if_eq(&'\\').is_some() {
                    backslashes += 1;
                }
                let current = word.get_or_insert_with(String::new);
                if chars.peek() == Some(&'"') {
                    current.extend(std::iter::repeat_n('\\', backslashes / 2));
                    if backslashes % 2 == 1 {
                        chars.next();
                        current.push('"');
                    }
                } else {
                    current.extend(std::iter::repeat_n('\\', backslashes));
                }
            }
            '"' => {
                let current = word.get_or_insert_with(String::new);
                if quoted && chars.next_if_eq(&'"').is_some() {
                    current.push('"');
                } else {
                    quoted = !quoted;
                }
            }
            c => word.get_or_insert_with(String::new).push(c),
        }
    }
    if quoted {
        return Err(unterminated(command, '"'));
    }
    words.extend(word);
    Ok(words)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn windows_paths_keep_their_backslashes() {
        assert_eq!(words("notepad").unwrap(), ["notepad"]);
        assert_eq!(
            words(r#""C:\Program Files\Notepad++\notepad++.exe" -multiInst"#).unwrap(),
            [r"C:\Program Files\Notepad++\notepad++.exe", "-multiInst"]
        );
        assert_eq!(
            words(r"C:\tools\edit.exe  --wait	x").unwrap(),
            [r"C:\tools\edit.exe", "--wait", "x"]
        );
        assert_eq!(
            words(r"\\server\share\e.exe").unwrap(),
            [r"\\server\share\e.exe"]
        );
    }

    #[test]
    fn quotes_and_backslashes_follow_the_c_runtime() {
        // Examples from Microsoft's table ("Results of parsing command lines").
        assert_eq!(words(r#""abc" d e"#).unwrap(), ["abc", "d", "e"]);
        assert_eq!(words(r#"a\\b d"e f"g h"#).unwrap(), [r"a\\b", "de fg", "h"]);
        assert_eq!(words(r#"a\\\"b c d"#).unwrap(), [r#"a\"b"#, "c", "d"]);
        assert_eq!(words(r#"a\\\\"b c" d e"#).unwrap(), [r"a\\b c", "d", "e"]);
        assert_eq!(
            words(r#"a"b"" c d"#).unwrap_err(),
            unterminated(r#"a"b"" c d"#, '"')
        );
        assert_eq!(words(r#""a""b" c"#).unwrap(), [r#"a"b"#, "c"]);
        assert_eq!(words(r#"e """#).unwrap(), ["e", ""]);
    }

    #[test]
    fn nothing_is_interpreted() {
        assert_eq!(
            words("edit %USERPROFILE% 'a b' ^& x").unwrap(),
            ["edit", "%USERPROFILE%", "'a", "b'", "^&", "x"]
        );
        assert!(words(r#"edit "x"#).unwrap_err().contains("unterminated \""));
    }
}
