//! The context policy through the engine: what a client receives, byte for byte, for denied
//! files, each sharing mode and the pause switch; and the property that no denied file's name
//! or text is ever in the bytes sent, for random editors, policies and clients.

use proptest::prelude::*;

use super::*;
use crate::ide::{FileDiagnostics, OpenTab, Position, Range, ReadSource, Severity, ToolName};
use crate::policy::{ContextPolicy, IgnoreFile, SharingMode};

fn range(a: (u32, u32), b: (u32, u32)) -> Range {
    Range {
        start: Position {
            line: a.0,
            character: a.1,
        },
        end: Position {
            line: b.0,
            character: b.1,
        },
    }
}

fn selected(path: &str, text: &str, r: Range) -> EditorEvent {
    EditorEvent::SelectionChanged {
        path: path.into(),
        text: text.into(),
        selection: r,
    }
}

fn activated(path: &str) -> EditorEvent {
    EditorEvent::DocumentActivated { path: path.into() }
}

/// A ready client (no start-up repeats) of an engine with `policy`; its bytes so far dropped.
fn ready(policy: ContextPolicy) -> (Engine, ConnId) {
    let (mut engine, conn, _) = connected(|c| {
        c.ready_delay_ms = 0;
        c.startup_window_ms = 0;
        c.workspace_folders = vec!["/w".into()];
        c.policy = policy;
    });
    engine.handle_timeout(at(0));
    drain(&mut engine, &mut Drained::default());
    (engine, conn)
}

/// Feeds `event` at `ms`, lets the debounce pass, and returns what the client got.
fn after(engine: &mut Engine, ms: u64, event: &EditorEvent) -> Drained {
    engine.handle_editor_event(at(ms), event);
    engine.handle_timeout(at(ms + 150));
    let mut drained = Drained::default();
    drain(engine, &mut drained);
    drained
}

fn sent(drained: &Drained, conn: ConnId) -> Vec<String> {
    drained
        .bytes
        .get(&conn)
        .map_or_else(Vec::new, |b| replies(b))
}

const NO_FILE: &str = r#"{"jsonrpc":"2.0","method":"selection_changed","params":{"text":"","selection":{"start":{"line":0,"character":0},"end":{"line":0,"character":0},"isEmpty":true}}}"#;

fn a_rs_selected() -> String {
    r#"{"jsonrpc":"2.0","method":"selection_changed","params":{"text":"fn","filePath":"/w/a.rs","fileUrl":"file:///w/a.rs","selection":{"start":{"line":1,"character":0},"end":{"line":1,"character":2},"isEmpty":false}}}"#.to_owned()
}

fn withheld(drained: &Drained) -> Vec<&EngineEvent> {
    drained
        .events
        .iter()
        .filter(|e| matches!(e, EngineEvent::ContextWithheld { .. }))
        .collect()
}

#[test]
fn a_denied_file_is_no_file_once_and_reported() {
    let (mut engine, conn) = ready(ContextPolicy::default());
    let got = after(
        &mut engine,
        10,
        &selected("/w/a.rs", "fn", range((1, 0), (1, 2))),
    );
    assert_eq!(sent(&got, conn), [a_rs_selected()]);
    let got = after(
        &mut engine,
        200,
        &selected("/w/.env", "KEY=1", range((0, 0), (0, 5))),
    );
    assert_eq!(
        sent(&got, conn),
        [NO_FILE],
        "the CLI forgets a.rs, hears nothing of .env"
    );
    assert_eq!(
        withheld(&got),
        [&EngineEvent::ContextWithheld {
            pushes: 1,
            reads: 0,
            paths: vec!["/w/.env".into()],
            more_paths: 0,
        }]
    );
    // More keystrokes in .env: nothing more on the wire, one report a second at most.
    let got = after(
        &mut engine,
        400,
        &selected("/w/.env", "KEY=12", range((0, 0), (0, 6))),
    );
    assert!(sent(&got, conn).is_empty(), "{got:?}");
    assert!(withheld(&got).is_empty(), "within the second: {got:?}");
    assert_eq!(engine.poll_timeout(), Some(at(1_350)));
    engine.handle_timeout(at(1_350));
    let mut later = Drained::default();
    drain(&mut engine, &mut later);
    assert!(matches!(
        withheld(&later)[..],
        [EngineEvent::ContextWithheld { pushes: 2, .. }]
    ));
    // Back in an allowed file: its selection goes out again.
    let got = after(
        &mut engine,
        2_000,
        &selected("/w/a.rs", "fn", range((1, 0), (1, 2))),
    );
    assert_eq!(sent(&got, conn), [a_rs_selected()]);
}

