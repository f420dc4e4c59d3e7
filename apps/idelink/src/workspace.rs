//! The workspace folder as claude sees it: absolute, canonical, UTF-8, forward slashes.

use std::error::Error;
use std::path::{Path, PathBuf};

/// The workspace folder: DIR or the current folder, made absolute and canonical.
pub fn workspace_dir(dir: Option<&Path>) -> Result<PathBuf, Box<dyn Error>> {
    let dir = match dir {
        Some(dir) => dir.to_owned(),
        None => std::env::current_dir()?,
    };
    let canonical = dir.canonicalize().map_err(|e| {
        format!(
            "cannot serve {}: {e}; give an existing folder (idelink serve DIR)",
            dir.display()
        )
    })?;
    if !canonical.is_dir() {
        return Err(format!("cannot serve {}: it is not a folder", dir.display()).into());
    }
    Ok(canonical)
}

/// The path as the CLI sees it: UTF-8, forward slashes; on Windows without the `\\?\` prefix
/// `canonicalize` adds, with an upper-case drive letter (`C:/game`).
pub fn path_text(path: &Path) -> Result<String, Box<dyn Error>> {
    let text = path.to_str().ok_or_else(|| {
        format!(
            "cannot serve {}: the path is not valid UTF-8, and claude matches folders as text",
            path.display()
        )
    })?;
    Ok(if cfg!(windows) {
        idelink_core::ide::normalize_path(text, idelink_core::ide::PathStyle::Windows).into_owned()
    } else {
        text.to_owned()
    })
}
