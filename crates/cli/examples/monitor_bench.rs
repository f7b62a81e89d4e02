//! The monitor benchmark's client and echo server (bench/monitor/run.sh), in Rust so that
//! neither end is the bottleneck being measured: a Python client's reader thread waits for
//! the GIL while its sender spins towards the next send time, which put 150 ms of its own
//! into every round trip at 10,000 requests a second.
//!
//! `monitor_bench echo`: a stdio MCP server answering `initialize` and every other request at
//! once with an empty result.
//! `monitor_bench client MODE N -- SERVER ARGS...`: initializes, sends N `ping` requests and
//! prints, as JSON, messages per second (requests and responses), requests per second
//! achieved, and the p50 and p99 round trip in milliseconds. MODE is `sequential` (each
//! request waits for its answer), `flood` (as fast as the client can write them, one write per
//! message, answers read by a second thread) or `rate=R` (R requests a second at fixed times).

use serde_json::{Value, json};
use std::io::{BufRead, BufReader, BufWriter, Write};
use std::process::{Child, ChildStdin, ChildStdout, Command, Stdio};
use std::sync::Arc;
use std::sync::atomic::{AtomicU64, Ordering};
use std::time::{Duration, Instant};

fn main() {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let result = match args.first().map(String::as_str) {
        Some("echo") => echo(),
        Some("client") => client(&args[1..]),
        _ => Err("usage: monitor_bench echo | client MODE N -- SERVER ARGS...".to_string()),
    };
    if let Err(e) = result {
        eprintln!("monitor_bench: {e}");
        std::process::exit(2);
    }
}

/// The echo server: one line in, one line out, flushed per message.
fn echo() -> Result<(), String> {
    let stdin = std::io::stdin().lock();
    let mut out = BufWriter::new(std::io::stdout().lock());
    for line in stdin.lines() {
        let line = line.map_err(|e| e.to_string())?;
        let Ok(msg) = serde_json::from_str::<Value>(&line) else {
            continue;
        };
        let (Some(id), Some(method)) = (msg.get("id"), msg.get("method")) else {
            continue;
        };
        let result = match method.as_str() {
            Some("initialize") => json!({"protocolVersion": "2025-11-25",
                "capabilities": {"tools": {}}, "serverInfo": {"name": "echo", "version": "1"}}),
            _ => json!({}),
        };
        let reply = json!({"jsonrpc": "2.0", "id": id, "result": result});
        writeln!(out, "{reply}")
            .and_then(|()| out.flush())
            .map_err(|e| e.to_string())?;
    }
    Ok(())
}

/// How the requests are sent.
#[derive(Clone, Copy)]
enum Mode {
    Sequential,
    Flood,
    Rate(f64),
}

fn parse_mode(text: &str) -> Result<Mode, String> {
    match text {
        "sequential" => Ok(Mode::Sequential),
        "flood" => Ok(Mode::Flood),
        _ => text
            .strip_prefix("rate=")
            .and_then(|r| r.parse::<f64>().ok())
            .filter(|r| *r > 0.0)
            .map(Mode::Rate)
            .ok_or_else(|| format!("unknown mode {text}: sequential, flood or rate=R")),
    }
}

fn client(args: &[String]) -> Result<(), String> {
    let [mode, n, dash, command @ ..] = args else {
        return Err("client MODE N -- SERVER ARGS...".into());
    };
    if dash != "--" || command.is_empty() {
        return Err("client MODE N -- SERVER ARGS...".into());
    }
    let mode = parse_mode(mode)?;
    let n: usize = n.parse().map_err(|_| format!("not a count: {n}"))?;
    let (mut child, mut input, mut output) = spawn(command)?;
    initialize(&mut input, &mut output)?;
    let start = Instant::now();
    let mut trips = match mode {
        Mode::Sequential => sequential(n, input, &mut output)?,
        Mode::Flood => pipelined(n, None, input, output)?,
        Mode::Rate(r) => pipelined(n, Some(Duration::from_secs_f64(1.0 / r)), input, output)?,
    };
    let elapsed = start.elapsed().as_secs_f64();
    // Every mode has closed the server's input by now: the server ends at its EOF.
    let _ = child.wait();
    trips.sort_unstable();
    let ms = |i: usize| (trips[i.min(trips.len() - 1)] as f64 / 1e6 * 1000.0).round() / 1000.0;
    let report = json!({
        "messages_per_s": (2.0 * n as f64 / elapsed).round(),
        "achieved_per_s": (n as f64 / elapsed).round(),
        "p50_ms": ms(n / 2),
        "p99_ms": ms(n * 99 / 100),
    });
    println!("{report}");
    Ok(())
}

