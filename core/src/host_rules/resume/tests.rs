use super::*;

const NOW: u64 = 1_764_608_400_000;

fn record(state: RecordState, at_unix_ms: u64) -> ResumeRecord {
    ResumeRecord {
        port: 5555,
        state,
        at_unix_ms,
        lock: LockFile {
            pid: 42,
            workspace_folders: vec!["/w".into()],
            ide_name: "Vim".into(),
            auth_token: "0123456789abcdef0123456789abcdef".into(),
            running_in_windows: false,
        },
    }
}

#[test]
fn the_body_is_the_lock_body_after_port_state_and_time_byte_for_byte() {
    let body = record(RecordState::Stopped, 7).to_json();
    assert_eq!(
        body,
        "{\"port\":5555,\"state\":\"stopped\",\"atMs\":7,\"pid\":42,\"workspaceFolders\":[\"/w\"],\
         \"ideName\":\"Vim\",\"transport\":\"ws\",\"authToken\":\"0123456789abcdef0123456789abcdef\"}"
    );
    assert_eq!(
        ResumeRecord::parse(&body),
        Some(record(RecordState::Stopped, 7))
    );
    let running = record(RecordState::Running, NOW);
    assert_eq!(ResumeRecord::parse(&running.to_json()), Some(running));
}

#[test]
fn only_bodies_a_host_writes_parse() {
    let good = record(RecordState::Running, 7).to_json();
    for bad in [
        good.replace("\"port\":5555", "\"port\":0"),
        good.replace("\"port\":5555", "\"port\":65536"),
        good.replace("\"port\":5555", "\"port\":\"5555\""),
        good.replace("\"running\"", "\"paused\""),
        good.replace("\"atMs\":7", "\"atMs\":-7"),
        good.replace(",\"atMs\":7", ""),
        good.replace(",\"authToken\"", ",\"token\""),
        "[]".into(),
        "not json".into(),
    ] {
        assert_eq!(ResumeRecord::parse(&bad), None, "{bad}");
    }
}

#[test]
fn record_names_sit_beside_lock_names_and_are_never_locks() {
    assert_eq!(ResumeRecord::file_name(5555), "5555.resume");
    assert_eq!(ResumeRecord::port_from_file_name("5555.resume"), Some(5555));
    for name in [
        "5555.lock",
        "05555.resume",
        "0.resume",
        "x.resume",
        ".5555.resume.1.0.tmp",
    ] {
        assert_eq!(ResumeRecord::port_from_file_name(name), None, "{name}");
    }
    assert_eq!(LockFile::port_from_file_name("5555.resume"), None);
}

#[test]
fn a_record_is_for_the_same_editor_and_the_same_folders() {
    let r = record(RecordState::Stopped, 7);
    assert!(r.is_for("Vim", &["/w".into()]));
    assert!(!r.is_for("Emacs", &["/w".into()]));
    assert!(!r.is_for("Vim", &["/v".into()]));
    assert!(!r.is_for("Vim", &["/w".into(), "/v".into()]));
    assert!(!r.is_for("Vim", &[]));
    let mut windows = r.clone();
    windows.lock.workspace_folders = vec!["C:/game".into()];
    assert!(windows.is_for("Vim", &[r"c:\game".into()]));
}

#[test]
fn the_window_covers_the_clis_redials_and_a_heartbeat() {
    assert_eq!(CLI_RECONNECT_SPAN_MS, 18_750);
    let stopped = |age| record(RecordState::Stopped, NOW - age);
    assert_eq!(
        may_resume(&stopped(0), NOW, false, LockAtPort::Missing),
        Ok(())
    );
    assert_eq!(
        may_resume(&stopped(RESUME_WINDOW_MS), NOW, false, LockAtPort::Missing),
        Ok(())
    );
    assert_eq!(
        may_resume(
            &stopped(RESUME_WINDOW_MS + 1),
            NOW,
            false,
            LockAtPort::Missing
        ),
        Err(NotResumed::Expired {
            age_ms: RESUME_WINDOW_MS + 1
        })
    );
    let future = record(RecordState::Stopped, NOW + 1);
    assert_eq!(
        may_resume(&future, NOW, false, LockAtPort::Missing),
        Err(NotResumed::FromTheFuture)
    );
}

#[test]
fn a_live_running_host_is_never_taken_over_and_a_crashed_or_stopped_one_is() {
    let running = record(RecordState::Running, NOW - 1_000);
    assert_eq!(
        may_resume(&running, NOW, true, LockAtPort::Missing),
        Err(NotResumed::OwnerRunning { pid: 42 })
    );
    assert_eq!(
        may_resume(&running, NOW, false, LockAtPort::OursStale),
        Ok(())
    );
    let stopped = record(RecordState::Stopped, NOW - 1_000);
    assert_eq!(may_resume(&stopped, NOW, true, LockAtPort::Missing), Ok(()));
}

