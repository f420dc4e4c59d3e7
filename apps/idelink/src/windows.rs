//! The Windows system calls of the `idelink` command, and its only `unsafe` code.
//!
//! - [`on_console_control`]: Ctrl-C, Ctrl-Break, closing the console window, logoff and
//!   shutdown, through a console control handler (`SetConsoleCtrlHandler`, "HandlerRoutine
//!   callback function", learn.microsoft.com/windows/console/handlerroutine).
//! - [`flush_console_input`]: drop what was typed and not yet read (`FlushConsoleInputBuffer`).
//! - [`tcp_listener_pids`]: which processes listen on a TCP port (`GetExtendedTcpTable`), for
//!   the doctor's owner check.

use std::io;
use std::os::windows::io::AsRawHandle;
use std::sync::OnceLock;
use std::time::Duration;
use windows_sys::Win32::System::Console::{
    CTRL_CLOSE_EVENT, CTRL_LOGOFF_EVENT, CTRL_SHUTDOWN_EVENT, FlushConsoleInputBuffer,
    SetConsoleCtrlHandler,
};
use windows_sys::core::BOOL;

/// How long the control routine holds a close, logoff or shutdown: longer than the grace the
/// system gives (5 s for a closed console), so the system's limit is the bound.
const HOLD_CLOSE: Duration = Duration::from_secs(30);

/// What a console control event calls; set once.
static ON_CONTROL: OnceLock<Box<dyn Fn() + Send + Sync>> = OnceLock::new();

/// Calls `handler` on every console control event, on a thread the system starts for it.
///
/// Ctrl-C and Ctrl-Break are handled (the process goes on and stops itself). For a closed
/// console, logoff and shutdown the system ends the process as soon as the routine returns, so
/// the routine keeps it waiting instead: meanwhile the process stops itself (the serve loop
/// removes its lock and `main` returns, which ends this thread too). Once per process.
pub fn on_console_control(handler: impl Fn() + Send + Sync + 'static) -> io::Result<()> {
    if ON_CONTROL.set(Box::new(handler)).is_err() {
        return Err(io::Error::other(
            "the console control handler is already set",
        ));
    }
    // SAFETY: `control` has the HandlerRoutine signature and lives as long as the program.
    if unsafe { SetConsoleCtrlHandler(Some(control), 1) } == 0 {
        return Err(io::Error::last_os_error());
    }
    Ok(())
}

/// The HandlerRoutine: TRUE, the event is handled here.
extern "system" fn control(event: u32) -> BOOL {
    if let Some(handler) = ON_CONTROL.get() {
        handler();
    }
    if matches!(
        event,
        CTRL_CLOSE_EVENT | CTRL_LOGOFF_EVENT | CTRL_SHUTDOWN_EVENT
    ) {
        std::thread::sleep(HOLD_CLOSE);
    }
    1
}

/// Drops the console input buffer's records: what was typed and not yet read. Fails harmlessly
/// when stdin is not a console.
pub fn flush_console_input() {
    let handle = io::stdin().as_raw_handle();
    // SAFETY: the call takes a handle by value and no pointer into our memory; std keeps the
    // process's standard input handle open, and a handle of another kind only makes it fail.
    let _ = unsafe { FlushConsoleInputBuffer(handle) };
}

