//! Path and `file://` URI rules (docs/protocol.md §6).
//!
//! The CLI sees forward slashes everywhere: Windows paths are rewritten (`C:\a\b.rs` →
//! `C:/a/b.rs`, URI `file:///C:/a/b.rs`); POSIX paths are left byte-for-byte alone, because a
//! backslash is a legal file-name byte there. Which rule applies is the editor's
//! [`PathStyle`], and, whatever the style, a path spelled as an absolute Windows path (a drive
//! `X:\` / `X:/`, a UNC `\\server\share`, a verbatim `\\?\`) is a Windows path: no absolute
//! POSIX path has that form (they all start with `/`), so an editor on Windows that left the
//! style at its default still publishes `C:/game` and POSIX names are never touched. URIs are
//! built the way the CLI builds them: `file://` followed by the raw path, never
//! percent-encoded.

use std::borrow::Cow;

use serde::{Deserialize, Serialize};

/// How the editor's file system spells paths. JSON form: `"posix"` or `"windows"`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Default, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
pub enum PathStyle {
    /// `/`-separated paths; a backslash is an ordinary file-name byte.
    #[default]
    Posix,
    /// Drive-letter paths; `\` and `/` both separate segments.
    Windows,
}

impl PathStyle {
    /// The style its JSON name (`"posix"`, `"windows"`) names, for a binding that takes it
    /// as a plain string.
    pub fn from_name(name: &str) -> Option<PathStyle> {
        match name {
            "posix" => Some(PathStyle::Posix),
            "windows" => Some(PathStyle::Windows),
            _ => None,
        }
    }
}

/// The canonical spelling of `path` for the CLI.
///
/// Windows: a verbatim prefix is dropped (`\\?\C:\a` → `C:\a`, `\\?\UNC\srv\share` →
/// `\\srv\share`: what `canonicalize` returns names the same file without it), every `\`
/// becomes `/` and a leading drive letter is upper-cased (`c:\a\b.rs` → `C:/a/b.rs`); a UNC
/// path keeps its two leading slashes (`\\srv\share\f` → `//srv/share/f`, URI
/// `file:////srv/share/f`). Posix: untouched, unless it is spelled as an absolute Windows path
/// (`C:\…`, `C:/…` or `\\…`), which gets the Windows rule (docs/protocol.md §6). Borrows when
/// nothing changes.
pub fn normalize_path(path: &str, style: PathStyle) -> Cow<'_, str> {
    match style {
        PathStyle::Posix if !is_windows_absolute(path) => Cow::Borrowed(path),
        PathStyle::Posix | PathStyle::Windows => normalize_windows_path(path),
    }
}

/// Whether `path` is spelled as an absolute Windows path: a drive letter and a separator
/// (`C:\x`, `c:/x`), or two backslashes before a name (UNC `\\server\share`, verbatim
/// `\\?\C:\x`). An absolute POSIX path starts with `/`, so it never is one; the paths of the
/// protocol (workspace folders, tool file paths, URIs) are all absolute.
pub(crate) fn is_windows_absolute(path: &str) -> bool {
    let bytes = path.as_bytes();
    let separator = |at: usize| matches!(bytes.get(at), Some(b'\\' | b'/'));
    let drive = drive_letter(path).is_some() && separator(2);
    let unc = path.starts_with(r"\\") && bytes.get(2).is_some_and(|b| !matches!(b, b'\\' | b'/'));
    drive || unc
}

/// The Windows rule of [`normalize_path`].
fn normalize_windows_path(path: &str) -> Cow<'_, str> {
    let path = without_verbatim_prefix(path);
    let lower_drive = drive_letter(&path).is_some_and(|d| d.is_ascii_lowercase());
    if !lower_drive && !path.contains('\\') {
        return path;
    }
    let mut out = path.replace('\\', "/");
    if lower_drive {
        // The drive letter is ASCII, so the range 0..1 is a char boundary.
        if let Some(drive) = out.get_mut(..1) {
            drive.make_ascii_uppercase();
        }
    }
    Cow::Owned(out)
}

