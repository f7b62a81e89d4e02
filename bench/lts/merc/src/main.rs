//! Benchmark driver for `bench/lts/run.sh`: generates inputs and runs one minimisation with
//! either our implementation or merc's; and the oracle of the differential tests of
//! agentpi-lts (merc's answers on their inputs). A crate of its own, outside the workspace,
//! so that no merc code ships and the test build does not compile merc.
//!
//! ```text
//! bench oracle                                        -> crates/lts/tests/oracle/merc.txt
//! bench reduce ours|merc strong|branching FILE.aut   -> "states transitions seconds"
//! bench strong signature|nlogn|hybrid FILE.aut        -> "blocks seconds"
//! bench random STATES TRANSITIONS SEED FILE.aut       (random, about 1/3 silent)
//! bench parallel K M FILE.aut                         (K cyclic processes of M steps)
//! ```

mod oracle;
#[path = "../../../../crates/lts/tests/common/random.rs"]
mod random;

use agentpi_lts::{Equivalence, minimize, read_aut, signature_budget, strong_blocks_within};
use merc_lts::LTS;
use merc_reduction::{Equivalence as MercEq, reduce_lts};
use std::fs::File;
use std::io::{BufReader, BufWriter, Write};

fn main() {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let a: Vec<&str> = args.iter().map(String::as_str).collect();
    let result = match a.as_slice() {
        ["oracle"] => oracle::write(&mut std::io::stdout().lock()),
        ["reduce", tool, equiv, file] => reduce(tool, equiv, file),
        ["strong", variant, file] => strong(variant, file),
        ["random", n, m, seed, file] => random(
            n.parse().unwrap(),
            m.parse().unwrap(),
            seed.parse().unwrap(),
            file,
        ),
        ["parallel", k, m, file] => parallel(k.parse().unwrap(), m.parse().unwrap(), file),
        _ => Err("usage: see the comment at the top of bench/lts/merc/src/main.rs".into()),
    };
    if let Err(e) = result {
        eprintln!("bench: {e}");
        std::process::exit(2);
    }
}

pub(crate) type Result<T> = std::result::Result<T, Box<dyn std::error::Error>>;

/// One strong partition of `file` by a variant of `minimize`'s algorithm: signature
/// refinement alone, one signature round then the O(m log n) refinement, or the hybrid
/// `minimize` runs. Prints the number of blocks and the time (no quotient is built).
fn strong(variant: &str, file: &str) -> Result<()> {
    let lts = read_aut(BufReader::new(File::open(file)?))?;
    let budget = match variant {
        "signature" => u64::MAX,
        "nlogn" => 0,
        "hybrid" => signature_budget(&lts),
        _ => return Err(format!("unknown variant {variant}").into()),
    };
    let start = Clock::start()?;
    let blocks = strong_blocks_within(&lts, budget);
    let seconds = start.seconds()?;
    let count = blocks.iter().map(|&b| b as usize + 1).max().unwrap_or(0);
    println!("{count} {seconds:.6}");
    Ok(())
}

/// Reads `file` with the tool's own reader and reduces it; prints sizes and the reduction's
/// time (see [`Clock`]; both tools reduce on one thread).
fn reduce(tool: &str, equiv: &str, file: &str) -> Result<()> {
    let (states, transitions, seconds) = match tool {
        "ours" => {
            let lts = read_aut(BufReader::new(File::open(file)?))?;
            let e = if equiv == "strong" {
                Equivalence::Strong
            } else {
                Equivalence::Branching
            };
            let start = Clock::start()?;
            let q = minimize(&lts, e).quotient;
            (q.num_states(), q.num_transitions(), start.seconds()?)
        }
        "merc" => {
            // merc reads `i` as the silent action, or `tau` with its mCRL2 reader: files
            // written by `agentpi lts` use `tau`.
            let lts = if uses_tau(file)? {
                merc_lts::read_mcrl2_aut(File::open(file)?)
            } else {
                merc_lts::read_aut(File::open(file)?)
            }
            .map_err(|e| format!("{e:?}"))?;
            let e = if equiv == "strong" {
                MercEq::StrongBisim
            } else {
                MercEq::BranchingBisim
            };
            let start = Clock::start()?;
            let q = reduce_lts(lts, e, false, &merc_utilities::Timing::new());
            (q.num_of_states(), q.num_of_transitions(), start.seconds()?)
        }
        _ => return Err(format!("unknown tool {tool}").into()),
    };
    println!("{states} {transitions} {seconds:.6}");
    Ok(())
}

