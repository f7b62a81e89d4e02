//! The global allocator: mimalloc, wrapped so that an allocation that fails is a clean error
//! (a message and exit status 3), not Rust's abort ("memory allocation of N bytes failed",
//! SIGABRT); the one option of mimalloc that `minimize` sets (its purge delay); and transparent
//! huge pages, turned off before Rust's runtime first allocates and given back to every command
//! but `minimize`. With `maths.rs`, the only `unsafe` code of the workspace (docs/architecture.md,
//! *Invariants*).
//!
//! A failure is final: nothing here returns null, so a `try_reserve` anywhere in the process
//! also ends it with status 3 rather than an `Err` (no code of the workspace uses one).

// SAFETY (the module): `GlobalAlloc` is an unsafe trait and its methods unsafe functions;
// each method below forwards its arguments unchanged to mimalloc's, whose contract is the
// same as the caller's, and only looks at the pointer it returns. The message is written
// with `write(2)` on a stack buffer and the process ended with `_exit(2)`: neither
// allocates, takes a lock or runs a destructor, so they are safe from within the
// allocator, on any thread, even when several threads fail at once. The one constructor
// (`HUGE_PAGES_OFF`) makes two system calls and stores a boolean: it needs nothing that
// Rust's runtime sets up, so it may run before it.
#![allow(unsafe_code)]

use std::alloc::{GlobalAlloc, Layout};
use std::os::fd::AsFd;
use std::sync::atomic::{AtomicBool, Ordering};

/// The exit status of a run that ran out of memory: the same as `unknown`, since the
/// question was not answered within the resources given.
pub const STATUS: i32 = 3;

/// mimalloc (docs/check.md, *The allocator*), ending the process cleanly when it has no
/// memory to give.
pub struct Allocator;

unsafe impl GlobalAlloc for Allocator {
    unsafe fn alloc(&self, layout: Layout) -> *mut u8 {
        // SAFETY: the caller's contract for `alloc` is mimalloc's.
        got(unsafe { mimalloc::MiMalloc.alloc(layout) }, layout.size())
    }

    unsafe fn alloc_zeroed(&self, layout: Layout) -> *mut u8 {
        // SAFETY: the caller's contract for `alloc_zeroed` is mimalloc's.
        got(
            unsafe { mimalloc::MiMalloc.alloc_zeroed(layout) },
            layout.size(),
        )
    }

    unsafe fn dealloc(&self, ptr: *mut u8, layout: Layout) {
        // SAFETY: `ptr` came from this allocator, that is from mimalloc, with `layout`.
        unsafe { mimalloc::MiMalloc.dealloc(ptr, layout) }
    }

    unsafe fn realloc(&self, ptr: *mut u8, layout: Layout, new_size: usize) -> *mut u8 {
        // SAFETY: `ptr` came from mimalloc with `layout`; the caller's contract is its.
        got(
            unsafe { mimalloc::MiMalloc.realloc(ptr, layout, new_size) },
            new_size,
        )
    }
}

/// `ptr`, unless it is null: then the process ends (see [`out_of_memory`]).
fn got(ptr: *mut u8, size: usize) -> *mut u8 {
    if ptr.is_null() {
        out_of_memory(size);
    }
    ptr
}

unsafe extern "C" {
    // mimalloc's own functions (mimalloc.h), compiled into the binary by libmimalloc-sys,
    // whose Rust declarations of them need a feature and a dependency more.
    #[cfg(test)]
    fn mi_option_get(option: std::ffi::c_int) -> std::ffi::c_long;
    fn mi_option_set(option: std::ffi::c_int, value: std::ffi::c_long);
}

/// `mi_option_purge_delay`, the 16th option of mimalloc 2's `mi_option_t` (mimalloc.h): how
/// many milliseconds freed memory stays mapped before mimalloc gives it back (10 by default).
/// A test checks that the number still names that option.
const PURGE_DELAY: std::ffi::c_int = 15;

/// mimalloc gives freed memory back to the system at once rather than 10 ms later, so that a
/// buffer outgrown and freed is not still resident when its larger successor fills up: a
/// `minimize` of 10^5 transitions peaked 1 MB lower, one of 10^6 1-3 MB (docs/minimize.md).
/// Called before the command's threads start: options are plain numbers mimalloc reads when
/// it frees.
pub fn purge_at_once() {
    // SAFETY: `mi_option_set` stores a number in mimalloc's table of options; the option
    // exists (see PURGE_DELAY) and no other thread runs yet.
    unsafe { mi_option_set(PURGE_DELAY, 0) }
}

/// mimalloc's purge delay in milliseconds, for the test of [`PURGE_DELAY`].
#[cfg(test)]
fn purge_delay() -> std::ffi::c_long {
    // SAFETY: `mi_option_get` reads a number from mimalloc's table of options.
    unsafe { mi_option_get(PURGE_DELAY) }
}