/// The drive path a URI's POSIX reading `/X:/rest` stands for (`X:/rest`), or `None`. A
/// Windows editor on the default style stores `C:/game/a.lua` (published as
/// `file:///C:/game/a.lua`), while the POSIX reading of that URI is `/C:/game/a.lua`: lookups
/// try this spelling only after the POSIX one, so no POSIX file is ever shadowed.
pub(crate) fn posix_drive_fallback(path: &str) -> Option<&str> {
    path.strip_prefix('/')
        .filter(|rest| drive_letter(rest).is_some() && rest.as_bytes().get(2) == Some(&b'/'))
}

/// The `file://` URI of an already normalized path: `file://` + the raw path, not
/// percent-encoded (as the CLI builds it). A drive path gains the slash URIs require before
/// the drive: `C:/a/b.rs` → `file:///C:/a/b.rs`.
pub fn file_uri(normalized_path: &str) -> String {
    format!("{}{normalized_path}", file_uri_prefix(normalized_path))
}

/// What [`file_uri`] puts before `normalized_path`: `file:///` before a drive, else `file://`.
pub(crate) fn file_uri_prefix(normalized_path: &str) -> &'static str {
    if drive_letter(normalized_path).is_some() {
        "file:///"
    } else {
        "file://"
    }
}

/// The path a `file://` URI names, or `None` when `uri` is not a local `file://` URI.
///
/// Accepts the raw form the CLI sends (`file:///a b.rs`), the percent-encoded form
/// (`file:///a%20b.rs`; an escape that does not decode to UTF-8 is kept as written), an
/// optional `localhost` host, and drive paths with or without the slash before the drive
/// (`file:///C:/a`, `file://C:/a` → `C:/a`) when `style` is Windows. On POSIX there are no
/// drives: `file:///C:/x` names the path `/C:/x`. The result is not normalized: pass it
/// through [`normalize_path`].
pub fn path_from_uri(uri: &str, style: PathStyle) -> Option<Cow<'_, str>> {
    let rest = strip_file_scheme(uri)?;
    match percent_decode(rest) {
        Cow::Borrowed(raw) => local_path(raw, style).map(Cow::Borrowed),
        Cow::Owned(decoded) => local_path(&decoded, style).map(|p| Cow::Owned(p.to_owned())),
    }
}

/// [`path_from_uri`] without percent-decoding: the path exactly as spelled in `uri`. A raw
/// path may itself contain `%`, so lookups try this spelling before the decoded one.
pub(crate) fn path_from_uri_undecoded(uri: &str, style: PathStyle) -> Option<&str> {
    strip_file_scheme(uri).and_then(|rest| local_path(rest, style))
}

/// The last segment of a normalized path (the tab label): `/w/src/main.rs` → `main.rs`.
/// Trailing slashes are ignored; only `/` separates segments.
pub fn file_name(path: &str) -> &str {
    let trimmed = path.trim_end_matches('/');
    // Byte search: '/' is ASCII, so the byte after it starts a character.
    memchr::memrchr(b'/', trimmed.as_bytes()).map_or(trimmed, |slash| {
        trimmed.get(slash + 1..).unwrap_or_default()
    })
}