/// The pids of the processes holding a TCP socket that listens on `port` at an address a
/// connection to 127.0.0.1 reaches (`127.0.0.1`, `0.0.0.0`, `::`, `::ffff:127.0.0.1`), from the
/// OS's tables: `GetExtendedTcpTable` with `TCP_TABLE_OWNER_PID_LISTENER`, IPv4 and IPv6
/// (learn.microsoft.com/windows/win32/api/iphlpapi/nf-iphlpapi-getextendedtcptable).
pub fn tcp_listener_pids(port: u16) -> io::Result<Vec<u32>> {
    use windows_sys::Win32::NetworkManagement::IpHelper::{
        MIB_TCP6ROW_OWNER_PID, MIB_TCPROW_OWNER_PID,
    };
    use windows_sys::Win32::Networking::WinSock::{AF_INET, AF_INET6};
    // The rows are decoded from bytes by these layouts (iphlpapi's tcpmib.h).
    const _: () = assert!(size_of::<MIB_TCPROW_OWNER_PID>() == 24);
    const _: () = assert!(size_of::<MIB_TCP6ROW_OWNER_PID>() == 56);
    let word = |row: &[u8], at: usize| {
        u32::from_le_bytes([row[at], row[at + 1], row[at + 2], row[at + 3]])
    };
    // dwLocalPort holds the port in network byte order in its low 16 bits.
    let port_of = |row: &[u8], at: usize| u16::from_be_bytes([row[at], row[at + 1]]);
    let mut pids = Vec::new();
    // MIB_TCPROW_OWNER_PID: dwState, dwLocalAddr (network order), dwLocalPort, dwRemoteAddr,
    // dwRemotePort, dwOwningPid.
    for row in tcp_table(AF_INET, 24)?.chunks_exact(24) {
        let reaches = matches!(row[4..8], [127, 0, 0, 1] | [0, 0, 0, 0]);
        if reaches && port_of(row, 8) == port {
            pids.push(word(row, 20));
        }
    }
    // MIB_TCP6ROW_OWNER_PID: ucLocalAddr[16], dwLocalScopeId, dwLocalPort, ucRemoteAddr[16],
    // dwRemoteScopeId, dwRemotePort, dwState, dwOwningPid.
    let mapped_loopback = [0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0xff, 0xff, 127, 0, 0, 1];
    for row in tcp_table(AF_INET6, 56)?.chunks_exact(56) {
        let reaches = row[..16] == [0; 16] || row[..16] == mapped_loopback;
        if reaches && port_of(row, 20) == port {
            pids.push(word(row, 52));
        }
    }
    Ok(pids)
}

/// The rows of one family's listener table, as bytes (`row_bytes` each).
fn tcp_table(family: u16, row_bytes: usize) -> io::Result<Vec<u8>> {
    use windows_sys::Win32::Foundation::{ERROR_INSUFFICIENT_BUFFER, NO_ERROR};
    use windows_sys::Win32::NetworkManagement::IpHelper::{
        GetExtendedTcpTable, TCP_TABLE_OWNER_PID_LISTENER,
    };
    let mut size = 0u32;
    // u32 words: the table's alignment.
    let mut buffer: Vec<u32> = Vec::new();
    loop {
        // SAFETY: `buffer` holds at least `size` bytes (it is resized to them before each call
        // that passes it), and the call writes at most `size` bytes; `size` is ours to update.
        let status = unsafe {
            GetExtendedTcpTable(
                buffer.as_mut_ptr().cast(),
                &mut size,
                0,
                u32::from(family),
                TCP_TABLE_OWNER_PID_LISTENER,
                0,
            )
        };
        match status {
            NO_ERROR => break,
            // The first call asks for the size; a table that grew in between asks again.
            ERROR_INSUFFICIENT_BUFFER => {
                buffer.resize(usize::try_from(size).unwrap_or(0) / 4 + 1, 0)
            }
            error => {
                return Err(io::Error::from_raw_os_error(
                    i32::try_from(error).unwrap_or(-1),
                ));
            }
        }
    }
    let bytes: Vec<u8> = buffer.iter().flat_map(|w| w.to_le_bytes()).collect();
    let filled = bytes.len().min(usize::try_from(size).unwrap_or(0));
    let count = bytes
        .get(..4)
        .map_or(0, |n| u32::from_le_bytes([n[0], n[1], n[2], n[3]]));
    let rows = usize::try_from(count)
        .unwrap_or(0)
        .saturating_mul(row_bytes);
    // dwNumEntries, then the rows (4-byte aligned: right after it).
    Ok(bytes
        .get(4..filled)
        .map_or(Vec::new(), |table| table[..rows.min(table.len())].to_vec()))
}
