//! `agentpi run` and `agentpi extract` against real servers: server-filesystem on a scratch
//! folder, server-memory with its file there, and the Python SDK server of tests/run/tools.py
//! (twice: `py` cleans up and notifies, `faulty` takes the injected faults). The seed's
//! pipeline and the bundled orchestration run with a fault injected at each point (a tool
//! error, a JSON-RPC error, a timeout, a crash in the middle of the call): each path is pinned,
//! is a run of the model (`agentpi replay` accepts it), and the world agrees (cleanup happened,
//! nothing was published after a failed fetch, every call was answered or cancelled, no
//! protocol violation). A planted flaw and overlapping writes are refused before anything runs.

use crate::cases::each_in_parallel;
use crate::monitor::{agentpi, peer, scratch};
use crate::support::{Server, free_port, repo};
use serde_json::Value;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

fn flow(name: &str) -> String {
    repo().join("tests/run").join(name).display().to_string()
}

fn python() -> String {
    peer(".venv/bin/python")
}

/// A scratch folder with a source file, and the servers of a run over it.
struct World {
    dir: PathBuf,
}

impl World {
    fn new(name: &str) -> World {
        let dir = scratch(&format!("run_{name}"));
        std::fs::create_dir_all(dir.join("out")).unwrap();
        std::fs::write(dir.join("a.txt"), "alpha").unwrap();
        World { dir }
    }

    fn path(&self, name: &str) -> String {
        self.dir.join(name).display().to_string()
    }

    /// The servers, as TOML (`faulty` given by `faulty`: a command, or an HTTP URL).
    fn servers(&self, faulty: &str) -> String {
        let tools = flow("tools.py");
        format!(
            "[servers]\nfs = [{:?}, {:?}]\nmem = [\"env\", {:?}, {:?}]\npy = [{:?}, {tools:?}, \"--log\", {:?}]\nfaulty = {faulty}\n",
            peer("node_modules/.bin/mcp-server-filesystem"),
            self.dir.display().to_string(),
            format!("MEMORY_FILE_PATH={}", self.path("memory.jsonl")),
            peer("node_modules/.bin/mcp-server-memory"),
            python(),
            self.path("py.log"),
        )
    }

    fn faulty_stdio(&self) -> String {
        format!(
            "[{:?}, {:?}, \"--log\", {:?}]",
            python(),
            flow("tools.py"),
            self.path("faulty.log")
        )
    }

    /// The configuration of the pipeline (and of the orchestration, which has no cleanup and
    /// notify channels: `cleanup` is left out for it).
    fn config(&self, faulty: &str, pipeline: bool) -> String {
        let mut text = self.servers(faulty);
        text += &format!(
            "[bind]\nfetch_a = {{ tool = \"fs.read_text_file\", args = {{ path = {:?} }} }}\n\
             fetch_b = {{ tool = \"py.fetch\", args = {{ source = \"b\" }} }}\n\
             publish_x = {{ tool = \"fs.write_file\", args = {{ path = {:?}, content = \"${{fetch_a}}+${{fetch_b}}\" }} }}\n\
             publish_y = {{ tool = \"mem.create_entities\", args = {{ entities = [{{ name = \"report\", entityType = \"report\", observations = [\"${{fetch_a}}\", \"${{fetch_b}}\"] }}] }} }}\n",
            self.path("a.txt"),
            self.path("out/x.txt"),
        );
        if pipeline {
            text += "cleanup = { tool = \"py.cleanup\", args = { what = \"x and y\" } }\n\
                     notify = { tool = \"py.notify\", args = { text = \"the pipeline failed\" } }\n";
        }
        let file = self.dir.join("run.toml");
        std::fs::write(&file, text).unwrap();
        file.display().to_string()
    }

    fn read(&self, name: &str) -> String {
        std::fs::read_to_string(self.dir.join(name)).unwrap_or_default()
    }
}

/// Runs agentpi; its status, standard output and standard error.
fn agentpi_run(args: &[String]) -> (i32, String, String) {
    let out = Command::new(agentpi())
        .args(args)
        .args(roomy_start(args))
        .stdin(Stdio::null())
        .output()
        .unwrap();
    let text = |b: &[u8]| String::from_utf8_lossy(b).to_string();
    (
        out.status.code().unwrap_or(-1),
        text(&out.stdout),
        text(&out.stderr),
    )
}