/// `path` without a Win32 verbatim prefix (`\\?\`, or `//?/` once slashes were turned)
/// before a drive or `UNC\` ("Naming Files, Paths, and Namespaces", Win32 file namespaces,
/// learn.microsoft.com/windows/win32/fileio/naming-a-file). Other verbatim paths (volume
/// GUIDs) have no shorter name and are kept.
fn without_verbatim_prefix(path: &str) -> Cow<'_, str> {
    let Some(rest) = path
        .strip_prefix(r"\\?\")
        .or_else(|| path.strip_prefix("//?/"))
    else {
        return Cow::Borrowed(path);
    };
    if drive_letter(rest).is_some() {
        return Cow::Borrowed(rest);
    }
    match rest.split_at_checked(4) {
        Some((unc, share))
            if unc.eq_ignore_ascii_case(r"UNC\") || unc.eq_ignore_ascii_case("UNC/") =>
        {
            Cow::Owned(format!("//{share}"))
        }
        _ => Cow::Borrowed(path),
    }
}

/// The drive letter when `path` starts with `X:`.
fn drive_letter(path: &str) -> Option<char> {
    let mut chars = path.chars();
    match (chars.next(), chars.next()) {
        (Some(d), Some(':')) if d.is_ascii_alphabetic() => Some(d),
        _ => None,
    }
}

/// What follows `file://` and an optional `localhost` host.
fn strip_file_scheme(uri: &str) -> Option<&str> {
    // RFC 3986 §3.1: scheme names are case-insensitive.
    let rest = uri
        .get(..7)
        .filter(|scheme| scheme.eq_ignore_ascii_case("file://"))
        .and_then(|_| uri.get(7..))?;
    // RFC 8089 §2: the host "localhost" names the local machine, like an empty host.
    match rest.get(..10) {
        Some(host) if host.eq_ignore_ascii_case("localhost/") => rest.get(9..),
        _ => Some(rest),
    }
}

/// The local path in a URI's path part: `/abs`, `/C:/x` → `C:/x`, or `C:/x`.
fn local_path(part: &str, style: PathStyle) -> Option<&str> {
    let windows = style == PathStyle::Windows;
    match part.strip_prefix('/') {
        Some(after) if windows && drive_letter(after).is_some() => Some(after),
        Some(_) => Some(part),
        None if windows && drive_letter(part).is_some() => Some(part),
        None => None,
    }
}

/// Decodes every `%XX` escape; returns `s` unchanged when it has none, when an escape is
/// malformed it stays literal, and when the decoded bytes are not UTF-8.
fn percent_decode(s: &str) -> Cow<'_, str> {
    if !s.contains('%') {
        return Cow::Borrowed(s);
    }
    let bytes = s.as_bytes();
    let mut out = Vec::with_capacity(bytes.len());
    let mut i = 0;
    while i < bytes.len() {
        let escaped = match (bytes.get(i), bytes.get(i + 1), bytes.get(i + 2)) {
            (Some(b'%'), Some(&hi), Some(&lo)) => hex_value(hi).zip(hex_value(lo)),
            _ => None,
        };
        match escaped {
            Some((hi, lo)) => {
                out.push(hi << 4 | lo);
                i += 3;
            }
            None => {
                out.push(bytes[i]);
                i += 1;
            }
        }
    }
    String::from_utf8(out).map_or(Cow::Borrowed(s), Cow::Owned)
}

