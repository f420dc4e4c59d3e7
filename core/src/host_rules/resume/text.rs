//! The resume rules for a host that holds records as text and names kinds with strings: the JS
//! hosts of the Node and wasm bindings (`bindings/node/lib/resume.js`), whose bindings only
//! convert numbers and call these. Each answer is the one the typed rules above give.

use super::{
    FileFacts, FileKind, Leftover, LockAtPort, RecordState, ResumeRecord, heartbeat_due,
    judge_record_file, leftover, may_resume,
};
use crate::lockfile::LockFile;

/// The record body for `port`, running or stopped, written at `at_unix_ms`, around the lock
/// body `lock_json`; `None` when `lock_json` is not a lock body.
pub fn record_json(port: u16, running: bool, at_unix_ms: u64, lock_json: &str) -> Option<String> {
    let lock = LockFile::parse(lock_json).ok()?;
    let state = if running {
        RecordState::Running
    } else {
        RecordState::Stopped
    };
    let record = ResumeRecord {
        port,
        state,
        at_unix_ms,
        lock,
    };
    Some(record.to_json())
}

/// True when `body` is a record of the editor `ide_name` serving `workspace_folders`.
pub fn record_is_for(body: &str, ide_name: &str, workspace_folders: &[String]) -> bool {
    ResumeRecord::parse(body).is_some_and(|r| r.is_for(ide_name, workspace_folders))
}

/// `None` when a record file of `kind` ([`FileKind::named`]), owned by `owner` with mode
/// `mode`, may be read by user `me`; else why not, in words.
pub fn file_refusal(kind: &str, owner: u32, mode: u32, me: u32) -> Option<String> {
    let Some(kind) = FileKind::named(kind) else {
        return Some(format!("unknown file kind `{kind}`"));
    };
    let facts = FileFacts { kind, owner, mode };
    judge_record_file(facts, me)
        .err()
        .map(|why| why.to_string())
}

/// `None` when the record `body` may be resumed at `now_unix_ms`, its pid alive or not, with
/// `lock_at_port` ([`LockAtPort::named`]; an unknown name counts as another's lock) at its
/// port; else why not, in words.
pub fn refusal(
    body: &str,
    now_unix_ms: u64,
    owner_alive: bool,
    lock_at_port: &str,
) -> Option<String> {
    let Some(record) = ResumeRecord::parse(body) else {
        return Some("not a resume record".to_owned());
    };
    let lock = LockAtPort::named(lock_at_port).unwrap_or(LockAtPort::Other);
    may_resume(&record, now_unix_ms, owner_alive, lock)
        .err()
        .map(|why| why.to_string())
}

/// True when a starting host of `ide_name` serving `workspace_folders` removes the record
/// `body` it does not resume ([`leftover`]); false for anything that is not a record.
pub fn leftover_removed(
    body: &str,
    ide_name: &str,
    workspace_folders: &[String],
    now_unix_ms: u64,
    owner_alive: bool,
) -> bool {
    ResumeRecord::parse(body).is_some_and(|record| {
        let verdict = leftover(
            &record,
            ide_name,
            workspace_folders,
            now_unix_ms,
            owner_alive,
        );
        verdict == Leftover::Remove
    })
}

/// [`heartbeat_due`], for hosts that call through a binding.
pub fn heartbeat_is_due(written_unix_ms: u64, now_unix_ms: u64) -> bool {
    heartbeat_due(written_unix_ms, now_unix_ms)
}

#[cfg(test)]
mod tests {
    use super::*;

    const LOCK: &str = "{\"pid\":2147483647,\"workspaceFolders\":[\"/w\"],\"ideName\":\"E\",\
                        \"authToken\":\"0123456789abcdef0123456789abcdef\"}";

    #[test]
    fn text_answers_are_the_typed_rules_answers() {
        let body = record_json(5555, false, 1_000, LOCK).expect("a lock body");
        assert!(body.starts_with("{\"port\":5555,\"state\":\"stopped\",\"atMs\":1000,\"pid\""));
        assert_eq!(record_json(5555, true, 1, "not a lock"), None);
        assert!(record_is_for(&body, "E", &["/w".into()]));
        assert!(!record_is_for(&body, "F", &["/w".into()]));
        assert!(!record_is_for("{}", "E", &["/w".into()]));
        assert_eq!(refusal(&body, 2_000, false, "missing"), None);
        assert_eq!(
            refusal(&body, 2_000, false, "other").as_deref(),
            Some("the lock of port 5555 belongs to a live process or another editor")
        );
        assert_eq!(
            refusal(&body, 2_000, false, "held"),
            refusal(&body, 2_000, false, "other"),
            "an unknown finding counts as another's lock"
        );
        assert_eq!(
            refusal("{}", 2_000, false, "missing").as_deref(),
            Some("not a resume record")
        );
        let running = record_json(5555, true, 1_000, LOCK).expect("a lock body");
        assert!(
            refusal(&running, 2_000, true, "missing").is_some_and(|w| w.contains("still serving"))
        );
        assert_eq!(file_refusal("regular", 7, 0o600, 7), None);
        assert!(file_refusal("regular", 7, 0o644, 7).is_some_and(|w| w.contains("mode 0644")));
        assert!(file_refusal("directory", 7, 0o600, 7).is_some());
        assert!(leftover_removed(&body, "E", &["/w".into()], 2_000, false));
        assert!(!leftover_removed(&body, "F", &["/w".into()], 2_000, false));
        assert!(!leftover_removed("{}", "E", &["/w".into()], 2_000, false));
        assert!(heartbeat_is_due(0, super::super::RESUME_HEARTBEAT_MS));
    }
}
