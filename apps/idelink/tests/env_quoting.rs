//! `idelink env`'s quoting against each shell's own parser: random inherited `no_proxy` and
//! `NO_PROXY` values (quotes, backslashes, `$`, newlines, Unicode quotes, any character but
//! NUL) go through `idelink env --shell S`, the real shell evaluates what it printed, and the
//! exported values must be exactly the ones `idelink claude` sets (core's `TerminalEnv`).
//!
//! sh, bash and zsh, and fish, are run for real (`scripts/install` installs fish and zsh; a
//! missing one skips loudly, and fails under `CI=true`). PowerShell is not in Debian's packages:
//! its output is read by the quoting rules of the PowerShell Language Specification (§2.3.5.2,
//! verbatim strings), written out below as a small parser.
#![expect(
    clippy::unwrap_used,
    reason = "a test: any failure must stop it loudly"
)]

use idelink_core::terminal_env::TerminalEnv;
use proptest::prelude::*;
use std::ops::Not;
#[cfg(unix)]
use std::{collections::HashMap, io::Write, process::Command};

mod support;

/// The port every case exports.
const PORT: u16 = 4242;

/// Characters that mean something to some shell, drawn more often than the rest.
const SPECIAL: &[char] = &[
    '\'', '\\', '"', '$', '`', '\n', '\r', '\t', ' ', '!', '#', ';', '&', '|', '(', ')', '{', '}',
    '[', ']', '*', '?', '~', '%', '^', '<', '>', ',', '=', '\u{2018}', '\u{2019}', '\u{201A}',
    '\u{201B}', '\u{201C}', '\u{201D}', '\u{201E}', '\u{00A0}', 'é', '€', '😀',
];

/// A value a terminal may inherit: any text without NUL (which no environment holds).
fn value() -> impl Strategy<Value = String> {
    let special = prop::sample::select(SPECIAL);
    let any = any::<char>().prop_filter("an environment holds no NUL", |c| *c != '\0');
    prop::collection::vec(prop_oneof![3 => special, 1 => any], 0..24)
        .prop_map(|chars| chars.into_iter().collect())
}

/// What `idelink env PORT --shell SHELL` prints with `no_proxy` and `NO_PROXY` inherited.
fn printed(shell: &str, no_proxy: &str, no_proxy_upper: &str) -> String {
    let output = support::idelink(&["env", &PORT.to_string(), "--shell", shell])
        .env_clear()
        .env("no_proxy", no_proxy)
        .env("NO_PROXY", no_proxy_upper)
        .output()
        .unwrap();
    assert!(output.status.success(), "{output:?}");
    String::from_utf8(output.stdout).unwrap()
}

/// The variables `idelink claude` would set for the same inherited values.
fn expected(no_proxy: &str, no_proxy_upper: &str) -> Vec<(&'static str, String)> {
    TerminalEnv {
        no_proxy: Some(no_proxy),
        no_proxy_upper: Some(no_proxy_upper),
        ..TerminalEnv::new(PORT)
    }
    .variables()
}

/// Whether `program` runs here; when not, a loud skip, or a failure under `CI=true`.
#[cfg(unix)]
fn installed(program: &str) -> bool {
    if Command::new(program)
        .arg("-c")
        .arg("exit 0")
        .output()
        .is_ok()
    {
        return true;
    }
    let in_ci = std::env::var("CI").is_ok_and(|v| v == "true" || v == "1");
    assert!(
        !in_ci,
        "CI=true and {program} is not installed: `bash scripts/install` installs it"
    );
    let rule = "!".repeat(78);
    // Straight to the process's stderr: the harness captures `eprintln!` of passing tests.
    let _ = writeln!(
        std::io::stderr(),
        "\n{rule}\n!! SKIPPED {program}'s quoting test: {program} is not installed.\n\
         !! `bash scripts/install` installs it (apt-get install fish zsh).\n{rule}"
    );
    false
}