/// Times a reduction: by the CPU time of this thread (user and system), which a loaded
/// machine disturbs far less than wall time, when that is long enough to read (the kernel
/// counts it in 10 ms ticks); by wall time below 0.2 s.
struct Clock {
    wall: std::time::Instant,
    cpu: f64,
}

impl Clock {
    fn start() -> Result<Clock> {
        Ok(Clock {
            wall: std::time::Instant::now(),
            cpu: cpu_seconds()?,
        })
    }

    fn seconds(&self) -> Result<f64> {
        let (wall, cpu) = (self.wall.elapsed().as_secs_f64(), cpu_seconds()? - self.cpu);
        Ok(if cpu < 0.2 { wall } else { cpu })
    }
}

/// The user and system CPU time of this thread so far, in seconds: fields 14 and 15 of
/// `/proc/thread-self/stat`, in ticks of 10 ms.
fn cpu_seconds() -> Result<f64> {
    let stat = std::fs::read_to_string("/proc/thread-self/stat")?;
    // The command name (field 2) may hold spaces: count from the closing parenthesis.
    let rest = stat.rsplit_once(')').map_or("", |(_, r)| r);
    let fields: Vec<&str> = rest.split_whitespace().collect();
    let ticks: u64 = fields[11].parse::<u64>()? + fields[12].parse::<u64>()?;
    Ok(ticks as f64 / 100.0)
}

/// Whether the silent steps of `file` are written `tau` (mCRL2, `agentpi lts`) rather than
/// `i` (CADP, VLTS): a look at its first megabyte.
fn uses_tau(file: &str) -> Result<bool> {
    use std::io::Read;
    let mut head = Vec::new();
    File::open(file)?.take(1 << 20).read_to_end(&mut head)?;
    Ok(head
        .windows(7)
        .any(|w| w == b", tau, " || w == b"\"tau\", "))
}

/// SplitMix64, so inputs are the same on every machine.
struct Rng(u64);

impl Rng {
    fn below(&mut self, n: u64) -> u64 {
        self.0 = self.0.wrapping_add(0x9E37_79B9_7F4A_7C15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
        (z ^ (z >> 31)) % n
    }
}

/// A random LTS: every state gets a transition to the next (so all are reachable), the rest
/// go to random states; a third of the labels are `i` (silent), so `tau`-cycles abound.
fn random(n: u64, m: u64, seed: u64, file: &str) -> Result<()> {
    let mut rng = Rng(seed);
    let mut out = BufWriter::new(File::create(file)?);
    writeln!(out, "des (0, {m}, {n})")?;
    let labels = ["i", "a", "b"];
    for k in 0..m {
        let from = if k < n { k } else { rng.below(n) };
        let to = if k < n { (k + 1) % n } else { rng.below(n) };
        writeln!(out, "({from}, \"{}\", {to})", labels[rng.below(3) as usize])?;
    }
    Ok(out.flush()?)
}

/// K independent processes, each a cycle of M steps of which only the first is visible
/// (`a<j>`); states are tuples, numbered in mixed radix M.
fn parallel(k: u32, m: u64, file: &str) -> Result<()> {
    let n = m.pow(k);
    let mut out = BufWriter::new(File::create(file)?);
    writeln!(out, "des (0, {}, {n})", n * k as u64)?;
    for s in 0..n {
        let mut radix = 1;
        for j in 0..k {
            let digit = (s / radix) % m;
            let next = s - digit * radix + ((digit + 1) % m) * radix;
            let label = if digit == 0 {
                format!("a{j}")
            } else {
                "i".to_string()
            };
            writeln!(out, "({s}, \"{label}\", {next})")?;
            radix *= m;
        }
    }
    Ok(out.flush()?)
}
