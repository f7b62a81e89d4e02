//! `agentpi check --cluster`: two processes on loopback (`scripts/cluster-local.sh`) print
//! exactly what one process prints and exit with its status; liveness is refused before
//! anything runs; a process killed mid-run makes the other stop with an error, no verdict.

use crate::support::repo;
use std::process::{Child, Command, Output, Stdio};
use std::time::{Duration, Instant};

/// How long any process of these tests may take (a loaded machine, a debug build).
const PATIENCE: Duration = Duration::from_secs(300);

/// Waits for `child`, killing it and failing past `PATIENCE`.
fn wait(mut child: Child, what: &str) -> Output {
    let start = Instant::now();
    while child.try_wait().unwrap().is_none() {
        if start.elapsed() > PATIENCE {
            child.kill().ok();
            panic!("{what}: still running after {PATIENCE:?}");
        }
        std::thread::sleep(Duration::from_millis(50));
    }
    child.wait_with_output().unwrap()
}

fn spawn(command: &mut Command) -> Child {
    command
        .current_dir(repo())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap()
}

fn single(args: &[&str]) -> Output {
    let mut command = Command::new(env!("CARGO_BIN_EXE_agentpi"));
    wait(spawn(command.arg("check").args(args)), "one process")
}

fn cluster(processes: usize, args: &[&str]) -> Output {
    let mut command = Command::new(repo().join("scripts/cluster-local.sh"));
    command
        .env("AGENTPI", env!("CARGO_BIN_EXE_agentpi"))
        .env("CLUSTER_TIMEOUT", PATIENCE.as_secs().to_string())
        .arg(processes.to_string())
        .args(args);
    wait(spawn(&mut command), "the cluster")
}

/// The one check of the same-output cases: the cluster's standard output and status are one
/// process's (`workers` the cluster's `--workers`).
fn same(args: &[&str], workers: &str) {
    let one = single(args);
    let two = cluster(2, &[args, &["--workers", workers]].concat());
    let text = |o: &Output| String::from_utf8_lossy(&o.stdout).into_owned();
    let err = String::from_utf8_lossy(&two.stderr);
    assert_eq!(
        text(&one),
        text(&two),
        "{args:?}: the report (cluster said {err})"
    );
    assert_eq!(
        one.status.code(),
        two.status.code(),
        "{args:?}: the status ({err})"
    );
    assert!(!text(&one).is_empty(), "{args:?}: no report");
}

#[test]
fn two_processes_print_what_one_prints() {
    let cases: &[(&[&str], &str)] = &[
        (
            &[
                "philosophers",
                "-D",
                "N=4",
                "--property",
                "Table: deadlock free",
            ],
            "1",
        ),
        (
            &[
                "philosophers",
                "-D",
                "N=3",
                "--property",
                "Fixed: reachable eat(0)",
                "--states",
            ],
            "1",
        ),
        (
            &[
                "ring",
                "-D",
                "N=4",
                "--property",
                "Broken: never leader(0)",
                "--format",
                "json",
            ],
            "2",
        ),
        (
            &["orchestration_broken", "--property", "deadlock free"],
            "2",
        ),
        (&["banking", "--property", "never overdraft(_)"], "1"),
        (
            &["tool_calls", "--property", "Sequential: never final(1)"],
            "1",
        ),
        (&["crash_no_timeout", "--property", "deadlock free"], "3"),
    ];
    for (args, workers) in cases {
        same(args, workers);
    }
}

/// A worker thread has the CLI's 16 MiB stack: process calls nested to just under
/// `agentpi_semantics::MAX_CALL_DEPTH` are checked (timely's own 2 MiB threads overflowed:
/// an abort), and past it are unknown, as on one process.
#[test]
fn deep_calls_on_a_worker_are_checked_as_on_one_process() {
    let dir = std::env::temp_dir().join(format!("agentpi-cluster-deep-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    for n in [9_999, 10_001] {
        let calls: String = (0..n)
            .map(|i| format!("proc P{i}() = P{}()\n", i + 1))
            .collect();
        let text = format!("{calls}proc P{n}() = tau\nsystem S = P0()\ncheck S: deadlock free\n");
        let path = dir.join(format!("calls{n}.pi"));
        std::fs::write(&path, text).unwrap();
        same(&[path.to_str().unwrap()], "2");
    }
    std::fs::remove_dir_all(&dir).ok();
}

/// `--max-states` stops the cluster where it stops one process: the same counts, the same
/// open checks (exit 3).
#[test]
fn max_states_stops_two_processes_where_it_stops_one() {
    for max in ["1", "100", "5000"] {
        let args = [
            "philosophers",
            "-D",
            "N=5",
            "--property",
            "Fixed: deadlock free",
            "--max-states",
            max,
        ];
        same(&args, "2");
    }
}

#[test]
fn liveness_is_refused_before_exploring() {
    let out = cluster(2, &["philosophers", "-D", "N=3"]);
    let err = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(2), "{err}");
    assert!(out.stdout.is_empty());
    assert!(
        err.contains("`--cluster` decides safety checks only")
            && err.contains("Fixed: always eventually eat(_)` is a liveness check"),
        "{err}"
    );
}

