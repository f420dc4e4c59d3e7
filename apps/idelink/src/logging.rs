//! Log output: always to stderr (stdout carries the sidecar protocol), filtered by `-v` or
//! `RUST_LOG`. Nothing logged ever contains the auth token; file contents only with
//! `--trace-contents`.

use tracing_subscriber::EnvFilter;

/// Installs the subscriber: `RUST_LOG` when set, else warn / debug / trace by `-v` count.
pub fn init(verbose: u8) {
    let default = match verbose {
        0 => "warn",
        1 => "idelink=debug,idelink_mio=debug",
        _ => "trace",
    };
    let filter = EnvFilter::try_from_default_env().unwrap_or_else(|_| EnvFilter::new(default));
    tracing_subscriber::fmt()
        .with_env_filter(filter)
        .with_writer(std::io::stderr)
        .with_target(false)
        .init();
}
