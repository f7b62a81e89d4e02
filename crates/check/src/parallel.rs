//! A map over a slice on several threads, its results in the slice's order (for the
//! liveness products, whose numbering must not depend on the thread count).

/// `f` of each item, in order, computed on up to `threads` threads (0: one per core), each
/// taking a contiguous part. A thread the system refuses leaves its part to the caller's.
pub(crate) fn map<T: Sync, R: Send>(
    items: &[T],
    threads: usize,
    f: &(dyn Fn(&T) -> R + Sync),
) -> Vec<R> {
    let threads = match threads {
        0 => std::thread::available_parallelism().map_or(1, usize::from),
        n => n,
    };
    // Below a few hundred items a thread costs more than it saves.
    let threads = threads.min(items.len() / 256).max(1);
    if threads == 1 {
        return items.iter().map(f).collect();
    }
    let part = items.len().div_ceil(threads);
    std::thread::scope(|scope| {
        let mut parts = items.chunks(part);
        let mine = parts.next().unwrap_or_default();
        let others: Vec<_> = parts
            .map(|p| {
                let spawned = std::thread::Builder::new()
                    .spawn_scoped(scope, move || p.iter().map(f).collect::<Vec<R>>());
                (p, spawned.ok())
            })
            .collect();
        let mut out: Vec<R> = mine.iter().map(f).collect();
        for (p, handle) in others {
            match handle.map(|h| h.join()) {
                Some(Ok(results)) => out.extend(results),
                Some(Err(panic)) => std::panic::resume_unwind(panic),
                None => out.extend(p.iter().map(f)),
            }
        }
        out
    })
}
