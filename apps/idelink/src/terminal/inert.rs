//! Text from a peer or the model, made inert and visible before it reaches the terminal.
//!
//! A proposal, a path, a tab name or a client name is untrusted text. Printed as it is, a
//! carriage return, an ANSI/ECMA-48 sequence (`ESC[2K` erases a line, `ESC[1A` moves up, OSC 52
//! writes the clipboard, OSC 8 makes a link) or a Unicode bidi control (CVE-2021-42574, "Trojan
//! Source") can make the screen show one text while `a` accepts another. So every character a
//! terminal would act on or not draw is replaced by a visible escape (`<ESC>`, `<CR>`,
//! `<U+202E>`), and the caller learns what was found so it can flag it. Tab is kept. Nothing is
//! dropped: what is shown is the text, character for character.

/// What kinds of hidden characters a text held.
#[derive(Debug, Default, Clone, Copy, PartialEq, Eq)]
pub struct Findings {
    /// C0 or C1 control characters or DEL (including CR and ESC).
    pub controls: bool,
    /// Unicode bidi controls (U+202A–U+202E, U+2066–U+2069, U+200E/F, U+061C).
    pub bidi: bool,
    /// Other characters a terminal draws as nothing (zero-width, soft hyphen, BOM, tags…).
    pub invisible: bool,
}

impl Findings {
    /// True when anything was escaped.
    pub fn any(self) -> bool {
        self.controls || self.bidi || self.invisible
    }

    /// Adds what `other` found.
    pub fn merge(&mut self, other: Findings) {
        self.controls |= other.controls;
        self.bidi |= other.bidi;
        self.invisible |= other.invisible;
    }

    /// A warning naming what was found, for the line after a hunk header.
    pub fn warning(self) -> String {
        let kinds: Vec<&str> = [
            (self.controls, "control characters"),
            (self.bidi, "bidi controls (text may read reordered)"),
            (self.invisible, "invisible characters"),
        ]
        .into_iter()
        .filter_map(|(found, name)| found.then_some(name))
        .collect();
        format!(
            "! warning: this hunk holds {}, shown as <NAME> or <U+XXXX>",
            kinds.join(" and ")
        )
    }
}

/// How a hidden character was classified.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Hidden {
    Control,
    Bidi,
    Invisible,
}

/// The ASCII names of the C0 controls (ECMA-48 §8.2), `<LF>` included for paths and labels.
const C0_NAMES: [&str; 32] = [
    "NUL", "SOH", "STX", "ETX", "EOT", "ENQ", "ACK", "BEL", "BS", "HT", "LF", "VT", "FF", "CR",
    "SO", "SI", "DLE", "DC1", "DC2", "DC3", "DC4", "NAK", "SYN", "ETB", "CAN", "EM", "SUB", "ESC",
    "FS", "GS", "RS", "US",
];

/// Characters a terminal draws as nothing (Unicode general category Cf, Zl, Zp, variation
/// selectors, fillers), apart from the bidi controls classified on their own.
const INVISIBLE: &[(u32, u32)] = &[
    (0x00AD, 0x00AD),
    (0x034F, 0x034F),
    (0x0600, 0x0605),
    (0x06DD, 0x06DD),
    (0x070F, 0x070F),
    (0x08E2, 0x08E2),
    (0x115F, 0x1160),
    (0x17B4, 0x17B5),
    (0x180B, 0x180F),
    (0x200B, 0x200D),
    (0x2028, 0x2029),
    (0x2060, 0x2064),
    (0x206A, 0x206F),
    (0x3164, 0x3164),
    (0xFE00, 0xFE0F),
    (0xFEFF, 0xFEFF),
    (0xFFA0, 0xFFA0),
    (0xFFF9, 0xFFFB),
    (0x110BD, 0x110BD),
    (0x110CD, 0x110CD),
    (0x13430, 0x1343F),
    (0x1BCA0, 0x1BCA3),
    (0x1D173, 0x1D17A),
    (0xE0000, 0xE007F),
    (0xE0100, 0xE01EF),
];

fn classify(c: char) -> Option<Hidden> {
    let code = u32::from(c);
    match code {
        0x09 | 0x20..=0x7E | 0xA0..=0xAC => None,
        0x00..=0x1F | 0x7F..=0x9F => Some(Hidden::Control),
        // Unicode TR#9 explicit formatting characters and the implicit marks.
        0x202A..=0x202E | 0x2066..=0x2069 | 0x200E | 0x200F | 0x061C => Some(Hidden::Bidi),
        _ if INVISIBLE
            .iter()
            .any(|&(low, high)| (low..=high).contains(&code)) =>
        {
            Some(Hidden::Invisible)
        }
        _ => None,
    }
}

/// The visible stand-in for a hidden character.
fn escape_of(c: char) -> String {
    let code = u32::from(c);
    match usize::try_from(code).ok().and_then(|i| C0_NAMES.get(i)) {
        Some(name) => format!("<{name}>"),
        None if code == 0x7F => "<DEL>".to_owned(),
        None => format!("<U+{code:04X}>"),
    }
}

/// Where escapes are highlighted: the codes around each one (reverse video), or none.
#[derive(Debug, Clone, Copy)]
pub struct Highlight {
    /// Written before an escape.
    pub on: &'static str,
    /// Written after it.
    pub off: &'static str,
}