#[test]
fn a_lock_held_by_someone_else_or_a_bad_token_is_refused() {
    let stopped = record(RecordState::Stopped, NOW);
    assert_eq!(
        may_resume(&stopped, NOW, false, LockAtPort::Other),
        Err(NotResumed::LockHeld { port: 5555 })
    );
    let mut bad = stopped.clone();
    bad.lock.auth_token = "has space".into();
    assert_eq!(
        may_resume(&bad, NOW, false, LockAtPort::Missing),
        Err(NotResumed::BadToken)
    );
}

#[test]
fn only_a_private_regular_file_of_this_user_is_read() {
    let file = |kind, owner, mode| FileFacts { kind, owner, mode };
    assert_eq!(
        judge_record_file(file(FileKind::Regular, 7, 0o600), 7),
        Ok(())
    );
    assert_eq!(
        judge_record_file(file(FileKind::Regular, 7, 0o400), 7),
        Ok(())
    );
    assert_eq!(
        judge_record_file(file(FileKind::Symlink, 7, 0o600), 7),
        Err(NotResumed::RecordIsSymlink)
    );
    assert_eq!(
        judge_record_file(file(FileKind::Other, 7, 0o600), 7),
        Err(NotResumed::RecordNotAFile)
    );
    let other = judge_record_file(file(FileKind::Regular, 0, 0o600), 7).unwrap_err();
    assert_eq!(other, NotResumed::RecordOwnedByOther { owner: 0, me: 7 });
    assert!(
        other
            .to_string()
            .contains("belongs to uid 0, not to this user (uid 7)")
    );
    for mode in [0o640, 0o604, 0o660, 0o666] {
        assert_eq!(
            judge_record_file(file(FileKind::Regular, 7, mode), 7),
            Err(NotResumed::RecordNotPrivate { mode })
        );
    }
}

#[test]
fn the_newest_record_is_tried() {
    let older = record(RecordState::Stopped, NOW - 2);
    let mut newer = record(RecordState::Stopped, NOW - 1);
    newer.port = 6000;
    assert_eq!(newest(&[older.clone(), newer.clone()]), Some(&newer));
    assert_eq!(newest(&[newer.clone(), older]), Some(&newer));
    assert_eq!(newest(&[]), None);
}

#[test]
fn leftovers_of_ours_go_and_live_hosts_and_other_editors_stay() {
    let folders = ["/w".to_owned()];
    let stopped = record(RecordState::Stopped, NOW);
    assert_eq!(
        leftover(&stopped, "Vim", &folders, NOW, false),
        Leftover::Remove
    );
    assert_eq!(
        leftover(&stopped, "Vim", &folders, NOW, true),
        Leftover::Remove
    );
    assert_eq!(
        leftover(&stopped, "Emacs", &folders, NOW, false),
        Leftover::Keep
    );
    let running = record(RecordState::Running, NOW - RESUME_WINDOW_MS - 1);
    assert_eq!(
        leftover(&running, "Vim", &folders, NOW, true),
        Leftover::Keep
    );
    assert_eq!(
        leftover(&running, "Vim", &folders, NOW, false),
        Leftover::Remove
    );
    let other_workspace = ["/v".to_owned()];
    assert_eq!(
        leftover(&stopped, "Vim", &other_workspace, NOW, false),
        Leftover::Keep
    );
    let old = record(RecordState::Stopped, NOW - RESUME_WINDOW_MS - 1);
    assert_eq!(
        leftover(&old, "Vim", &other_workspace, NOW, false),
        Leftover::Remove
    );
}

#[test]
fn a_heartbeat_is_due_every_five_seconds_or_when_the_clock_moved_back() {
    assert!(!heartbeat_due(NOW, NOW));
    assert!(!heartbeat_due(NOW, NOW + RESUME_HEARTBEAT_MS - 1));
    assert!(heartbeat_due(NOW, NOW + RESUME_HEARTBEAT_MS));
    assert!(heartbeat_due(NOW, NOW - 1));
}

#[test]
fn debug_redacts_the_token() {
    let shown = format!("{:?}", record(RecordState::Running, 7));
    assert!(!shown.contains("0123456789abcdef"), "{shown}");
}

#[test]
fn js_hosts_name_file_kinds_and_lock_findings() {
    assert_eq!(FileKind::named("regular"), Some(FileKind::Regular));
    assert_eq!(FileKind::named("symlink"), Some(FileKind::Symlink));
    assert_eq!(FileKind::named("other"), Some(FileKind::Other));
    assert_eq!(FileKind::named("directory"), None);
    assert_eq!(LockAtPort::named("missing"), Some(LockAtPort::Missing));
    assert_eq!(LockAtPort::named("oursStale"), Some(LockAtPort::OursStale));
    assert_eq!(LockAtPort::named("other"), Some(LockAtPort::Other));
    assert_eq!(LockAtPort::named("held"), None);
}
