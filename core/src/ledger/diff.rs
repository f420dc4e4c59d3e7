//! The line diff between a file's baseline and its current text: Myers' greedy O((N+M)·D)
//! algorithm ("An O(ND) Difference Algorithm and Its Variations", 1986, §3 and §4b's
//! backtracking), after the common first and last lines are set aside.
//!
//! Lines keep their line ending (`split_inclusive('\n')`), so joining lines gives back the
//! exact bytes (a file without a final newline, CRLF and lone CR included): undoing a hunk is
//! byte-exact. The edit search is bounded ([`MAX_DIFF_EDITS`]): past it the changed middle is
//! one hunk, still exact, only coarser.

use serde::Serialize;

/// The most lines inserted plus deleted that the search looks for an optimal diff within.
/// Its trace holds about `D²` numbers: at 2,000 that is 4 M `u32`s, 16 MB at the worst, once,
/// for a pathological edit; a turn's ordinary edits stay far below. Past it, the lines
/// between the common first and last lines are one hunk.
pub const MAX_DIFF_EDITS: usize = 2_000;

/// One run of changed lines: `old_lines` lines of the baseline from line `old_start` were
/// replaced by `new_lines` lines of the current text from line `new_start` (0-based line
/// numbers; a count of 0 is a pure insertion or deletion at that line).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "camelCase")]
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
pub struct Hunk {
    /// First baseline line replaced.
    pub old_start: u32,
    /// Baseline lines replaced (the lines removed).
    pub old_lines: u32,
    /// First current line that replaced them.
    pub new_start: u32,
    /// Current lines that replaced them (the lines added).
    pub new_lines: u32,
}

/// `text`'s lines, each with its `\n` (the last one may have none).
pub fn lines(text: &str) -> Vec<&str> {
    text.split_inclusive('\n').collect()
}

/// The hunks that turn `old` into `new`, in order, none adjacent to another.
pub fn hunks(old: &str, new: &str) -> Vec<Hunk> {
    let (a, b) = (lines(old), lines(new));
    let prefix = a.iter().zip(&b).take_while(|(x, y)| x == y).count();
    let (a_rest, b_rest) = (&a[prefix..], &b[prefix..]);
    let suffix = a_rest
        .iter()
        .rev()
        .zip(b_rest.iter().rev())
        .take_while(|(x, y)| x == y)
        .count();
    let (mid_a, mid_b) = (
        &a_rest[..a_rest.len() - suffix],
        &b_rest[..b_rest.len() - suffix],
    );
    if mid_a.is_empty() && mid_b.is_empty() {
        return Vec::new();
    }
    let ops = shortest_edit(mid_a, mid_b).unwrap_or_else(|| {
        let mut ops = vec![Op::Delete; mid_a.len()];
        ops.extend(std::iter::repeat_n(Op::Insert, mid_b.len()));
        ops
    });
    group(&ops, prefix)
}

