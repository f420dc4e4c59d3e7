//! A client's first seconds on virtual time: the selection sent again until its first
//! `tools/call`, a mention that waited held once for the CLI's connect pace (push_schedule.rs).

use super::*;

const SELECTION: &str = r#"{"jsonrpc":"2.0","method":"selection_changed","params":{"text":"fn","filePath":"/w/a.rs","fileUrl":"file:///w/a.rs","selection":{"start":{"line":1,"character":0},"end":{"line":1,"character":2},"isEmpty":false}}}"#;
const MENTION: &str =
    r#"{"jsonrpc":"2.0","method":"at_mentioned","params":{"filePath":"/w/a.rs","lineStart":1}}"#;
const TOOLS_LIST: &str = r#"{"jsonrpc":"2.0","id":1,"method":"tools/list"}"#;

fn selected() -> EditorEvent {
    let at = |character| crate::ide::Position { line: 1, character };
    EditorEvent::SelectionChanged {
        path: "/w/a.rs".into(),
        text: "fn".into(),
        selection: crate::ide::Range {
            start: at(0),
            end: at(2),
        },
    }
}

fn mentioned() -> EditorEvent {
    EditorEvent::Mention {
        path: "/w/a.rs".into(),
        line_start: Some(1),
        line_end: None,
    }
}

/// An engine (readiness 500 ms, the default window) holding a selection and a mention made
/// before any client, and a client whose `initialize` and `initialized` came at 0; its
/// `tools/list` is the input for `tools_list_at`.
fn slow_client(tools_list_at: u64) -> (Engine, ConnId, Vec<(u64, Vec<u8>)>) {
    client_with(|_| {}, tools_list_at)
}

/// [`slow_client`] with `config` applied to the engine's configuration.
fn client_with(
    config: impl FnOnce(&mut Config),
    tools_list_at: u64,
) -> (Engine, ConnId, Vec<(u64, Vec<u8>)>) {
    let mut engine = engine_with(config);
    engine.handle_editor_event(at(0), &selected());
    engine.handle_editor_event(at(0), &mentioned());
    let conn = engine.handle_accept(at(0));
    let mut bytes = upgrade();
    bytes.extend(text(INIT));
    bytes.extend(text(INITIALIZED));
    engine.handle_bytes(at(0), conn, &bytes).unwrap();
    drain(&mut engine, &mut Drained::default());
    (engine, conn, vec![(tools_list_at, text(TOOLS_LIST))])
}

/// Runs the engine's timers up to `until`, and each of `inputs` (bytes from the client,
/// oldest first) at its time; returns each push the client got (no replies) with its time.
fn pushes_until(
    engine: &mut Engine,
    conn: ConnId,
    until: u64,
    mut inputs: Vec<(u64, Vec<u8>)>,
) -> Vec<(u64, String)> {
    inputs.reverse();
    let mut out = Vec::new();
    loop {
        let timer = engine.poll_timeout().map(Timestamp::as_millis);
        let next = [timer, inputs.last().map(|(t, _)| *t)]
            .into_iter()
            .flatten()
            .min();
        let Some(now) = next.filter(|t| *t <= until) else {
            return out;
        };
        match inputs.pop_if(|(t, _)| *t == now) {
            Some((_, bytes)) => engine.handle_bytes(at(now), conn, &bytes).unwrap(),
            None => engine.handle_timeout(at(now)),
        }
        let mut drained = Drained::default();
        drain(engine, &mut drained);
        let bytes = drained.bytes.remove(&conn).unwrap_or_default();
        out.extend(
            replies(&bytes)
                .into_iter()
                .filter(|m| !m.contains(r#""id":"#))
                .map(|m| (now, m)),
        );
    }
}

#[test]
fn the_selection_is_sent_again_on_doubling_gaps_until_the_window_ends() {
    let (mut engine, conn, inputs) = slow_client(100);
    let pushes = pushes_until(&mut engine, conn, 60_000, inputs);
    let selections: Vec<u64> = pushes
        .iter()
        .filter(|(_, m)| m == SELECTION)
        .map(|(t, _)| *t)
        .collect();
    assert_eq!(selections, [500, 1_000, 2_000, 4_000, 8_000, 16_000]);
    assert!(
        pushes.iter().all(|(_, m)| m == SELECTION || m == MENTION),
        "{pushes:?}"
    );
}

#[test]
fn the_first_tool_call_stops_the_repeats_and_sends_the_held_mention() {
    // tools/list at 3 s: the mention is held until 15 s, but the prompt's closeAllDiffTabs
    // at 1.2 s proves the CLI listens.
    let (mut engine, conn, mut inputs) = slow_client(3_000);
    inputs.insert(0, (1_200, call(2, "closeAllDiffTabs", "{}")));
    let pushes = pushes_until(&mut engine, conn, 60_000, inputs);
    let expected = [
        (500, SELECTION.to_owned()),
        (1_000, SELECTION.to_owned()),
        (1_200, MENTION.to_owned()),
    ];
    assert_eq!(pushes, expected);
}

#[test]
fn a_mention_that_waited_goes_once_four_times_the_connect_pace_after_tools_list() {
    // An idle CLI (tools/list 100 ms after initialize): the 1.5 s floor after tools/list.
    let (mut engine, conn, inputs) = slow_client(100);
    let mentions: Vec<(u64, String)> = pushes_until(&mut engine, conn, 60_000, inputs)
        .into_iter()
        .filter(|(_, m)| m == MENTION)
        .collect();
    assert_eq!(mentions, [(1_600, MENTION.to_owned())]);
    // A loaded one (2 s): held 8 s after tools/list, then sent once.
    let (mut engine, conn, inputs) = slow_client(2_000);
    let mentions: Vec<(u64, String)> = pushes_until(&mut engine, conn, 60_000, inputs)
        .into_iter()
        .filter(|(_, m)| m == MENTION)
        .collect();
    assert_eq!(mentions, [(10_000, MENTION.to_owned())]);
}

#[test]
fn a_mention_made_after_ready_goes_at_once() {
    let (mut engine, conn, inputs) = slow_client(2_000);
    pushes_until(&mut engine, conn, 3_000, inputs);
    engine.handle_editor_event(at(3_000), &mentioned());
    let mut drained = Drained::default();
    drain(&mut engine, &mut drained);
    assert_eq!(
        replies(&drained.bytes[&conn]),
        [MENTION],
        "the user asked now: the CLI is most likely listening"
    );
    let held: Vec<(u64, String)> = pushes_until(&mut engine, conn, 60_000, Vec::new())
        .into_iter()
        .filter(|(_, m)| m == MENTION)
        .collect();
    assert_eq!(held, [(10_000, MENTION.to_owned())], "the one that waited");
}

#[test]
fn a_zero_window_sends_everything_once_at_ready() {
    let (mut engine, conn, inputs) = client_with(|c| c.startup_window_ms = 0, 0);
    let pushes = pushes_until(&mut engine, conn, 60_000, inputs);
    let expected = [(500, SELECTION.to_owned()), (500, MENTION.to_owned())];
    assert_eq!(pushes, expected);
}
