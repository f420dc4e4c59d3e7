//! `include/idelink.h` is what cbindgen generates from this crate today. Set
//! `IDELINK_BLESS=1` to rewrite it after changing the C ABI (and review the diff).

use std::path::Path;

#[test]
fn the_committed_header_is_generated_from_the_code() {
    let crate_dir = Path::new(env!("CARGO_MANIFEST_DIR"));
    let config = cbindgen::Config::from_file(crate_dir.join("cbindgen.toml"))
        .unwrap_or_else(|e| panic!("cbindgen.toml: {e}"));
    let mut generated = Vec::new();
    cbindgen::Builder::new()
        .with_crate(crate_dir)
        .with_config(config)
        .generate()
        .unwrap_or_else(|e| panic!("cbindgen cannot read the crate: {e}"))
        .write(&mut generated);
    let generated = String::from_utf8(generated).unwrap_or_else(|e| panic!("{e}"));
    let path = crate_dir.join("include/idelink.h");
    if std::env::var_os("IDELINK_BLESS").is_some() {
        std::fs::write(&path, &generated).unwrap_or_else(|e| panic!("{e}"));
        return;
    }
    let committed = std::fs::read_to_string(&path).unwrap_or_default();
    assert!(
        committed == generated,
        "{} differs from what cbindgen generates from the code; regenerate it with\n  \
         IDELINK_BLESS=1 cargo test -p idelink-c --test header\nand commit it",
        path.display()
    );
}
