//! The Windows system calls behind the lock file's rules, and the only `unsafe` in this crate.
//!
//! - Owner-only from the moment it exists: the lock directory and the lock's temporary file
//!   are created with a security descriptor whose DACL is *protected* (nothing inherited from
//!   the parent) and holds one entry, full access for the current user's SID. It is passed in
//!   `SECURITY_ATTRIBUTES` to `CreateDirectoryW` / `CreateFileW`, so no window exists in which
//!   the object carries the parent's inherited entries; the token is written after.
//! - [`dacl`] reads a path's DACL back (the check on an existing directory, and the tests).
//! - [`pid_is_alive`] opens the process and asks whether it has ended; a process we may not
//!   open (another user's, a protected one) counts as alive, like `EPERM` from `kill(pid, 0)`.
//!
//! Security descriptors are written in SDDL ("Security Descriptor String Format",
//! learn.microsoft.com/windows/win32/secauthz/security-descriptor-string-format):
//! `D:P(A;OICI;FA;;;<sid>)` is "DACL, protected; allow, inherited by files and folders, file
//! all access, to `<sid>`" (a directory's); a file's is `D:P(A;;FA;;;<sid>)`.

use std::ffi::OsString;
use std::fs::File;
use std::io;
use std::os::windows::ffi::{OsStrExt, OsStringExt};
use std::os::windows::io::{FromRawHandle, OwnedHandle};
use std::path::Path;
use std::ptr;
use windows_sys::Win32::Foundation::{
    ERROR_INVALID_PARAMETER, GetLastError, HANDLE, INVALID_HANDLE_VALUE, LocalFree, WAIT_OBJECT_0,
};
use windows_sys::Win32::Security::Authorization::{
    ConvertSidToStringSidW, ConvertStringSecurityDescriptorToSecurityDescriptorW,
    GetNamedSecurityInfoW, SDDL_REVISION_1, SE_FILE_OBJECT, SetNamedSecurityInfoW,
};
use windows_sys::Win32::Security::{
    ACCESS_ALLOWED_ACE, ACE_HEADER, ACL, ACL_SIZE_INFORMATION, AclSizeInformation,
    DACL_SECURITY_INFORMATION, GetAce, GetAclInformation, GetSecurityDescriptorControl,
    GetSecurityDescriptorDacl, GetTokenInformation, PROTECTED_DACL_SECURITY_INFORMATION,
    PSECURITY_DESCRIPTOR, PSID, SE_DACL_PROTECTED, SECURITY_ATTRIBUTES, TOKEN_QUERY, TOKEN_USER,
    TokenUser,
};
use windows_sys::Win32::Storage::FileSystem::{
    CREATE_NEW, CreateDirectoryW, CreateFileW, FILE_ALL_ACCESS, FILE_ATTRIBUTE_NORMAL,
    FILE_GENERIC_READ, FILE_GENERIC_WRITE,
};
use windows_sys::Win32::System::LibraryLoader::{GetModuleHandleW, GetProcAddress};
use windows_sys::Win32::System::SystemServices::ACCESS_ALLOWED_ACE_TYPE;
use windows_sys::Win32::System::Threading::{
    GetCurrentProcess, OpenProcess, OpenProcessToken, PROCESS_QUERY_LIMITED_INFORMATION,
    PROCESS_SYNCHRONIZE, WaitForSingleObject,
};

/// One entry of a DACL.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Ace {
    /// Allow (true) or deny (false); other entry types are reported as deny, the safe reading.
    pub allow: bool,
    /// The trustee, as a string SID (`S-1-5-21-…`).
    pub sid: String,
    /// The access mask.
    pub mask: u32,
}

/// A path's discretionary ACL as read back from the system.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Dacl {
    /// True when the DACL does not take entries from the parent folder.
    pub protected: bool,
    /// The entries, in order; `None` for a NULL DACL (everyone has full access).
    pub entries: Option<Vec<Ace>>,
}

impl Dacl {
    /// True when only `sid` is granted anything, with full access, and nothing is inherited.
    pub fn is_owner_only(&self, sid: &str) -> bool {
        let Some(entries) = &self.entries else {
            return false;
        };
        self.protected
            && !entries.is_empty()
            && entries
                .iter()
                .all(|ace| !ace.allow || (ace.sid == sid && ace.mask == FILE_ALL_ACCESS))
    }
}

fn wide(path: &Path) -> Vec<u16> {
    path.as_os_str().encode_wide().chain([0]).collect()
}