/// Whether transparent huge pages were off when the process started (a parent's choice,
/// inherited), as [`huge_pages_off`] found them; then they stay off for every command.
static HUGE_PAGES_WERE_OFF: AtomicBool = AtomicBool::new(true);

/// Transparent huge pages are off from before the first allocation: a constructor in
/// `.init_array`, which the C library runs before `main`, before Rust's runtime allocates
/// (its name for the main thread, the arguments). mimalloc asks for huge pages on the memory
/// it takes from the system, and the kernel then gives 2 MB where a few KB are touched: turned
/// off only in `main`, the runtime's first allocation had already faulted in one huge page,
/// and the smallest `minimize` peaked at 8.5-9.0 MB against 7.0 MB (docs/minimize.md).
#[used]
#[unsafe(link_section = ".init_array")]
static HUGE_PAGES_OFF: extern "C" fn() = huge_pages_off;

/// Turns transparent huge pages off for the process, noting whether they were already.
extern "C" fn huge_pages_off() {
    // A kernel without the setting answers an error: treated as "off", never turned on.
    let were_off = rustix::thread::transparent_huge_pages_are_disabled().unwrap_or(true);
    let _ = rustix::thread::disable_transparent_huge_pages(true);
    HUGE_PAGES_WERE_OFF.store(were_off, Ordering::Relaxed);
}

/// Gives transparent huge pages back, unless `keep_off` or they were off at start. Called
/// once the arguments are parsed: `minimize` keeps them off (on its large inputs they bought
/// no time, and they cost 4-8 MB on every run); the other commands get them back, since they
/// may speed up large state spaces. Only memory is at stake: a kernel that refuses leaves
/// things as they are.
pub fn huge_pages_back_unless(keep_off: bool) {
    if !keep_off && !HUGE_PAGES_WERE_OFF.load(Ordering::Relaxed) {
        let _ = rustix::thread::disable_transparent_huge_pages(false);
    }
}

/// Says that `size` bytes could not be had and ends the process with [`STATUS`].
///
/// `_exit`, not `std::process::exit`: `exit` flushes Rust's standard output (a lock another
/// thread may hold while it waits on this one), runs the C library's `atexit` handlers
/// (which may allocate) and is not safe to call from two threads at once (two workers may
/// fail together). `_exit` does none of that: what standard output buffered is lost, which
/// is right for a run that did not finish.
fn out_of_memory(size: usize) -> ! {
    let mut buf = [0u8; 192];
    let len = message(&mut buf, size);
    // Nothing to do if standard error is closed: the status still says it.
    let _ = rustix::io::write(std::io::stderr().as_fd(), &buf[..len]);
    // SAFETY: `_exit` has no precondition; it ends the process without returning.
    unsafe { libc::_exit(STATUS) }
}

/// Writes the message for `size` bytes into `buf` without allocating; returns its length.
fn message(buf: &mut [u8; 192], size: usize) -> usize {
    const HEAD: &[u8] = b"agentpi: out of memory: could not allocate ";
    const TAIL: &[u8] =
        b" bytes (address-space limit? see `ulimit -v`); `check --max-memory MIB` bounds exploration\n";
    let mut digits = [0u8; 20];
    let mut len = 0;
    for part in [HEAD, decimal(size, &mut digits), TAIL] {
        buf[len..len + part.len()].copy_from_slice(part);
        len += part.len();
    }
    len
}

/// `n` in decimal, written at the end of `digits` (20 digits hold any `u64`).
fn decimal(mut n: usize, digits: &mut [u8; 20]) -> &[u8] {
    let mut start = digits.len();
    loop {
        start -= 1;
        digits[start] = b'0' + (n % 10) as u8;
        n /= 10;
        if n == 0 {
            return &digits[start..];
        }
    }
}

#[cfg(test)]
mod tests {
    /// mimalloc's default purge delay is 10 ms (unless MIMALLOC_PURGE_DELAY says otherwise):
    /// no other option of mimalloc 2 has that default, so PURGE_DELAY still names it.
    #[test]
    fn purge_delay_names_mimallocs_option() {
        let expected = std::env::var("MIMALLOC_PURGE_DELAY").map_or(10, |v| v.parse().unwrap());
        assert_eq!(super::purge_delay(), expected);
    }

    #[test]
    fn the_message_names_the_size() {
        let mut buf = [0u8; 192];
        for (size, says) in [(0, " 0 bytes"), (123_456, " 123456 bytes")] {
            let len = super::message(&mut buf, size);
            let text = std::str::from_utf8(&buf[..len]).unwrap();
            assert!(text.contains(says), "{text}");
            assert!(text.ends_with('\n'), "{text}");
        }
        let len = super::message(&mut buf, usize::MAX);
        assert!(
            std::str::from_utf8(&buf[..len])
                .unwrap()
                .contains("18446744073709551615")
        );
    }
}
