//! Every byte the binary writes goes through here: standard output, standard error and files
//! named by `-o`. A failed write never panics or aborts (`print!` does both: a panic, and an
//! abort when the panic message cannot be written either).
//!
//! - Standard output carries the result: when it fails (a reader that stopped, `| head`; a full
//!   disk), the run says so on standard error and exits with [`FAILED`].
//! - Standard error carries diagnostics and progress: when it fails there is nowhere left to
//!   say so, so the failure is ignored and the exit status still tells how the run went.

use std::io::Write;

/// The exit status of a run whose output could not be written (the status of input errors).
pub const FAILED: u8 = 2;

/// Writes `text` to standard output, or reports why it could not and returns [`FAILED`].
pub fn stdout(text: &str) -> Result<(), u8> {
    stdout_bytes(text.as_bytes())
}

fn stdout_bytes(bytes: &[u8]) -> Result<(), u8> {
    let mut out = std::io::stdout().lock();
    out.write_all(bytes)
        .and_then(|()| out.flush())
        .map_err(|e| {
            stderr(&format!("error: cannot write to standard output: {e}\n"));
            FAILED
        })
}

/// Writes `text` to standard output and returns `status`, or [`FAILED`] if the write failed.
pub fn finish(text: &str, status: u8) -> u8 {
    match stdout(text) {
        Ok(()) => status,
        Err(failed) => failed,
    }
}

/// Writes `text` to standard error; a failure is ignored (see the module comment).
pub fn stderr(text: &str) {
    let mut err = std::io::stderr().lock();
    let _ = err.write_all(text.as_bytes()).and_then(|()| err.flush());
}

/// `errln!(...)`: one formatted line on standard error, as `eprintln!` but never a panic.
macro_rules! errln {
    ($($arg:tt)*) => {
        $crate::output::stderr(&format!("{}\n", format_args!($($arg)*)))
    };
}
pub(crate) use errln;

/// Writes `bytes` to the file `path`, or to standard output; on failure prints why and
/// returns [`FAILED`], else 0.
pub fn write(path: Option<&str>, bytes: &[u8]) -> u8 {
    let Some(path) = path else {
        return stdout_bytes(bytes).err().unwrap_or(0);
    };
    match std::fs::write(path, bytes) {
        Ok(()) => 0,
        Err(e) => {
            errln!("error: cannot write `{path}`: {e}");
            FAILED
        }
    }
}

/// `1 state`, `2 states`: a count and its noun, in the plural unless the count is one.
pub fn count_of(n: usize, noun: &str) -> String {
    if n == 1 {
        format!("1 {noun}")
    } else {
        format!("{n} {noun}s")
    }
}
