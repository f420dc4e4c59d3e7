//! The engines alive on this JS thread, by handle. JS holds a handle (a number) inside its
//! `Engine` object and frees it when that object is collected (`lib/engine.js`).
//!
//! Why handles rather than a napi class: a class method pays napi-rs's per-call borrow
//! tracking (an allocation, a global lock and a type-tag check, ~300 ns per call here); a
//! free function taking numbers pays ~100 ns. The safety that tracking buys is kept by a
//! `RefCell`: a re-entrant call is refused with an error instead of aliasing the engine.

use crate::convert::whole_number;
use crate::error::{guard, throw};
use idelink_core::Engine;
use idelink_core::link::LinkSlot;
use std::cell::RefCell;
use std::collections::BTreeMap;

/// One engine, its remote link (if one is attached), and whether it panicked before.
struct Slot {
    engine: Engine,
    link: LinkSlot,
    /// Set when a call panicked: the engine's invariants may be broken, so every later call
    /// is refused with this message.
    poisoned: Option<String>,
}

#[derive(Default)]
struct Registry {
    slots: BTreeMap<u64, Slot>,
    /// Handles are never reused, so a stale handle cannot reach another engine.
    last: u64,
}

thread_local! {
    // Node-API values and calls belong to one JS thread (the main thread or a worker), and so
    // do the engines created from it.
    static ENGINES: RefCell<Registry> = RefCell::new(Registry::default());
}

/// Keeps `engine` and returns its handle (from 1).
pub fn insert(engine: Engine) -> napi::Result<f64> {
    ENGINES.with(|registry| {
        let mut registry = registry
            .try_borrow_mut()
            .map_err(|_| throw("an Engine was created from inside an engine call"))?;
        registry.last += 1;
        let handle = registry.last;
        registry.slots.insert(
            handle,
            Slot {
                engine,
                link: LinkSlot::default(),
                poisoned: None,
            },
        );
        Ok(handle as f64)
    })
}

/// Drops the engine behind `handle`; a handle already freed is ignored.
pub fn remove(handle: f64) -> napi::Result<()> {
    let handle = whole_number(handle, "handle")?;
    let slot = ENGINES.with(|registry| {
        registry
            .try_borrow_mut()
            .map(|mut registry| registry.slots.remove(&handle))
            .map_err(|_| throw("an Engine was freed from inside an engine call"))
    })?;
    // Dropped outside the borrow: an engine's drop runs no JS, but nothing needs to wait.
    drop(slot);
    Ok(())
}

/// Runs `f` on the engine behind `handle` under the panic guard. Errors when the handle is
/// unknown, the engine panicked before (it stays refused), or the call is re-entrant.
pub fn with<T>(handle: f64, f: impl FnOnce(&mut Engine) -> napi::Result<T>) -> napi::Result<T> {
    with_link(handle, |engine, _| f(engine))
}

/// [`with`], for a call that also reaches the engine's link slot (`src/link.rs`).
pub fn with_link<T>(
    handle: f64,
    f: impl FnOnce(&mut Engine, &mut LinkSlot) -> napi::Result<T>,
) -> napi::Result<T> {
    let handle = whole_number(handle, "handle")?;
    ENGINES.with(|registry| {
        let mut registry = registry
            .try_borrow_mut()
            .map_err(|_| throw("an engine method was called from inside an engine call"))?;
        let slot = registry
            .slots
            .get_mut(&handle)
            .ok_or_else(|| throw(format_args!("no engine with handle {handle}: it was freed")))?;
        if let Some(why) = &slot.poisoned {
            return Err(throw(format_args!(
                "this Engine is unusable after an earlier panic; create a new one ({why})"
            )));
        }
        let (engine, link) = (&mut slot.engine, &mut slot.link);
        guard(|| f(engine, link)).unwrap_or_else(|why| {
            slot.poisoned = Some(why.clone());
            Err(throw(why))
        })
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use idelink_core::{AuthToken, Config};

    fn engine() -> Engine {
        Engine::new(Config::new(40000), AuthToken::from_entropy([1; 16]))
    }

    #[test]
    fn a_panic_poisons_only_its_engine() -> napi::Result<()> {
        let (a, b) = (insert(engine())?, insert(engine())?);
        assert_ne!(a, b);
        let panicked = with(a, |_| -> napi::Result<()> { panic!("broken invariant") });
        assert!(panicked.is_err_and(|e| e.reason.ends_with("broken invariant")));
        let refused = with(a, |e| Ok(e.poll_timeout()));
        assert!(refused.is_err_and(|e| e.reason.starts_with("this Engine is unusable")));
        assert_eq!(
            with(b, |e| Ok(e.handle_accept(Default::default()).as_u64()))?,
            1
        );
        remove(a)?;
        remove(b)?;
        Ok(())
    }

    #[test]
    fn freed_and_reentrant_calls_are_refused() -> napi::Result<()> {
        let handle = insert(engine())?;
        let nested = with(handle, |_| with(handle, |_| Ok(())));
        assert!(nested.is_err_and(|e| e.reason.contains("from inside an engine call")));
        assert!(
            with(handle, |_| Ok(())).is_ok(),
            "the refusal left the engine usable"
        );
        remove(handle)?;
        remove(handle)?;
        let gone = with(handle, |_| Ok(()));
        assert!(gone.is_err_and(|e| e.reason.ends_with("it was freed")));
        Ok(())
    }
}