/// Reads a NUL-terminated UTF-16 string allocated by the system and frees it with `LocalFree`.
///
/// # Safety
/// `text` must be a non-null, NUL-terminated string allocated with `LocalAlloc`.
unsafe fn take_local_wide(text: *mut u16) -> String {
    // SAFETY: the caller guarantees a NUL-terminated string; we read up to the NUL only.
    let len = (0..).take_while(|&i| unsafe { *text.add(i) } != 0).count();
    // SAFETY: `len` elements were just read from this allocation.
    let units = unsafe { std::slice::from_raw_parts(text, len) };
    let out = OsString::from_wide(units).to_string_lossy().into_owned();
    // SAFETY: the string came from LocalAlloc (the caller's contract) and is not used after.
    unsafe { LocalFree(text.cast()) };
    out
}

/// Wraps a handle returned by the system so it is closed on drop; `None` for a null or
/// invalid handle.
fn owned(handle: HANDLE) -> Option<OwnedHandle> {
    if handle.is_null() || handle == INVALID_HANDLE_VALUE {
        return None;
    }
    // SAFETY: the handle is valid, fresh from the system, and owned by no one else.
    Some(unsafe { OwnedHandle::from_raw_handle(handle) })
}

/// The current user's SID as a string (`S-1-5-21-…`), from the process token.
pub fn current_user_sid() -> io::Result<String> {
    let mut token: HANDLE = ptr::null_mut();
    // SAFETY: GetCurrentProcess returns a pseudo-handle; `token` is a valid out pointer.
    if unsafe { OpenProcessToken(GetCurrentProcess(), TOKEN_QUERY, &mut token) } == 0 {
        return Err(io::Error::last_os_error());
    }
    let token = owned(token).ok_or_else(io::Error::last_os_error)?;
    let handle = std::os::windows::io::AsRawHandle::as_raw_handle(&token);
    let mut len = 0u32;
    // SAFETY: a size query: a null buffer of length 0; `len` receives the size needed.
    unsafe { GetTokenInformation(handle, TokenUser, ptr::null_mut(), 0, &mut len) };
    // u64 elements keep the TOKEN_USER (pointer first) aligned.
    let mut buf = vec![0u64; (len as usize).div_ceil(8)];
    // SAFETY: `buf` holds at least `len` bytes, aligned for TOKEN_USER.
    let ok =
        unsafe { GetTokenInformation(handle, TokenUser, buf.as_mut_ptr().cast(), len, &mut len) };
    if ok == 0 {
        return Err(io::Error::last_os_error());
    }
    // SAFETY: on success the buffer starts with a TOKEN_USER whose SID points into the buffer.
    let sid = unsafe { (*buf.as_ptr().cast::<TOKEN_USER>()).User.Sid };
    sid_string(sid)
}

fn sid_string(sid: PSID) -> io::Result<String> {
    let mut text: *mut u16 = ptr::null_mut();
    // SAFETY: `sid` points at a valid SID (from the token or an ACE); `text` is an out pointer.
    if unsafe { ConvertSidToStringSidW(sid, &mut text) } == 0 || text.is_null() {
        return Err(io::Error::last_os_error());
    }
    // SAFETY: ConvertSidToStringSidW returns a NUL-terminated LocalAlloc'd string.
    Ok(unsafe { take_local_wide(text) })
}

/// An owner-only security descriptor, freed on drop.
struct OwnerOnly(PSECURITY_DESCRIPTOR);

impl OwnerOnly {
    /// For a directory, the entry is inherited by what is created inside (`OICI`); a file's
    /// entry has no inheritance flags.
    fn new(directory: bool) -> io::Result<Self> {
        let inherit = if directory { "OICI" } else { "" };
        let sddl = format!("D:P(A;{inherit};FA;;;{})", current_user_sid()?);
        let sddl: Vec<u16> = sddl.encode_utf16().chain([0]).collect();
        let mut sd: PSECURITY_DESCRIPTOR = ptr::null_mut();
        // SAFETY: `sddl` is NUL-terminated; `sd` is an out pointer; the size is not wanted.
        let ok = unsafe {
            ConvertStringSecurityDescriptorToSecurityDescriptorW(
                sddl.as_ptr(),
                SDDL_REVISION_1,
                &mut sd,
                ptr::null_mut(),
            )
        };
        if ok == 0 || sd.is_null() {
            return Err(io::Error::last_os_error());
        }
        Ok(OwnerOnly(sd))
    }

    fn attributes(&self) -> SECURITY_ATTRIBUTES {
        SECURITY_ATTRIBUTES {
            nLength: size_of::<SECURITY_ATTRIBUTES>() as u32,
            lpSecurityDescriptor: self.0,
            bInheritHandle: 0,
        }
    }

