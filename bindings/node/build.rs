//! Sets up linking for a Node addon (symbols resolved by Node at load time).

fn main() {
    napi_build::setup();
}
