//! `agentpi monitor --listen --upstream --record`: the Python SDK's client drives the real
//! server-everything through the monitor binary, which is stopped by SIGTERM; the trace holds
//! every message and exchange in the format of docs/monitor.md.

use serde_json::Value;
use std::io::{BufRead, BufReader};
use std::net::TcpListener;
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

fn repo() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../..")
        .canonicalize()
        .unwrap()
}

/// A child process killed when the test ends, pass or fail.
struct Server(Child);

impl Drop for Server {
    fn drop(&mut self) {
        let _ = self.0.kill();
        let _ = self.0.wait();
    }
}

fn everything() -> (Server, u16) {
    let port = TcpListener::bind("127.0.0.1:0")
        .unwrap()
        .local_addr()
        .unwrap()
        .port();
    let program = repo().join("tests/peers/node_modules/.bin/mcp-server-everything");
    assert!(
        program.exists(),
        "run `bash scripts/install-peers.sh` first"
    );
    let child = Command::new(program)
        .arg("streamableHttp")
        .env("PORT", port.to_string())
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

/// Starts the monitor in front of `upstream` and returns it with the URL it serves.
fn monitor(upstream: u16, record: &Path) -> (Server, String) {
    let mut child = Command::new(env!("CARGO_BIN_EXE_agentpi"))
        .args(["monitor", "--listen", "127.0.0.1:0", "--upstream"])
        .arg(format!("http://127.0.0.1:{upstream}/mcp"))
        .arg("--record")
        .arg(record)
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let mut banner = String::new();
    BufReader::new(child.stderr.take().unwrap())
        .read_line(&mut banner)
        .unwrap();
    let url = banner
        .split_whitespace()
        .find(|word| word.starts_with("http://127.0.0.1:") && word.ends_with(','))
        .unwrap_or_else(|| panic!("no address in {banner:?}"))
        .trim_end_matches(',')
        .to_string();
    (Server(child), url)
}

#[test]
fn python_client_through_the_monitor_is_recorded() {
    let (_server, port) = everything();
    let record = Path::new(env!("CARGO_TARGET_TMPDIR")).join(format!("monitor-http-{port}.jsonl"));
    let (mut monitor, url) = monitor(port, &record);
    let client = Command::new(repo().join("tests/peers/.venv/bin/python"))
        .arg(repo().join("crates/http-proxy/tests/client.py"))
        .arg(&url)
        .output()
        .unwrap();
    assert!(
        client.status.success(),
        "{}",
        String::from_utf8_lossy(&client.stderr)
    );
    let killed = Command::new("kill")
        .args(["-TERM", &monitor.0.id().to_string()])
        .status()
        .unwrap();
    assert!(killed.success());
    assert_eq!(monitor.0.wait().unwrap().code(), Some(0));
    let trace: Vec<Value> = std::fs::read_to_string(&record)
        .unwrap()
        .lines()
        .map(|line| serde_json::from_str(line).unwrap())
        .collect();
    let methods: Vec<Value> = trace
        .iter()
        .filter(|e| e["dir"] == "c2s")
        .filter_map(|e| e["raw"].as_str())
        .map(|raw| serde_json::from_str::<Value>(raw).unwrap()["method"].clone())
        .collect();
    let expected = [
        "initialize",
        "notifications/initialized",
        "tools/list",
        "tools/call",
    ];
    assert_eq!(methods, expected);
    // Notifications the server sends on its own (`tools/list_changed` on the GET stream, when
    // the stream is open in time) come and go with timing; responses and progress do not.
    let s2c: Vec<Value> = trace
        .iter()
        .filter(|e| e["dir"] == "s2c")
        .map(|e| serde_json::from_str(e["raw"].as_str().unwrap()).unwrap())
        .collect();
    let responses = s2c.iter().filter(|m| m.get("id").is_some()).count();
    let progress = s2c
        .iter()
        .filter(|m| m["method"] == "notifications/progress")
        .count();
    assert_eq!((responses, progress), (3, 3), "{s2c:?}");
    let verbs: Vec<&str> = trace
        .iter()
        .filter(|e| e["event"] == "http")
        .filter_map(|e| e["method"].as_str())
        .collect();
    for verb in ["POST", "GET", "DELETE"] {
        assert!(verbs.contains(&verb), "{verbs:?}");
    }
    assert!(trace.iter().all(|e| e["t"].as_f64().is_some()));
}

/// A monitor that cannot start says why on standard error and exits with status 2.
fn check_refused(args: &[&str], expected: &str) {
    let output = Command::new(env!("CARGO_BIN_EXE_agentpi"))
        .arg("monitor")
        .args(args)
        .output()
        .unwrap();
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert_eq!(output.status.code(), Some(2), "{stderr}");
    assert!(stderr.contains(expected), "{expected:?} not in {stderr}");
}

#[test]
fn bad_arguments_are_refused() {
    let up = ["--upstream", "http://127.0.0.1:9/mcp"];
    check_refused(&["--listen", "nowhere", up[0], up[1]], "give HOST:PORT");
    let https = [
        "--listen",
        "127.0.0.1:0",
        "--upstream",
        "https://127.0.0.1:9/mcp",
    ];
    check_refused(&https, "only http:// upstreams");
    check_refused(
        &["--listen", "127.0.0.1:0", "--upstream", "not a url"],
        "--upstream",
    );
    let record = ["--record", "/nonexistent/dir/trace.jsonl"];
    check_refused(
        &[
            "--listen",
            "127.0.0.1:0",
            up[0],
            up[1],
            record[0],
            record[1],
        ],
        "cannot write",
    );
    let busy = TcpListener::bind("127.0.0.1:0").unwrap();
    let taken = busy.local_addr().unwrap().to_string();
    check_refused(&["--listen", &taken, up[0], up[1]], "cannot listen on");
}