#[test]
fn reads_leave_denied_files_out() {
    let policy = ContextPolicy {
        ignore_files: vec![IgnoreFile {
            dir: "/w".into(),
            text: "target/\n".into(),
        }],
        ..ContextPolicy::default()
    };
    let (mut engine, conn) = ready(policy);
    for path in ["/w/a.rs", "/w/.env", "/w/target/gen.rs"] {
        engine.handle_editor_event(
            at(1),
            &EditorEvent::DocumentOpened {
                path: path.into(),
                language_id: None,
                is_dirty: true,
                is_untitled: false,
            },
        );
        engine.handle_editor_event(
            at(1),
            &EditorEvent::DiagnosticsChanged {
                path: path.into(),
                diagnostics: vec![crate::ide::Diagnostic {
                    message: "m".into(),
                    severity: Severity::Error,
                    range: Range::default(),
                    source: None,
                    code: None,
                }],
            },
        );
    }
    engine.handle_editor_event(at(1), &selected("/w/.env", "KEY=1", range((0, 0), (0, 5))));
    let mut bytes = Vec::new();
    let calls: &[(&str, &str)] = &[
        ("getOpenEditors", "{}"),
        ("getDiagnostics", "{}"),
        ("getDiagnostics", r#"{"uri":"file:///w/.env"}"#),
        ("checkDocumentDirty", r#"{"filePath":"/w/target/gen.rs"}"#),
        ("getCurrentSelection", "{}"),
        ("getLatestSelection", "{}"),
    ];
    for (id, (tool, args)) in calls.iter().enumerate() {
        bytes.extend(call(10 + id as u32, tool, args));
    }
    engine.handle_bytes(at(2), conn, &bytes).unwrap();
    let mut got = Drained::default();
    drain(&mut engine, &mut got);
    let replies = sent(&got, conn);
    // The model's own argument comes back in "Document not open: <path>", nothing else.
    let text = replies
        .join("\n")
        .replace("Document not open: /w/target/gen.rs", "");
    assert!(!text.contains(".env") && !text.contains("gen.rs"), "{text}");
    assert!(
        replies[0].contains(r#"\"label\":\"a.rs\""#),
        "{}",
        replies[0]
    );
    assert!(replies[1].contains("file:///w/a.rs"), "{}", replies[1]);
    assert!(replies[2].contains(r#""text":"[]""#), "{}", replies[2]);
    assert!(replies[3].contains("Document not open"), "{}", replies[3]);
    assert!(
        replies[4].contains("No active editor found"),
        "{}",
        replies[4]
    );
    assert!(
        replies[5].contains("No selection available"),
        "{}",
        replies[5]
    );
    assert!(
        matches!(
            withheld(&got)[..],
            [EngineEvent::ContextWithheld { reads: 6.., .. }]
        ),
        "{got:?}"
    );
}

#[test]
fn pulled_answers_are_screened_too() {
    let (mut engine, conn, _) = connected(|c| {
        c.ready_delay_ms = 0;
        c.reads.set(ToolName::GetOpenEditors, ReadSource::Editor);
        c.reads.set(ToolName::GetDiagnostics, ReadSource::Editor);
    });
    engine
        .handle_bytes(at(1), conn, &call(5, "getOpenEditors", "{}"))
        .unwrap();
    engine
        .handle_bytes(at(1), conn, &call(6, "getDiagnostics", "{}"))
        .unwrap();
    let mut got = Drained::default();
    drain(&mut engine, &mut got);
    let ids: Vec<ToolCallId> = got
        .events
        .iter()
        .filter_map(|e| match e {
            EngineEvent::ToolCall { id, .. } => Some(*id),
            _ => None,
        })
        .collect();
    let tab = |path: &str| OpenTab {
        path: path.into(),
        language_id: None,
        is_dirty: false,
        is_untitled: false,
        is_active: true,
    };
    let tabs = ToolOutcome::OpenEditors {
        tabs: vec![tab("/w/id_rsa"), tab("/w/b.rs")],
    };
    engine.handle_tool_outcome(at(2), ids[0], &tabs).unwrap();
    let files = ToolOutcome::Diagnostics {
        files: vec![FileDiagnostics {
            path: "/w/server.key".into(),
            diagnostics: vec![],
        }],
    };
    engine.handle_tool_outcome(at(2), ids[1], &files).unwrap();
    let mut answers = Drained::default();
    drain(&mut engine, &mut answers);
    let text = sent(&answers, conn).join("\n");
    assert!(text.contains("b.rs"), "{text}");
    assert!(
        !text.contains("id_rsa") && !text.contains("server.key"),
        "{text}"
    );
}

#[test]
fn open_file_and_diff_on_a_denied_path_carry_the_flag() {
    let (mut engine, conn) = ready(ContextPolicy::default());
    let bytes = [
        call(1, "openFile", r#"{"filePath":"/w/.env.local"}"#),
        call(2, "openFile", r#"{"filePath":"/w/a.rs"}"#),
        call(
            3,
            "openDiff",
            &diff_args("t", "x").replace("/w/a", "/w/deploy.pem"),
        ),
    ]
    .concat();
    engine.handle_bytes(at(1), conn, &bytes).unwrap();
    let mut got = Drained::default();
    drain(&mut engine, &mut got);
    let flags: Vec<bool> = got
        .events
        .iter()
        .filter_map(|e| match e {
            EngineEvent::ToolCall { context_denied, .. } => Some(*context_denied),
            _ => None,
        })
        .collect();
    assert_eq!(flags, [true, false, true]);
}

#[test]
fn selection_only_shares_real_selections_and_clears_when_they_end() {
    let (mut engine, conn) = ready(ContextPolicy {
        mode: SharingMode::SelectionOnly,
        ..ContextPolicy::default()
    });
    let got = after(&mut engine, 10, &activated("/w/a.rs"));
    assert_eq!(
        sent(&got, conn),
        [NO_FILE],
        "opening a file shares nothing of it"
    );
    let caret = selected("/w/a.rs", "", range((3, 1), (3, 1)));
    assert!(
        sent(&after(&mut engine, 200, &caret), conn).is_empty(),
        "a caret move: nothing"
    );
    let got = after(
        &mut engine,
        400,
        &selected("/w/a.rs", "fn", range((1, 0), (1, 2))),
    );
    assert_eq!(sent(&got, conn), [a_rs_selected()]);
    let got = after(&mut engine, 600, &caret);
    assert_eq!(sent(&got, conn), [NO_FILE], "the selection ended");
    let mention = EditorEvent::Mention {
        path: "/w/b.rs".into(),
        line_start: None,
        line_end: None,
    };
    let got = after(&mut engine, 800, &mention);
    assert_eq!(sent(&got, conn).len(), 1, "mentions pass");
}

#[test]
fn mentions_only_pushes_no_selection_and_pause_holds_everything() {
    let (mut engine, conn) = ready(ContextPolicy {
        mode: SharingMode::MentionsOnly,
        ..ContextPolicy::default()
    });
    let got = after(
        &mut engine,
        10,
        &selected("/w/a.rs", "fn", range((1, 0), (1, 2))),
    );
    assert_eq!(sent(&got, conn), [NO_FILE]);
    let mention = EditorEvent::Mention {
        path: "/w/a.rs".into(),
        line_start: Some(1),
        line_end: Some(2),
    };
    let got = after(&mut engine, 200, &mention);
    assert_eq!(
        sent(&got, conn),
        [
            r#"{"jsonrpc":"2.0","method":"at_mentioned","params":{"filePath":"/w/a.rs","lineStart":1,"lineEnd":2}}"#
        ]
    );
    let got = after(
        &mut engine,
        400,
        &EditorEvent::SharingPaused { paused: true },
    );
    assert!(sent(&got, conn).is_empty(), "already no file: {got:?}");
    assert!(engine.policy().paused);
    assert_eq!(engine.policy().mode, SharingMode::MentionsOnly);
    assert!(
        sent(&after(&mut engine, 600, &mention), conn).is_empty(),
        "paused"
    );
    // Resumed in "everything": the current selection goes out at once.
    let everything = EditorEvent::PolicyChanged {
        policy: ContextPolicy::default(),
    };
    engine.handle_editor_event(at(800), &everything);
    let mut got = Drained::default();
    drain(&mut engine, &mut got);
    assert_eq!(sent(&got, conn), [a_rs_selected()]);
    let got = after(
        &mut engine,
        1_000,
        &EditorEvent::SharingPaused { paused: true },
    );
    assert_eq!(
        sent(&got, conn),
        [NO_FILE],
        "pausing clears the file at once"
    );
}

// ---- the property ------------------------------------------------------------------------

/// The files of the random editor: (path, denied by the defaults).
const FILES: &[&str] = &[
    "/w/src/main.rs",
    "/w/notes.md",
    "/w/.env",
    "/w/deploy/id_ed25519",
    "/w/secret/plan.txt",
    "/w/target/gen.rs",
    "/w/.git/config",
    "/outside/cert.pem",
];

/// Whether `FILES[file]` is denied under the generated policy's switches: the defaults deny
/// 2, 3, 6 and 7; `secret/` in the deny list 4; the ignore file 5.
fn oracle_denies(file: usize, deny_secret: bool, ignore_target: bool) -> bool {
    matches!(file, 2 | 3 | 6 | 7) || (file == 4 && deny_secret) || (file == 5 && ignore_target)
}

/// A marker only `FILES[file]`'s text and diagnostics carry.
fn marker(file: usize) -> String {
    format!("MARK{file}Q")
}

#[derive(Clone, Debug)]
enum Step {
    Open(usize),
    Activate(usize),
    Select(usize, bool),
    Close(usize),
    Diagnose(usize),
    Mention(usize),
    Pause(bool),
    Mode(SharingMode),
    Call(usize, usize),
    Wait,
}

fn step() -> impl Strategy<Value = Step> {
    let file = 0..FILES.len();
    let mode = prop::sample::select(vec![
        SharingMode::Everything,
        SharingMode::SelectionOnly,
        SharingMode::MentionsOnly,
    ]);
    prop_oneof![
        file.clone().prop_map(Step::Open),
        file.clone().prop_map(Step::Activate),
        (file.clone(), any::<bool>()).prop_map(|(f, empty)| Step::Select(f, empty)),
        file.clone().prop_map(Step::Close),
        file.clone().prop_map(Step::Diagnose),
        file.clone().prop_map(Step::Mention),
        any::<bool>().prop_map(Step::Pause),
        mode.prop_map(Step::Mode),
        (0..READS.len(), file).prop_map(|(tool, f)| Step::Call(tool, f)),
        Just(Step::Wait),
    ]
}

const READS: &[&str] = &[
    "getOpenEditors",
    "getCurrentSelection",
    "getLatestSelection",
    "getDiagnostics",
    "getDiagnosticsOf",
    "checkDocumentDirty",
];

/// The editor's whole truth for a pulled read, secrets included.
fn editor_truth(request: &ToolRequest, open: &[usize], active: Option<usize>) -> ToolOutcome {
    let any = active.unwrap_or(2);
    match request {
        ToolRequest::GetOpenEditors => ToolOutcome::OpenEditors {
            tabs: open
                .iter()
                .map(|&f| OpenTab {
                    path: FILES[f].into(),
                    language_id: None,
                    is_dirty: false,
                    is_untitled: false,
                    is_active: Some(f) == active,
                })
                .collect(),
        },
        ToolRequest::GetCurrentSelection | ToolRequest::GetLatestSelection => {
            ToolOutcome::Selection {
                path: FILES[any].into(),
                text: marker(any),
                selection: range((0, 0), (0, 4)),
            }
        }
        ToolRequest::GetDiagnostics { .. } => ToolOutcome::Diagnostics {
            files: (0..FILES.len())
                .map(|f| FileDiagnostics {
                    path: FILES[f].into(),
                    diagnostics: vec![crate::ide::Diagnostic {
                        message: marker(f),
                        severity: Severity::Error,
                        range: Range::default(),
                        source: None,
                        code: None,
                    }],
                })
                .collect(),
        },
        ToolRequest::CheckDocumentDirty { .. } => ToolOutcome::DocumentDirty {
            is_dirty: true,
            is_untitled: false,
        },
        _ => ToolOutcome::Failed {
            message: "not a read".into(),
        },
    }
}

fn name_of(path: &str) -> &str {
    path.rsplit('/').next().unwrap_or(path)
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(96))]
    #[test]
    fn no_denied_name_or_text_is_ever_sent(
        steps in prop::collection::vec(step(), 1..40),
        deny_secret in any::<bool>(),
        ignore_target in any::<bool>(),
        paused in any::<bool>(),
        pulled in any::<bool>(),
    ) {
        let policy = ContextPolicy {
            deny: if deny_secret { vec!["secret/".into()] } else { vec![] },
            ignore_files: if ignore_target {
                vec![IgnoreFile { dir: "/w".into(), text: "# build output\ntarget/\n".into() }]
            } else {
                vec![]
            },
            mode: SharingMode::Everything,
            paused,
        };
        let (mut engine, conn, mut out) = connected(|c| {
            c.ready_delay_ms = 0;
            c.workspace_folders = vec!["/w".into()];
            c.policy = policy.clone();
            if pulled {
                c.reads = crate::ide::ReadSources::all(ReadSource::Editor);
            }
        });
        let mut now = 0;
        let mut open: Vec<usize> = Vec::new();
        let mut active = None;
        let mut current = policy.clone();
        for (n, step) in steps.iter().enumerate() {
            now += 37;
            match *step {
                Step::Open(f) => {
                    if !open.contains(&f) { open.push(f); }
                    engine.handle_editor_event(at(now), &EditorEvent::DocumentOpened {
                        path: FILES[f].into(), language_id: None, is_dirty: false, is_untitled: false,
                    });
                }
                Step::Activate(f) => {
                    if !open.contains(&f) { open.push(f); }
                    active = Some(f);
                    engine.handle_editor_event(at(now), &activated(FILES[f]));
                }
                Step::Select(f, empty) => {
                    if !open.contains(&f) { open.push(f); }
                    active = Some(f);
                    let r = if empty { range((2, 2), (2, 2)) } else { range((0, 0), (0, 4)) };
                    let text = if empty { String::new() } else { marker(f) };
                    engine.handle_editor_event(at(now), &selected(FILES[f], &text, r));
                }
                Step::Close(f) => {
                    open.retain(|&o| o != f);
                    if active == Some(f) { active = None; }
                    engine.handle_editor_event(at(now), &EditorEvent::DocumentClosed { path: FILES[f].into() });
                }
                Step::Diagnose(f) => engine.handle_editor_event(at(now), &EditorEvent::DiagnosticsChanged {
                    path: FILES[f].into(),
                    diagnostics: vec![crate::ide::Diagnostic {
                        message: marker(f), severity: Severity::Warning, range: Range::default(),
                        source: None, code: None,
                    }],
                }),
                Step::Mention(f) => engine.handle_editor_event(at(now), &EditorEvent::Mention {
                    path: FILES[f].into(), line_start: None, line_end: None,
                }),
                Step::Pause(p) => {
                    current.paused = p;
                    engine.handle_editor_event(at(now), &EditorEvent::SharingPaused { paused: p });
                }
                Step::Mode(mode) => {
                    current.mode = mode;
                    engine.handle_editor_event(at(now), &EditorEvent::PolicyChanged { policy: current.clone() });
                }
                Step::Call(tool, f) => {
                    let (name, args) = match READS[tool] {
                        "getDiagnosticsOf" => ("getDiagnostics", format!(r#"{{"uri":"file://{}"}}"#, FILES[f])),
                        "checkDocumentDirty" => ("checkDocumentDirty", format!(r#"{{"filePath":"{}"}}"#, FILES[f])),
                        other => (other, "{}".to_owned()),
                    };
                    engine.handle_bytes(at(now), conn, &call(100 + n as u32, name, &args)).unwrap();
                }
                Step::Wait => {
                    now += 400;
                    engine.handle_timeout(at(now));
                }
            }
            let mut step_out = Drained::default();
            drain(&mut engine, &mut step_out);
            // The editor answers every pulled read with everything it has.
            for event in &step_out.events {
                if let EngineEvent::ToolCall { id, request, .. } = event {
                    let truth = editor_truth(request, &open, active);
                    engine.handle_tool_outcome(at(now), *id, &truth).unwrap();
                }
            }
            drain(&mut engine, &mut step_out);
            for (c, bytes) in step_out.bytes { out.bytes.entry(c).or_default().extend(bytes); }
            out.events.extend(step_out.events);
        }
        engine.handle_timeout(at(now + 5_000));
        drain(&mut engine, &mut out);
        let wire = String::from_utf8_lossy(out.bytes.get(&conn).map_or(&[][..], |b| b));
        for (f, path) in FILES.iter().enumerate() {
            if oracle_denies(f, deny_secret, ignore_target) {
                // The model's own arguments may name a denied file: its name may come back in
                // "Document not open: <path>", never with anything of the editor's.
                let own_argument = format!("Document not open: {path}");
                let wire = wire.replace(&own_argument, "");
                prop_assert!(!wire.contains(name_of(path)), "{path} sent: {wire}");
                prop_assert!(!wire.contains(&marker(f)), "text of {path} sent: {wire}");
            }
        }
        if paused && !steps.iter().any(|s| matches!(s, Step::Pause(false) | Step::Mode(_))) {
            for (f, path) in FILES.iter().enumerate() {
                prop_assert!(!wire.contains(&marker(f)), "paused, yet {path}'s text was sent");
            }
        }
    }
}
