//! What every fuzz target shares: the entry point (AFL++'s persistent loop under
//! `cargo afl build`, a replay of files otherwise), the chunkings of a stream, and the check
//! that a diagnostic points inside its file.

use agentpi_diagnostics::{Diagnostic, Location, SourceMap, Span};

/// Runs `target` on AFL++'s inputs when built with `cargo afl build` (`--cfg fuzzing`).
/// Built plainly, runs it once on each file named on the command line (every file of a
/// folder, in name order), so that a crash the fuzzer saved replays with a backtrace: a
/// panic ends the process with status 101 after the file's name.
pub fn run(target: fn(&[u8])) {
    #[cfg(fuzzing)]
    afl::fuzz!(|data: &[u8]| target(data));
    #[cfg(not(fuzzing))]
    std::process::exit(replay(target, std::env::args().skip(1)));
}

#[cfg(not(fuzzing))]
fn replay(target: fn(&[u8]), paths: impl Iterator<Item = String>) -> i32 {
    let mut files = Vec::new();
    for path in paths {
        match inputs(std::path::Path::new(&path)) {
            Ok(found) => files.extend(found),
            Err(e) => {
                eprintln!("error: {path}: {e}");
                return 2;
            }
        }
    }
    for file in &files {
        eprintln!("replaying {}", file.display());
        match std::fs::read(file) {
            Ok(bytes) => target(&bytes),
            Err(e) => {
                eprintln!("error: {}: {e}", file.display());
                return 2;
            }
        }
    }
    println!("{} inputs, no crash", files.len());
    0
}

/// The file itself, or every file of the folder (not recursing), sorted.
#[cfg(not(fuzzing))]
fn inputs(path: &std::path::Path) -> std::io::Result<Vec<std::path::PathBuf>> {
    if !path.is_dir() {
        return Ok(vec![path.to_path_buf()]);
    }
    let mut files = Vec::new();
    for entry in std::fs::read_dir(path)? {
        let entry = entry?.path();
        if entry.is_file() {
            files.push(entry);
        }
    }
    files.sort();
    Ok(files)
}

/// `stream` cut into chunks of 1 to `seed + 1` bytes, their sizes drawn from `seed`: the
/// reads an incremental reader may get the stream in.
pub fn chunks(seed: u8, stream: &[u8]) -> Vec<&[u8]> {
    let most = usize::from(seed) + 1;
    let mut state = u32::from(seed).wrapping_mul(2_654_435_761) | 1;
    let mut out = Vec::new();
    let mut rest = stream;
    while !rest.is_empty() {
        // A xorshift step: cheap, and every seed gives a different cut.
        state ^= state << 13;
        state ^= state >> 17;
        state ^= state << 5;
        let size = 1 + (state as usize) % most;
        let (chunk, tail) = rest.split_at(size.min(rest.len()));
        out.push(chunk);
        rest = tail;
    }
    out
}

/// Panics unless every span of every diagnostic lies inside a file of `sources`: a span
/// past its file's end would be a wrong `FILE:LINE:COL` (or a panic in the renderer).
pub fn located(diagnostics: &[Diagnostic], sources: &SourceMap) {
    for diagnostic in diagnostics {
        if let Location::Source(span) = &diagnostic.location {
            inside(span, sources, diagnostic);
        }
        for label in &diagnostic.labels {
            inside(&label.span, sources, diagnostic);
        }
    }
}

fn inside(span: &Span, sources: &SourceMap, diagnostic: &Diagnostic) {
    let text = &sources.get(span.file).text;
    assert!(
        span.start <= span.end && span.end as usize <= text.len(),
        "span {span:?} outside its file ({} bytes): {diagnostic:?}",
        text.len()
    );
}