fn spawn(command: &[String]) -> Result<(Child, ChildStdin, BufReader<ChildStdout>), String> {
    let mut child = Command::new(&command[0])
        .args(&command[1..])
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .spawn()
        .map_err(|e| format!("cannot start {}: {e}", command[0]))?;
    let input = child.stdin.take().ok_or("no stdin")?;
    let output = BufReader::new(child.stdout.take().ok_or("no stdout")?);
    Ok((child, input, output))
}

fn send(input: &mut ChildStdin, text: &str) -> Result<(), String> {
    input
        .write_all(text.as_bytes())
        .and_then(|()| input.flush())
        .map_err(|e| format!("cannot write: {e}"))
}

fn receive(output: &mut BufReader<ChildStdout>) -> Result<String, String> {
    let mut line = String::new();
    match output.read_line(&mut line) {
        Ok(0) => Err("the server closed its output".into()),
        Ok(_) => Ok(line),
        Err(e) => Err(format!("cannot read: {e}")),
    }
}

fn initialize(input: &mut ChildStdin, output: &mut BufReader<ChildStdout>) -> Result<(), String> {
    let init = json!({"jsonrpc": "2.0", "id": 0, "method": "initialize", "params": {
        "protocolVersion": "2025-11-25", "capabilities": {},
        "clientInfo": {"name": "bench", "version": "1"}}});
    send(input, &format!("{init}\n"))?;
    receive(output)?;
    send(
        input,
        "{\"jsonrpc\":\"2.0\",\"method\":\"notifications/initialized\"}\n",
    )
}

fn ping(id: usize) -> String {
    format!("{{\"jsonrpc\":\"2.0\",\"id\":{id},\"method\":\"ping\"}}\n")
}

/// Round trips one at a time, in nanoseconds; closes the server's input after the last.
fn sequential(
    n: usize,
    mut input: ChildStdin,
    output: &mut BufReader<ChildStdout>,
) -> Result<Vec<u64>, String> {
    let mut trips = Vec::with_capacity(n);
    for id in 1..=n {
        let sent = Instant::now();
        send(&mut input, &ping(id))?;
        receive(output)?;
        trips.push(nanos(sent.elapsed()));
    }
    Ok(trips)
}

/// Sends at `interval` apart (`None`: as fast as possible) while a thread reads the answers;
/// the round trips in nanoseconds.
fn pipelined(
    n: usize,
    interval: Option<Duration>,
    mut input: ChildStdin,
    mut output: BufReader<ChildStdout>,
) -> Result<Vec<u64>, String> {
    let origin = Instant::now();
    let sent: Arc<Vec<AtomicU64>> = Arc::new((0..=n).map(|_| AtomicU64::new(0)).collect());
    let times = Arc::clone(&sent);
    let reader = std::thread::spawn(move || -> Result<Vec<u64>, String> {
        let mut trips = Vec::with_capacity(n);
        for _ in 0..n {
            let line = receive(&mut output)?;
            let now = nanos(origin.elapsed());
            let id = reply_id(&line)
                .filter(|&i| i <= n)
                .ok_or("a reply without a ping's id")?;
            trips.push(now - times[id].load(Ordering::Acquire));
        }
        Ok(trips)
    });
    for id in 1..=n {
        if let Some(interval) = interval {
            wait_until(origin + interval * id as u32);
        }
        sent[id].store(nanos(origin.elapsed()), Ordering::Release);
        send(&mut input, &ping(id))?;
    }
    let trips = reader.join().map_err(|_| "the reader panicked")??;
    drop(input);
    Ok(trips)
}

fn reply_id(line: &str) -> Option<usize> {
    let value: Value = serde_json::from_str(line).ok()?;
    usize::try_from(value.get("id")?.as_u64()?).ok()
}

/// Sleeps until `at`. No spinning: on two cores a spinning client takes the core the path
/// under test needs. Sleeps overshoot by tens of microseconds, but the schedule is absolute
/// (no drift) and each round trip is timed from the moment its request was really sent.
fn wait_until(at: Instant) {
    let now = Instant::now();
    if at > now {
        std::thread::sleep(at - now);
    }
}

fn nanos(d: Duration) -> u64 {
    u64::try_from(d.as_nanos()).unwrap_or(u64::MAX)
}
