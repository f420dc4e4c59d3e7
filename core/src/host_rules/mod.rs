//! The rules every host follows that need no system call: how sockets are pumped
//! ([`pump`]), how many unauthenticated connections a listener keeps ([`admission`]), and how the lock file and its directories are judged, named, swept and kept
//! ([`lock_dir`], [`lock_life`]; the lock body itself is [`crate::lockfile`]), and when a
//! restarted host may take its old port and token back ([`resume`]).
//!
//! A host (the mio host, Node `startHost`, the relay, a C host) performs the system calls
//! (stat, open, create, rename, kill(pid, 0), read, write) and asks these functions what to do
//! with their results, so every host behaves alike and the rules are tested once, here.

pub mod admission;
pub mod lock_dir;
pub mod lock_life;
pub mod pump;
pub mod resume;

pub use admission::HandshakeBudget;
pub use lock_dir::{ConfigDir, DirFacts, DirKind, DirRefusal, DirRole, DirVerdict};
pub use lock_life::{LockOnDisk, LockUpkeep};
pub use pump::PumpPolicy;
pub use resume::{NotResumed, RecordState, ResumeRecord};
