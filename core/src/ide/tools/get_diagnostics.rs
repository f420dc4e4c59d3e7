//! `getDiagnostics {uri?}`: `[{uri, diagnostics:[..]}]`, the language diagnostics of one
//! file or of every file that has some.

use std::borrow::Cow;

use super::Tool;
use crate::ide::answer::{Answer, DiagnosticFiles};
use crate::ide::args::Args;
use crate::ide::catalog::{Param, param};
use crate::ide::event::Diagnostic;
use crate::ide::outcome::Answered;
use crate::ide::path::{
    PathStyle, normalize_path, path_from_uri, path_from_uri_undecoded, posix_drive_fallback,
};
use crate::ide::plan::ToolPlan;
use crate::ide::request::{ToolOutcome, ToolRequest};
use crate::ide::state::EditorState;

pub(super) struct Spec;

/// The `uri` argument, if any, as its raw and its percent-decoded path, both normalized.
fn uri(args: &mut Args, style: PathStyle) -> Result<Option<(String, String)>, String> {
    let Some(uri) = args.optional_string("uri")? else {
        return Ok(None);
    };
    let (Some(raw), Some(decoded)) = (
        path_from_uri_undecoded(&uri, style),
        path_from_uri(&uri, style),
    ) else {
        return Err(String::from("argument uri: expected a file:// URI"));
    };
    let raw = normalize_path(raw, style).into_owned();
    let decoded = normalize_path(&decoded, style).into_owned();
    Ok(Some((raw, decoded)))
}

impl Tool for Spec {
    const NAME: &'static str = "getDiagnostics";
    const DESCRIPTION: &'static str = "Get the language diagnostics (errors, warnings, infos, hints) the editor shows, for one file or for every file that has any";
    const PARAMS: &'static [Param] = &[param(
        "uri",
        "string",
        "file:// URI of one file; leave out for all files",
    )];
    const READ: bool = true;

    /// With `uri`, exactly that file (with an empty list when it has none); the raw spelling
    /// is looked up before the percent-decoded one, and on the POSIX style both before the
    /// drive path `/C:/x` stands for (`C:/x`, what an editor on Windows that kept the default
    /// style stores). Without, every file that has diagnostics, ordered by path.
    fn plan<'s>(
        args: &mut Args<'s>,
        state: &'s EditorState,
    ) -> Result<ToolPlan<Answer<'s>>, String> {
        let all = state.diagnostics();
        let Some((raw, decoded)) = uri(args, state.path_style())? else {
            return Ok(ToolPlan::Reply(Answer::Diagnostics(DiagnosticFiles::All(
                all,
            ))));
        };
        let drive = posix_drive_fallback(&decoded)
            .filter(|_| state.path_style() == PathStyle::Posix)
            .and_then(|drive| all.get(drive).map(|found| (drive.to_owned(), found)));
        let file = match (all.get(&raw), all.get(&decoded), drive) {
            (Some(found), _, _) => (Cow::Owned(raw), found),
            (None, Some(found), _) => (Cow::Owned(decoded), found),
            (None, None, Some((drive, found))) => (Cow::Owned(drive), found),
            (None, None, None) => (Cow::Owned(decoded), Default::default()),
        };
        Ok(ToolPlan::Reply(Answer::Diagnostics(DiagnosticFiles::Listed(
            vec![file],
        ))))
    }

    /// `path` is the `uri` argument's path as the CLI writes it (not percent-decoded).
    fn pull(args: &mut Args<'_>, style: PathStyle) -> Option<Result<ToolRequest, String>> {
        Some(uri(args, style).map(|uri| ToolRequest::GetDiagnostics {
            path: uri.map(|(raw, _)| raw),
        }))
    }

    /// `diagnostics`: sorted by path, a path given twice keeping its last diagnostics.
    fn answer<'a>(
        request: &'a ToolRequest,
        outcome: &'a ToolOutcome,
        style: PathStyle,
    ) -> Option<Answered<'a>> {
        let (ToolRequest::GetDiagnostics { path }, ToolOutcome::Diagnostics { files }) =
            (request, outcome)
        else {
            return None;
        };
        // The list reversed, then stably sorted (the last given first among equal paths),
        // then deduplicated (the first of each run kept). A sorted list is smaller code than
        // an ordered map (the wasm module's size), and sorting once keeps it O(n log n).
        let mut paths: Vec<Cow<'a, str>> = files
            .iter()
            .rev()
            .map(|file| normalize_path(&file.path, style))
            .collect();
        let order = stable_order(paths.len(), |a, b| paths[a] < paths[b]);
        let mut by_path: Vec<(Cow<'a, str>, &'a [Diagnostic])> = order
            .into_iter()
            .map(|at| {
                let file = &files[files.len() - 1 - at];
                (std::mem::take(&mut paths[at]), &file.diagnostics[..])
            })
            .collect();
        by_path.dedup_by(|(later, _), (kept, _)| later == kept);
        Some(Answered::Read(Answer::Diagnostics(DiagnosticFiles::Listed(
            match path {
                Some(path) => {
                    let diagnostics = by_path
                        .binary_search_by(|(known, _)| known.as_ref().cmp(path.as_str()))
                        .map_or(&[][..], |at| by_path[at].1);
                    vec![(Cow::Borrowed(path.as_str()), diagnostics)]
                }
                None => by_path.into_iter().filter(|(_, d)| !d.is_empty()).collect(),
            },
        ))))
    }
}

/// The indices `0..len` in the order that sorts their items stably (`less(a, b)`: item `a`
/// goes before item `b`): a bottom-up merge sort, O(n log n) comparisons and two allocations.
/// std's `sort_by` would do as well, but it is some 3 KB of the wasm module for this one list
/// (the only one core sorts).
fn stable_order(len: usize, less: impl Fn(usize, usize) -> bool) -> Vec<usize> {
    let mut order: Vec<usize> = (0..len).collect();
    let mut merged = vec![0; len];
    let mut run = 1;
    while run < len {
        for start in (0..len).step_by(2 * run) {
            let middle = len.min(start + run);
            let end = len.min(start + 2 * run);
            let (mut left, mut right) = (start, middle);
            for slot in &mut merged[start..end] {
                // Stable: the left run's item goes first unless the right one is less.
                let from = if right < end && (left == middle || less(order[right], order[left])) {
                    &mut right
                } else {
                    &mut left
                };
                *slot = order[*from];
                *from += 1;
            }
        }
        std::mem::swap(&mut order, &mut merged);
        run *= 2;
    }
    order
}

#[cfg(test)]
mod tests {
    use proptest::prelude::*;

    proptest! {
        /// The order is the one std's stable sort gives, ties kept in their given order.
        #[test]
        fn stable_order_sorts_as_std_sorts_stably(
            keys in proptest::collection::vec(0u8..8, 0..300),
        ) {
            let order = super::stable_order(keys.len(), |a, b| keys[a] < keys[b]);
            let mut expected: Vec<usize> = (0..keys.len()).collect();
            expected.sort_by_key(|&at| keys[at]);
            prop_assert_eq!(order, expected);
        }
    }
}
