//! `agentpi minimize FILE.aut --equiv E --no-time` without the command line: the same reader
//! call (`read_aut_sized` with the file's size) and the same `minimize`, for measuring the
//! library's part of the command (massif, callgrind, peak RSS) without building the binary.
//!
//! ```text
//! cargo run --release -p agentpi-lts --example minimize -- FILE.aut strong|branching
//! ```
//! prints "states transitions" of the quotient; with a third argument `aut`, the quotient in
//! `.aut` form instead (to compare with `agentpi minimize FILE -o OUT.aut`).

use agentpi_lts::{Equivalence, minimize, read_aut_sized, write_aut};
use std::fs::File;
use std::io::{BufReader, BufWriter, Write};

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let [file, equiv, rest @ ..] = args.as_slice() else {
        return Err("usage: minimize FILE.aut strong|branching [aut]".into());
    };
    let equivalence = match equiv.as_str() {
        "strong" => Equivalence::Strong,
        "branching" => Equivalence::Branching,
        other => return Err(format!("unknown equivalence {other}").into()),
    };
    let input = File::open(file)?;
    let bytes = input.metadata().ok().map(|m| m.len());
    let lts = read_aut_sized(BufReader::new(input), bytes)?;
    let quotient = minimize(&lts, equivalence).quotient;
    let mut out = BufWriter::new(std::io::stdout().lock());
    if rest.first().is_some_and(|a| a == "aut") {
        write_aut(&quotient, &mut out)?;
    } else {
        writeln!(
            out,
            "{} {}",
            quotient.num_states(),
            quotient.num_transitions()
        )?;
    }
    Ok(out.flush()?)
}
