//! At most one [`LinkAttach`] beside an engine that a face owns (the napi and wasm engines):
//! the engine's outputs, deadline and timer go through it, so those faces only convert types.

use std::fmt;

use super::attach::{AttachEvent, LinkAttach};
use super::end::LinkConfig;
use super::error::LinkError;
use super::hello::Hello;
use crate::engine::{Engine, Output};
use crate::host_rules::PumpPolicy;
use crate::path_map::{PathMap, PathMapError};
use crate::time::Timestamp;

/// The hello an editor side sends a bridge for `engine`'s config: its `token` and
/// `ide_name`, and the workspace folders as the far side spells them (through the config's
/// `pathMap` when it has one: the folders outside every mapping are left out). What the bridge
/// writes into its lock.
pub fn editor_hello(
    config: &crate::Config,
    token: &str,
    ide_name: &str,
) -> Result<Hello, PathMapError> {
    let folders = match config.path_map.is_empty() {
        true => config.workspace_folders.clone(),
        false => PathMap::parse(&config.path_map)?.folders(&config.workspace_folders),
    };
    Ok(Hello {
        // The bridge names a version other than its own on stderr.
        binary_version: env!("CARGO_PKG_VERSION").to_owned(),
        token: Some(token.to_owned()),
        ide_name: Some(ide_name.to_owned()),
        folders,
        ..Hello::default()
    })
}

/// Why [`LinkSlot::attach`] refused.
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub enum AttachRefusal {
    /// A live link is attached already (one at a time).
    Attached,
    /// The engine's `pathMap` does not parse.
    PathMap(PathMapError),
    /// The hello cannot be sent (too large: too many folders).
    Hello(LinkError),
}

impl fmt::Display for AttachRefusal {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            AttachRefusal::Attached => f.write_str(
                "a link is attached already: one at a time (wait for its linkEnded, or end it)",
            ),
            AttachRefusal::PathMap(e) => {
                write!(f, "cannot attach the link: the engine's pathMap: {e}")
            }
            AttachRefusal::Hello(e) => write!(f, "cannot attach the link: {e}"),
        }
    }
}

impl std::error::Error for AttachRefusal {}

/// [`LinkSlot::poll_output_at`] was not given the time while a link is live.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct NeedsTime;

impl fmt::Display for NeedsTime {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("pollOutput(now) needs the time while a link is attached")
    }
}

impl std::error::Error for NeedsTime {}

/// The link an engine's face may hold: none, a live one, or a dead one whose last bytes may
/// still be going out (until the next [`attach`](Self::attach) replaces it).
///
/// The face calls [`poll_output`](Self::poll_output), [`poll_timeout`](Self::poll_timeout)
/// and [`handle_timeout`](Self::handle_timeout) in place of the engine's own, and the
/// stream's calls here as [`LinkAttach`] documents them (its order holds: after every input,
/// drain the outputs, write [`outbound`](Self::outbound), read [`poll_event`](Self::poll_event)).
/// Without a link each is the engine's call, unchanged.
#[derive(Default)]
pub struct LinkSlot {
    attach: Option<LinkAttach>,
}

impl LinkSlot {
    /// Attaches a link whose hello is [`editor_hello`] for `engine`, its connections pumped by
    /// `policy`. A dead link is replaced; a live one refuses.
    pub fn attach(
        &mut self,
        engine: &Engine,
        now: Timestamp,
        token: &str,
        ide_name: &str,
        policy: PumpPolicy,
    ) -> Result<(), AttachRefusal> {
        if self.is_live() {
            return Err(AttachRefusal::Attached);
        }
        let hello =
            editor_hello(engine.config(), token, ide_name).map_err(AttachRefusal::PathMap)?;
        let attach = LinkAttach::new(&hello, LinkConfig::default(), policy, now)
            .map_err(AttachRefusal::Hello)?;
        self.attach = Some(attach);
        Ok(())
    }

    /// True while a link is attached and not dead.
    pub fn is_live(&self) -> bool {
        self.attach
            .as_ref()
            .is_some_and(|a| a.link().dead().is_none())
    }

    /// [`LinkAttach::handle_stream_bytes`]; nothing without a link.
    pub fn handle_stream_bytes(&mut self, engine: &mut Engine, now: Timestamp, bytes: &[u8]) {
        if let Some(a) = &mut self.attach {
            a.handle_stream_bytes(engine, now, bytes);
        }
    }

    /// [`LinkAttach::handle_stream_end`]; nothing without a link.
    pub fn handle_stream_end(&mut self, engine: &mut Engine, now: Timestamp) {
        if let Some(a) = &mut self.attach {
            a.handle_stream_end(engine, now);
        }
    }

    /// [`LinkAttach::shutdown`]; nothing without a link.
    pub fn shutdown(&mut self, engine: &mut Engine, now: Timestamp) {
        if let Some(a) = &mut self.attach {
            a.shutdown(engine, now);
        }
    }

    /// The engine's next output for the host: the link's own are performed on the way.
    pub fn poll_output(&mut self, engine: &mut Engine, now: Timestamp) -> Option<Output> {
        loop {
            let output = engine.poll_output()?;
            match &mut self.attach {
                Some(a) => match a.handle_output(engine, now, output) {
                    Some(output) => return Some(output),
                    None => continue,
                },
                None => return Some(output),
            }
        }
    }

    /// [`poll_output`](Self::poll_output) for a face whose callers may leave the time out
    /// (`now`: `None`): without a live link that is the engine's own output; with one it is
    /// refused ([`NeedsTime`]), since the link's outputs are performed at a time.
    pub fn poll_output_at(
        &mut self,
        engine: &mut Engine,
        now: Option<Timestamp>,
    ) -> Result<Option<Output>, NeedsTime> {
        match now {
            Some(now) => Ok(self.poll_output(engine, now)),
            None if self.is_live() => Err(NeedsTime),
            None => Ok(engine.poll_output()),
        }
    }

    /// The earlier of the engine's deadline and the link's.
    pub fn poll_timeout(&self, engine: &Engine) -> Option<Timestamp> {
        let link = self.attach.as_ref().and_then(LinkAttach::poll_timeout);
        match (engine.poll_timeout(), link) {
            (Some(a), Some(b)) => Some(a.min(b)),
            (a, b) => a.or(b),
        }
    }

    /// The deadline of [`poll_timeout`](Self::poll_timeout) came: the engine's timers and the
    /// link's (early or repeated calls are harmless to both).
    pub fn handle_timeout(&mut self, engine: &mut Engine, now: Timestamp) {
        engine.handle_timeout(now);
        if let Some(a) = &mut self.attach {
            a.handle_timeout(engine, now);
        }
    }

    /// [`LinkAttach::outbound`]: empty without a link.
    pub fn outbound(&self) -> &[u8] {
        self.attach.as_ref().map_or(&[], LinkAttach::outbound)
    }

    /// [`LinkAttach::handle_sent`]; `n` must be 0 without a link.
    pub fn handle_sent(&mut self, n: usize) -> Result<(), LinkError> {
        match &mut self.attach {
            Some(a) => a.handle_sent(n),
            None if n == 0 => Ok(()),
            None => Err(LinkError::Overrun),
        }
    }

    /// [`LinkAttach::poll_event`]: the bridge's hello, then the link's end.
    #[must_use]
    pub fn poll_event(&mut self) -> Option<AttachEvent> {
        self.attach.as_mut()?.poll_event()
    }
}

#[cfg(test)]
mod tests;
