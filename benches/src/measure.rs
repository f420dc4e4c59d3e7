//! Timing loops, medians and percentiles, and the one-JSON-object-per-line result format
//! that `scripts/bench_report.py` turns into `docs/benchmarks.md`.

use std::time::{Duration, Instant};

/// How long each timed round of an engine-only operation runs.
pub const ROUND: Duration = Duration::from_millis(300);

/// Nanoseconds per call of `op`, one figure per round: a warm-up, then `rounds` rounds of
/// about `round` each, run in batches sized so the clock is read rarely.
pub fn time_op(rounds: usize, round: Duration, mut op: impl FnMut() -> usize) -> Vec<f64> {
    let warm_until = Instant::now() + round / 2;
    let mut batch = 1u64;
    while Instant::now() < warm_until {
        let start = Instant::now();
        for _ in 0..batch {
            std::hint::black_box(op());
        }
        if start.elapsed() < Duration::from_millis(5) {
            batch *= 2;
        }
    }
    (0..rounds)
        .map(|_| {
            let start = Instant::now();
            let mut calls = 0u64;
            while start.elapsed() < round {
                for _ in 0..batch {
                    std::hint::black_box(op());
                }
                calls += batch;
            }
            start.elapsed().as_nanos() as f64 / calls as f64
        })
        .collect()
}

/// The median of `values` (0 when empty).
pub fn median(values: &[f64]) -> f64 {
    percentile(values, 50.0)
}

/// The `p`th percentile of `values` by nearest rank (0 when empty).
pub fn percentile(values: &[f64], p: f64) -> f64 {
    if values.is_empty() {
        return 0.0;
    }
    let mut sorted = values.to_vec();
    sorted.sort_by(f64::total_cmp);
    let rank = ((p / 100.0) * sorted.len() as f64).ceil() as usize;
    sorted[rank.clamp(1, sorted.len()) - 1]
}

/// Prints one result line: `{"group":…,"name":…,"server":…,"unit":…,"value":<median>,
/// "rounds":[…]}`. `server` is empty for engine-only results.
pub fn emit(group: &str, name: &str, server: &str, unit: &str, rounds: &[f64]) {
    let line = serde_json::json!({
        "group": group,
        "name": name,
        "server": server,
        "unit": unit,
        "value": median(rounds),
        "rounds": rounds,
    });
    println!("{line}");
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn percentiles_by_nearest_rank() {
        let values: Vec<f64> = (1..=100).map(f64::from).collect();
        assert_eq!(median(&values), 50.0);
        assert_eq!(percentile(&values, 99.0), 99.0);
        assert_eq!(percentile(&values, 100.0), 100.0);
        assert_eq!(median(&[3.0, 1.0, 2.0]), 2.0);
        assert_eq!(median(&[]), 0.0);
    }

    #[test]
    fn timing_counts_calls() {
        let mut calls = 0usize;
        let rounds = time_op(2, Duration::from_millis(20), || {
            calls += 1;
            calls
        });
        assert_eq!(rounds.len(), 2);
        assert!(rounds.iter().all(|ns| *ns > 0.0));
        assert!(calls > 2);
    }
}