/// `--timeout 300` for `agentpi run` unless the test sets it: the budget to start a server and
/// list its tools is not under test here, and Python servers started eight at a time on a loaded
/// two-core machine took over the default 30 s to answer `initialize` (the cases then failed on
/// start-up, not on what they check).
fn roomy_start(args: &[String]) -> Vec<String> {
    let is_run = args.first().is_some_and(|a| a == "run");
    if is_run && !args.iter().any(|a| a == "--timeout") {
        strings(&["--timeout", "300"])
    } else {
        Vec::new()
    }
}

fn strings(items: &[&str]) -> Vec<String> {
    items.iter().map(|s| s.to_string()).collect()
}

/// The labels of a run's path that are not on restricted channels, as `agentpi replay` reads
/// them (`r#1` is written `r_1`: an observed identifier).
fn observed(report: &Value) -> Vec<String> {
    report["path"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|s| s["restricted"] == false)
        .map(|s| s["label"].as_str().unwrap().replace('#', "_"))
        .collect()
}

/// `agentpi replay` accepts the path as a run of `model` (whose deadline's value does not
/// change its steps).
fn replays(dir: &Path, model: &str, labels: &[String]) {
    let trace = dir.join("path.trace");
    std::fs::write(&trace, labels.join("\n") + "\n").unwrap();
    let (status, out, err) =
        agentpi_run(&strings(&["replay", model, &trace.display().to_string()]));
    assert_eq!(status, 0, "the path is not a run of {model}: {out}{err}");
}

/// Every call settled; a call that timed out was cancelled; no server broke the protocol.
fn calls_settled_and_clean(name: &str, report: &Value) -> Vec<(String, String)> {
    let calls = report["calls"].as_array().unwrap();
    for call in calls {
        assert!(
            call["outcome"].is_string(),
            "{name}: a call left unanswered: {call}"
        );
        if call["outcome"] == "timeout" {
            assert_eq!(call["cancelled"], true, "{name}: {call}");
        }
    }
    for server in report["servers"].as_array().unwrap() {
        let violations = &server["report"]["violations"];
        assert_eq!(violations.as_array().unwrap().len(), 0, "{name}: {server}");
    }
    calls
        .iter()
        .map(|c| {
            (
                c["chan"].as_str().unwrap().to_string(),
                c["outcome"].as_str().unwrap().to_string(),
            )
        })
        .collect()
}

/// A fault injected at one point: the extern bound to a tool of `faulty`, and the outcome the
/// call then has.
struct Fault {
    point: &'static str,
    tool: &'static str,
    outcome: &'static str,
}

/// One case of the pipeline: the fault (none for the clean run) and the pinned path.
struct Case {
    fault: Option<Fault>,
    path: &'static [&'static str],
}

const fn fault(point: &'static str, tool: &'static str, outcome: &'static str) -> Option<Fault> {
    Some(Fault {
        point,
        tool,
        outcome,
    })
}

/// Runs a workflow in a world with one fault; the JSON report.
fn run_case(
    world: &World,
    workflow: &str,
    config: &str,
    fault: &Option<Fault>,
    extra: &[&str],
) -> Value {
    let mut args = strings(&[
        "run",
        &flow(workflow),
        "--config",
        config,
        "--format",
        "json",
        "-D",
        "Deadline=1000",
    ]);
    args.extend(strings(&["--record", &world.path("run.jsonl")]));
    if let Some(f) = fault {
        let args_json = match f.tool {
            "slow" => " {\"seconds\": 8}",
            _ => "",
        };
        args.push("--bind".into());
        args.push(format!("{}=faulty.{}{args_json}", f.point, f.tool));
    }
    args.extend(strings(extra));
    let (status, out, err) = agentpi_run(&args);
    let report: Value = serde_json::from_str(&out).unwrap_or_else(|e| panic!("{e}: {out}{err}"));
    assert_eq!(status, 0, "{workflow}: {report:#}\n{err}");
    assert_eq!(report["end"], "valid", "{report:#}");
    report
}

