//! What sits beside the engine for a remote link. The Node module has core's
//! [`LinkSlot`](idelink_core::link::LinkSlot), driven by the calls in `link.rs`. The browser
//! module attaches no link (a page spawns no bridge: the relay owns the machine's side), so its
//! slot holds nothing and hands each call straight to the engine, which keeps the link's code
//! out of the page's download (some 11 KB).

#[cfg(feature = "node")]
pub(crate) use idelink_core::link::LinkSlot as Slot;

#[cfg(not(feature = "node"))]
pub(crate) use no_link::Slot;

#[cfg(not(feature = "node"))]
mod no_link {
    use std::convert::Infallible;

    use idelink_core::{Engine, Output, Timestamp};

    /// The browser module's slot: never a link, so the engine's own outputs and timers.
    #[derive(Default)]
    pub(crate) struct Slot;

    impl Slot {
        /// The engine's next output; with no link, `now` is not needed.
        pub(crate) fn poll_output_at(
            &mut self,
            engine: &mut Engine,
            _now: Option<Timestamp>,
        ) -> Result<Option<Output>, Infallible> {
            Ok(engine.poll_output())
        }

        /// The engine's deadline.
        pub(crate) fn poll_timeout(&self, engine: &Engine) -> Option<Timestamp> {
            engine.poll_timeout()
        }

        /// The engine's timers.
        pub(crate) fn handle_timeout(&mut self, engine: &mut Engine, now: Timestamp) {
            engine.handle_timeout(now);
        }
    }
}