impl Highlight {
    /// Reverse video when `colour`, else nothing. It ends with SGR 27, "positive image"
    /// (ECMA-48 §8.3.117), not a full reset (all `anstyle` renders), so the line's colour
    /// goes on after the marked escape.
    pub fn new(colour: bool) -> Highlight {
        if colour {
            Highlight {
                on: "\x1b[7m",
                off: "\x1b[27m",
            }
        } else {
            Highlight { on: "", off: "" }
        }
    }
}

/// `text` with every hidden character escaped, no highlighting, cut after `max_chars` shown
/// characters with a marker saying how many more there were (for one-line status texts).
pub fn line(text: &str, max_chars: usize) -> String {
    let rows = rows(text, usize::MAX, Highlight::new(false)).0;
    let shown = rows.concat();
    let total = shown.chars().count();
    if total <= max_chars {
        return shown;
    }
    let kept: String = shown.chars().take(max_chars).collect();
    format!("{kept}<... {} more characters>", total - max_chars)
}

/// `text` escaped and cut into rows of at most `width` shown characters (an escape is never
/// split), with what was found. An empty text is one empty row.
pub fn rows(text: &str, width: usize, highlight: Highlight) -> (Vec<String>, Findings) {
    let width = width.max(1);
    let mut findings = Findings::default();
    let mut rows = Vec::new();
    let mut row = String::new();
    let mut used = 0;
    for c in text.chars() {
        let (piece, len) = match classify(c) {
            None => (None, 1),
            Some(kind) => {
                match kind {
                    Hidden::Control => findings.controls = true,
                    Hidden::Bidi => findings.bidi = true,
                    Hidden::Invisible => findings.invisible = true,
                }
                let escaped = escape_of(c);
                let len = escaped.len();
                (Some(escaped), len)
            }
        };
        if used > 0 && used + len > width {
            rows.push(std::mem::take(&mut row));
            used = 0;
        }
        match piece {
            None => row.push(c),
            Some(escaped) => {
                row.push_str(highlight.on);
                row.push_str(&escaped);
                row.push_str(highlight.off);
            }
        }
        used += len;
    }
    rows.push(row);
    (rows, findings)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn plain(text: &str) -> (String, Findings) {
        let (rows, findings) = rows(text, usize::MAX, Highlight::new(false));
        (rows.concat(), findings)
    }

    #[test]
    fn plain_text_and_tabs_pass_unchanged() {
        assert_eq!(
            plain("fn main() {\t// café ✓"),
            ("fn main() {\t// café ✓".to_owned(), Findings::default())
        );
    }

    #[test]
    fn c0_c1_and_del_become_named_escapes() {
        let (shown, findings) = plain("a\rb\x1b[2Kc\x1b]52;c;eA==\x07d\u{9b}1A\x7f\0");
        assert_eq!(
            shown,
            "a<CR>b<ESC>[2Kc<ESC>]52;c;eA==<BEL>d<U+009B>1A<DEL><NUL>"
        );
        assert!(findings.controls && !findings.bidi && !findings.invisible);
    }

    #[test]
    fn bidi_controls_are_shown_and_flagged() {
        let (shown, findings) = plain("if x {\u{202E} } \u{2066}// y\u{2069}\u{200F}\u{61C}");
        assert_eq!(
            shown,
            "if x {<U+202E> } <U+2066>// y<U+2069><U+200F><U+061C>"
        );
        assert_eq!(
            findings,
            Findings {
                bidi: true,
                ..Findings::default()
            }
        );
        for code in (0x202A..=0x202E).chain(0x2066..=0x2069) {
            let c = char::from_u32(code).unwrap_or_default();
            assert_eq!(classify(c), Some(Hidden::Bidi), "U+{code:04X}");
        }
    }

    #[test]
    fn invisible_format_characters_are_shown_and_flagged() {
        let (shown, findings) =
            plain("a\u{200B}b\u{AD}c\u{FEFF}d\u{2028}e\u{E0041}f\u{FE0F}g\u{200D}");
        assert_eq!(
            shown,
            "a<U+200B>b<U+00AD>c<U+FEFF>d<U+2028>e<U+E0041>f<U+FE0F>g<U+200D>"
        );
        assert!(findings.invisible && !findings.controls && !findings.bidi);
    }

    #[test]
    fn long_text_wraps_without_splitting_an_escape() {
        let (wrapped, _) = rows("abcd\x1bef", 5, Highlight::new(false));
        assert_eq!(wrapped, ["abcd", "<ESC>", "ef"]);
        assert_eq!(rows("", 5, Highlight::new(false)).0, [""]);
    }

    #[test]
    fn highlight_wraps_each_escape_in_reverse_video() {
        let (shown, _) = rows("a\rb", 80, Highlight::new(true));
        assert_eq!(shown, ["a\x1b[7m<CR>\x1b[27mb"]);
    }

    #[test]
    fn status_lines_are_escaped_and_cut_with_a_marker() {
        assert_eq!(line("claude\x1b[31m", 80), "claude<ESC>[31m");
        assert_eq!(line("abcdefgh", 3), "abc<... 5 more characters>");
    }

    #[test]
    fn the_warning_names_what_was_found() {
        let found = Findings {
            controls: true,
            bidi: true,
            invisible: false,
        };
        assert_eq!(
            found.warning(),
            "! warning: this hunk holds control characters and bidi controls (text may read \
             reordered), shown as <NAME> or <U+XXXX>"
        );
    }
}