fn case_name(fault: &Option<Fault>) -> String {
    match fault {
        Some(f) => format!("{}_{}", f.point, f.tool),
        None => "clean".to_string(),
    }
}

const PIPELINE: &[Case] = &[
    Case {
        fault: None,
        path: &[
            "fetch_b(r_1)",
            "fetch_a(r_2)",
            "fetch_b_ok(r_1)",
            "fetch_a_ok(r_2)",
            "fused",
            "publish_x(r_3)",
            "publish_y(r_4)",
            "publish_x_ok(r_3)",
            "publish_y_ok(r_4)",
            "done",
        ],
    },
    Case {
        fault: fault("fetch_a", "fail", "err"),
        path: &[
            "fetch_b(r_1)",
            "fetch_a(r_2)",
            "fetch_b_ok(r_1)",
            "fetch_a_err(r_2)",
            "failed",
            "cleanup(r_3)",
            "cleanup_ok(r_3)",
            "notify(r_4)",
            "notify_ok(r_4)",
        ],
    },
    Case {
        fault: fault("fetch_a", "reject", "err"),
        path: &[
            "fetch_b(r_1)",
            "fetch_a(r_2)",
            "fetch_b_ok(r_1)",
            "fetch_a_err(r_2)",
            "failed",
            "cleanup(r_3)",
            "cleanup_ok(r_3)",
            "notify(r_4)",
            "notify_ok(r_4)",
        ],
    },
    Case {
        fault: fault("fetch_a", "slow", "timeout"),
        path: &[
            "fetch_b(r_1)",
            "fetch_a(r_2)",
            "fetch_b_ok(r_1)",
            "fetch_a_timeout(r_2)",
            "failed",
            "cleanup(r_3)",
            "cleanup_ok(r_3)",
            "notify(r_4)",
            "notify_ok(r_4)",
        ],
    },
    Case {
        fault: fault("fetch_a", "crash", "crash"),
        path: &[
            "fetch_b(r_1)",
            "fetch_a(r_2)",
            "fetch_b_ok(r_1)",
            "fetch_a_crash(r_2)",
            "failed",
            "cleanup(r_3)",
            "cleanup_ok(r_3)",
            "notify(r_4)",
            "notify_ok(r_4)",
        ],
    },
    Case {
        fault: fault("fetch_b", "fail", "err"),
        path: &[
            "fetch_b(r_1)",
            "fetch_a(r_2)",
            "fetch_b_err(r_1)",
            "fetch_a_ok(r_2)",
            "failed",
            "cleanup(r_3)",
            "cleanup_ok(r_3)",
            "notify(r_4)",
            "notify_ok(r_4)",
        ],
    },
    Case {
        fault: fault("fetch_b", "slow", "timeout"),
        path: &[
            "fetch_b(r_1)",
            "fetch_a(r_2)",
            "fetch_b_timeout(r_1)",
            "fetch_a_ok(r_2)",
            "failed",
            "cleanup(r_3)",
            "cleanup_ok(r_3)",
            "notify(r_4)",
            "notify_ok(r_4)",
        ],
    },
    Case {
        fault: fault("fetch_b", "crash", "crash"),
        path: &[
            "fetch_b(r_1)",
            "fetch_a(r_2)",
            "fetch_b_crash(r_1)",
            "fetch_a_ok(r_2)",
            "failed",
            "cleanup(r_3)",
            "cleanup_ok(r_3)",
            "notify(r_4)",
            "notify_ok(r_4)",
        ],
    },
    Case {
        fault: fault("publish_x", "fail", "err"),
        path: &[
            "fetch_b(r_1)",
            "fetch_a(r_2)",
            "fetch_b_ok(r_1)",
            "fetch_a_ok(r_2)",
            "fused",
            "publish_x(r_3)",
            "publish_y(r_4)",
            "publish_x_err(r_3)",
            "publish_y_ok(r_4)",
            "failed",
            "cleanup(r_5)",
            "cleanup_ok(r_5)",
            "notify(r_6)",
            "notify_ok(r_6)",
        ],
    },
    Case {
        fault: fault("publish_x", "slow", "timeout"),
        path: &[
            "fetch_b(r_1)",
            "fetch_a(r_2)",
            "fetch_b_ok(r_1)",
            "fetch_a_ok(r_2)",
            "fused",
            "publish_x(r_3)",
            "publish_y(r_4)",
            "publish_x_timeout(r_3)",
            "publish_y_ok(r_4)",
            "failed",
            "cleanup(r_5)",
            "cleanup_ok(r_5)",
            "notify(r_6)",
            "notify_ok(r_6)",
        ],
    },
    Case {
        fault: fault("publish_x", "crash", "crash"),
        path: &[
            "fetch_b(r_1)",
            "fetch_a(r_2)",
            "fetch_b_ok(r_1)",
            "fetch_a_ok(r_2)",
            "fused",
            "publish_x(r_3)",
            "publish_y(r_4)",
            "publish_x_crash(r_3)",
            "publish_y_ok(r_4)",
            "failed",
            "cleanup(r_5)",
            "cleanup_ok(r_5)",
            "notify(r_6)",
            "notify_ok(r_6)",
        ],
    },
    Case {
        fault: fault("publish_y", "fail", "err"),
        path: &[
            "fetch_b(r_1)",
            "fetch_a(r_2)",
            "fetch_b_ok(r_1)",
            "fetch_a_ok(r_2)",
            "fused",
            "publish_x(r_3)",
            "publish_y(r_4)",
            "publish_x_ok(r_3)",
            "publish_y_err(r_4)",
            "failed",
            "cleanup(r_5)",
            "cleanup_ok(r_5)",
            "notify(r_6)",
            "notify_ok(r_6)",
        ],
    },
    Case {
        fault: fault("publish_y", "slow", "timeout"),
        path: &[
            "fetch_b(r_1)",
            "fetch_a(r_2)",
            "fetch_b_ok(r_1)",
            "fetch_a_ok(r_2)",
            "fused",
            "publish_x(r_3)",
            "publish_y(r_4)",
            "publish_x_ok(r_3)",
            "publish_y_timeout(r_4)",
            "failed",
            "cleanup(r_5)",
            "cleanup_ok(r_5)",
            "notify(r_6)",
            "notify_ok(r_6)",
        ],
    },
    Case {
        fault: fault("publish_y", "crash", "crash"),
        path: &[
            "fetch_b(r_1)",
            "fetch_a(r_2)",
            "fetch_b_ok(r_1)",
            "fetch_a_ok(r_2)",
            "fused",
            "publish_x(r_3)",
            "publish_y(r_4)",
            "publish_x_ok(r_3)",
            "publish_y_crash(r_4)",
            "failed",
            "cleanup(r_5)",
            "cleanup_ok(r_5)",
            "notify(r_6)",
            "notify_ok(r_6)",
        ],
    },
];

