//! Every bundled model, checked through the binary: verdicts, state and transition counts and
//! counterexample traces are pinned as snapshots of the text report, and the JSON report and
//! other thread counts must agree with it. The benchmark models of bench/check/ are pinned the
//! same way, at the small size each names in its `// pinned: -D ...` line.

use crate::support::repo;
use std::process::Command;

/// Runs `agentpi` with `args` from the repository root; returns (status, stdout, stderr).
pub(crate) fn agentpi(args: &[&str]) -> (i32, String, String) {
    let out = Command::new(env!("CARGO_BIN_EXE_agentpi"))
        .args(args)
        .current_dir(repo())
        .output()
        .unwrap();
    let text = |b: Vec<u8>| String::from_utf8(b).unwrap();
    (
        out.status.code().unwrap_or(-1),
        text(out.stdout),
        text(out.stderr),
    )
}

/// The bundled models by name, those in a folder as `folder/name` (`mcp/legacy`).
pub(crate) fn bundled_models() -> Vec<String> {
    let mut names = Vec::new();
    for path in std::fs::read_dir(repo().join("models")).unwrap() {
        let path = path.unwrap().path();
        let stem = path.file_stem().unwrap().to_string_lossy().to_string();
        if path.is_dir() {
            for inner in std::fs::read_dir(&path).unwrap() {
                let inner = inner.unwrap().path();
                if inner.extension().is_none_or(|e| e != "pi") {
                    continue; // models/paper/correspondence.map is a mapping file
                }
                names.push(format!(
                    "{stem}/{}",
                    inner.file_stem().unwrap().to_string_lossy()
                ));
            }
        } else if path.extension().is_some_and(|e| e == "pi") {
            names.push(stem);
        }
    }
    names.sort();
    names
}

/// The pinned report of one model: exit status and standard output.
fn check(name: &str) -> String {
    check_file(&format!("models/{name}.pi"), &[])
}

/// The pinned report of the model file at `path` (from the repository root), checked with the
/// extra arguments `args` (`-D N=4`).
fn check_file(path: &str, args: &[&str]) -> String {
    let mut all = vec!["check", path];
    all.extend_from_slice(args);
    let (status, stdout, stderr) = agentpi(&all);
    assert!(matches!(status, 0 | 1), "{path}: status {status}\n{stderr}");
    format!("exit status {status}\n{stdout}")
}

/// The models of bench/check/ that name a size to pin (`// pinned: -D N=4 ...` in their
/// header), with the arguments of that line: `(stem, arguments)`.
fn bench_models() -> Vec<(String, Vec<String>)> {
    let mut models = Vec::new();
    for path in std::fs::read_dir(repo().join("bench/check")).unwrap() {
        let path = path.unwrap().path();
        if path.extension().is_none_or(|e| e != "pi") {
            continue;
        }
        let text = std::fs::read_to_string(&path).unwrap();
        let Some(line) = text.lines().find_map(|l| l.strip_prefix("// pinned:")) else {
            continue;
        };
        let args = line
            .split_whitespace()
            .take_while(|w| !w.starts_with('('))
            .map(str::to_string)
            .collect();
        let stem = path.file_stem().unwrap().to_string_lossy().to_string();
        models.push((stem, args));
    }
    models.sort();
    models
}

#[test]
fn bundled_models_have_pinned_verdicts_and_traces() {
    for name in bundled_models().iter().filter(|n| *n != "mcp_basic") {
        insta::assert_snapshot!(name.replace('/', "_"), check(name));
    }
}

/// `--symmetry` and `--por` keep the verdicts of the bench models that exercise them, and
/// store the pinned number of states (identical clients: 3,645 states become 70; the ring:
/// 9,399 become 3,649).
#[test]
fn reductions_keep_verdicts_with_fewer_states() {
    let cases = [
        ("bench/check/clients.pi", "N=6", "--symmetry", 3645, 70),
        ("bench/check/lcr.pi", "N=6", "--por", 9399, 3649),
    ];
    for (file, size, flag, full, reduced) in cases {
        let plain = check_file(file, &["-D", size]);
        let with = check_file(file, &["-D", size, flag]);
        let verdicts = |report: &str| -> Vec<String> {
            let lines = report.lines().filter(|l| l.contains(" ... "));
            lines
                .map(|l| l.split(" (").next().unwrap().to_string())
                .collect()
        };
        assert_eq!(verdicts(&plain), verdicts(&with), "{file} {flag}");
        assert!(
            plain.contains(&format!("({full} states")),
            "{file}: {plain}"
        );
        assert!(
            with.contains(&format!("({reduced} states")),
            "{file} {flag}: {with}"
        );
    }
}

