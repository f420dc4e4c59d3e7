//! Core's discovery rules for C (`idelink_core::discovery`): the `claude` CLI's own choice of
//! IDE, so a C or C++ editor can say "claude started in this folder would connect to port X"
//! (or why not): `idelink_discover` (a `ClaudeStart` into a `Verdict`, as JSON text read and
//! written by core's codec) and `idelink_folder_contains`. Every path is put in Unicode NFC here first:
//! core compares text as given and the CLI compares NFC (docs/c.md, "Discovery").

use crate::args::{form, owned_string, place, text};
use crate::guard::{guard, invalid};
use crate::status::IdelinkStatus;
use idelink_core::discovery::{self, ClaudeStart};
use idelink_core::forms;
use idelink_core::ide::PathStyle;
use std::ffi::c_char;
use unicode_normalization::UnicodeNormalization;

/// How the machine claude runs on spells paths: the values of a `path_style` argument.
#[repr(C)]
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum IdelinkPathStyle {
    /// `/`-separated (Linux, macOS, WSL).
    IdelinkPathStylePosix = 0,
    /// Drive letters, `\` and `/` both separators (Windows).
    IdelinkPathStyleWindows = 1,
}

fn nfc(text: &str) -> String {
    text.nfc().collect()
}

fn style(value: u32) -> Result<PathStyle, (IdelinkStatus, String)> {
    match value {
        0 => Ok(PathStyle::Posix),
        1 => Ok(PathStyle::Windows),
        other => Err(invalid(format_args!(
            "path_style is {other}: use an IdelinkPathStyle (0 or 1)"
        ))),
    }
}

/// `*contains` receives whether `cwd` is `folder` or lies under it, as the CLI decides (a
/// case-sensitive prefix ending at a separator, both sides in NFC) on a machine whose paths
/// are `path_style` (an `IdelinkPathStyle`).
///
/// **Threads:** any thread.
///
/// # Safety
/// `folder` and `cwd` are NUL-terminated; `contains` points to a writable `bool`.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn idelink_folder_contains(
    folder: *const c_char,
    cwd: *const c_char,
    path_style: u32,
    contains: *mut bool,
) -> IdelinkStatus {
    guard(|| {
        // SAFETY: the caller's obligations, stated above.
        let (folder, cwd) = unsafe { (text(folder, "folder")?, text(cwd, "cwd")?) };
        // SAFETY: the caller's obligations, stated above.
        let out = unsafe { place(contains, "contains") }?;
        *out = discovery::folder_contains(&nfc(folder), &nfc(cwd), style(path_style)?);
        Ok(())
    })
}

/// What `claude` started as `start_json` says would do, by the CLI's own rules: `*verdict_json`
/// receives the `Verdict` (`{"autoConnect":{"state":"on","reason":"ideFlag"},
/// "choice":{"kind":"one","port":4242},"ideTerminal":null,"ancestorRule":false,
/// "connectsTo":4242}`). `start_json` is a `ClaudeStart`: `{"cwd":"/p/src","pathStyle":"posix",
/// "locks":[{"port":4242,"workspaceFolders":["/p"]}],"env":{"CLAUDE_CODE_SSE_PORT":"4242"},
/// "autoConnectConfig":false,"ideFlag":true}` (only `cwd` and `locks` required; the live
/// locks, pid alive; `env` holds the variables claude starts with, others ignored).
///
/// **Ownership:** the text is library-owned: free it with `idelink_string_free`.
/// **Threads:** any thread.
///
/// # Safety
/// `start_json` is NUL-terminated; `verdict_json` points to writable storage for one pointer.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn idelink_discover(
    start_json: *const c_char,
    verdict_json: *mut *mut c_char,
) -> IdelinkStatus {
    guard(|| {
        // SAFETY: the caller's obligations, stated above.
        let mut start: ClaudeStart = unsafe { form(start_json, "start_json") }?;
        // SAFETY: the caller's obligations, stated above.
        let out = unsafe { place(verdict_json, "verdict_json") }?;
        start.cwd = nfc(&start.cwd);
        for lock in &mut start.locks {
            for folder in &mut lock.workspace_folders {
                *folder = nfc(folder);
            }
        }
        *out = owned_string(forms::write(&discovery::discover(&start)));
        Ok(())
    })
}