/// The seed's pipeline with a fault at each point: the pinned path, the faulty call's
/// outcome, cleanup after every failure and only then, nothing published after a failed
/// fetch, every call answered or cancelled.
#[test]
fn pipeline_takes_the_checked_path_for_each_fault() {
    each_in_parallel(PIPELINE, |case| {
        let name = case_name(&case.fault);
        let world = World::new(&format!("pipeline_{name}"));
        let config = world.config(&world.faulty_stdio(), true);
        let report = run_case(&world, "pipeline.pi", &config, &case.fault, &[]);
        let labels = observed(&report);
        assert_eq!(labels, case.path, "{name}: the path changed");
        replays(&world.dir, &format!("{}:Run", flow("pipeline.pi")), &labels);
        let calls = calls_settled_and_clean(&name, &report);
        pipeline_world(&name, &world, &case.fault, &calls);
    });
}

/// What the servers saw agrees with the path.
fn pipeline_world(name: &str, world: &World, fault: &Option<Fault>, calls: &[(String, String)]) {
    let py = world.read("py.log");
    let published = world.read("out/x.txt");
    let memory = world.read("memory.jsonl");
    let Some(f) = fault else {
        assert_eq!(published, "alpha+data of b", "{name}");
        assert!(
            memory.contains("\"observations\":[\"alpha\",\"data of b\"]"),
            "{name}: {memory}"
        );
        assert!(!py.contains("cleanup"), "{name}: {py}");
        return;
    };
    let faulty = calls.iter().find(|(chan, _)| chan == f.point);
    assert_eq!(
        faulty.map(|(_, o)| o.as_str()),
        Some(f.outcome),
        "{name}: {calls:?}"
    );
    assert!(
        py.contains("cleanup x and y\nnotify the pipeline failed"),
        "{name}: no cleanup: {py}"
    );
    if f.point.starts_with("fetch") {
        let publishing = calls.iter().any(|(chan, _)| chan.starts_with("publish"));
        assert!(
            !publishing,
            "{name}: published after a failed fetch: {calls:?}"
        );
        assert_eq!(published, "", "{name}");
        assert!(!memory.contains("report"), "{name}: {memory}");
    }
    if f.tool == "slow" {
        // The server was told: the SDK cancels the tool's task.
        let faulty_log = wait_for(&world.dir.join("faulty.log"), "slow cancelled");
        assert!(
            faulty_log.contains("slow cancelled"),
            "{name}: {faulty_log}"
        );
    }
}

