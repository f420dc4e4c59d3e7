//! Runs the back-pressure scenario ([`idelink_test_client::backpressure`]) against a server in
//! another process (Node `startHost`, the relay), whose test measures its own peak memory:
//! `backpressure <port> <token>` prints one JSON line, `{"requests", "requestBytes",
//! "answerBytes", "peakGrowthBoundBytes"}`, or fails with the reason.

use idelink_test_client::backpressure::{PEAK_GROWTH_BOUND_BYTES, pipeline_without_reading};
use std::process::ExitCode;

fn main() -> ExitCode {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let (Some(port), Some(token)) = (args.first().and_then(|p| p.parse().ok()), args.get(1)) else {
        eprintln!("usage: backpressure <port> <token>");
        return ExitCode::from(2);
    };
    match pipeline_without_reading(port, token) {
        Ok(report) => {
            let line = serde_json::json!({
                "requests": report.requests,
                "requestBytes": report.request_bytes,
                "answerBytes": report.answer_bytes,
                "peakGrowthBoundBytes": PEAK_GROWTH_BOUND_BYTES,
            });
            println!("{line}");
            ExitCode::SUCCESS
        }
        Err(e) => {
            eprintln!("backpressure: {e}");
            ExitCode::FAILURE
        }
    }
}
