//! What a worker tells about its run with `AGENTPI_CLUSTER_STATS` set, on standard error:
//! the bytes it sent (for `bench/check/cluster.sh`), how far its chunks ran ahead of their
//! delivery, and at each level's end where its process's memory is (`docs/distributed.md`).

use crate::net::Net;

/// Whether `AGENTPI_CLUSTER_STATS` is set.
pub fn enabled() -> bool {
    static ON: std::sync::OnceLock<bool> = std::sync::OnceLock::new();
    *ON.get_or_init(|| std::env::var_os("AGENTPI_CLUSTER_STATS").is_some())
}

/// This process's resident memory now, in bytes (0 where `/proc` does not say).
fn resident() -> u64 {
    let statm = std::fs::read_to_string("/proc/self/statm").unwrap_or_default();
    let pages = statm.split_whitespace().nth(1).and_then(|p| p.parse().ok());
    pages.unwrap_or(0u64) * 4096
}

/// The end of a level: this worker's store and parent links, what it held for the level
/// (keys, ranks), the most successors it held at once, and its process's resident memory.
pub fn level(net: &Net, depth: usize, store: u64, held: u64, in_flight: u64) {
    if enabled() {
        eprintln!(
            "cluster level: worker {} depth {depth}: store {store} bytes, level {held} bytes, successors in flight {in_flight} bytes, resident {} bytes",
            net.index,
            resident()
        );
    }
}

/// The end of the run: the bytes sent to other workers, the most chunks flushed ahead of
/// what the frontier confirmed delivered, and the most bytes taken in at once.
pub fn sent(net: &Net) {
    if enabled() {
        eprintln!(
            "cluster stats: worker {}: {} bytes sent to other processes, {} to other workers of this process",
            net.index, net.sent_out, net.sent_in
        );
        eprintln!(
            "cluster flow: worker {}: at most {} chunks unconfirmed, at most {} bytes taken at once",
            net.index, net.most_unconfirmed, net.most_taken
        );
    }
}