/// The file's text once it holds `what`. The server writes it when the SDK has cancelled the
/// tool's task, which a loaded machine may delay by seconds: the bound only keeps a server
/// that never writes it from hanging the test (the caller's assertion then fails).
fn wait_for(file: &Path, what: &str) -> String {
    let started = Instant::now();
    loop {
        let text = std::fs::read_to_string(file).unwrap_or_default();
        if text.contains(what) || started.elapsed() > Duration::from_secs(60) {
            return text;
        }
        std::thread::sleep(Duration::from_millis(20));
    }
}

const ORCHESTRATION: &[Case] = &[
    Case {
        fault: None,
        path: &[
            "fetch_b(r_1)",
            "fetch_a(r_2)",
            "fetch_b_ok(r_1)",
            "fetch_a_ok(r_2)",
            "fused",
            "publish_x(r_3)",
            "publish_y(r_4)",
            "publish_x_ok(r_3)",
            "publish_y_ok(r_4)",
            "done",
        ],
    },
    Case {
        fault: fault("fetch_b", "fail", "err"),
        path: &[
            "fetch_b(r_1)",
            "fetch_a(r_2)",
            "fetch_b_err(r_1)",
            "mark_failed",
            "fetch_a_ok(r_2)",
            "failed",
            "cleanup",
            "notify",
        ],
    },
    Case {
        fault: fault("fetch_a", "crash", "crash"),
        path: &[
            "fetch_b(r_1)",
            "fetch_a(r_2)",
            "fetch_b_ok(r_1)",
            "fetch_a_crash(r_2)",
            "mark_failed",
            "failed",
            "cleanup",
            "notify",
        ],
    },
    Case {
        fault: fault("publish_x", "slow", "timeout"),
        path: &[
            "fetch_b(r_1)",
            "fetch_a(r_2)",
            "fetch_b_ok(r_1)",
            "fetch_a_ok(r_2)",
            "fused",
            "publish_x(r_3)",
            "publish_y(r_4)",
            "publish_x_timeout(r_3)",
            "publish_y_ok(r_4)",
            "failed",
            "cleanup",
            "notify",
        ],
    },
];

/// The bundled orchestration model, its tool channels declared `extern`: the same faults
/// take its `fail` branches, with `cleanup` and `notify` (events of that model) on the path.
#[test]
fn bundled_orchestration_takes_the_checked_path_for_each_fault() {
    each_in_parallel(ORCHESTRATION, |case| {
        let name = case_name(&case.fault);
        let world = World::new(&format!("orchestration_{name}"));
        let config = world.config(&world.faulty_stdio(), false);
        let report = run_case(&world, "orchestration.pi", &config, &case.fault, &[]);
        let labels = observed(&report);
        assert_eq!(labels, case.path, "{name}: the path changed");
        replays(
            &world.dir,
            &format!("{}:Run", flow("orchestration.pi")),
            &labels,
        );
        let calls = calls_settled_and_clean(&name, &report);
        let failed = labels.iter().any(|l| l == "failed");
        assert_eq!(failed, case.fault.is_some(), "{name}");
        assert_eq!(labels.iter().any(|l| l == "cleanup"), failed, "{name}");
        if case
            .fault
            .as_ref()
            .is_some_and(|f| f.point.starts_with("fetch"))
        {
            assert!(
                !calls.iter().any(|(c, _)| c.starts_with("publish")),
                "{name}: {calls:?}"
            );
            assert_eq!(world.read("out/x.txt"), "", "{name}");
        }
    });
}

