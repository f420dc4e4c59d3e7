//! The user's editor command (`$VISUAL`, `$EDITOR`) as a program and its arguments, started
//! without a shell.
//!
//! On Unix the variable is split into words the way a POSIX shell splits a simple command
//! (POSIX.1-2017 XCU §2.2 quoting, §2.6.5 field splitting on blanks), so `code --wait` and
//! `"/opt/My Editor/bin/edit" -w` work; nothing is expanded and no other shell syntax is
//! interpreted, so no shell is needed to start it. On Windows it is split the way a Windows
//! program splits its own command line ([`windows_words`]), so backslashes in
//! `C:\Program Files\...` stay as they are.

#[path = "editor_command/windows_words.rs"]
mod windows_words;

/// The editor when neither variable is set.
const DEFAULT_EDITOR: &str = if cfg!(windows) { "notepad" } else { "vi" };

/// The user's editor: `$VISUAL`, else `$EDITOR`, else `vi` (`notepad` on Windows).
pub fn user_editor() -> String {
    ["VISUAL", "EDITOR"]
        .into_iter()
        .filter_map(|name| std::env::var(name).ok())
        .find(|value| !value.trim().is_empty())
        .unwrap_or_else(|| DEFAULT_EDITOR.to_owned())
}

/// `command` split into the program and its arguments, by the platform's rules (POSIX shell
/// words on Unix, [`windows_words`] on Windows). The error says what is wrong.
pub fn words(command: &str) -> Result<Vec<String>, String> {
    let words = if cfg!(windows) {
        windows_words::words(command)?
    } else {
        posix_words(command)?
    };
    if words.is_empty() {
        return Err("the editor command is empty; set VISUAL or EDITOR".to_owned());
    }
    Ok(words)
}

/// `command` split into words: blanks separate words; `'…'` keeps everything literally;
/// `"…"` keeps everything but `\"`, `\\`, `` \` `` and `\$`, which lose their backslash; a
/// backslash outside quotes keeps the next character.
fn posix_words(command: &str) -> Result<Vec<String>, String> {
    let mut words = Vec::new();
    let mut word: Option<String> = None;
    let mut chars = command.chars();
    while let Some(c) = chars.next() {
        match c {
            ' ' | '\t' | '\n' => {
                words.extend(word.take());
            }
            '\'' => {
                let current = word.get_or_insert_with(String::new);
                loop {
                    match chars.next() {
                        Some('\'') => break,
                        Some(c) => current.push(c),
                        None => return Err(unterminated(command, '\'')),
                    }
                }
            }
            '"' => {
                let current = word.get_or_insert_with(String::new);
                loop {
                    match chars.next() {
                        Some('"') => break,
                        Some('\\') => match chars.next() {
                            Some(c @ ('"' | '\\' | '`' | '$')) => current.push(c),
                            Some(c) => {
                                current.push('\\');
                                current.push(c);
                            }
                            None => return Err(unterminated(command, '"')),
                        },
                        Some(c) => current.push(c),
                        None => return Err(unterminated(command, '"')),
                    }
                }
            }
            '\\' => {
                let current = word.get_or_insert_with(String::new);
                match chars.next() {
                    Some(c) => current.push(c),
                    None => current.push('\\'),
                }
            }
            c => word.get_or_insert_with(String::new).push(c),
        }
    }
    words.extend(word);
    Ok(words)
}

fn unterminated(command: &str, quote: char) -> String {
    format!("the editor command {command:?} has an unterminated {quote}; fix VISUAL or EDITOR")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn words_split_on_blanks_and_respect_quotes() {
        assert_eq!(posix_words("vi").unwrap(), ["vi"]);
        assert_eq!(posix_words("  code   --wait ").unwrap(), ["code", "--wait"]);
        assert_eq!(
            posix_words(r#""/opt/My Editor/edit" -w 'a b'\ c"#).unwrap(),
            ["/opt/My Editor/edit", "-w", "a b c"]
        );
        assert_eq!(
            posix_words(r#"e "x\"y\\z\n" ''"#).unwrap(),
            ["e", r#"x"y\z\n"#, ""]
        );
        assert_eq!(
            posix_words("sed -i s/a/b/").unwrap(),
            ["sed", "-i", "s/a/b/"]
        );
    }

    #[test]
    fn nothing_is_expanded() {
        assert_eq!(
            posix_words("vi $HOME;rm -rf ~ | x").unwrap(),
            ["vi", "$HOME;rm", "-rf", "~", "|", "x"]
        );
    }

    #[test]
    fn bad_commands_say_what_to_fix() {
        assert!(words("  ").unwrap_err().contains("set VISUAL or EDITOR"));
        assert!(words("").unwrap_err().contains("set VISUAL or EDITOR"));
        let open = posix_words("code 'x").unwrap_err();
        assert!(open.contains("unterminated '"), "{open}");
        assert!(
            posix_words("e \"x")
                .unwrap_err()
                .contains("unterminated \"")
        );
    }

    #[test]
    fn the_platform_picks_the_rules() {
        let split = words(r"C:\tools\edit.exe -w").unwrap();
        if cfg!(windows) {
            assert_eq!(split, [r"C:\tools\edit.exe", "-w"]);
        } else {
            assert_eq!(split, ["C:toolsedit.exe", "-w"]);
        }
    }
}
