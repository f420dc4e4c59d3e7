//! The drift alarm's harness: one [`scene::Scene`] is a private workspace, home and config
//! folder, a scripted Anthropic API ([`fake_api`]), the IDE under test (an [`ide::IdeSide`] the
//! caller supplies), and the real `claude` CLI in a tmux terminal, all on loopback.
//!
//! Two callers: the drift alarm (`apps/idelink/tests/real_claude`, against `idelink serve`) and the
//! C binding's driver (`bindings/c/tests/drivers/real_claude.rs`, against frame_editor). The CLI
//! is `CLAUDE_BIN`, else the pinned install; without it [`claude::locate`] skips loudly, and with
//! `CI=true` it fails. Where a CLI version's own words differ, [`expect`] says so.

pub mod claude;
pub mod expect;
pub mod fake_api;
pub mod ide;
pub mod netns;
pub mod scene;
pub mod terminal;
pub mod wait;