#[test]
fn a_host_file_line_that_is_not_host_port_is_named() {
    let hosts = hosts_file("bad-hosts");
    std::fs::write(&hosts, "# the cluster\n127.0.0.1:2101\n  node1 # no port\n").unwrap();
    let out = single(&[
        "philosophers",
        "-D",
        "N=3",
        "--property",
        "Fixed: deadlock free",
        "--cluster",
        hosts.to_str().unwrap(),
        "--process",
        "0",
    ]);
    let err = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(2), "{err}");
    let at = format!("{}:3:3: `node1` is not `host:port`", hosts.display());
    assert!(err.contains(&at), "{err}");
    std::fs::remove_dir_all(hosts.parent().unwrap()).ok();
}

/// A host file of two free loopback ports, in a fresh directory.
fn hosts_file(name: &str) -> std::path::PathBuf {
    let dir = std::env::temp_dir().join(format!("agentpi-{name}-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let first = crate::support::free_port();
    let second = loop {
        let p = crate::support::free_port();
        if p != first {
            break p;
        }
    };
    let path = dir.join("hosts");
    std::fs::write(&path, format!("127.0.0.1:{first}\n127.0.0.1:{second}\n")).unwrap();
    path
}

#[test]
fn a_process_killed_mid_run_stops_the_other_with_an_error() {
    let hosts = hosts_file("killed");
    let process = |i: &str| {
        let mut command = Command::new(env!("CARGO_BIN_EXE_agentpi"));
        let args = [
            "check",
            "philosophers",
            "-D",
            "N=14",
            "--property",
            "Fixed: deadlock free",
        ];
        command
            .args(args)
            .arg("--cluster")
            .arg(&hosts)
            .args(["--process", i]);
        spawn(&mut command)
    };
    let (first, mut second) = (process("0"), process("1"));
    // Philosophers at 14 take minutes on two processes: both are well into it by then.
    std::thread::sleep(Duration::from_secs(3));
    second.kill().unwrap();
    second.wait().unwrap();
    let out = wait(first, "the surviving process");
    let err = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(2), "{err}");
    assert!(out.stdout.is_empty(), "a report from a broken cluster");
    assert!(
        err.contains("error: a worker of the cluster stopped"),
        "{err}"
    );
    std::fs::remove_dir_all(hosts.parent().unwrap()).ok();
}

/// Every check of every bundled model, one at a time (`--property N`): two processes print
/// what one prints, except for the checks the cluster refuses (liveness, `ltl`, relations).
#[test]
fn every_bundled_safety_check_on_two_processes_prints_what_one_prints() {
    let mut models: Vec<_> = std::fs::read_dir(repo().join("models"))
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| p.extension().is_some_and(|x| x == "pi"))
        .collect();
    models.sort();
    let mut compared = 0;
    for model in &models {
        let model = model.display().to_string();
        for n in 1.. {
            let n = n.to_string();
            let args = [model.as_str(), "--property", n.as_str()];
            let one = single(&args);
            if String::from_utf8_lossy(&one.stderr).contains("--property") {
                break;
            }
            let two = cluster(2, &args);
            let err = String::from_utf8_lossy(&two.stderr);
            if err.contains("`--cluster` decides safety checks only") {
                continue;
            }
            assert_eq!(one.stdout, two.stdout, "{args:?}: the report ({err})");
            assert_eq!(one.status.code(), two.status.code(), "{args:?}: the status");
            compared += 1;
        }
    }
    assert!(compared >= 25, "only {compared} checks compared");
}

/// `--max-memory` bounds each process: one past it stops them all, the open check unknown
/// (exit 3), as on one process (whose counts differ: it stops at the exact state).
#[test]
fn max_memory_bounds_each_process_and_leaves_the_check_unknown() {
    let args = [
        "philosophers",
        "-D",
        "N=9",
        "--property",
        "Fixed: deadlock free",
    ];
    let out = cluster(2, &[&args[..], &["--max-memory", "1"]].concat());
    let text = String::from_utf8_lossy(&out.stdout);
    assert_eq!(out.status.code(), Some(3), "{text}");
    assert!(
        text.contains("Fixed: deadlock free ... unknown")
            && text.contains("exploration stopped by --max-memory 1 MiB before this was decided"),
        "{text}"
    );
}
