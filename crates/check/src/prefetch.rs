//! A prefetch hint: begins loading the cache line at an address without waiting for it, so
//! that the cache misses of several look-ups overlap (a plain load cannot retire before its
//! data arrives). The one `unsafe` of this crate (docs/architecture.md, *Invariants*).

// SAFETY (the module): a prefetch is a hint: it never faults, whatever the address, and
// reads nothing the program sees; the address passed comes from a reference, so it is valid
// anyway.
#![allow(unsafe_code)]

/// Begins loading the cache line holding `at` into every level of the cache.
#[inline(always)]
pub(crate) fn prefetch<T>(at: &T) {
    #[cfg(target_arch = "x86_64")]
    // SAFETY: see the module; `at` is a reference.
    unsafe {
        use std::arch::x86_64::{_MM_HINT_T0, _mm_prefetch};
        _mm_prefetch::<_MM_HINT_T0>((at as *const T).cast::<i8>());
    }
    #[cfg(not(target_arch = "x86_64"))]
    let _ = at;
}
