//! Core's host rules that a JS host over the wasm engine needs without a file system of its
//! own: lock names, the stale rule, and the pump policy ([`idelink_core::host_rules`]). The
//! same functions as the Node binding's.

use crate::convert::whole_number;
use idelink_core::host_rules::PumpPolicy;
use idelink_core::host_rules::lock_life;
use idelink_core::lockfile::LockFile;
use wasm_bindgen::prelude::*;

/// `"<port>.lock"`.
#[wasm_bindgen(js_name = lockFileName)]
pub fn lock_file_name(port: u16) -> String {
    LockFile::file_name(port)
}

/// The port a lock file name stands for, or `undefined` for any other name.
#[wasm_bindgen(js_name = lockPortFromFileName)]
pub fn lock_port_from_file_name(name: &str) -> Option<u16> {
    LockFile::port_from_file_name(name)
}

/// The pid whose death makes `fileName` (holding `body`) one of our stale locks, or
/// `undefined` when the file is not ours to judge.
#[wasm_bindgen(js_name = staleLockOwner)]
pub fn stale_lock_owner(file_name: &str, body: &str, our_ide_name: &str) -> Option<u32> {
    lock_life::stale_lock_owner(file_name, body, our_ide_name)
}

/// The socket pump policy every host follows.
#[wasm_bindgen(js_name = PumpPolicy)]
pub struct PumpPolicyJs(PumpPolicy);

#[wasm_bindgen(js_class = PumpPolicy)]
impl PumpPolicyJs {
    /// The default policy, or one pausing at `pauseReadsAtBytes` (resuming below half).
    #[wasm_bindgen(constructor)]
    pub fn new(
        #[wasm_bindgen(js_name = pauseReadsAtBytes)] pause: Option<f64>,
    ) -> Result<PumpPolicyJs, JsError> {
        policy(pause).map(PumpPolicyJs)
    }

    /// Stop reading a socket with this many unsent answer bytes.
    #[wasm_bindgen(getter, js_name = pauseReadsAtBytes)]
    pub fn pause_reads_at_bytes(&self) -> f64 {
        self.0.pause_reads_at_bytes as f64
    }

    /// Read it again below this many.
    #[wasm_bindgen(getter, js_name = resumeReadsBelowBytes)]
    pub fn resume_reads_below_bytes(&self) -> f64 {
        self.0.resume_reads_below_bytes as f64
    }

    /// How long a closed connection may take to flush, in ms.
    #[wasm_bindgen(getter, js_name = lingerMs)]
    pub fn linger_ms(&self) -> f64 {
        self.0.linger_ms as f64
    }

    /// How often the lock file is checked, in ms.
    #[wasm_bindgen(getter, js_name = lockCheckIntervalMs)]
    pub fn lock_check_interval_ms(&self) -> f64 {
        self.0.lock_check_interval_ms as f64
    }

    /// May a socket with `unsent` answer bytes be read?
    #[wasm_bindgen(js_name = mayRead)]
    pub fn may_read(&self, unsent: f64) -> bool {
        self.0.may_read(unsent as usize)
    }

    /// May a paused socket with `unsent` answer bytes be read again?
    #[wasm_bindgen(js_name = mayResume)]
    pub fn may_resume(&self, unsent: f64) -> bool {
        self.0.may_resume(unsent as usize)
    }
}

/// The default pump policy, or one pausing at `pause` (resuming below half).
pub(crate) fn policy(pause: Option<f64>) -> Result<PumpPolicy, JsError> {
    Ok(match pause {
        None => PumpPolicy::DEFAULT,
        // A mark past the address space is one that is never reached.
        Some(n) => PumpPolicy::pausing_at(
            usize::try_from(whole_number(n, "pauseReadsAtBytes")?).unwrap_or(usize::MAX),
        ),
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_rules_are_cores() {
        assert_eq!(lock_file_name(41234), "41234.lock");
        assert_eq!(lock_port_from_file_name("41234.lock"), Some(41234));
        assert_eq!(lock_port_from_file_name("041234.lock"), None);
        let body = r#"{"pid":7,"workspaceFolders":[],"ideName":"ours","authToken":"t"}"#;
        assert_eq!(stale_lock_owner("1.lock", body, "ours"), Some(7));
        assert_eq!(stale_lock_owner("1.lock", body, "theirs"), None);
        let Ok(policy) = PumpPolicyJs::new(Some(100.0)) else {
            panic!("a whole pause mark is taken");
        };
        assert_eq!(policy.resume_reads_below_bytes(), 50.0);
        assert!(policy.may_read(99.0) && !policy.may_read(100.0));
        assert!(policy.may_resume(49.0) && !policy.may_resume(50.0));
        let pause = PumpPolicyJs::new(None).map(|policy| policy.pause_reads_at_bytes());
        assert_eq!(pause.ok(), Some((8 << 20) as f64));
    }
}
