//! The files the relay serves to the browser: either a user's own page (`--page-dir`,
//! [`PageDir`]), or the demo editor (this crate's `web/` folder, compiled into the binary, so
//! `cargo package` ships it) with the wasm engine package (a build output of
//! `bindings/wasm/build.sh`, `bindings/wasm/pkg/web`: the engine and its relay link client),
//! read from disk on each request from the folder `--wasm-dir` names, else the `wasm` folder
//! next to the idelink executable. No path of the build machine is compiled in.

use super::page_dir::PageDir;
use std::path::{Path, PathBuf};

/// The demo editor's own files, by URL path.
const EMBEDDED: [(&str, &str, &str); 5] = [
    (
        "/",
        "text/html; charset=utf-8",
        include_str!("../../web/index.html"),
    ),
    (
        "/app.js",
        "text/javascript; charset=utf-8",
        include_str!("../../web/app.js"),
    ),
    (
        "/inert.js",
        "text/javascript; charset=utf-8",
        include_str!("../../web/inert.js"),
    ),
    (
        "/ledger.js",
        "text/javascript; charset=utf-8",
        include_str!("../../web/ledger.js"),
    ),
    (
        "/style.css",
        "text/css; charset=utf-8",
        include_str!("../../web/style.css"),
    ),
];

/// The wasm package's files, by URL path, as named in its folder.
const PACKAGE: [(&str, &str, &str); 3] = [
    (
        "/pkg/idelink_wasm.js",
        "idelink_wasm.js",
        "text/javascript; charset=utf-8",
    ),
    (
        "/pkg/idelink_wasm_bg.wasm",
        "idelink_wasm_bg.wasm",
        "application/wasm",
    ),
    ("/pkg/link.js", "link.js", "text/javascript; charset=utf-8"),
];

/// The folder the wasm package is looked for without `--wasm-dir`: `wasm` next to the running
/// executable (an install copies `bindings/wasm/pkg/web` there).
pub fn default_package_dir() -> std::io::Result<PathBuf> {
    let exe = std::env::current_exe()?;
    let dir = exe.parent().unwrap_or(Path::new("."));
    Ok(dir.join("wasm"))
}

/// What the relay serves.
pub enum Assets {
    /// The demo editor, with the wasm package from this folder (`pkg/web` of the wasm binding).
    Demo {
        /// The package folder.
        package_dir: PathBuf,
    },
    /// A user's page.
    Page(PageDir),
}

impl Assets {
    /// Serves the demo with the wasm package from `package_dir` (`pkg/web` of the wasm binding).
    pub fn new(package_dir: PathBuf) -> Self {
        Assets::Demo { package_dir }
    }

    /// The package folder of the demo, when it holds a build; else the command that makes one.
    pub fn check(&self) -> Result<(), String> {
        let Assets::Demo { package_dir } = self else {
            return Ok(());
        };
        let missing: Vec<&str> = PACKAGE
            .iter()
            .map(|(_, name, _)| *name)
            .filter(|name| !package_dir.join(name).is_file())
            .collect();
        if missing.is_empty() {
            return Ok(());
        }
        Err(format!(
            "{} lacks {}: build the package with `bash bindings/wasm/build.sh` and pass \
             --wasm-dir bindings/wasm/pkg/web (or copy that folder there)",
            package_dir.display(),
            missing.join(", ")
        ))
    }

