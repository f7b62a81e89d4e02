//! A build script, so that cargo honours the crate's `[build-dependencies]` (the features of
//! the crates that build scripts and proc macros use).

fn main() {}
