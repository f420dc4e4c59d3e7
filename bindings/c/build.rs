//! Names the shared library the way C builds expect: an ELF `SONAME` of `libidelink.so` on
//! Linux and an `@rpath` install name on macOS, so a program linked against it finds it by its
//! rpath or the loader's search path, not by the build-time path.

fn main() {
    match std::env::var("CARGO_CFG_TARGET_OS").as_deref() {
        Ok("linux") => println!("cargo:rustc-cdylib-link-arg=-Wl,-soname,libidelink.so"),
        Ok("macos") => {
            println!("cargo:rustc-cdylib-link-arg=-Wl,-install_name,@rpath/libidelink.dylib");
        }
        _ => {}
    }
}
