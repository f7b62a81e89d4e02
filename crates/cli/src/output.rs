//! Writing a command's result to standard output or to a file named by `-o`.

use std::io::Write;

/// Writes `bytes`; on failure prints why and returns exit status 2.
pub fn write(path: Option<&str>, bytes: &[u8]) -> u8 {
    let result = match path {
        Some(p) => std::fs::write(p, bytes).map_err(|e| format!("cannot write `{p}`: {e}")),
        None => std::io::stdout()
            .write_all(bytes)
            .map_err(|e| format!("cannot write to standard output: {e}")),
    };
    match result {
        Ok(()) => 0,
        Err(message) => {
            eprintln!("error: {message}");
            2
        }
    }
}