/// The current text with hunk `hunk` of `hunks(baseline, current)` undone: its current lines
/// replaced by the baseline lines it replaced.
pub fn undo_hunk(baseline: &str, current: &str, hunk: Hunk) -> String {
    let (a, b) = (lines(baseline), lines(current));
    let (ns, nl) = (hunk.new_start as usize, hunk.new_lines as usize);
    let (os, ol) = (hunk.old_start as usize, hunk.old_lines as usize);
    let mut text = String::with_capacity(current.len());
    b[..ns].iter().for_each(|line| text.push_str(line));
    a[os..os + ol].iter().for_each(|line| text.push_str(line));
    b[ns + nl..].iter().for_each(|line| text.push_str(line));
    text
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Op {
    Equal,
    Delete,
    Insert,
}

/// Myers' shortest edit script from `a` to `b`, or `None` past [`MAX_DIFF_EDITS`].
fn shortest_edit(a: &[&str], b: &[&str]) -> Option<Vec<Op>> {
    let (n, m) = (a.len() as isize, b.len() as isize);
    let max_d = (a.len() + b.len()).min(MAX_DIFF_EDITS) as isize;
    let offset = max_d + 1;
    let mut v = vec![0isize; 2 * max_d as usize + 3];
    // trace[d]: the furthest x on each diagonal k in -d..=d after step d (index k + d).
    let mut trace: Vec<Vec<u32>> = Vec::new();
    for d in 0..=max_d {
        for k in (-d..=d).step_by(2) {
            let at = (k + offset) as usize;
            let mut x = if k == -d || (k != d && v[at - 1] < v[at + 1]) {
                v[at + 1]
            } else {
                v[at - 1] + 1
            };
            let mut y = x - k;
            while x < n && y < m && a[x as usize] == b[y as usize] {
                x += 1;
                y += 1;
            }
            v[at] = x;
        }
        trace.push((-d..=d).map(|k| v[(k + offset) as usize] as u32).collect());
        let reached = (n - m).abs() <= d && (n - m + d) % 2 == 0;
        if reached && v[(n - m + offset) as usize] >= n {
            return Some(backtrack(&trace, n, m));
        }
    }
    None
}

/// The edit script, first op first, from the trace of the search that reached `(n, m)`.
fn backtrack(trace: &[Vec<u32>], n: isize, m: isize) -> Vec<Op> {
    let at = |d: isize, k: isize| trace[d as usize][(k + d) as usize] as isize;
    let (mut x, mut y) = (n, m);
    let mut ops = Vec::with_capacity((n + m) as usize);
    for d in (1..trace.len() as isize).rev() {
        let k = x - y;
        let down = k == -d || (k != d && at(d - 1, k - 1) < at(d - 1, k + 1));
        let prev_k = if down { k + 1 } else { k - 1 };
        let prev_x = at(d - 1, prev_k);
        let prev_y = prev_x - prev_k;
        let (start_x, start_y) = if down {
            (prev_x, prev_y + 1)
        } else {
            (prev_x + 1, prev_y)
        };
        while x > start_x && y > start_y {
            ops.push(Op::Equal);
            x -= 1;
            y -= 1;
        }
        ops.push(if down { Op::Insert } else { Op::Delete });
        (x, y) = (prev_x, prev_y);
    }
    ops.extend(std::iter::repeat_n(Op::Equal, x as usize));
    ops.reverse();
    ops
}

/// The runs of non-equal ops as hunks, lines counted from `first_line`.
fn group(ops: &[Op], first_line: usize) -> Vec<Hunk> {
    let mut hunks: Vec<Hunk> = Vec::new();
    let (mut old, mut new) = (first_line as u32, first_line as u32);
    let mut open = false;
    for op in ops {
        if *op == Op::Equal {
            open = false;
            old += 1;
            new += 1;
            continue;
        }
        if !open {
            hunks.push(Hunk {
                old_start: old,
                old_lines: 0,
                new_start: new,
                new_lines: 0,
            });
            open = true;
        }
        let Some(hunk) = hunks.last_mut() else {
            continue;
        };
        if *op == Op::Delete {
            hunk.old_lines += 1;
            old += 1;
        } else {
            hunk.new_lines += 1;
            new += 1;
        }
    }
    hunks
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    fn h(old_start: u32, old_lines: u32, new_start: u32, new_lines: u32) -> Hunk {
        Hunk {
            old_start,
            old_lines,
            new_start,
            new_lines,
        }
    }

    #[test]
    fn one_changed_line_is_one_hunk() {
        assert_eq!(hunks("a\nb\nc\n", "a\nB\nc\n"), vec![h(1, 1, 1, 1)]);
    }

    #[test]
    fn separate_changes_are_separate_hunks() {
        assert_eq!(
            hunks("a\nb\nc\nd\ne\n", "A\nb\nc\nd\nE\nf\n"),
            vec![h(0, 1, 0, 1), h(4, 1, 4, 2)]
        );
    }

    #[test]
    fn creation_deletion_and_a_missing_final_newline() {
        assert_eq!(hunks("", "x\ny"), vec![h(0, 0, 0, 2)]);
        assert_eq!(hunks("x\ny\n", ""), vec![h(0, 2, 0, 0)]);
        assert_eq!(hunks("x\ny\n", "x\ny"), vec![h(1, 1, 1, 1)]);
        assert_eq!(hunks("same\r\n", "same\r\n"), vec![]);
    }

    #[test]
    fn myers_finds_the_shortest_script() {
        // Myers' own example: ABCABBA → CBABAC takes 5 edits.
        let (a, b) = ("A\nB\nC\nA\nB\nB\nA\n", "C\nB\nA\nB\nA\nC\n");
        let edits: u32 = hunks(a, b).iter().map(|h| h.old_lines + h.new_lines).sum();
        assert_eq!(edits, 5);
    }

    #[test]
    fn past_the_edit_bound_the_middle_is_one_exact_hunk() {
        let old: String = (0..3000).map(|i| format!("{i}\n")).collect();
        let new: String = (0..3000).map(|i| format!("{}\n", i * 7 + 1)).collect();
        let found = hunks(&format!("top\n{old}end\n"), &format!("top\n{new}end\n"));
        assert_eq!(found.len(), 1);
        assert_eq!(
            undo_hunk(
                &format!("top\n{old}end\n"),
                &format!("top\n{new}end\n"),
                found[0]
            ),
            format!("top\n{old}end\n")
        );
    }

    fn text() -> impl Strategy<Value = String> {
        proptest::collection::vec(prop_oneof!["a\n", "b\n", "c\r\n", "d", "\n", "é\n"], 0..24)
            .prop_map(|parts| parts.concat())
    }

    proptest! {
        /// Undoing the hunks one at a time, the first listed each time, restores the baseline
        /// byte for byte; each undo takes at least that hunk's edits away.
        #[test]
        fn undoing_every_hunk_restores_the_baseline(old in text(), new in text()) {
            let edits = |current: &str| -> u32 {
                hunks(&old, current).iter().map(|h| h.old_lines + h.new_lines).sum()
            };
            let mut current = new;
            while let Some(first) = hunks(&old, &current).first().copied() {
                let before = edits(&current);
                prop_assert!(before >= first.old_lines + first.new_lines);
                current = undo_hunk(&old, &current, first);
                prop_assert!(edits(&current) + first.old_lines + first.new_lines <= before);
            }
            prop_assert_eq!(current, old);
        }

        /// Undoing the last hunk first works as well (hunks are independent).
        #[test]
        fn undoing_from_the_last_hunk_restores_the_baseline(old in text(), new in text()) {
            let mut current = new;
            for _ in 0..=old.len() + current.len() {
                let Some(last) = hunks(&old, &current).last().copied() else { break };
                current = undo_hunk(&old, &current, last);
            }
            prop_assert_eq!(current, old);
        }
    }
}
