//! The context policy (docs/protocol.md, "Context policy"): what the engine may say about the
//! editor. Every `selection_changed`, every `at_mentioned` and every read tool's answer passes
//! one gate (`gate.rs`): a file the deny rules match (the [`DEFAULT_DENY`] globs, the
//! user's [`ContextPolicy::deny`], the workspace's ignore files, with git's semantics through
//! gitoxide) is absent, never its name or its text; the [`SharingMode`] decides which
//! selections are shared unasked; [`ContextPolicy::paused`] holds everything back. What was
//! withheld is reported as [`EngineEvent::ContextWithheld`](crate::EngineEvent::ContextWithheld).
//!
//! Core reads no file: the host reads the ignore files ([`IgnoreFile`]: `.git/info/exclude`,
//! the root `.gitignore`, nested ones) and hands their text in, in the `Config` or later with
//! [`EditorEvent::PolicyChanged`](crate::EditorEvent::PolicyChanged).

pub(crate) mod gate;
mod matcher;
mod rules;
mod withheld;

pub use gate::MAX_CACHED_VERDICTS;
pub use rules::{ContextPolicy, DEFAULT_DENY, IgnoreFile, SharingMode};
pub use withheld::{MAX_REPORTED_PATHS, REPORT_INTERVAL_MS};
