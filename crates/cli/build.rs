//! Build script of the `agentpi` binary: two link settings that trim what a short run maps
//! (docs/minimize.md, *Start-up memory*), both kept position-independent (ASLR).
//!
//! Relative relocations packed (DT_RELR) where the C library it is linked against applies them.
//! Every pointer in the static data of a position-independent binary (vtables, tables of
//! strings) is a relocation the dynamic loader applies at start: 37,400 of them,
//! 880 KB of `.rela.dyn` read on every run, a ninth of the memory of a short `agentpi minimize`
//! (docs/minimize.md, *Start-up memory*). Packed, they take a few KB. glibc applies packed
//! relocations since 2.36 and says so with the symbol version `GLIBC_ABI_DT_RELR`, which the
//! linker then makes the binary require. So they are packed only when the C library the
//! linker finds defines that version: the binary then needs no newer a C library than the
//! one it was built against, the usual rule for glibc; built on an older one, nothing changes.
//!
//! The functions a short `agentpi minimize` runs placed side by side (`minimize.order`, written
//! by bench/lts/order.sh), where the linker is rust-lld, which reads such a list. The kernel
//! maps the code in blocks of 64 KB or more around each page a run executes: scattered over
//! 20 MB, the 200 KB that run executes kept 3 MB resident; side by side, 0.4 MB. A stale list
//! (names carry a hash of the compiler and the dependencies) orders less, nothing more.

use std::path::PathBuf;
use std::process::Command;

fn main() {
    println!("cargo:rerun-if-changed=build.rs");
    if libc_applies_packed_relocations() {
        println!("cargo:rustc-link-arg-bin=agentpi=-Wl,-z,pack-relative-relocs");
    }
    if linked_by_rust_lld() {
        let dir = std::env::var("CARGO_MANIFEST_DIR").unwrap_or_default();
        let order = format!("{dir}/minimize.order");
        println!("cargo:rerun-if-changed={order}");
        // `-Xlinker`, not `-Wl,`, which would split a path at its commas.
        for arg in [
            &format!("--symbol-ordering-file={order}"),
            "--no-warn-symbol-ordering",
        ] {
            println!("cargo:rustc-link-arg-bin=agentpi=-Xlinker");
            println!("cargo:rustc-link-arg-bin=agentpi={arg}");
        }
    }
}

/// Whether the glibc that a native build links against defines `GLIBC_ABI_DT_RELR`.
fn libc_applies_packed_relocations() -> bool {
    let var = |name| std::env::var(name).unwrap_or_default();
    let gnu_linux = var("CARGO_CFG_TARGET_OS") == "linux" && var("CARGO_CFG_TARGET_ENV") == "gnu";
    if !gnu_linux || var("HOST") != var("TARGET") {
        return false;
    }
    let Some(libc) = linked_libc() else {
        return false;
    };
    println!("cargo:rerun-if-changed={}", libc.display());
    let version: &[u8] = b"GLIBC_ABI_DT_RELR";
    let bytes = std::fs::read(&libc).unwrap_or_default();
    bytes.windows(version.len()).any(|w| w == version)
}

/// Whether rustc links with its own lld: its default for x86_64-unknown-linux-gnu since Rust
/// 1.90, unless the flags choose the linker (GNU ld would reject the ordering option).
fn linked_by_rust_lld() -> bool {
    let flags = std::env::var("CARGO_ENCODED_RUSTFLAGS").unwrap_or_default();
    let chosen = ["linker", "link-self-contained", "fuse-ld"];
    std::env::var("TARGET").is_ok_and(|t| t == "x86_64-unknown-linux-gnu")
        && std::env::var_os("CARGO_TARGET_X86_64_UNKNOWN_LINUX_GNU_LINKER").is_none()
        && !chosen.iter().any(|c| flags.contains(c))
        && rustc_minor().is_some_and(|minor| minor >= 90)
}

/// The minor version of the compiler building this crate (`rustc 1.95.0 (...)` gives 95).
fn rustc_minor() -> Option<u32> {
    let rustc = std::env::var("RUSTC").unwrap_or_else(|_| "rustc".into());
    let out = Command::new(rustc).arg("-V").output().ok()?;
    let text = String::from_utf8(out.stdout).ok()?;
    text.split_whitespace()
        .nth(1)?
        .split('.')
        .nth(1)?
        .parse()
        .ok()
}

/// The shared C library that `cc` (rustc's linker driver) links against, if it finds one.
fn linked_libc() -> Option<PathBuf> {
    let cc = std::env::var("CC").unwrap_or_else(|_| "cc".into());
    let out = Command::new(cc)
        .arg("-print-file-name=libc.so.6")
        .output()
        .ok()?;
    let path = PathBuf::from(String::from_utf8(out.stdout).ok()?.trim());
    // Not found, `cc` prints the bare name back.
    path.is_absolute().then_some(path)
}