/// A workflow with a planted flaw (no cleanup when publishing fails) is refused with its
/// counterexample, and nothing runs: the servers are listed, no tool is called.
#[test]
fn a_planted_flaw_is_refused_before_it_runs() {
    let world = World::new("refused");
    let config = world.config(&world.faulty_stdio(), true);
    let record = world.path("run.jsonl");
    let args = strings(&[
        "run",
        &flow("pipeline_broken.pi"),
        "--config",
        &config,
        "--record",
        &record,
    ]);
    let (status, out, err) = agentpi_run(&args);
    assert_eq!(status, 1, "{out}{err}");
    assert!(
        out.contains("Run: failed leads to cleanup ... violated"),
        "{out}"
    );
    assert!(out.contains("counterexample"), "{out}");
    assert!(
        out.contains("publish_y_err(r#4)"),
        "the counterexample fails a publish: {out}"
    );
    assert!(
        out.ends_with("refused: a check of the workflow is violated; nothing was run\n"),
        "{out}"
    );
    for server in ["fs", "mem", "py", "faulty"] {
        let trace = world.read(&format!("run.{server}.jsonl"));
        assert!(trace.contains("tools/list"), "{server}: {trace}");
        assert!(
            !trace.contains("tools/call"),
            "{server} was called: {trace}"
        );
    }
    assert_eq!(world.read("py.log"), "");
}

/// Two writing calls to one tool in flight at once are refused (with the interleaving that
/// overlaps them) unless their bindings name different resources or the file says `parallel`.
#[test]
fn overlapping_writes_are_refused_unless_said_safe() {
    let world = World::new("overlap");
    let config = world.config(&world.faulty_stdio(), true);
    let both = format!(
        "publish_y=fs.write_file {{\"path\": {:?}, \"content\": \"y\"}}",
        world.path("out/y.txt")
    );
    let base = strings(&[
        "run",
        &flow("pipeline.pi"),
        "--config",
        &config,
        "--verify-only",
        "--bind",
        &both,
    ]);
    let (status, out, _) = agentpi_run(&base);
    assert_eq!(status, 1, "{out}");
    assert!(out.contains("Run: ltl [] ((publish_x or publish_y) -> X (not (publish_x or publish_y) W (publish_x_ok or publish_x_err or publish_x_timeout or publish_x_crash or publish_y_ok or publish_y_err or publish_y_timeout or publish_y_crash))) ... violated"), "{out}");
    assert!(
        out.contains("publish_x(r#3)") && out.contains("publish_y(r#4)"),
        "{out}"
    );
    // Resources told apart in the configuration: the calls may overlap.
    let text = std::fs::read_to_string(&config).unwrap()
        + &format!(
            "[bind.publish_y]\ntool = \"fs.write_file\"\nargs = {{ path = {:?}, content = \"y\" }}\nresource = \"y.txt\"\n",
            world.path("out/y.txt")
        );
    let text = text.replacen(
        "publish_y = { tool = \"mem.create_entities\"",
        "# publish_y = { tool = \"mem.create_entities\"",
        1,
    );
    let split = world.dir.join("split.toml");
    std::fs::write(&split, text).unwrap();
    let args = strings(&[
        "run",
        &flow("pipeline.pi"),
        "--config",
        &split.display().to_string(),
        "--verify-only",
        "--bind",
        "publish_x=fs.write_file",
    ]);
    let (status, out, err) = agentpi_run(&args);
    assert_eq!(status, 0, "{out}{err}");
    assert!(
        out.ends_with("verified; not run (--verify-only)\n"),
        "{out}"
    );
    // `parallel` in the file: two calls of one writing tool may overlap.
    let servers = world.dir.join("servers.toml");
    std::fs::write(&servers, world.servers(&world.faulty_stdio())).unwrap();
    let config = servers.display().to_string();
    for (parallel, expected) in [("", 1), (" parallel", 0)] {
        let file = world.dir.join(format!("twice{}.pi", parallel.len()));
        let model = format!(
            "type Outcome = ok | err | timeout | crash\nchan put : chan Outcome\nextern put within 1000{parallel}\n\
            proc Put = new r: chan Outcome . put!r . r?_\nsystem Twice = Put | Put\n"
        );
        std::fs::write(&file, model).unwrap();
        let args = strings(&[
            "run",
            &file.display().to_string(),
            "--config",
            &config,
            "--verify-only",
            "--bind",
            "put=mem.create_entities",
        ]);
        let (status, out, err) = agentpi_run(&args);
        assert_eq!(status, expected, "parallel={parallel}: {out}{err}");
    }
}

