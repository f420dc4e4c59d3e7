//! Path mapping for a claude that runs on another machine (`idelink serve --remote`, a
//! container, WSL): its files live under other paths than the editor's.
//!
//! A [`PathMap`] is a list of `REMOTE=LOCAL` prefix pairs (`/home/me/proj=/Users/me/proj`,
//! WSL's `/mnt/c=C:/`), longest prefix first in each direction. With one set
//! ([`Config::path_map`](crate::Config::path_map)), the engine works in claude's paths
//! throughout and maps at its edges: what the editor hands in (events, snapshots, pulled read
//! answers, the configured folders) becomes claude's path, and a tool request claude sends
//! becomes the editor's path before the editor sees it.
//!
//! A path outside every mapping is never guessed: a tool request naming one is answered with
//! an error that says so; an editor event naming one is withheld from claude (the file does not
//! exist on its side), and a pulled answer drops the entries that name one.

mod apply;
mod map;
#[cfg(test)]
mod tests;

pub use map::{PathMap, PathMapError, Side};
