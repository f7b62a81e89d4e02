//! Runs every check of a model as `agentpi check` does, for timing the engine with a release
//! build of this crate alone (minutes, not the hour of the whole binary): `cargo run
//! --release -p agentpi-check --example bench -- [check] FILE [-D NAME=VALUE ...]
//! [--threads N] [--max-states N] [--por]`. Prints each system's states, transitions and
//! verdicts, and the seconds to standard error; `AGENTPI=target/release/examples/bench bash
//! bench/check/run_all.sh` puts it beside SPIN. `BENCH_TRACES=1` also prints each
//! counterexample. The model is loaded as `agentpi check` loads it (`agentpi_models::load`:
//! imports relative to their importer, bundled models by name).

use agentpi_check::{Options, Progress, check_system};
use agentpi_ir::core::Program;

/// On a thread with the stack the `agentpi` binary gives its work (the semantics recurses).
fn main() {
    let worker = std::thread::Builder::new().stack_size(16 << 20).spawn(run);
    worker.expect("a thread").join().expect("no panic");
}

fn run() {
    // `check` first is taken as the command line of `agentpi check`, so that
    // `AGENTPI=target/release/examples/bench bash bench/check/run_all.sh` times this binary.
    let mut args = std::env::args().skip(1).peekable();
    args.next_if_eq("check");
    let file = args
        .next()
        .expect("usage: bench [check] FILE [-D NAME=VALUE ...] [--threads N]");
    let (mut defines, mut options) = (Vec::new(), Options::default());
    while let Some(arg) = args.next() {
        match arg.as_str() {
            "-D" => {
                let d = args.next().expect("-D NAME=VALUE");
                let (name, value) = d.split_once('=').expect("-D NAME=VALUE");
                defines.push((name.to_string(), value.to_string()));
            }
            "--threads" => {
                options.threads = args
                    .next()
                    .and_then(|t| t.parse().ok())
                    .expect("--threads N")
            }
            "--max-states" => options.max_states = args.next().and_then(|n| n.parse().ok()),
            "--por" => options.por = true,
            other => panic!("unknown argument {other}"),
        }
    }
    let program = &load(&file, &defines);
    let mut systems: Vec<usize> = program.checks.iter().map(|c| c.system).collect();
    systems.dedup();
    for system in systems {
        let checks: Vec<usize> = (0..program.checks.len())
            .filter(|&c| program.checks[c].system == system)
            .collect();
        let started = std::time::Instant::now();
        let report = check_system(program, system, &checks, &options, &Progress::default());
        let verdicts: Vec<String> = report
            .results
            .iter()
            .map(|r| format!("{}: {:?}", r.property, r.outcome))
            .collect();
        println!(
            "{}: {} states, {} transitions, {} bytes a state kept, {} expanded ({} fast); {}",
            report.system,
            report.states,
            report.transitions,
            report.bytes / report.states.max(1) as u64,
            report.expanded,
            report.fast,
            verdicts.join("; ")
        );
        // With BENCH_TRACES set, each counterexample and what it stopped at, to compare
        // two builds' outputs whole.
        if std::env::var_os("BENCH_TRACES").is_some() {
            for r in &report.results {
                println!(
                    "{}: {:?} {:?} {:?}",
                    r.property, r.trace, r.fault, r.blocked
                );
            }
        }
        // On standard error, beside the time: what the merge refused while the workers ran.
        let refused = report.expanded - report.alongside.min(report.expanded);
        eprintln!(
            "{:.3} s, {refused} refused",
            started.elapsed().as_secs_f64()
        );
    }
}

/// The model at `file` with constants `defines`, as `agentpi check` loads it; panics with
/// the diagnostics if it has errors.
fn load(file: &str, defines: &[(String, String)]) -> Program {
    let loaded = agentpi_models::load(file, defines, None).unwrap_or_else(|e| panic!("{e}"));
    assert!(!loaded.has_errors(), "{:?}", loaded.diagnostics);
    loaded.program
}

/// The allocator of the `agentpi` binary, so that the times are its.
#[global_allocator]
static ALLOCATOR: mimalloc::MiMalloc = mimalloc::MiMalloc;

#[cfg(test)]
mod tests {
    /// Models that import others load as `agentpi check` loads them: a bundled model by name
    /// (`import "mcp_basic"`), also from a file in another folder than `models/`
    /// (tests/run/orchestration.pi imports the bundled `orchestration`).
    #[test]
    fn imports_of_bundled_models_load() {
        let repo = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../..");
        for model in ["models/mcp_timeout.pi", "tests/run/orchestration.pi"] {
            let program = super::load(&repo.join(model).display().to_string(), &[]);
            assert!(!program.checks.is_empty(), "{model}: no checks");
        }
    }
}