#[test]
fn bench_models_have_pinned_counts_and_verdicts() {
    let models = bench_models();
    let stems: Vec<&str> = models.iter().map(|(stem, _)| stem.as_str()).collect();
    assert_eq!(
        stems,
        [
            "abp",
            "buffer",
            "clients",
            "filter",
            "lcr",
            "peterson",
            "philosophers",
            "seqbuffer"
        ]
    );
    for (stem, args) in &models {
        let args: Vec<&str> = args.iter().map(String::as_str).collect();
        let report = check_file(&format!("bench/check/{stem}.pi"), &args);
        insta::assert_snapshot!(format!("bench_{stem}"), report);
    }
}

#[test]
fn output_is_the_same_for_every_thread_count() {
    for name in bundled_models().iter().filter(|n| *n != "mcp_basic") {
        let path = format!("models/{name}.pi");
        let one = agentpi(&["check", &path, "--threads", "1", "--format", "json"]);
        let three = agentpi(&["check", &path, "--threads", "3", "--format", "json"]);
        assert_eq!(one.1, three.1, "{name}");
        assert_eq!(one.0, three.0, "{name}");
    }
    // With the reductions too, on bench models big enough to take many chunks.
    for (file, size) in [("lcr", "N=6"), ("clients", "N=8"), ("filter", "N=3")] {
        let path = format!("bench/check/{file}.pi");
        let run = |threads| {
            let args = [
                "check",
                &path,
                "-D",
                size,
                "--por",
                "--symmetry",
                "--threads",
                threads,
            ];
            agentpi(&[&args[..], &["--format", "json"]].concat())
        };
        let (one, three) = (run("1"), run("3"));
        assert_eq!((one.0, one.1), (three.0, three.1), "{file} with reductions");
    }
}

#[test]
fn json_report_agrees_with_the_text_report() {
    let (status, stdout, _) = agentpi(&["check", "models/crash_no_timeout.pi", "--format", "json"]);
    assert_eq!(status, 1);
    let report: serde_json::Value = serde_json::from_str(&stdout).unwrap();
    let first = &report["checks"][0];
    assert_eq!(first["system"], "Hang");
    assert_eq!(first["property"], "deadlock free");
    assert_eq!(first["verdict"], "violated");
    let labels: Vec<&str> = first["trace"]
        .as_array()
        .unwrap()
        .iter()
        .map(|s| s["label"].as_str().unwrap())
        .collect();
    assert_eq!(labels, ["call(reply, search, 1)", "crash"]);
    assert_eq!(first["loop_start"], serde_json::Value::Null);
}

#[test]
fn bundled_models_run_by_name() {
    let (status, stdout, _) = agentpi(&["check", "calculator"]);
    assert_eq!(status, 0, "{stdout}");
    assert!(stdout.contains("Calc: deadlock free ... holds"), "{stdout}");
}

#[test]
fn a_state_limit_gives_unknown_and_exit_3() {
    let (status, stdout, _) = agentpi(&[
        "check",
        "models/tool_calls.pi",
        "--property",
        "6",
        "--max-states",
        "5",
    ]);
    assert_eq!(status, 3, "{stdout}");
    assert!(stdout.contains("unknown"), "{stdout}");
    assert!(stdout.contains("--max-states 5"), "{stdout}");
}

