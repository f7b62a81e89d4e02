//! Bounds read from the process's resource limits, so that running out gives `unknown` or a
//! clean error rather than an abort (docs/limits.md).

/// The share of an address-space limit (`ulimit -v`) that exploration may keep when no
/// `--max-memory` is given. What exploration keeps (the visited store, edges and parent
/// links: what `--max-memory` weighs) is not all it uses: the engine's caches, the chunks
/// in flight and the thread stacks come on top. Peak resident memory was 7 to 23 times the
/// bytes kept on the models measured (`bench/check/rpc.pi`: 12 MiB kept, 277 MiB resident),
/// so a 32nd leaves room; an allocation that fails still aborts the process (Rust's
/// allocator does, and this crate forbids the `unsafe` a hook would need).
const ADDRESS_SPACE_SHARE: u64 = 32;

/// The memory bound of an exploration: `--max-memory` (in MiB) if given, else a share of the
/// address-space limit if one is set, else none.
pub fn memory_budget(max_memory_mib: Option<u64>) -> Option<u64> {
    match max_memory_mib {
        Some(mib) => Some(mib.saturating_mul(1024 * 1024)),
        None => address_space().map(|bytes| bytes / ADDRESS_SPACE_SHARE),
    }
}

/// The address-space limit (`ulimit -v`, RLIMIT_AS) in bytes, if one is set.
pub fn address_space() -> Option<u64> {
    rustix::process::getrlimit(rustix::process::Resource::As).current
}
