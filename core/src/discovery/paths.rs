//! How the CLI spells the paths it compares, and when a workspace folder contains its working
//! directory. Every path given here must be NFC already ([module docs](super)).

use crate::ide::PathStyle;
use std::borrow::Cow;

/// A path as the CLI compares it: a leading Windows drive letter upper-cased (`c:/x` →
/// `C:/x`), the rest as given. The CLI applies this to its cwd and to every workspace folder
/// (after `.normalize("NFC")`, which is the caller's: see the [module docs](super)). Borrows
/// when nothing changes.
pub fn cli_path(path: &str) -> Cow<'_, str> {
    match path.as_bytes() {
        [letter, b':', ..] if letter.is_ascii_lowercase() => {
            let mut spelled = String::with_capacity(path.len());
            spelled.push(char::from(letter.to_ascii_uppercase()));
            spelled.push_str(path.get(1..).unwrap_or_default());
            Cow::Owned(spelled)
        }
        _ => Cow::Borrowed(path),
    }
}

/// Whether `cwd` is `folder` or lies under it, as the CLI decides on a machine whose paths
/// are spelled in `style`: a case-sensitive text prefix ending at a separator, both sides
/// through [`cli_path`]. `/a/bc` does not lie under `/a/b`; an empty folder contains nothing.
///
/// The CLI resolves each folder with Node's `path.resolve`, which on Windows spells every `/`
/// as `\`, and its cwd there has backslashes; so with [`PathStyle::Windows`] both sides are
/// compared with backslashes (idelink writes `C:/x`, the CLI compares `C:\x`), with
/// [`PathStyle::Posix`] as they are.
pub fn folder_contains(folder: &str, cwd: &str, style: PathStyle) -> bool {
    let sep = match style {
        PathStyle::Posix => '/',
        PathStyle::Windows => '\\',
    };
    let spelled = |path: &str| -> String {
        let path = cli_path(path);
        match style {
            PathStyle::Posix => path.into_owned(),
            PathStyle::Windows => path.replace('/', "\\"),
        }
    };
    let (folder, cwd) = (spelled(folder), spelled(cwd));
    if folder.is_empty() {
        return false;
    }
    if cwd == folder {
        return true;
    }
    match cwd.strip_prefix(folder.as_str()) {
        Some(rest) => folder.ends_with(sep) || rest.starts_with(sep),
        None => false,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_drive_letter_is_upper_cased_and_nothing_else_changes() {
        assert_eq!(cli_path("c:/Users/x"), "C:/Users/x");
        assert_eq!(cli_path("/c:/x"), "/c:/x");
        assert!(matches!(cli_path("/tmp/caf\u{e9}"), Cow::Borrowed(_)));
        assert!(folder_contains("c:/p", "C:/p", PathStyle::Posix));
        assert!(folder_contains("c:/p", r"C:\p\src", PathStyle::Windows));
    }

    #[test]
    fn containment_is_a_prefix_ending_at_a_separator_and_case_sensitive() {
        let posix = PathStyle::Posix;
        assert!(folder_contains("/a/b", "/a/b", posix));
        assert!(folder_contains("/a/b", "/a/b/c/d", posix));
        assert!(folder_contains("/a/b/", "/a/b/c", posix));
        assert!(!folder_contains("/a/b", "/a/bc", posix));
        assert!(!folder_contains("/a/b", "/a", posix));
        assert!(!folder_contains("/A/b", "/a/b", posix));
        assert!(!folder_contains("", "/a", posix));
        assert!(folder_contains("/", "/a", posix));
    }

    #[test]
    fn windows_compares_with_backslashes_and_posix_keeps_them_as_name_bytes() {
        let windows = PathStyle::Windows;
        assert!(folder_contains("C:/w", r"C:\w\src", windows));
        assert!(folder_contains(r"C:\w", "C:/w/src", windows));
        assert!(!folder_contains("C:/w", r"C:\wx", windows));
        assert!(!folder_contains("C:/w", r"C:\w\src", PathStyle::Posix));
    }

    #[test]
    fn text_is_compared_as_given_so_the_caller_gives_nfc() {
        // "café" composed (U+00E9) and decomposed (e + U+0301) are different text here: the
        // CLI normalizes both sides to NFC first, and so must the caller.
        let composed = "/tmp/caf\u{e9}";
        let decomposed = "/tmp/cafe\u{301}/src";
        assert!(!folder_contains(composed, decomposed, PathStyle::Posix));
        assert!(folder_contains(
            composed,
            "/tmp/caf\u{e9}/src",
            PathStyle::Posix
        ));
    }
}
