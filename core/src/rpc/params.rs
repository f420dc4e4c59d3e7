//! The members of an object `params`, recorded while the envelope is read.

use crate::json::{Member, Name, members};

/// Members recorded inline: the Claude Code CLI's `tools/call` carries three.
const RECORDED: usize = 3;

/// What the envelope reader learnt of `params` while it read it: when `params` is an object
/// (JSON-RPC 2.0 §4.2: parameters by name) of at most three members, where they lie in it,
/// so the layer above finds them without walking `params` again. Opaque outside the crate;
/// small (offsets, not slices), since it travels with every request.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct ParamsMembers {
    recorded: [Span; RECORDED],
    /// How many members were read; more than `RECORDED` means `params` is read again.
    count: usize,
    /// Whether a `params` object was recorded at all (and every offset fit a `u32`).
    complete: bool,
}

/// One member's name and value as offsets into the `params` text.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
struct Span {
    name: (u32, u32),
    value: (u32, u32),
    escaped: bool,
}

impl ParamsMembers {
    /// An empty record for a `params` object about to be read.
    pub(super) fn recorder() -> Self {
        ParamsMembers {
            complete: true,
            ..ParamsMembers::default()
        }
    }

    /// Records the next member of `params`, whose text starts at `params_start` of `text`.
    pub(super) fn record(&mut self, text: &str, params_start: usize, member: Member<'_>) {
        let offsets = |part: &str| {
            let start = (part.as_ptr() as usize).checked_sub(text.as_ptr() as usize)?;
            let start = start.checked_sub(params_start)?;
            Some((
                u32::try_from(start).ok()?,
                u32::try_from(start + part.len()).ok()?,
            ))
        };
        if let Some(slot) = self.recorded.get_mut(self.count) {
            match (offsets(member.name.raw()), offsets(member.value)) {
                (Some(name), Some(value)) => {
                    *slot = Span {
                        name,
                        value,
                        escaped: member.name.escaped(),
                    }
                }
                _ => self.complete = false,
            }
        }
        self.count += 1;
    }

    /// The members of `params`, the raw object this record was made from, in text order:
    /// the recorded ones, or `params` read again when it had more (or was not recorded).
    pub(crate) fn iter<'a>(&self, params: &'a str) -> impl Iterator<Item = Member<'a>> + use<'a> {
        let complete = self.complete && self.count <= RECORDED;
        let recorded = complete.then_some(self.recorded);
        let spans = recorded.into_iter().flatten().take(self.count);
        let again = (!complete).then(|| members(params));
        spans
            .map_while(move |span| {
                let part = |(start, end): (u32, u32)| params.get(start as usize..end as usize);
                Some(Member {
                    name: Name::new(part(span.name)?, span.escaped),
                    value: part(span.value)?,
                })
            })
            .chain(again.into_iter().flatten())
    }
}