    /// The content type and bytes of `path`, or why it cannot be served.
    pub fn get(&self, path: &str) -> Result<(&'static str, Vec<u8>), String> {
        let package_dir = match self {
            Assets::Demo { package_dir } => package_dir,
            Assets::Page(page) => return page.get(path),
        };
        if let Some((_, kind, text)) = EMBEDDED.iter().find(|(p, ..)| *p == path) {
            return Ok((kind, text.as_bytes().to_vec()));
        }
        let (_, name, kind) = PACKAGE
            .iter()
            .find(|(p, ..)| *p == path)
            .ok_or_else(|| format!("{path} is not served"))?;
        let file = package_dir.join(name);
        let bytes = std::fs::read(&file).map_err(|e| {
            format!(
                "cannot read {}: {e}; build it with `bash bindings/wasm/build.sh` and pass \
                 --wasm-dir",
                file.display()
            )
        })?;
        Ok((kind, bytes))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_demo_is_embedded_and_the_package_is_read_from_its_folder() {
        let dir = std::env::temp_dir().join(format!("idelink-assets-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let assets = Assets::new(dir.clone());
        assert!(assets.check().unwrap_err().contains("--wasm-dir"));
        assert!(assets.get("/").unwrap().1.starts_with(b"<!doctype html>"));
        assert!(
            assets
                .get("/../Cargo.toml")
                .unwrap_err()
                .contains("not served")
        );
        std::fs::write(dir.join("idelink_wasm.js"), "export {}").unwrap();
        std::fs::write(dir.join("idelink_wasm_bg.wasm"), b"\0asm").unwrap();
        assert!(assets.check().unwrap_err().contains("lacks link.js"));
        std::fs::write(dir.join("link.js"), "export {}").unwrap();
        assert_eq!(assets.check(), Ok(()));
        let (kind, bytes) = assets.get("/pkg/idelink_wasm_bg.wasm").unwrap();
        assert_eq!(
            (kind, bytes.as_slice()),
            ("application/wasm", &b"\0asm"[..])
        );
        std::fs::remove_dir_all(dir).unwrap();
    }

    /// The `(low, high)` pairs of the table `name` in `source`, from its `[` to its `];`, hex
    /// literals in order.
    fn ranges(source: &str, name: &str) -> Vec<(u32, u32)> {
        let start = source.find(name).unwrap_or_else(|| panic!("no {name}"));
        let table = &source[start..];
        let table = &table[table.find("= ").unwrap()..table.find("];").unwrap()];
        let numbers: Vec<u32> = table
            .split(|c: char| !c.is_ascii_alphanumeric())
            .filter_map(|word| word.strip_prefix("0x"))
            .map(|hex| u32::from_str_radix(hex, 16).unwrap())
            .collect();
        numbers.chunks(2).map(|pair| (pair[0], pair[1])).collect()
    }

    #[test]
    fn the_page_marks_what_the_terminal_review_marks() {
        // The page's port of the inert rules (web/inert.js) must not drift from the terminal's
        // (src/terminal/inert.rs): the same invisible ranges, bidi controls and control names.
        let terminal = include_str!("../terminal/inert.rs");
        let page = include_str!("../../web/inert.js");
        assert_eq!(
            ranges(page, "const INVISIBLE"),
            ranges(terminal, "const INVISIBLE")
        );
        let bidi_rule = terminal
            .lines()
            .find(|line| line.contains("=> Some(Hidden::Bidi)"))
            .unwrap();
        let mut bidi: Vec<(u32, u32)> = bidi_rule
            .split('|')
            .map(|part| {
                let bounds: Vec<u32> = part
                    .split(|c: char| !c.is_ascii_alphanumeric())
                    .filter_map(|word| word.strip_prefix("0x"))
                    .map(|hex| u32::from_str_radix(hex, 16).unwrap())
                    .collect();
                (bounds[0], *bounds.last().unwrap())
            })
            .collect();
        bidi.sort_unstable();
        assert_eq!(ranges(page, "const BIDI"), bidi);
        let names = |source: &str| -> Vec<String> {
            let start = source.find("const C0_NAMES").unwrap();
            let table = &source[start..];
            let table = &table[table.find("= [").unwrap() + 3..table.find("];").unwrap()];
            table
                .split(',')
                .map(|name| {
                    name.trim()
                        .trim_matches(|c| c == '"' || c == '\'')
                        .to_owned()
                })
                .filter(|name| !name.is_empty())
                .collect()
        };
        assert_eq!(names(page), names(terminal));
        assert_eq!(names(page).len(), 32);
        for rule in [
            "code === 0x09 || (code >= 0x20 && code <= 0x7e) || (code >= 0xa0 && code <= 0xac)",
            "code <= 0x1f || (code >= 0x7f && code <= 0x9f)",
        ] {
            assert!(page.contains(rule), "web/inert.js lost {rule}");
        }
        assert!(terminal.contains("0x09 | 0x20..=0x7E | 0xA0..=0xAC => None,"));
        assert!(terminal.contains("0x00..=0x1F | 0x7F..=0x9F => Some(Hidden::Control),"));
    }
}
