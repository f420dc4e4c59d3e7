//! `idelink serve`'s memory against clients that pile up large proposals: a real process on a
//! real socket, its peak resident set read from `/proc/<pid>/status` (Linux).
#![cfg(target_os = "linux")]
#![expect(
    clippy::unwrap_used,
    reason = "a test: any failure must stop it loudly"
)]

use idelink_test_client::Client;
use serde_json::{Value, json};
use std::process::{Child, Stdio};
use std::sync::mpsc;
use std::thread;

mod support;

use support::{idelink, lines, stop, temp_dir, wait_for_line};

/// One proposal's contents: the size the issue measured (48 MiB), under the engine's 64 MiB
/// message cap.
const PROPOSAL_BYTES: usize = 48 << 20;
/// Clients, each sending [`PER_CLIENT`] proposals and leaving them pending.
const CLIENTS: usize = 4;
const PER_CLIENT: usize = 3;
/// The engine's default budgets (`max_pending_proposal_bytes`,
/// `max_total_pending_proposal_bytes`).
const PER_CONNECTION_BUDGET: usize = 64 << 20;
const TOTAL_BUDGET: usize = 128 << 20;

/// `VmHWM` (peak) and `VmRSS` (now) of process `pid`, in MiB.
fn memory_mib(pid: u32) -> (usize, usize) {
    let status = std::fs::read_to_string(format!("/proc/{pid}/status")).unwrap();
    let field = |name: &str| -> usize {
        let line = status.lines().find(|l| l.starts_with(name)).unwrap();
        let kib: usize = line.split_whitespace().nth(1).unwrap().parse().unwrap();
        kib / 1024
    };
    (field("VmHWM:"), field("VmRSS:"))
}

fn error_message(response: &Value) -> String {
    assert_eq!(response["error"]["code"], -32000, "{response}");
    response["error"]["message"].as_str().unwrap().to_owned()
}

/// The serve process, killed if the test fails before it is stopped.
struct Running(Child);

impl Drop for Running {
    fn drop(&mut self) {
        if matches!(self.0.try_wait(), Ok(None)) {
            let _ = self.0.kill();
            let _ = self.0.wait();
        }
    }
}

#[test]
fn pending_proposals_are_held_to_a_byte_budget() {
    let dir = temp_dir("serve-memory");
    let work = dir.join("work").canonicalize().unwrap();
    let lock_dir = dir.join("ide");
    let mut serve = Running(
        idelink(&["serve", "--lock-dir"])
            .arg(&lock_dir)
            .arg(&work)
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .spawn()
            .unwrap(),
    );
    let child = &mut serve.0;
    let out = lines(child.stdout.take().unwrap());
    let banner = wait_for_line(&out, "on 127.0.0.1:");
    let port: u16 = banner.rsplit(':').next().unwrap().parse().unwrap();
    let lock: Value = serde_json::from_str(
        &std::fs::read_to_string(lock_dir.join(format!("{port}.lock"))).unwrap(),
    )
    .unwrap();
    let token = lock["authToken"].as_str().unwrap().to_owned();
    wait_for_line(&out, "Ctrl-C stops");
    let (_, start_mib) = memory_mib(child.id());

    let line = format!("{}\n", "x".repeat(99));
    let contents = line.repeat(PROPOSAL_BYTES / line.len());
    let mut clients = Vec::new();
    // Per client, in order: (request id, its bytes, the -32000 message if refused).
    let mut sent: Vec<Vec<(u64, usize, Option<String>)>> = Vec::new();
    for c in 0..CLIENTS {
        let mut client = Client::connect_initialized(port, &token).unwrap();
        let mut calls = Vec::new();
        for p in 0..PER_CLIENT {
            let path = format!("{}/c{c}-p{p}.txt", work.to_str().unwrap());
            let tab = format!("tab-{p}");
            let bytes = 2 * path.len() + contents.len() + tab.len();
            let args = json!({"old_file_path": path, "new_file_path": path,
                "new_file_contents": contents, "tab_name": tab});
            let id = client
                .send_request("tools/call", json!({"name": "openDiff", "arguments": args}))
                .unwrap();
            calls.push((id, bytes, None));
        }
        // Answers come in order: once `tools/list` is answered, every proposal before it was
        // taken (pending) or refused.
        let list = client.send_request("tools/list", json!({})).unwrap();
        loop {
            let message = client.next_json().unwrap();
            if message["id"] == json!(list) {
                break;
            }
            let call = calls.iter_mut().find(|(id, ..)| message["id"] == json!(id));
            call.unwrap_or_else(|| panic!("an answer to no proposal: {message}"))
                .2 = Some(error_message(&message));
        }
        sent.push(calls);
        // Idle from here while the others send (a minute under load): it answers serve's
        // keepalive pings, or serve would close it and free its pending proposal.
        let (stop, stopped) = mpsc::channel();
        let idle = thread::spawn(move || {
            let idle = client.answer_pings_until(&stopped);
            (client, idle)
        });
        clients.push((stop, idle));
    }
    let (peak_mib, now_mib) = memory_mib(child.id());
    // Every client still connected: one serve closed would have freed its proposals.
    let clients: Vec<Client> = clients
        .into_iter()
        .enumerate()
        .map(|(c, (stop, idle))| {
            drop(stop);
            let (client, idle) = idle.join().unwrap();
            idle.unwrap_or_else(|e| panic!("client {c} did not stay connected and idle: {e}"));
            client
        })
        .collect();
    let offered_mib = (CLIENTS * PER_CLIENT * PROPOSAL_BYTES) >> 20;
    let pending: Vec<usize> = sent
        .iter()
        .flatten()
        .filter(|(_, _, refused)| refused.is_none())
        .map(|(_, bytes, _)| *bytes)
        .collect();
    eprintln!(
        "serve: {start_mib} MiB at start; {offered_mib} MiB of proposals offered, {} pending; \
         peak {peak_mib} MiB, now {now_mib} MiB",
        pending.len()
    );

    // The first proposal of each of the first two clients fits both budgets; every other
    // one passes one of them and is answered at once, saying which.
    assert_eq!(pending.len(), 2, "pending proposals");
    for (c, calls) in sent.iter().enumerate() {
        for (p, (_, bytes, refused)) in calls.iter().enumerate() {
            let expected = if c < 2 && p == 0 {
                wait_for_line(&out, &format!("openDiff c{c}-p0.txt"));
                None
            } else if c < 2 {
                Some(format!(
                    "this request's {bytes} bytes would bring the tool calls pending on this \
                     connection to {} bytes, over its budget of {PER_CONNECTION_BUDGET} bytes: \
                     wait for an answer or cancel one",
                    calls[0].1 + bytes
                ))
            } else {
                Some(format!(
                    "this request's {bytes} bytes would bring the tool calls pending on all \
                     connections to {} bytes, over the editor's budget of {TOTAL_BUDGET} bytes: \
                     wait for an answer or cancel one",
                    pending.iter().sum::<usize>() + bytes
                ))
            };
            assert_eq!(refused, &expected, "client {c}, proposal {p}");
        }
    }
    // What is pending (two proposals, held by the review queue), and one message's worth of
    // reading and parsing at a time: nowhere near every proposal offered.
    let bound_mib = start_mib + (TOTAL_BUDGET >> 20) + 4 * (PROPOSAL_BYTES >> 20);
    assert!(
        peak_mib < bound_mib,
        "peak {peak_mib} MiB over the bound of {bound_mib} MiB ({offered_mib} MiB offered)"
    );
    drop(clients);
    stop(child);
}
