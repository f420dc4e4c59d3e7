//! `--page-dir`: a user's own page (a bundler's output folder) served instead of the demo.
//! Only regular files inside the folder are served, after resolving symlinks and `..`; a
//! request path is taken as it is (no percent-decoding: bundlers write plain file names).

use std::path::{Path, PathBuf};

/// The user's page folder.
pub struct PageDir {
    root: PathBuf,
}

impl PageDir {
    /// The folder `dir`, which must exist and hold an `index.html`; else what is wrong and how
    /// to fix it.
    pub fn open(dir: &Path) -> Result<PageDir, String> {
        let root = dir.canonicalize().map_err(|e| {
            format!(
                "--page-dir {}: {e}: pass the folder holding your page's index.html (your \
                 bundler's output folder)",
                dir.display()
            )
        })?;
        if !root.is_dir() {
            return Err(format!(
                "--page-dir {}: not a folder: pass the folder holding your page's index.html",
                dir.display()
            ));
        }
        if !root.join("index.html").is_file() {
            return Err(format!(
                "--page-dir {}: no index.html in it: build your page first, or pass the folder \
                 your bundler writes to",
                dir.display()
            ));
        }
        Ok(PageDir { root })
    }

    /// The content type and bytes of URL path `path` (`/` is `index.html`), or why not.
    pub fn get(&self, path: &str) -> Result<(&'static str, Vec<u8>), String> {
        let relative = path.strip_prefix('/').unwrap_or(path);
        let relative = if relative.is_empty() || relative.ends_with('/') {
            format!("{relative}index.html")
        } else {
            relative.to_owned()
        };
        let safe = relative.split('/').all(|segment| {
            !segment.is_empty()
                && segment != "."
                && segment != ".."
                && !segment.contains(['\\', '\0', ':'])
        });
        if !safe {
            return Err(format!("{path} is not served"));
        }
        let file = self
            .root
            .join(&relative)
            .canonicalize()
            .map_err(|_| format!("{path} is not in the page folder"))?;
        if !file.starts_with(&self.root) || !file.is_file() {
            return Err(format!("{path} is not served"));
        }
        let bytes = std::fs::read(&file).map_err(|e| format!("cannot read {path}: {e}"))?;
        Ok((content_type(&relative), bytes))
    }
}

/// The content type of a file name, by extension.
fn content_type(name: &str) -> &'static str {
    let extension = name.rsplit_once('.').map_or("", |(_, ext)| ext);
    match extension.to_ascii_lowercase().as_str() {
        "html" | "htm" => "text/html; charset=utf-8",
        "js" | "mjs" => "text/javascript; charset=utf-8",
        "css" => "text/css; charset=utf-8",
        "wasm" => "application/wasm",
        "json" | "map" => "application/json",
        "svg" => "image/svg+xml",
        "png" => "image/png",
        "ico" => "image/x-icon",
        "txt" => "text/plain; charset=utf-8",
        _ => "application/octet-stream",
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn files_inside_the_folder_are_served_and_nothing_else() {
        let dir = std::env::temp_dir().join(format!("idelink-page-dir-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&dir);
        std::fs::create_dir_all(dir.join("page/assets")).unwrap();
        std::fs::write(dir.join("secret.txt"), "no").unwrap();
        let missing = PageDir::open(&dir.join("page")).err().unwrap();
        assert!(missing.contains("no index.html"), "{missing}");
        std::fs::write(dir.join("page/index.html"), "<!doctype html>").unwrap();
        std::fs::write(dir.join("page/assets/app.js"), "1").unwrap();
        let page = PageDir::open(&dir.join("page")).unwrap();
        assert_eq!(
            page.get("/").unwrap(),
            ("text/html; charset=utf-8", b"<!doctype html>".to_vec())
        );
        assert_eq!(
            page.get("/assets/app.js").unwrap().0,
            "text/javascript; charset=utf-8"
        );
        for refused in [
            "/../secret.txt",
            "/assets/../../secret.txt",
            "/assets",
            "//etc/passwd",
        ] {
            assert!(page.get(refused).is_err(), "{refused}");
        }
        #[cfg(unix)]
        {
            std::os::unix::fs::symlink(dir.join("secret.txt"), dir.join("page/link.txt")).unwrap();
            assert!(
                page.get("/link.txt").is_err(),
                "a symlink out of the folder"
            );
        }
        let gone = PageDir::open(&dir.join("nope")).err().unwrap();
        assert!(
            gone.starts_with("--page-dir ") && gone.contains("index.html"),
            "{gone}"
        );
        std::fs::remove_dir_all(dir).unwrap();
    }
}