    fn dacl(&self) -> io::Result<*mut ACL> {
        let (mut present, mut defaulted) = (0, 0);
        let mut acl: *mut ACL = ptr::null_mut();
        // SAFETY: `self.0` is a valid descriptor; the rest are out pointers.
        let ok =
            unsafe { GetSecurityDescriptorDacl(self.0, &mut present, &mut acl, &mut defaulted) };
        if ok == 0 || present == 0 || acl.is_null() {
            return Err(io::Error::last_os_error());
        }
        Ok(acl)
    }
}

impl Drop for OwnerOnly {
    fn drop(&mut self) {
        // SAFETY: the descriptor came from ConvertStringSecurityDescriptorToSecurityDescriptorW
        // (LocalAlloc) and is freed once.
        unsafe { LocalFree(self.0) };
    }
}

/// Creates the directory `path` (its parent must exist) with an owner-only DACL.
pub fn create_private_dir(path: &Path) -> io::Result<()> {
    let sd = OwnerOnly::new(true)?;
    let attributes = sd.attributes();
    // SAFETY: a NUL-terminated path and attributes pointing at a live descriptor.
    if unsafe { CreateDirectoryW(wide(path).as_ptr(), &attributes) } == 0 {
        return Err(io::Error::last_os_error());
    }
    Ok(())
}

/// Creates `path` and missing parents; the parents get the default (inherited) security, the
/// last component, the directory that will hold secrets, an owner-only DACL.
pub fn create_private_dir_all(path: &Path) -> io::Result<()> {
    if let Some(parent) = path.parent().filter(|p| !p.as_os_str().is_empty()) {
        std::fs::create_dir_all(parent)?;
    }
    match create_private_dir(path) {
        Err(e) if e.kind() == io::ErrorKind::AlreadyExists => Ok(()),
        other => other,
    }
}

/// Creates a new file (failing when `path` exists) with an owner-only DACL, open for writing.
pub fn create_private_file(path: &Path) -> io::Result<File> {
    let sd = OwnerOnly::new(false)?;
    let attributes = sd.attributes();
    // SAFETY: a NUL-terminated path, attributes pointing at a live descriptor, no template.
    let handle = unsafe {
        CreateFileW(
            wide(path).as_ptr(),
            FILE_GENERIC_READ | FILE_GENERIC_WRITE,
            0,
            &attributes,
            CREATE_NEW,
            FILE_ATTRIBUTE_NORMAL,
            ptr::null_mut(),
        )
    };
    owned(handle)
        .map(File::from)
        .ok_or_else(io::Error::last_os_error)
}

/// Replaces the DACL of an existing `path` with the owner-only one (the Windows counterpart of
/// `chmod 0700` on a directory we own).
pub fn restrict_to_owner(path: &Path) -> io::Result<()> {
    let sd = OwnerOnly::new(true)?;
    let acl = sd.dacl()?;
    // SAFETY: a NUL-terminated path; `acl` lives inside `sd`, alive for the call.
    let status = unsafe {
        SetNamedSecurityInfoW(
            wide(path).as_ptr(),
            SE_FILE_OBJECT,
            DACL_SECURITY_INFORMATION | PROTECTED_DACL_SECURITY_INFORMATION,
            ptr::null_mut(),
            ptr::null_mut(),
            acl,
            ptr::null(),
        )
    };
    match status {
        0 => Ok(()),
        code => Err(io::Error::from_raw_os_error(code as i32)),
    }
}

/// Reads the DACL of `path` back.
pub fn dacl(path: &Path) -> io::Result<Dacl> {
    let mut acl: *mut ACL = ptr::null_mut();
    let mut sd: PSECURITY_DESCRIPTOR = ptr::null_mut();
    // SAFETY: a NUL-terminated path; `acl` and `sd` are out pointers; `acl` points into `sd`.
    let status = unsafe {
        GetNamedSecurityInfoW(
            wide(path).as_ptr(),
            SE_FILE_OBJECT,
            DACL_SECURITY_INFORMATION,
            ptr::null_mut(),
            ptr::null_mut(),
            &mut acl,
            ptr::null_mut(),
            &mut sd,
        )
    };
    if status != 0 {
        return Err(io::Error::from_raw_os_error(status as i32));
    }
    let read = read_dacl(sd, acl);
    // SAFETY: GetNamedSecurityInfoW allocated `sd` with LocalAlloc; `acl` is not used after.
    unsafe { LocalFree(sd) };
    read
}

