//! The command's standard output.

/// Writes `text` to stdout; a reader that went away (`idelink doctor | head`) is not an error.
pub fn print_stdout(text: &[u8]) -> std::io::Result<()> {
    use std::io::Write;
    let mut out = std::io::stdout().lock();
    match out.write_all(text).and_then(|()| out.flush()) {
        Err(e) if e.kind() == std::io::ErrorKind::BrokenPipe => Ok(()),
        other => other,
    }
}
