//! Build script of the `agentpi` binary: its relative relocations packed (DT_RELR) on
//! Linux with glibc.
//!
//! The binary is position-independent, so every pointer in its static data (vtables, tables
//! of strings) is a relocation that the dynamic loader applies at start: 800 KB of `.rela.dyn`
//! read on every run, most of the resident memory of a short one (`agentpi minimize` of a
//! small file peaked at 6.6 MB against 4.2 MB for merc's driver, docs/minimize.md). Packed,
//! they take a few KB. glibc applies packed relocations since 2.36, and the linker (GNU ld
//! 2.38, lld 15) then records that the binary needs it.

fn main() {
    println!("cargo:rerun-if-changed=build.rs");
    let var = |name| std::env::var(name).unwrap_or_default();
    if var("CARGO_CFG_TARGET_OS") == "linux" && var("CARGO_CFG_TARGET_ENV") == "gnu" {
        println!("cargo:rustc-link-arg-bin=agentpi=-Wl,-z,pack-relative-relocs");
    }
}