fn read_dacl(sd: PSECURITY_DESCRIPTOR, acl: *mut ACL) -> io::Result<Dacl> {
    let (mut control, mut revision) = (0u16, 0u32);
    // SAFETY: `sd` is the valid descriptor just returned; the rest are out pointers.
    if unsafe { GetSecurityDescriptorControl(sd, &mut control, &mut revision) } == 0 {
        return Err(io::Error::last_os_error());
    }
    let protected = control & SE_DACL_PROTECTED != 0;
    if acl.is_null() {
        return Ok(Dacl {
            protected,
            entries: None,
        });
    }
    let mut size = ACL_SIZE_INFORMATION {
        AceCount: 0,
        AclBytesInUse: 0,
        AclBytesFree: 0,
    };
    // SAFETY: `acl` is a valid ACL inside `sd`; `size` is the struct the class asks for.
    let ok = unsafe {
        GetAclInformation(
            acl,
            (&mut size as *mut ACL_SIZE_INFORMATION).cast(),
            size_of::<ACL_SIZE_INFORMATION>() as u32,
            AclSizeInformation,
        )
    };
    if ok == 0 {
        return Err(io::Error::last_os_error());
    }
    let mut entries = Vec::with_capacity(size.AceCount as usize);
    for index in 0..size.AceCount {
        let mut ace: *mut std::ffi::c_void = ptr::null_mut();
        // SAFETY: `index` is below the ACL's entry count; `ace` is an out pointer.
        if unsafe { GetAce(acl, index, &mut ace) } == 0 {
            return Err(io::Error::last_os_error());
        }
        // SAFETY: every entry starts with an ACE_HEADER.
        let header = unsafe { &*ace.cast::<ACE_HEADER>() };
        if u32::from(header.AceType) != ACCESS_ALLOWED_ACE_TYPE {
            entries.push(Ace {
                allow: false,
                sid: String::new(),
                mask: 0,
            });
            continue;
        }
        // SAFETY: an ACCESS_ALLOWED_ACE; its SID starts at `SidStart` and lies within AceSize.
        let (mask, sid) = unsafe {
            let allowed = &*ace.cast::<ACCESS_ALLOWED_ACE>();
            (
                allowed.Mask,
                (&allowed.SidStart as *const u32).cast_mut().cast(),
            )
        };
        entries.push(Ace {
            allow: true,
            sid: sid_string(sid)?,
            mask,
        });
    }
    Ok(Dacl {
        protected,
        entries: Some(entries),
    })
}

/// True unless the process `pid` is known to have ended (or never existed).
pub fn pid_is_alive(pid: u32) -> bool {
    // SAFETY: plain call; a null result is handled below.
    let handle = unsafe {
        OpenProcess(
            PROCESS_QUERY_LIMITED_INFORMATION | PROCESS_SYNCHRONIZE,
            0,
            pid,
        )
    };
    let Some(process) = owned(handle) else {
        // SAFETY: plain call, right after the failing one.
        let error = unsafe { GetLastError() };
        // No such process: ERROR_INVALID_PARAMETER. Access denied (another user's or a
        // protected process) and anything else: it may be alive, so it is.
        return error != ERROR_INVALID_PARAMETER;
    };
    let raw = std::os::windows::io::AsRawHandle::as_raw_handle(&process);
    // SAFETY: a valid process handle opened with SYNCHRONIZE; a zero timeout only polls.
    // Signalled means ended; a timeout (still running) or a failure both count as alive.
    let waited = unsafe { WaitForSingleObject(raw, 0) };
    waited != WAIT_OBJECT_0
}

/// Why file ACLs cannot be read back on this system, when they cannot: Wine (which the
/// project's CI runs the Windows tests under) keeps no security descriptor for files and
/// answers with one derived from the Unix mode. `None` on Windows. For tests, which then say
/// they skipped the check instead of passing it.
#[doc(hidden)]
pub fn acl_unverifiable() -> Option<&'static str> {
    let ntdll: Vec<u16> = "ntdll.dll".encode_utf16().chain([0]).collect();
    // SAFETY: a NUL-terminated module name; ntdll is loaded in every process.
    let module = unsafe { GetModuleHandleW(ntdll.as_ptr()) };
    // SAFETY: a NUL-terminated export name looked up in a loaded module.
    let wine = !module.is_null()
        && unsafe { GetProcAddress(module, c"wine_get_version".as_ptr().cast()) }.is_some();
    wine.then_some("Wine keeps no file security descriptor (it derives one from the Unix mode)")
}

#[cfg(test)]
mod tests;
