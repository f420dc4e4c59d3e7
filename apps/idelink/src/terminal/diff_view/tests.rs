use super::*;

fn plain(label: &str, old: Option<&str>, new: &str) -> String {
    render(label, old, new, false, &Limits::DEFAULT).text
}

#[test]
fn plain_unified_diff_of_an_edit() {
    let old = "a\nb\nc\n";
    let new = "a\nB\nc\nd\n";
    assert_eq!(
        plain("src/x.rs", Some(old), new),
        "--- a/src/x.rs\n+++ b/src/x.rs\n@@ -1,3 +1,4 @@\n a\n-b\n+B\n c\n+d\n"
    );
}

#[test]
fn a_new_file_diffs_against_dev_null() {
    assert_eq!(
        plain("n.rs", None, "x\n"),
        "--- /dev/null\n+++ b/n.rs\n@@ -0,0 +1,1 @@\n+x\n"
    );
}

#[test]
fn colour_wraps_changed_lines_only() {
    let out = render("f", Some("a\n"), "b\n", true, &Limits::DEFAULT).text;
    assert!(out.contains("\x1b[31m-a\x1b[0m\n"), "{out:?}");
    assert!(out.contains("\x1b[32m+b\x1b[0m\n"), "{out:?}");
}

#[test]
fn missing_final_newline_is_marked() {
    let out = plain("f", Some("a"), "b");
    assert!(
        out.ends_with("-a\n\\ No newline at end of file\n+b\n\\ No newline at end of file\n"),
        "{out:?}"
    );
}

#[test]
fn hidden_characters_are_escaped_and_the_hunk_is_flagged() {
    let old = "let ok = true;\n";
    let new = "let ok = true;\r\x1b[2K\x1b[1Alet ok = false; \u{202E}\n";
    assert_eq!(
        plain("a\x1b]8;;x\x07.rs", Some(old), new),
        "--- a/a<ESC>]8;;x<BEL>.rs\n+++ b/a<ESC>]8;;x<BEL>.rs\n@@ -1,1 +1,1 @@\n\
         ! warning: this hunk holds control characters and bidi controls (text may read \
         reordered), shown as <NAME> or <U+XXXX>\n\
         -let ok = true;\n\
         +let ok = true;<CR><ESC>[2K<ESC>[1Alet ok = false; <U+202E>\n"
    );
}

#[test]
fn colour_output_holds_no_escape_but_its_own() {
    let new = "x\r\x1b]52;c;aGk=\x1b\\\u{9b}2J\u{2067}\n";
    let out = render("f", Some("y\n"), new, true, &Limits::DEFAULT).text;
    let own = [
        "\x1b[31m", "\x1b[32m", "\x1b[36m", "\x1b[1m", "\x1b[33m", "\x1b[0m", "\x1b[7m", "\x1b[27m",
    ];
    let mut rest = out.clone();
    for code in own {
        rest = rest.replace(code, "");
    }
    assert!(
        !rest.contains(['\x1b', '\r', '\u{9b}', '\u{2067}']),
        "{out:?}"
    );
    assert!(
        out.contains("\x1b[7m<CR>\x1b[27m\x1b[7m<ESC>\x1b[27m]52;"),
        "{out:?}"
    );
}

#[test]
fn overlong_lines_wrap_with_a_marker() {
    let long = "x".repeat(WRAP_CHARS + 5);
    let out = plain("f", Some(""), &format!("{long}\n"));
    let expected = format!("+{}\n+↪xxxxx\n", "x".repeat(WRAP_CHARS));
    assert!(out.ends_with(&expected), "{out:?}");
}

#[test]
fn a_proposal_over_the_size_limits_is_summarized() {
    let old: String = (0..50).map(|i| format!("old {i}\n")).collect();
    let new: String = (0..60).map(|i| format!("new {i}\n")).collect();
    let limits = Limits {
        max_lines: 40,
        ..Limits::DEFAULT
    };
    assert_eq!(
        render("big.txt", Some(&old), &new, false, &limits),
        View {
            text: "--- a/big.txt\n+++ b/big.txt\n\
                   ! not shown as a diff: too large to diff here (a side over 40 lines or \
                   2097152 bytes)\n\
                   !   on disk:  340 bytes, 50 lines\n\
                   !   proposed: 410 bytes, 60 lines\n\
                   !   differing lines: lines 1-60 in the proposal, lines 1-50 on disk; 60 \
                   added, 50 removed\n\
                   !   added (proposal's line numbers): 1-60\n\
                   !   removed (line numbers on disk): 1-50\n\
                   !   first difference at line 1:\n\
                   -old 0\n-old 1\n-old 2\n+new 0\n+new 1\n+new 2\n\
                   !   last difference, up to line 60:\n\
                   -old 47\n-old 48\n-old 49\n+new 57\n+new 58\n+new 59\n\
                   ! [e]dit opens the whole proposal in your editor\n"
                .to_owned(),
            whole: false,
        }
    );
    assert!(render("f", Some("a\n"), "b\n", false, &limits).whole);
}

#[test]
fn a_summary_names_a_change_far_below_the_first() {
    let old: String = (1..=30_000).map(|i| format!("line {i}\n")).collect();
    let new = old
        .replace("line 1\n", "line one\n")
        .replace("line 15001\n", "line 15001 \u{1b}[8mhidden\n");
    let out = plain("f", Some(&old), &new);
    assert!(
        out.contains(
            "!   differing lines: lines 1-15001 in the proposal, lines 1-15001 on disk; 2 added, \
             2 removed\n\
             !   added (proposal's line numbers): 1, 15001\n\
             !   removed (line numbers on disk): 1, 15001\n\
             ! warning: this hunk holds control characters"
        ),
        "{out}"
    );
    assert!(
        out.contains(
            "!   last difference, up to line 15001:\n\
             -line 14999\n-line 15000\n-line 15001\n\
             +line 14999\n+line 15000\n+line 15001 <ESC>[8mhidden\n"
        ),
        "{out}"
    );
}

#[test]
fn a_diff_past_its_deadline_is_summarized_at_the_first_difference() {
    let limits = Limits {
        deadline: Duration::ZERO,
        ..Limits::DEFAULT
    };
    let out = render(
        "f",
        Some("same\nold\x1b[2J\n"),
        "same\nnew\n",
        false,
        &limits,
    )
    .text;
    assert!(
        out.contains("! not shown as a diff: the diff took longer than 0 ms to compute\n"),
        "{out}"
    );
    assert!(out.contains("!   first difference at line 2:\n"), "{out}");
    assert!(
        out.contains("! warning: this hunk holds control characters"),
        "{out}"
    );
    assert!(out.contains("-old<ESC>[2J\n+new\n"), "{out}");
}

#[test]
fn a_diff_over_the_row_limit_is_summarized() {
    let limits = Limits {
        max_rows: 3,
        ..Limits::DEFAULT
    };
    let out = render("f", Some("a\nb\n"), "c\nd\n", false, &limits).text;
    assert!(
        out.contains("! not shown as a diff: the diff is over 3 rows long\n"),
        "{out}"
    );
}

#[test]
fn a_summary_shows_the_start_of_an_overlong_line_and_says_it_goes_on() {
    let limits = Limits {
        max_bytes: 100,
        ..Limits::DEFAULT
    };
    let long = format!("{}\n", "y".repeat(WRAP_CHARS * 3));
    let out = render("f", Some("x\n"), &long, false, &limits).text;
    let shown = format!("+{} ↪ (the line goes on)\n", "y".repeat(WRAP_CHARS));
    assert!(out.contains(&shown), "{out}");
    assert!(out.contains("\n-x\n"), "{out}");
}