/// tests/run/tools.py on Streamable HTTP, and its port.
fn tools_http(log: &str) -> (Server, u16) {
    let port = std::net::TcpListener::bind("127.0.0.1:0")
        .unwrap()
        .local_addr()
        .unwrap()
        .port();
    let child = Command::new(python())
        .args([
            flow("tools.py"),
            "--log".into(),
            log.into(),
            "--http".into(),
            port.to_string(),
        ])
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .spawn()
        .unwrap();
    let server = Server(child);
    let started = Instant::now();
    while std::net::TcpStream::connect(("127.0.0.1", port)).is_err() {
        assert!(started.elapsed() < Duration::from_secs(20), "no listener");
        std::thread::sleep(Duration::from_millis(50));
    }
    (server, port)
}

/// Over Streamable HTTP (the modern era): a call past its deadline is cancelled by closing its
/// request's stream (no notification, C5), and the server stops the tool; a crash of a server
/// reached over HTTP is a server that cannot be reached any more.
#[test]
fn over_http_a_timeout_closes_the_request() {
    let world = World::new("http");
    let (_server, port) = tools_http(&world.path("faulty.log"));
    let config = world.config(&format!("\"http://127.0.0.1:{port}/mcp\""), true);
    let fault = fault("fetch_b", "slow", "timeout");
    let report = run_case(&world, "pipeline.pi", &config, &fault, &[]);
    let calls = calls_settled_and_clean("http", &report);
    assert!(
        calls.contains(&("fetch_b".to_string(), "timeout".to_string())),
        "{calls:?}"
    );
    assert!(world.read("py.log").contains("cleanup x and y"));
    let log = wait_for(&world.dir.join("faulty.log"), "slow cancelled");
    assert!(
        log.contains("slow cancelled"),
        "the server was not told: {log}"
    );
    let trace = world.read("run.faulty.jsonl");
    assert!(trace.contains("\"event\":\"aborted\""), "{trace}");
    assert!(!trace.contains("notifications/cancelled"), "{trace}");
}

