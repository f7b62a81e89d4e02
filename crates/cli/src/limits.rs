//! Bounds read from the process's resource limits, so that running out gives `unknown` or a
//! clean error rather than an abort (docs/limits.md).

/// The share of an address-space limit (`ulimit -v`) that exploration may keep when no
/// `--max-memory` is given. What exploration keeps (the visited store, edges and parent
/// links: what `--max-memory` weighs) is not all it uses: the engine's caches, the chunks
/// in flight and the thread stacks come on top. Peak resident memory was 7 to 23 times the
/// bytes kept on the models measured (`bench/check/rpc.pi`: 12 MiB kept, 277 MiB resident),
/// so a 32nd leaves room; an allocation that fails anyway ends the process with a message
/// and status 3 (`oom.rs`).
const ADDRESS_SPACE_SHARE: u64 = 32;

/// The memory bound of an exploration: `--max-memory` (in MiB) if given, else a share of the
/// address-space limit if one is set, else none.
pub fn memory_budget(max_memory_mib: Option<u64>) -> Option<u64> {
    match max_memory_mib {
        Some(mib) => Some(mib.saturating_mul(1024 * 1024)),
        None => address_space().map(|bytes| bytes / ADDRESS_SPACE_SHARE),
    }
}

/// The address space each explorer worker reserves: its 16 MiB stack and the allocator's
/// segments for the thread (measured: VmPeak of `check bench/check/rpc.pi` grows by about
/// 73 MB a worker beyond two, from 1.31 GB at one; most of the base is mimalloc's arena).
const WORKER_RESERVE: u64 = 80 * 1024 * 1024;

/// The share of an address-space limit that the workers may reserve: a pool the system does
/// build can still take so much that the heap has no room left, and a failed allocation
/// aborts (seen: `--threads 1024`, and still 15 threads, under `ulimit -v 1000000`).
const WORKER_SHARE: u64 = 2;

/// The threads to explore with when `asked` (0: one per core) are asked: no more than the
/// address-space limit leaves room for, half of it for what the workers reserve; with a warning when
/// that is fewer than asked. The output does not depend on the thread count.
pub fn threads_within(asked: usize) -> (usize, Option<String>) {
    let wanted = match asked {
        0 => std::thread::available_parallelism().map_or(1, usize::from),
        n => n,
    };
    let Some(limit) = address_space() else {
        return (asked, None);
    };
    let room = usize::try_from(limit / WORKER_SHARE / WORKER_RESERVE).unwrap_or(usize::MAX);
    let room = room.max(1);
    if wanted <= room {
        return (asked, None);
    }
    let note = format!(
        "{wanted} threads asked, {room} used: the address-space limit (`ulimit -v`) leaves room for {room}"
    );
    (room, Some(note))
}

/// The address-space limit (`ulimit -v`, RLIMIT_AS) in bytes, if one is set.
pub fn address_space() -> Option<u64> {
    rustix::process::getrlimit(rustix::process::Resource::As).current
}
