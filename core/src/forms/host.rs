//! Two small forms of the JS faces' host helpers, with no serde form in core: the fields of
//! a lock file as JS hands them in and gets them back (`LockFileFields` in the declarations:
//! the lock body's camelCase fields without `transport`, unknown fields ignored), and the
//! terminal environment (`no_proxy` / `NO_PROXY` in, the variables out).

use super::FormError;
use super::read::{Val, boolean, u32};
use super::write::Object;
use crate::json::push_string;
use crate::lockfile::LockFile;

/// A lock file's fields, as JS passes them (`runningInWindows` may be left out or `null`:
/// false) and gets them back (`runningInWindows` always written).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct LockFields(pub LockFile);

/// What a terminal inherits that its `claude` must keep: `no_proxy` and `NO_PROXY` (each
/// left out or `null` when unset); any other variable is ignored.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Inherited {
    /// `no_proxy`.
    pub no_proxy: Option<String>,
    /// `NO_PROXY`.
    pub no_proxy_upper: Option<String>,
}

/// The variables a terminal exports, as one object whose keys keep their order.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Variables(pub Vec<(&'static str, String)>);

pub(super) fn lock_fields(v: Val<'_>) -> Result<LockFields, FormError> {
    let o = v.object()?;
    Ok(LockFields(LockFile {
        pid: o.req("pid", u32)?,
        workspace_folders: o.strings("workspaceFolders")?,
        ide_name: o.string("ideName")?,
        auth_token: o.string("authToken")?,
        running_in_windows: o.opt("runningInWindows", boolean)?.unwrap_or(false),
    }))
}

pub(super) fn write_lock_fields(out: &mut Vec<u8>, fields: &LockFields) {
    let lock = &fields.0;
    Object::new(out)
        .u64("pid", lock.pid)
        .with("workspaceFolders", |out| {
            write_strings(out, &lock.workspace_folders)
        })
        .str("ideName", &lock.ide_name)
        .str("authToken", &lock.auth_token)
        .bool("runningInWindows", lock.running_in_windows)
        .end();
}

pub(super) fn inherited(v: Val<'_>) -> Result<Inherited, FormError> {
    let o = v.object()?;
    Ok(Inherited {
        no_proxy: o.opt_string("no_proxy")?,
        no_proxy_upper: o.opt_string("NO_PROXY")?,
    })
}

pub(super) fn write_variables(out: &mut Vec<u8>, variables: &Variables) {
    variables
        .0
        .iter()
        .fold(Object::new(out), |o, (name, value)| o.str(name, value))
        .end();
}

/// An array of strings.
pub(super) fn write_strings(out: &mut Vec<u8>, items: &[String]) {
    super::write::list(out, items, |out, item| push_string(out, item));
}
