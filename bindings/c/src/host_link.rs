//! A remote link at the host level: `idelink_host_attach_link` hands a spawned `idelink
//! bridge`'s two pipe ends to the host (`idelink_mio::Host::attach_link`, core's `LinkAttach`
//! holding every rule), and the link's news (the bridge's hello, the link's end) joins the
//! host's event queue as `linkHello` / `linkEnded` (core's forms codec writes them).

use crate::args::bytes;
use crate::guard::{CallResult, invalid};
use crate::host::{IdelinkHost, on};
use crate::status::{IdelinkStatus, fail};
use idelink_core::link::{AttachEvent, editor_hello};
use idelink_mio::{LinkPipes, PipeEnd};
use std::sync::{Arc, Mutex};

/// What the host keeps for a link: the name its hello gives the far lock, and the link's news
/// as the host's callback heard it, until the next `idelink_host_poll` queues it.
pub(crate) struct LinkState {
    ide_name: String,
    heard: Arc<Mutex<Vec<AttachEvent>>>,
}

impl LinkState {
    pub(crate) fn new(ide_name: String) -> LinkState {
        LinkState {
            ide_name,
            heard: Arc::default(),
        }
    }

    /// The news heard since the last call, oldest first.
    pub(crate) fn take(&self) -> Vec<AttachEvent> {
        self.heard
            .lock()
            .map(|mut heard| std::mem::take(&mut *heard))
            .unwrap_or_default()
    }
}

/// Attaches a remote link: `input` is the pipe end the bridge writes (a spawned `idelink
/// bridge`'s stdout, through `ssh`, `docker exec -i`, `wsl.exe`, …), `output` the one it reads
/// (its stdin). On Unix each is a file descriptor; on Windows a `HANDLE` (cast to `ptrdiff_t`,
/// which is as wide as a pointer).
/// `read`/`read_len` are bytes already read from `input` (a hello peeked to learn the bridge's
/// port), NULL and 0 for none. The bridge's lock gets this host's token and `ideName` and its
/// workspace folders as the far side spells them (through the engine's `pathMap`, when it has
/// one). Every claude connection the bridge opens is then served as if accepted on the host's
/// own port. `idelink_host_poll` pumps the link and queues its news: `{"event":"linkHello",
/// "binaryVersion":"0.9.0","port":41234,"pid":4242,"folders":["/w"],"runningInWindows":false}`
/// once the bridge said who it is, and at the end `{"event":"linkEnded","fault":"eof",
/// "message":"…"}` (`fault`: `eof`, `keepaliveTimeout`, `peerFault`, `shutdown`, `version`,
/// `protocol`; `message` holds the far side's words: render it inert); the host then closes
/// both pipes (the bridge removes its lock and exits; reap its process). One link at a time: a
/// second is refused with `IDELINK_ERROR_MISUSE`.
///
/// **Ownership:** the host takes both pipe ends, whatever the result (a failed call closes
/// them): the caller must not close or use them afterwards. `read` is only read during the
/// call.
///
/// # Safety
/// `host` is NULL or a live handle not in use on another thread; `input` and `output` are open
/// pipe ends owned by the caller (descriptors or handles) and no other code closes them; unless
/// `read_len` is 0, `read` points to `read_len` readable bytes.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn idelink_host_attach_link(
    host: *mut IdelinkHost,
    input: isize,
    output: isize,
    read: *const u8,
    read_len: usize,
) -> IdelinkStatus {
    // SAFETY: open pipe ends the caller hands over (caller's obligation).
    let ends = unsafe { owned(input, "input").and_then(|i| Ok((i, owned(output, "output")?))) };
    let (input, output) = match ends {
        Ok(ends) => ends,
        Err((status, message)) => return fail(status, message),
    };
    // SAFETY: the caller's obligations, stated above.
    unsafe {
        on(host, move |s| {
            let read = bytes(read, read_len)?.to_vec();
            let token = s.host.auth_token().as_str().to_owned();
            let hello = editor_hello(s.host.engine().config(), &token, &s.link.ide_name)
                .map_err(|e| invalid(format_args!("the engine's pathMap: {e}")))?;
            let pipes = LinkPipes::new(input, output).already_read(read);
            if s.host.has_link() {
                // The pipe ends are the host's: dropping them here closes them.
                drop(pipes);
                return Err((
                    IdelinkStatus::IdelinkErrorMisuse,
                    "a link is attached already".to_owned(),
                ));
            }
            let heard = Arc::clone(&s.link.heard);
            attached(s.host.attach_link(
                &hello,
                pipes,
                Box::new(move |event| {
                    if let Ok(mut heard) = heard.lock() {
                        heard.push(event.clone());
                    }
                }),
            ))
        })
    }
}

fn attached(result: std::io::Result<()>) -> CallResult {
    result.map_err(|e| match e.kind() {
        std::io::ErrorKind::InvalidInput => invalid(format_args!("cannot attach the link: {e}")),
        _ => (
            IdelinkStatus::IdelinkErrorIo,
            format!("cannot attach the link: {e}"),
        ),
    })
}

/// A pipe end handed over as a descriptor.
///
/// # Safety
/// `raw` is an open descriptor the caller owns and hands over.
#[cfg(unix)]
unsafe fn owned(raw: isize, what: &str) -> Result<PipeEnd, (IdelinkStatus, String)> {
    use std::os::fd::FromRawFd;
    let fd = std::os::fd::RawFd::try_from(raw)
        .ok()
        .filter(|fd| *fd >= 0)
        .ok_or_else(|| invalid(format_args!("{what} is no file descriptor: {raw}")))?;
    // SAFETY: an open descriptor the caller hands over (caller's obligation).
    Ok(unsafe { PipeEnd::from_raw_fd(fd) })
}

/// A pipe end handed over as a `HANDLE`.
///
/// # Safety
/// `raw` is an open handle the caller owns and hands over.
#[cfg(windows)]
unsafe fn owned(raw: isize, what: &str) -> Result<PipeEnd, (IdelinkStatus, String)> {
    use std::os::windows::io::{FromRawHandle, RawHandle};
    // NULL and INVALID_HANDLE_VALUE (-1) name no pipe.
    if raw == 0 || raw == -1 {
        return Err(invalid(format_args!("{what} is no handle: {raw}")));
    }
    // SAFETY: an open handle the caller hands over (caller's obligation).
    Ok(unsafe { PipeEnd::from_raw_handle(raw as RawHandle) })
}
