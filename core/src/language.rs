//! The language id of a file, from its name: the VS Code language identifiers
//! (<https://code.visualstudio.com/docs/languages/identifiers>) the CLI's callers expect in
//! `getOpenEditors` tabs (`languageId`) and in `openFile`'s answer, for an editor that has no
//! language of its own to report (a game editor's script panel, the CLI's workspace editor).

/// Whole file names that carry their language without an extension (matched exactly).
const FILE_NAMES: [(&str, &str); 6] = [
    ("Makefile", "makefile"),
    ("GNUmakefile", "makefile"),
    ("Dockerfile", "dockerfile"),
    ("CMakeLists.txt", "cmake"),
    ("Cargo.lock", "toml"),
    ("go.mod", "go.mod"),
];

/// Extensions (without the dot, ASCII case ignored) and their VS Code language ids. A header
/// `.h` is `cpp`, as in VS Code (its C++ language claims it).
const EXTENSIONS: [(&str, &str); 62] = [
    ("rs", "rust"),
    ("ts", "typescript"),
    ("mts", "typescript"),
    ("cts", "typescript"),
    ("tsx", "typescriptreact"),
    ("js", "javascript"),
    ("mjs", "javascript"),
    ("cjs", "javascript"),
    ("jsx", "javascriptreact"),
    ("py", "python"),
    ("pyi", "python"),
    ("go", "go"),
    ("c", "c"),
    ("i", "c"),
    ("h", "cpp"),
    ("cc", "cpp"),
    ("cpp", "cpp"),
    ("cxx", "cpp"),
    ("c++", "cpp"),
    ("hpp", "cpp"),
    ("hh", "cpp"),
    ("hxx", "cpp"),
    ("inl", "cpp"),
    ("ino", "cpp"),
    ("m", "objective-c"),
    ("mm", "objective-cpp"),
    ("java", "java"),
    ("kt", "kotlin"),
    ("kts", "kotlin"),
    ("swift", "swift"),
    ("rb", "ruby"),
    ("php", "php"),
    ("cs", "csharp"),
    ("fs", "fsharp"),
    ("dart", "dart"),
    ("lua", "lua"),
    ("r", "r"),
    ("jl", "julia"),
    ("pl", "perl"),
    ("sql", "sql"),
    ("json", "json"),
    ("jsonc", "jsonc"),
    ("toml", "toml"),
    ("yaml", "yaml"),
    ("yml", "yaml"),
    ("xml", "xml"),
    ("ini", "ini"),
    ("md", "markdown"),
    ("html", "html"),
    ("htm", "html"),
    ("css", "css"),
    ("scss", "scss"),
    ("less", "less"),
    ("sh", "shellscript"),
    ("bash", "shellscript"),
    ("zsh", "shellscript"),
    ("ps1", "powershell"),
    ("bat", "bat"),
    ("cmd", "bat"),
    ("glsl", "glsl"),
    ("hlsl", "hlsl"),
    ("txt", "plaintext"),
];

/// The VS Code language id for `path` (a path or a bare file name, `/` or `\` separated), or
/// `None` when the name says nothing we know (the editor then reports no language, as the CLI
/// allows).
///
/// ```
/// use idelink_core::language::language_id;
///
/// assert_eq!(language_id("/w/src/main.rs"), Some("rust"));
/// assert_eq!(language_id(r"C:\game\scripts\Player.CS"), Some("csharp"));
/// assert_eq!(language_id("/w/Makefile"), Some("makefile"));
/// assert_eq!(language_id("/w/LICENSE"), None);
/// ```
pub fn language_id(path: &str) -> Option<&'static str> {
    // Byte searches: separators and the dot are ASCII, so the bytes around them are
    // character boundaries.
    let name = memchr::memrchr2(b'/', b'\\', path.as_bytes()).map_or(path, |separator| {
        path.get(separator + 1..).unwrap_or_default()
    });
    if let Some((_, id)) = FILE_NAMES.iter().find(|(file, _)| *file == name) {
        return Some(id);
    }
    let dot = memchr::memrchr(b'.', name.as_bytes())?;
    let (stem, extension) = (name.get(..dot)?, name.get(dot + 1..)?);
    if stem.is_empty() {
        // A dot file (`.bashrc`) has a name, not an extension.
        return None;
    }
    EXTENSIONS
        .iter()
        .find(|(ext, _)| ext.eq_ignore_ascii_case(extension))
        .map(|(_, id)| *id)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn extensions_map_to_vs_code_ids_ignoring_case() {
        for (path, id) in [
            ("a.rs", "rust"),
            ("/w/x.tsx", "typescriptreact"),
            ("/w/x.H", "cpp"),
            ("/w/x.c", "c"),
            ("/w/x.tar.yml", "yaml"),
            ("/w/run.sh", "shellscript"),
            ("/w/notes.txt", "plaintext"),
            (r"C:\w\x.Py", "python"),
        ] {
            assert_eq!(language_id(path), Some(id), "{path}");
        }
    }

    #[test]
    fn whole_names_win_and_unknown_names_have_none() {
        assert_eq!(language_id("/w/Dockerfile"), Some("dockerfile"));
        assert_eq!(language_id("/w/CMakeLists.txt"), Some("cmake"));
        for path in [
            "/w/LICENSE",
            "/w/.bashrc",
            "/w/x.unknown",
            "/w/dir.d/",
            "",
            "/w/x.",
        ] {
            assert_eq!(language_id(path), None, "{path:?}");
        }
    }

    #[test]
    fn every_extension_is_listed_once_in_lower_case() {
        for (i, (ext, _)) in EXTENSIONS.iter().enumerate() {
            assert_eq!(*ext, ext.to_ascii_lowercase());
            assert!(
                EXTENSIONS[i + 1..].iter().all(|(other, _)| other != ext),
                "{ext} twice"
            );
        }
    }
}