/// `agentpi extract` writes a model of each real server's tools that loads and checks, and
/// whose starter system runs against the server it came from.
#[test]
fn extracted_models_load_check_and_run() {
    let world = World::new("extract");
    let servers: [(&str, Vec<String>); 3] = [
        (
            "memory",
            vec![
                "env".into(),
                format!("MEMORY_FILE_PATH={}", world.path("memory.jsonl")),
                peer("node_modules/.bin/mcp-server-memory"),
            ],
        ),
        (
            "filesystem",
            vec![
                peer("node_modules/.bin/mcp-server-filesystem"),
                world.dir.display().to_string(),
            ],
        ),
        (
            "tools",
            vec![
                python(),
                flow("tools.py"),
                "--log".into(),
                world.path("tools.log"),
            ],
        ),
    ];
    each_in_parallel(&servers, |(name, command)| {
        let model = world.path(&format!("{name}.pi"));
        let mut args = strings(&["extract", "-o", &model, "--within", "5000", "--"]);
        args.extend(command.iter().cloned());
        let (status, _, err) = agentpi_run(&args);
        assert_eq!(status, 0, "{name}: {err}");
        let text = world.read(&format!("{name}.pi"));
        assert!(
            text.contains("extern ") && text.contains("system Tools"),
            "{name}: {text}"
        );
        let (status, out, err) = agentpi_run(&strings(&["check", &model]));
        assert_eq!(status, 0, "{name}: {out}{err}");
        let mut args = strings(&["run", &model, "--format", "json", "--server"]);
        args.push(format!("{name}={}", command.join(" ")));
        let (status, out, err) = agentpi_run(&args);
        assert_eq!(status, 0, "{name}: {out}{err}");
        let report: Value = serde_json::from_str(&out).unwrap();
        calls_settled_and_clean(name, &report);
    });
    // A Streamable HTTP server that the command starts, stopped once listed.
    let port = free_port();
    let url = format!("http://127.0.0.1:{port}/mcp");
    let model = world.path("served.pi");
    let mut args = strings(&["extract", "-o", &model, "--url", &url, "--"]);
    let fixture = repo()
        .join("tests/tester/sdk_server.py")
        .display()
        .to_string();
    args.extend([python(), fixture, "--http".into(), port.to_string()]);
    let (status, _, err) = agentpi_run(&args);
    assert_eq!(status, 0, "served: {err}");
    assert!(world.read("served.pi").contains("weather"));
    assert!(
        std::net::TcpStream::connect(("127.0.0.1", port)).is_err(),
        "still listening"
    );
    let memory = world.read("memory.pi");
    assert!(memory.contains("// read_graph: "), "{memory}");
    assert!(
        memory
            .contains("chan create_entities : chan Outcome\nextern create_entities within 5000\n"),
        "{memory}"
    );
    assert!(memory.contains("may change state"), "{memory}");
    assert!(
        memory
            .contains("system Tools = Call(read_graph) ; Call(search_nodes) ; Call(open_nodes)\n"),
        "{memory}"
    );
}

/// Mistakes give status 2 and say what is wrong, before any tool is called.
#[test]
fn unusable_bindings_servers_and_models_exit_2() {
    let world = World::new("errors");
    let config = world.config(&world.faulty_stdio(), true);
    let pipeline = flow("pipeline.pi");
    let broken = world.path("broken.pi");
    std::fs::write(&broken, "chan c : chan Bool\nextern c\n").unwrap();
    let cases: Vec<(Vec<String>, &str)> = vec![
        (
            strings(&[
                "run",
                &pipeline,
                "--config",
                &config,
                "--bind",
                "fetch_a=fs.no_such_tool",
            ]),
            "`fs` lists no such tool (it lists: read_file, read_text_file",
        ),
        (
            strings(&[
                "run",
                &pipeline,
                "--config",
                &config,
                "--bind",
                "fetch_a=nowhere.x",
            ]),
            "server `nowhere`, which is not given",
        ),
        (
            strings(&[
                "run",
                &pipeline,
                "--config",
                &config,
                "--bind",
                "ghost=fs.read_file",
            ]),
            "`ghost` is bound, but the model has no extern channel of that name",
        ),
        (
            strings(&[
                "run",
                &pipeline,
                "--config",
                &config,
                "--bind",
                "fetch_a=fs.read_file {\"path\": \"${nope}\"}",
            ]),
            "no extern channel `nope`",
        ),
        (
            strings(&["run", &pipeline, "--server", "fs=/no/such/server"]),
            "server `fs`: cannot start `/no/such/server`",
        ),
        (
            strings(&["run", &pipeline, "--server", "x=/bin/true"]),
            "server `x`: the server exited",
        ),
        (
            strings(&["run", &pipeline]),
            "`fetch_a` is bound to no tool",
        ),
        (
            strings(&["run", &broken]),
            "broken.pi:2:8: error[E0316]: no value for the outcome `ok` of `c`",
        ),
        (
            strings(&["run", &pipeline, "--config", &world.path("missing.toml")]),
            "cannot read",
        ),
    ];
    each_in_parallel(&cases, |(args, expected)| {
        let (status, out, err) = agentpi_run(args);
        assert_eq!(status, 2, "{args:?}: {out}{err}");
        assert!(
            err.contains(expected),
            "{args:?}: expected `{expected}` in:\n{err}"
        );
    });
    assert_eq!(world.read("py.log"), "", "a tool was called");
}
