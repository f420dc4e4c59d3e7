//! The back-pressure scenario (a client that pipelines calls and does not read) against the
//! tokio host, with the peak-memory bound every host is held to. Its own test binary, so the
//! peak memory of the process is the host's and the client's alone.
#![expect(
    clippy::unwrap_used,
    reason = "a test: any failure must stop it loudly"
)]

mod common;

use common::{TempDir, blocking, config};
use idelink_core::host_rules::PumpPolicy;
use idelink_test_client::backpressure::{
    PEAK_GROWTH_BOUND_BYTES, peak_rss_bytes, pipeline_without_reading, rss_bytes,
};
use idelink_tokio::Host;
use std::time::Duration;

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_client_that_pipelines_without_reading_is_paused_within_the_bound() {
    let dir = TempDir::new("backpressure");
    let before = rss_bytes().unwrap();
    let (host, _events) = Host::start(config(&dir)).unwrap();
    let (port, token) = (host.port(), host.auth_token().as_str().to_owned());
    let report = blocking(move || pipeline_without_reading(port, &token).unwrap()).await;
    let growth = peak_rss_bytes().unwrap().saturating_sub(before);
    host.shutdown(Duration::from_secs(1)).await;
    let pause = PumpPolicy::DEFAULT.pause_reads_at_bytes;
    assert!(
        report.answer_bytes >= pause,
        "the client stopped before the server paused it: {report:?}"
    );
    assert!(
        growth <= PEAK_GROWTH_BOUND_BYTES,
        "peak memory grew by {growth} bytes, over the bound of {PEAK_GROWTH_BOUND_BYTES}: {report:?}"
    );
    eprintln!("tokio host: {report:?}, peak growth {growth} bytes");
}
