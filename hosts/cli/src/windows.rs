//! The Windows system calls of the `idelink` command, and its only `unsafe` code.
//!
//! - [`on_console_control`]: Ctrl-C, Ctrl-Break, closing the console window, logoff and
//!   shutdown, through a console control handler (`SetConsoleCtrlHandler`, "HandlerRoutine
//!   callback function", learn.microsoft.com/windows/console/handlerroutine).
//! - [`flush_console_input`]: drop what was typed and not yet read (`FlushConsoleInputBuffer`).

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
