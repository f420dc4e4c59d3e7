//! The remote command as the shell runs it. On Unix `sh -c COMMAND` stays the parent of the
//! transport (dash, Debian's `sh`, forks even for the last command), so killing the child would
//! leave `ssh` running, still holding the terminal and the pipes. A COMMAND that is one simple
//! command (`ssh -T dev idelink bridge`, `A=b docker exec -i box sh`) is therefore run as
//! `exec COMMAND`: the transport is the child itself, ended by a kill. Anything else (a
//! pipeline, a list, a compound command) runs as written; ending it ends its shell alone.

use std::process::Command;

/// `command` through the platform's shell: `sh -c` (as [`exec_form`]), `cmd /C` on Windows.
#[cfg(unix)]
pub fn shell(command: &str) -> Command {
    let mut shell = Command::new("sh");
    shell.arg("-c").arg(exec_form(command));
    shell
}

/// `command` through the platform's shell: `sh -c` (as [`exec_form`]), `cmd /C` on Windows.
#[cfg(windows)]
pub fn shell(command: &str) -> Command {
    let mut shell = Command::new("cmd");
    shell.arg("/C").arg(command);
    shell
}

/// The words that open a compound command or a negation (POSIX.1-2017 XCU §2.4, reserved
/// words), or make `exec` moot.
const NOT_SIMPLE_STARTS: [&str; 9] = ["if", "while", "until", "for", "case", "{", "!", "exec", "("];

/// `command` with `exec` before its program when it is one simple command: no unquoted
/// operator (`;`, `&`, `|`, `(`, `)`, a newline), no command substitution, and not opened by a
/// reserved word; its leading `NAME=value` words stay before `exec` (the shell exports them to
/// the program). Anything else, or a command of assignments alone, is returned as it is.
pub fn exec_form(command: &str) -> String {
    let Some(words) = simple_words(command) else {
        return command.to_owned();
    };
    let program = words.iter().find(|(_, word)| !assignment(word));
    match program {
        Some((at, word)) if !NOT_SIMPLE_STARTS.contains(word) => {
            format!("{}exec {}", &command[..*at], &command[*at..])
        }
        _ => command.to_owned(),
    }
}

/// Whether `word` is `NAME=value` with a plain name (an assignment before a command).
fn assignment(word: &str) -> bool {
    word.split_once('=').is_some_and(|(name, _)| {
        !name.is_empty()
            && !name.starts_with(|c: char| c.is_ascii_digit())
            && name.chars().all(|c| c == '_' || c.is_ascii_alphanumeric())
    })
}

/// The words of `command` (each with its byte offset), split at unquoted blanks; `None` when
/// it has an unquoted operator, a command substitution or an unclosed quote.
fn simple_words(command: &str) -> Option<Vec<(usize, &str)>> {
    let (mut single, mut double, mut escaped) = (false, false, false);
    let mut words = Vec::new();
    let mut start = None;
    let mut previous = ' ';
    for (at, c) in command.char_indices() {
        let was = std::mem::replace(&mut previous, c);
        let quoted = single || double || escaped;
        if !quoted && (c == ' ' || c == '\t') {
            if let Some(from) = start.take() {
                words.push((from, &command[from..at]));
            }
            continue;
        }
        start.get_or_insert(at);
        if escaped {
            escaped = false;
            continue;
        }
        match c {
            '\'' if !double => single = !single,
            _ if single => {}
            '\\' => escaped = true,
            '"' => double = !double,
            '`' => return None,
            '(' if was == '$' => return None,
            ';' | '&' | '|' | '(' | ')' | '\n' if !double => return None,
            _ => {}
        }
    }
    if let Some(from) = start {
        words.push((from, &command[from..]));
    }
    (!single && !double && !escaped).then_some(words)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn one_simple_command_is_execed_with_its_assignments_first() {
        assert_eq!(
            exec_form("ssh -T dev idelink bridge"),
            "exec ssh -T dev idelink bridge"
        );
        assert_eq!(
            exec_form("  env X='a b' ssh -T dev sh"),
            "  exec env X='a b' ssh -T dev sh"
        );
        assert_eq!(
            exec_form("X='a b' Y=\"c d\" ssh dev sh"),
            "X='a b' Y=\"c d\" exec ssh dev sh"
        );
        assert_eq!(
            exec_form("A=1 B_2=\"x;y\" docker exec -i box sh"),
            "A=1 B_2=\"x;y\" exec docker exec -i box sh"
        );
        assert_eq!(
            exec_form("ssh -o 'ProxyCommand=nc %h 22' dev sh 2>/dev/null"),
            "exec ssh -o 'ProxyCommand=nc %h 22' dev sh 2>/dev/null"
        );
        assert_eq!(exec_form(r"ssh dev echo a\;b"), r"exec ssh dev echo a\;b");
    }

    #[test]
    fn anything_else_runs_as_written() {
        for command in [
            "exec ssh dev sh",
            "ssh dev sh; echo done",
            "a | b",
            "a && b",
            "a &",
            "(ssh dev sh)",
            "{ ssh dev sh; }",
            "if true; then ssh dev sh; fi",
            "! ssh dev sh",
            "ssh $(cat host) sh",
            "ssh `cat host` sh",
            "ssh dev sh\necho",
            "A=1",
            "",
            "ssh 'unterminated",
            "1A=x ssh dev sh",
        ] {
            let expected = match command {
                // Not an assignment: its first word is the program.
                "1A=x ssh dev sh" => "exec 1A=x ssh dev sh",
                other => other,
            };
            assert_eq!(exec_form(command), expected, "{command:?}");
        }
    }
}
