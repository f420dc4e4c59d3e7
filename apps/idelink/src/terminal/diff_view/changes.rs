//! Where two texts differ, found in one pass over their lines (no diff algorithm): for a
//! summary, which shows only a few lines of a proposal but must not hide where the rest of it
//! changes the file.
//!
//! The common head and tail bound the changed region; inside it each side's lines are counted
//! in a hash map (a line is matched by its exact text, so a collision cannot hide one) and a
//! line with no copy left on the other side is *removed* (on disk) or *added* (proposed). A
//! line that only moved is in neither list, but it is inside the changed region.

use std::collections::HashMap;
use std::fmt::Write;

/// Numbers of lines listed before the rest are only counted.
const MAX_RANGES: usize = 8;

/// How `new` differs from `old`, in 1-based line numbers.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Changes {
    /// The first line that differs (the same number on both sides).
    pub first: usize,
    /// The last line that differs, on disk (`first - 1` when lines were only added).
    pub last_old: usize,
    /// The last line that differs in the proposal (`first - 1` when lines were only removed).
    pub last_new: usize,
    /// Lines on disk with no copy in the proposal's changed region.
    pub removed: Lines,
    /// Lines of the proposal with no copy in the changed region on disk.
    pub added: Lines,
}

/// A set of line numbers as ascending ranges, with their count.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Lines {
    /// How many lines.
    pub count: usize,
    /// The lines as inclusive ranges, ascending.
    pub ranges: Vec<(usize, usize)>,
}

impl Lines {
    fn push(&mut self, line: usize) {
        self.count += 1;
        match self.ranges.last_mut() {
            Some((_, end)) if *end + 1 == line => *end = line,
            _ => self.ranges.push((line, line)),
        }
    }

    /// `1, 40-42, 15001` (at most [`MAX_RANGES`] ranges, then how many more).
    pub fn describe(&self) -> String {
        let mut out = String::new();
        for (i, (start, end)) in self.ranges.iter().take(MAX_RANGES).enumerate() {
            let sep = if i == 0 { "" } else { ", " };
            let _ = if start == end {
                write!(out, "{sep}{start}")
            } else {
                write!(out, "{sep}{start}-{end}")
            };
        }
        if self.ranges.len() > MAX_RANGES {
            let _ = write!(out, " and {} more ranges", self.ranges.len() - MAX_RANGES);
        }
        out
    }
}

impl Changes {
    /// Where `new` differs from `old` (their lines as `split_inclusive('\n')` gives them); None
    /// when they are the same.
    pub fn of(old: &[&str], new: &[&str]) -> Option<Changes> {
        let head = old.iter().zip(new).take_while(|(a, b)| a == b).count();
        if head == old.len() && head == new.len() {
            return None;
        }
        let room = old.len().min(new.len()) - head;
        let tail = old
            .iter()
            .rev()
            .zip(new.iter().rev())
            .take(room)
            .take_while(|(a, b)| a == b)
            .count();
        let old_mid = &old[head..old.len() - tail];
        let new_mid = &new[head..new.len() - tail];
        Some(Changes {
            first: head + 1,
            last_old: old.len() - tail,
            last_new: new.len() - tail,
            removed: unmatched(old_mid, new_mid, head),
            added: unmatched(new_mid, old_mid, head),
        })
    }
}

/// The lines of `side` (numbered from `offset + 1`) that `other` has no copy left for.
fn unmatched(side: &[&str], other: &[&str], offset: usize) -> Lines {
    let mut copies: HashMap<&str, usize> = HashMap::with_capacity(other.len());
    for line in other {
        *copies.entry(line).or_default() += 1;
    }
    let mut lines = Lines::default();
    for (i, line) in side.iter().enumerate() {
        match copies.get_mut(line) {
            Some(n) if *n > 0 => *n -= 1,
            _ => lines.push(offset + i + 1),
        }
    }
    lines
}

#[cfg(test)]
mod tests {
    use super::*;

    fn lines(text: &str) -> Vec<&str> {
        text.split_inclusive('\n').collect()
    }

    #[test]
    fn a_change_far_from_the_first_is_found() {
        let old: String = (1..=20_000).map(|i| format!("line {i}\n")).collect();
        let new = old
            .replace("line 1\n", "line one\n")
            .replace("line 15001\n", "rm -rf /\n");
        let changes = Changes::of(&lines(&old), &lines(&new)).unwrap();
        assert_eq!(changes.first, 1);
        assert_eq!((changes.last_old, changes.last_new), (15_001, 15_001));
        assert_eq!(changes.added.describe(), "1, 15001");
        assert_eq!(changes.removed.describe(), "1, 15001");
        assert_eq!((changes.added.count, changes.removed.count), (2, 2));
    }

    #[test]
    fn insertions_deletions_and_moves() {
        let same = Changes::of(&lines("a\nb\n"), &lines("a\nb\n"));
        assert_eq!(same, None);
        let inserted = Changes::of(&lines("a\nc\n"), &lines("a\nb1\nb2\nc\n")).unwrap();
        assert_eq!(
            (inserted.first, inserted.last_old, inserted.last_new),
            (2, 1, 3)
        );
        assert_eq!(inserted.added.describe(), "2-3");
        assert_eq!(inserted.removed.count, 0);
        let appended = Changes::of(&lines("a\n"), &lines("a\nb\n")).unwrap();
        assert_eq!(
            (appended.first, appended.last_old, appended.last_new),
            (2, 1, 2)
        );
        let moved = Changes::of(&lines("a\nb\nc\n"), &lines("c\nb\na\n")).unwrap();
        assert_eq!((moved.first, moved.last_new), (1, 3));
        assert_eq!((moved.added.count, moved.removed.count), (0, 0));
        // A repeated line is matched once per copy.
        let twice = Changes::of(&lines("x\n"), &lines("x\nx\n")).unwrap();
        assert_eq!(twice.added.describe(), "2");
    }

    #[test]
    fn many_ranges_are_cut_with_a_count() {
        let old: String = (0..100).map(|i| format!("{i}\n")).collect();
        let new: String = (0..100)
            .map(|i| {
                if i % 10 == 0 {
                    format!("changed {i}\n")
                } else {
                    format!("{i}\n")
                }
            })
            .collect();
        let changes = Changes::of(&lines(&old), &lines(&new)).unwrap();
        assert_eq!(changes.added.count, 10);
        assert_eq!(
            changes.added.describe(),
            "1, 11, 21, 31, 41, 51, 61, 71 and 2 more ranges"
        );
    }
}
