//! Per-frame snapshots through the C ABI, called as C calls it: the changes reported, nothing
//! sent and nothing allocated for an unchanged 200-document frame, argument errors that leave
//! the engine unchanged, and the host level's lock rewrite.
#![expect(
    unsafe_code,
    clippy::undocumented_unsafe_blocks,
    reason = "calls the C ABI; each call passes live pointers to locals and NUL-terminated strings"
)]

use allocation_counter::measure;
use idelink::*;
use std::ffi::{CStr, CString, c_char};
use std::ptr::{null, null_mut};

const TOKEN: &CStr = c"00112233445566778899aabbccddeeff";

fn last_error() -> String {
    unsafe { CStr::from_ptr(idelink_last_error_message()) }
        .to_string_lossy()
        .into_owned()
}

fn engine() -> *mut IdelinkEngine {
    let mut engine = null_mut();
    let config = cr#"{"port":40000,"workspaceFolders":["/p"]}"#;
    let status = unsafe { idelink_engine_new(config.as_ptr(), TOKEN.as_ptr(), &mut engine) };
    assert_eq!(status, IdelinkStatus::IdelinkOk, "{}", last_error());
    engine
}

fn caret(line: u32) -> IdelinkRange {
    let at = IdelinkPosition { line, character: 4 };
    IdelinkRange { start: at, end: at }
}

/// The C strings and structs of an editor with `n` open documents, 20 of them with a warning.
struct Frame {
    _paths: Vec<CString>,
    documents: Vec<IdelinkDocument>,
    warnings: Vec<IdelinkDiagnostic>,
    files: Vec<IdelinkFileDiagnostics>,
    folders: Vec<*const c_char>,
    active: IdelinkActiveDocument,
}

impl Frame {
    fn new(n: usize) -> Frame {
        let paths: Vec<CString> = (0..n)
            .map(|i| CString::new(format!("/p/scripts/module_{i:03}.cpp")).unwrap_or_default())
            .collect();
        let documents = paths
            .iter()
            .enumerate()
            .map(|(i, path)| IdelinkDocument {
                path: path.as_ptr(),
                language_id: c"cpp".as_ptr(),
                is_dirty: i % 7 == 0,
                is_untitled: false,
            })
            .collect();
        let warnings = vec![IdelinkDiagnostic {
            message: c"unused variable 'speed'".as_ptr(),
            severity: IdelinkSeverity::IdelinkSeverityWarning as u32,
            range: caret(3),
            source: c"clang".as_ptr(),
            code: null(),
            has_code_number: true,
            code_number: 4,
        }];
        let mut frame = Frame {
            active: IdelinkActiveDocument {
                path: paths[n / 2].as_ptr(),
                text: null(),
                selection: caret(10),
            },
            _paths: paths,
            documents,
            warnings,
            files: Vec::new(),
            folders: vec![c"/p".as_ptr()],
        };
        frame.files = frame
            .documents
            .iter()
            .step_by(10)
            .map(|doc| IdelinkFileDiagnostics {
                path: doc.path,
                diagnostics: frame.warnings.as_ptr(),
                diagnostic_count: frame.warnings.len(),
            })
            .collect();
        frame
    }

    fn snapshot(&self) -> IdelinkSnapshot {
        IdelinkSnapshot {
            documents: self.documents.as_ptr(),
            document_count: self.documents.len(),
            active: &self.active,
            files: self.files.as_ptr(),
            file_count: self.files.len(),
            workspace_folders: self.folders.as_ptr(),
            workspace_folder_count: self.folders.len(),
        }
    }
}

fn snapshot(
    engine: *mut IdelinkEngine,
    now: u64,
    snapshot: &IdelinkSnapshot,
) -> IdelinkSnapshotChanges {
    let mut changes = IdelinkSnapshotChanges::default();
    let status = unsafe { idelink_engine_handle_snapshot(engine, now, snapshot, &mut changes) };
    assert_eq!(status, IdelinkStatus::IdelinkOk, "{}", last_error());
    changes
}

fn no_output(engine: *mut IdelinkEngine) -> bool {
    let mut out = IdelinkOutput {
        kind: IdelinkOutputKind::IdelinkOutputNone,
        conn: 0,
        event_json: null_mut(),
    };
    let status = unsafe { idelink_engine_poll_output(engine, &mut out) };
    status == IdelinkStatus::IdelinkOk && out.kind == IdelinkOutputKind::IdelinkOutputNone
}