/// The environment `program -c SCRIPT` exports after running `script`, read from `env -0`.
#[cfg(unix)]
fn evaluated(program: &str, script: &str) -> HashMap<String, String> {
    let output = Command::new(program)
        .arg("-c")
        .arg(format!("{script}\nexec env -0"))
        .env_clear()
        .env("PATH", "/usr/bin:/bin")
        .env("LC_ALL", "C.UTF-8")
        .output()
        .unwrap();
    assert!(output.status.success(), "{program}: {output:?}\n{script}");
    String::from_utf8(output.stdout)
        .unwrap()
        .split('\0')
        .filter_map(|pair| pair.split_once('='))
        .map(|(name, value)| (name.to_owned(), value.to_owned()))
        .collect()
}

/// Runs `idelink env --shell SHELL` and each of `programs` on its output; every variable must
/// come out as `idelink claude` sets it.
#[cfg(unix)]
fn round_trip(shell: &str, programs: &[&str], no_proxy: &str, no_proxy_upper: &str) {
    let script = printed(shell, no_proxy, no_proxy_upper);
    for program in programs {
        let exported = evaluated(program, &script);
        for (name, value) in expected(no_proxy, no_proxy_upper) {
            assert_eq!(
                exported.get(name),
                Some(&value),
                "{program} read {name} wrong from:\n{script}"
            );
        }
    }
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(96))]

    #[cfg(unix)]
    #[test]
    fn sh_bash_and_zsh_read_back_every_value(no_proxy in value(), no_proxy_upper in value()) {
        let programs: Vec<&str> = ["sh", "bash", "zsh"]
            .into_iter()
            .filter(|program| installed(program))
            .collect();
        round_trip("sh", &programs, &no_proxy, &no_proxy_upper);
    }

    #[cfg(unix)]
    #[test]
    fn fish_reads_back_every_value(no_proxy in value(), no_proxy_upper in value()) {
        if installed("fish") {
            round_trip("fish", &["fish"], &no_proxy, &no_proxy_upper);
        }
    }

    #[test]
    fn powershell_reads_back_every_value(no_proxy in value(), no_proxy_upper in value()) {
        // Windows has one variable under both spellings (names are case-insensitive).
        let no_proxy_upper = if cfg!(windows) { no_proxy.clone() } else { no_proxy_upper };
        let script = printed("powershell", &no_proxy, &no_proxy_upper);
        let read = powershell_assignments(&script);
        let want: Vec<(String, String)> = expected(&no_proxy, &no_proxy_upper)
            .into_iter()
            .map(|(name, value)| (name.to_owned(), value))
            .collect();
        prop_assert_eq!(read, want, "{}", script);
    }
}

/// PowerShell Language Specification §2.3.5.2, *single-quote-character*.
fn single_quote(c: char) -> bool {
    matches!(c, '\'' | '\u{2018}' | '\u{2019}' | '\u{201A}' | '\u{201B}')
}

/// The `$env:NAME = '…'` lines of `script` read as PowerShell reads them: a
/// *verbatim-string-literal* opens and closes with any *single-quote-character*; inside, two of
/// them in a row stand for the second one (the tokenizer appends the second), and nothing else
/// is special, a newline included (§2.3.5.2). Anything after a closing quote but the line's end
/// is a parse error, and panics.
fn powershell_assignments(script: &str) -> Vec<(String, String)> {
    let mut read = Vec::new();
    let mut chars = script.chars().peekable();
    while chars.peek().is_some() {
        let head: String = chars
            .by_ref()
            .take_while(|c| single_quote(*c).not())
            .collect();
        let name = head
            .strip_prefix("$env:")
            .and_then(|rest| rest.strip_suffix(" = "))
            .unwrap_or_else(|| panic!("not an assignment: {head:?} in {script:?}"));
        let mut value = String::new();
        loop {
            let c = chars
                .next()
                .unwrap_or_else(|| panic!("unterminated string in {script:?}"));
            if single_quote(c) {
                match chars.next_if(|next| single_quote(*next)) {
                    Some(second) => value.push(second),
                    None => break,
                }
            } else {
                value.push(c);
            }
        }
        assert_eq!(
            chars.next(),
            Some('\n'),
            "text after {name}'s string ends, in {script:?}"
        );
        read.push((name.to_owned(), value));
    }
    read
}