fn hex_value(b: u8) -> Option<u8> {
    (b as char).to_digit(16).and_then(|d| u8::try_from(d).ok())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn windows_paths_get_forward_slashes_and_an_upper_case_drive() {
        assert_eq!(
            normalize_path(r"c:\a\b.rs", PathStyle::Windows),
            "C:/a/b.rs"
        );
        assert_eq!(normalize_path(r"D:\x", PathStyle::Windows), "D:/x");
        assert_eq!(normalize_path("e:/x", PathStyle::Windows), "E:/x");
        assert_eq!(
            normalize_path(r"\\srv\share\f.rs", PathStyle::Windows),
            "//srv/share/f.rs"
        );
        assert!(matches!(
            normalize_path("C:/a/b.rs", PathStyle::Windows),
            Cow::Borrowed("C:/a/b.rs")
        ));
    }

    #[test]
    fn verbatim_prefixes_are_dropped_before_a_drive_or_unc() {
        let windows = |p| normalize_path(p, PathStyle::Windows);
        assert_eq!(windows(r"\\?\C:\game\main.lua"), "C:/game/main.lua");
        assert_eq!(windows(r"\\?\c:\game"), "C:/game");
        assert_eq!(windows("//?/C:/game"), "C:/game");
        assert_eq!(windows(r"\\?\UNC\srv\share\x"), "//srv/share/x");
        assert_eq!(windows(r"\\?\unc\srv\share"), "//srv/share");
        assert!(matches!(windows(r"\\?\C:/a"), Cow::Borrowed("C:/a")));
        // A volume GUID path has no shorter name.
        assert_eq!(windows(r"\\?\Volume{1b3b1146}\x"), "//?/Volume{1b3b1146}/x");
    }

    #[test]
    fn unc_paths_keep_two_slashes_and_round_trip_through_their_uri() {
        let unc = normalize_path(r"\\server\share\x.lua", PathStyle::Windows);
        assert_eq!(unc, "//server/share/x.lua");
        let uri = file_uri(&unc);
        assert_eq!(uri, "file:////server/share/x.lua");
        assert_eq!(
            path_from_uri(&uri, PathStyle::Windows).as_deref(),
            Some("//server/share/x.lua")
        );
        assert!(!uri.contains("%5C"));
    }

    #[test]
    fn posix_paths_are_untouched_even_with_backslashes() {
        assert!(matches!(
            normalize_path(r"/w/a\b.rs", PathStyle::Posix),
            Cow::Borrowed(r"/w/a\b.rs")
        ));
        for posix in [
            r"/w/a\b.rs",
            r"a\b",
            r"\a",
            r"\\",
            r"\\\x",
            "c:",
            r"c:x\y",
            "/C:/x",
            "//srv/s",
        ] {
            assert!(!is_windows_absolute(posix), "{posix}");
            assert!(matches!(
                normalize_path(posix, PathStyle::Posix),
                Cow::Borrowed(p) if p == posix
            ));
        }
    }

    #[test]
    fn windows_absolute_forms_get_the_windows_rule_whatever_the_style() {
        let posix = |p| normalize_path(p, PathStyle::Posix);
        assert_eq!(posix(r"C:\game\main.lua"), "C:/game/main.lua");
        assert_eq!(posix("c:/x"), "C:/x");
        assert_eq!(posix(r"\\srv\share\f.lua"), "//srv/share/f.lua");
        assert_eq!(posix(r"\\?\C:\x"), "C:/x");
        assert!(matches!(posix("C:/game"), Cow::Borrowed("C:/game")));
        assert_eq!(
            file_uri(&posix(r"C:\game\main.lua")),
            "file:///C:/game/main.lua"
        );
    }

    #[test]
    fn a_drive_uri_read_as_posix_falls_back_to_its_drive_path() {
        assert_eq!(
            posix_drive_fallback("/C:/game/a.lua"),
            Some("C:/game/a.lua")
        );
        assert_eq!(posix_drive_fallback("/C:"), None);
        assert_eq!(posix_drive_fallback("/w/C:/x"), None);
        assert_eq!(posix_drive_fallback("C:/x"), None);
    }

    #[test]
    fn uris_are_file_scheme_plus_raw_path() {
        assert_eq!(file_uri("/w/a b%.rs"), "file:///w/a b%.rs");
        assert_eq!(file_uri("C:/a/b.rs"), "file:///C:/a/b.rs");
        assert_eq!(file_uri("//srv/share/f"), "file:////srv/share/f");
    }

    #[test]
    fn uris_parse_raw_encoded_and_drive_forms() {
        assert_eq!(
            path_from_uri("file:///w/a b.rs", PathStyle::Posix).as_deref(),
            Some("/w/a b.rs")
        );
        assert_eq!(
            path_from_uri("file:///w/a%20b.rs", PathStyle::Posix).as_deref(),
            Some("/w/a b.rs")
        );
        assert_eq!(
            path_from_uri("FILE:///w/x", PathStyle::Posix).as_deref(),
            Some("/w/x")
        );
        assert_eq!(
            path_from_uri("file://localhost/w/x", PathStyle::Posix).as_deref(),
            Some("/w/x")
        );
        assert_eq!(
            path_from_uri("file:///C:/a/b.rs", PathStyle::Windows).as_deref(),
            Some("C:/a/b.rs")
        );
        assert_eq!(
            path_from_uri("file:///c%3A/a", PathStyle::Windows).as_deref(),
            Some("c:/a")
        );
        assert_eq!(
            path_from_uri(r"file://C:\a\b.rs", PathStyle::Windows).as_deref(),
            Some(r"C:\a\b.rs")
        );
        assert_eq!(
            path_from_uri("file:////srv/share", PathStyle::Posix).as_deref(),
            Some("//srv/share")
        );
    }

    #[test]
    fn posix_has_no_drives() {
        assert_eq!(
            path_from_uri("file:///C:/x", PathStyle::Posix).as_deref(),
            Some("/C:/x")
        );
        assert_eq!(path_from_uri("file://C:/x", PathStyle::Posix), None);
    }

    #[test]
    fn malformed_escapes_stay_literal() {
        assert_eq!(
            path_from_uri("file:///a%zz%4", PathStyle::Posix).as_deref(),
            Some("/a%zz%4")
        );
        assert_eq!(
            path_from_uri("file:///100%", PathStyle::Posix).as_deref(),
            Some("/100%")
        );
        // %FF alone is not UTF-8: the whole path is kept as written.
        assert_eq!(
            path_from_uri("file:///a%FF%41", PathStyle::Posix).as_deref(),
            Some("/a%FF%41")
        );
        assert_eq!(
            path_from_uri("file:///%C3%A9", PathStyle::Posix).as_deref(),
            Some("/é")
        );
    }

    #[test]
    fn non_file_uris_are_refused() {
        for uri in [
            "",
            "file:/",
            "file://",
            "file://host/share/x",
            "http:///w/x",
            "/w/x",
            "untitled:Untitled-1",
            "filé:///x",
        ] {
            assert_eq!(path_from_uri(uri, PathStyle::Windows), None, "{uri}");
        }
    }

    #[test]
    fn undecoded_path_keeps_escapes() {
        assert_eq!(
            path_from_uri_undecoded("file:///a%20b", PathStyle::Posix),
            Some("/a%20b")
        );
        assert_eq!(
            path_from_uri_undecoded("file:///C:/x", PathStyle::Windows),
            Some("C:/x")
        );
        assert_eq!(path_from_uri_undecoded("ftp://x", PathStyle::Posix), None);
    }

    #[test]
    fn file_name_is_the_last_segment() {
        assert_eq!(file_name("/w/src/main.rs"), "main.rs");
        assert_eq!(file_name("C:/w/x/"), "x");
        assert_eq!(file_name("Untitled-1"), "Untitled-1");
        assert_eq!(file_name(r"/w/a\b.rs"), r"a\b.rs");
        assert_eq!(file_name("/"), "");
    }

    proptest::proptest! {
        #[test]
        fn path_functions_never_panic_and_normalizing_is_idempotent(s in "\\PC*") {
            let _ = path_from_uri(&s, PathStyle::Windows);
            let _ = path_from_uri(&s, PathStyle::Posix);
            let _ = path_from_uri_undecoded(&s, PathStyle::Windows);
            let _ = file_name(&s);
            for style in [PathStyle::Posix, PathStyle::Windows] {
                let once = normalize_path(&s, style).into_owned();
                proptest::prop_assert_eq!(normalize_path(&once, style), once.as_str());
            }
        }

        #[test]
        fn uri_of_an_absolute_posix_path_leads_back_to_it(p in "/[^%]*") {
            let path = normalize_path(&p, PathStyle::Posix);
            let uri = file_uri(&path);
            let back = path_from_uri(&uri, PathStyle::Posix);
            proptest::prop_assert_eq!(back.as_deref(), Some(path.as_ref()));
        }

        /// Windows file names cannot hold `:`, so one appears only after a drive letter.
        #[test]
        fn uri_of_an_absolute_windows_path_leads_back_to_it(p in "([a-zA-Z]:)?[/\\\\][^%:]*") {
            let path = normalize_path(&p, PathStyle::Windows);
            let uri = file_uri(&path);
            let back = path_from_uri(&uri, PathStyle::Windows);
            proptest::prop_assert_eq!(back.as_deref(), Some(path.as_ref()));
        }
    }

    #[test]
    fn path_style_json_form() {
        assert_eq!(
            serde_json::to_string(&PathStyle::Windows).unwrap(),
            r#""windows""#
        );
        assert_eq!(
            serde_json::from_str::<PathStyle>(r#""posix""#).unwrap(),
            PathStyle::Posix
        );
    }
}