#[test]
fn an_unchanged_200_document_frame_changes_nothing_and_allocates_nothing() {
    let engine = engine();
    let mut frame = Frame::new(200);
    let first = snapshot(engine, 0, &frame.snapshot());
    assert!(first.documents && first.active && first.diagnostics && !first.workspace_folders);
    let mut now = 0;
    let counted = measure(|| {
        for _ in 0..600 {
            now += 16;
            let changes = snapshot(engine, now, &frame.snapshot());
            assert_eq!(changes, IdelinkSnapshotChanges::default());
            assert!(no_output(engine));
        }
    });
    assert_eq!(counted.count_total, 0, "an unchanged frame allocated");

    frame.active.selection = caret(11);
    let moved = snapshot(engine, now + 16, &frame.snapshot());
    assert_eq!(
        moved,
        IdelinkSnapshotChanges {
            active: true,
            ..IdelinkSnapshotChanges::default()
        }
    );
    unsafe { idelink_engine_free(engine) };
}

#[test]
fn a_bad_snapshot_is_refused_and_changes_nothing() {
    let engine = engine();
    let status = unsafe { idelink_engine_handle_snapshot(engine, 0, null(), null_mut()) };
    assert_eq!(status, IdelinkStatus::IdelinkErrorInvalidArgument);
    assert!(
        last_error().contains("snapshot is NULL"),
        "{}",
        last_error()
    );

    let mut frame = Frame::new(3);
    frame.documents[1].path = null();
    let status =
        unsafe { idelink_engine_handle_snapshot(engine, 0, &frame.snapshot(), null_mut()) };
    assert_eq!(status, IdelinkStatus::IdelinkErrorInvalidArgument);
    assert!(
        last_error().contains("documents[].path is NULL (entry 1)"),
        "{}",
        last_error()
    );

    let mut frame = Frame::new(3);
    frame.warnings[0].severity = 9;
    let status =
        unsafe { idelink_engine_handle_snapshot(engine, 0, &frame.snapshot(), null_mut()) };
    assert_eq!(status, IdelinkStatus::IdelinkErrorInvalidArgument);
    assert!(last_error().contains("severity is 9"), "{}", last_error());

    // A count with no array (an empty Vec's pointer is dangling, not NULL: the binding could not
    // tell it from a real array, and reading it would be the caller's undefined behaviour).
    let frame = Frame::new(3);
    let mut bad = frame.snapshot();
    bad.workspace_folders = std::ptr::null();
    bad.workspace_folder_count = 2;
    let status = unsafe { idelink_engine_handle_snapshot(engine, 0, &bad, null_mut()) };
    assert_eq!(status, IdelinkStatus::IdelinkErrorInvalidArgument);
    assert!(
        last_error().contains("is NULL with a count of 2"),
        "{}",
        last_error()
    );

    // None of them reached the engine: the first good snapshot opens everything.
    let good = snapshot(engine, 0, &Frame::new(3).snapshot());
    assert!(good.documents && good.active && good.diagnostics);
    unsafe { idelink_engine_free(engine) };
}

#[test]
fn the_host_level_rewrites_the_lock_when_the_folders_change() {
    let dir = std::env::temp_dir().join(format!("idelink-c-snapshot-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    let config = CString::new(format!(
        r#"{{"ideName":"Ed","workspaceFolders":["/p"],"lock":{{"dir":"{}"}}}}"#,
        dir.display()
    ))
    .unwrap_or_default();
    let mut host = null_mut();
    let status = unsafe { idelink_host_start(config.as_ptr(), &mut host) };
    assert_eq!(status, IdelinkStatus::IdelinkOk, "{}", last_error());
    let lock_body = || {
        let entry = std::fs::read_dir(&dir)
            .ok()
            .and_then(|mut d| d.next())
            .and_then(Result::ok)
            .map(|e| e.path());
        entry
            .and_then(|path| std::fs::read_to_string(path).ok())
            .unwrap_or_default()
    };
    let mut frame = Frame::new(2);
    let mut changes = IdelinkSnapshotChanges::default();
    let status = unsafe { idelink_host_handle_snapshot(host, &frame.snapshot(), &mut changes) };
    assert_eq!(status, IdelinkStatus::IdelinkOk, "{}", last_error());
    assert!(!changes.workspace_folders);
    frame.folders.push(c"/shared".as_ptr());
    let status = unsafe { idelink_host_handle_snapshot(host, &frame.snapshot(), &mut changes) };
    assert_eq!(status, IdelinkStatus::IdelinkOk, "{}", last_error());
    assert!(changes.workspace_folders && !changes.documents);
    assert!(
        lock_body().contains(r#""workspaceFolders":["/p","/shared"]"#),
        "{}",
        lock_body()
    );
    assert_eq!(
        unsafe { idelink_host_shutdown(host, 0) },
        IdelinkStatus::IdelinkOk
    );
    unsafe { idelink_host_free(host) };
    let _ = std::fs::remove_dir_all(&dir);
}