#[test]
fn input_errors_exit_2_with_positions() {
    let dir = std::env::temp_dir().join(format!("agentpi-bad-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let file = dir.join("bad.pi");
    std::fs::write(&file, "chan c : Nat\nsystem S = c!1\n").unwrap();
    let (status, stdout, stderr) = agentpi(&["check", file.to_str().unwrap()]);
    assert_eq!(status, 2);
    assert!(stdout.is_empty());
    assert!(stderr.contains("bad.pi:1:10: error["), "{stderr}");
}

#[test]
fn the_readme_example_does_what_the_readme_says() {
    let readme = std::fs::read_to_string(repo().join("README.md")).unwrap();
    let start = readme.find("```pi\n").expect("README has a pi example") + 6;
    let end = start + readme[start..].find("```").unwrap();
    let dir = std::env::temp_dir().join(format!("agentpi-readme-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let file = dir.join("readme.pi");
    std::fs::write(&file, &readme[start..end]).unwrap();
    let (status, stdout, _) = agentpi(&["check", file.to_str().unwrap()]);
    assert_eq!(status, 1, "{stdout}");
    assert!(
        stdout.contains("Hang: deadlock free ... violated"),
        "{stdout}"
    );
    assert!(
        stdout.contains("1. call(reply)") && stdout.contains("2. crash"),
        "{stdout}"
    );
}

#[test]
fn a_memory_limit_gives_unknown_and_exit_3() {
    let args = [
        "check",
        "models/tool_calls.pi",
        "--property",
        "6",
        "--max-memory",
        "0",
    ];
    let (status, stdout, _) = agentpi(&args);
    assert_eq!(status, 3, "{stdout}");
    assert!(
        stdout.contains("exploration stopped by --max-memory 0 MiB"),
        "{stdout}"
    );
}

#[test]
fn a_violation_found_before_a_limit_is_still_a_violation() {
    let model = "type N = 0..100
chan c : N
event hit
proc Count(n: N) = if n < 100 then c!n . Count(n + 1) else 0
daemon proc Sink = c?x . (if x == 2 then hit . Sink else Sink)
system S = Count(0) | Sink
check S: never hit
check S: deadlock free
";
    let dir = std::env::temp_dir().join(format!("agentpi-limit-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let file = dir.join("count.pi");
    std::fs::write(&file, model).unwrap();
    let (status, stdout, _) = agentpi(&["check", file.to_str().unwrap(), "--max-states", "50"]);
    assert_eq!(status, 1, "{stdout}");
    assert!(stdout.contains("S: never hit ... violated"), "{stdout}");
    assert!(stdout.contains("S: deadlock free ... unknown"), "{stdout}");
}

/// `agentpi check` under `ulimit -v KIB` (bash's), with `args`: (status, stdout, stderr).
fn check_limited(kib: u32, args: &str) -> (i32, String, String) {
    let binary = env!("CARGO_BIN_EXE_agentpi");
    let script = format!("ulimit -v {kib} && exec '{binary}' check {args}");
    let out = Command::new("bash")
        .args(["-c", &script])
        .current_dir(repo())
        .output()
        .unwrap();
    let text = |b: Vec<u8>| String::from_utf8(b).unwrap();
    (
        out.status.code().unwrap_or(-1),
        text(out.stdout),
        text(out.stderr),
    )
}

/// `--threads` is bounded; a pool the system refuses (each worker reserves a 256 MiB stack)
/// is asked again with fewer threads, with the same output and a warning; when not even one
/// worker can start, the error is exit 2, never a panic.
#[test]
fn threads_are_bounded_and_a_refused_pool_is_an_error_not_a_panic() {
    let (status, _, stderr) = agentpi(&["check", "banking", "--threads", "2000"]);
    assert_eq!(status, 2, "{stderr}");
    assert!(stderr.contains("2000 is not in 0..=1024"), "{stderr}");
    let (_, plain, _) = agentpi(&["check", "banking"]);
    // 1024 threads' 16 MiB stacks are 16 GiB of address space. A pool the system builds
    // with as many as fit left no room for the heap under 1 GB (an allocation failed: an
    // abort): the workers may reserve half the limit, 80 MiB each, 6 under 1,000,000 KiB.
    let (status, stdout, stderr) = check_limited(1_000_000, "banking --threads 1024");
    assert_eq!((status, stdout.as_str()), (1, plain.as_str()), "{stderr}");
    assert!(
        stderr.contains("warning: 1024 threads asked, 6 used"),
        "{stderr}"
    );
    for abort in ["panicked", "memory allocation of"] {
        assert!(!stderr.contains(abort), "{stderr}");
    }
}

/// A reduced state space is the same on any number of threads: which sources a worker could
/// not expand by the fast path (what the engine's cache held when it met them) once decided
/// which were expanded in full, and one thread stored 7,891 states of the buffer at N = 4
/// where two stored 9,313.
#[test]
fn partial_order_reduction_stores_the_same_states_on_any_thread_count() {
    for (file, size) in [
        ("bench/check/buffer.pi", "N=4"),
        ("bench/check/lcr.pi", "N=6"),
    ] {
        let counts = |threads: &str| -> Vec<String> {
            let report = check_file(file, &["-D", size, "--por", "--threads", threads]);
            let lines = report.lines().filter(|l| l.contains(" ... "));
            lines.map(str::to_string).collect()
        };
        let one = counts("1");
        assert!(!one.is_empty(), "{file}: no verdict");
        assert_eq!(one, counts("2"), "{file} -D {size}: 1 and 2 threads");
        assert_eq!(one, counts("3"), "{file} -D {size}: 1 and 3 threads");
    }
}
