//! `agentpi monitor -- CMD ARGS...`: a transparent stdio proxy between the client (whoever
//! started the monitor) and the MCP server `CMD`. Bytes are relayed unchanged and in order
//! by one thread per stream; each complete line is recorded (`--record`, flushed per event)
//! and handed to the checker thread over a queue bounded in bytes (`queue.rs`), so the relay
//! never waits on the checks: when the checker falls too far behind, it is told and stops the
//! model checks (the report says so) rather than slow the traffic down.

use super::Format;
use super::checker::{Charts, check, summary};
use super::queue::Queue;
use crate::output;
use agentpi_monitor::lines::Lines;
use agentpi_monitor::{Dir, Event, Record, Session};
use serde_json::{Map, json};
use std::io::{Read, Write};
use std::process::{Child, ChildStdin, Command, Stdio};
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

#[derive(clap::Args)]
pub struct Args {
    /// Write the trace (JSON Lines) here as it happens, flushed per event
    #[arg(long)]
    record: Option<String>,
    /// Write the report (JSON) here when the session ends
    #[arg(long)]
    report: Option<String>,
    /// Relay (and record) only: no checks (to measure the relay alone)
    #[arg(long)]
    no_check: bool,
    /// The summary written to standard error at the end
    #[arg(long, value_enum, default_value = "text")]
    format: Format,
    /// Once the session is over, how long the checker may go on with what it has not checked
    /// yet; then the rest is reported unchecked (docs/monitor.md, *When the checker falls
    /// behind*). A recorded trace is checked in full by `trace check`, with no deadline.
    #[arg(long, value_name = "SECONDS", default_value_t = 2.0,
          value_parser = super::checker::drain_seconds)]
    drain: f64,
    /// Relay a Streamable HTTP server instead: listen here for clients (HOST:PORT; port 0
    /// picks a free port, printed at start). Checks, records and reports as on stdio; see
    /// docs/http-proxy.md.
    #[arg(
        long,
        value_name = "HOST:PORT",
        requires = "upstream",
        conflicts_with = "command"
    )]
    listen: Option<String>,
    /// The Streamable HTTP server (http://) that --listen relays to.
    #[arg(long, value_name = "URL", requires = "listen")]
    upstream: Option<String>,
    /// With --listen: allow an address other than loopback (reachable from other machines)
    #[arg(long, requires = "listen")]
    allow_remote: bool,
    /// With --listen: a host name clients may use besides localhost and IP addresses
    /// (repeatable; `*` allows any); a request naming another in `Host` is answered 403
    /// (DNS rebinding)
    #[arg(long, value_name = "HOST", requires = "listen")]
    allow_host: Vec<String>,
    /// With --listen: an `Origin` browsers may send besides loopback ones (repeatable; `*`
    /// allows any); another is answered 403
    #[arg(long, value_name = "ORIGIN", requires = "listen")]
    allow_origin: Vec<String>,
    /// With --listen: serve HTTPS with this certificate chain (PEM), and --tls-key
    #[arg(long, value_name = "FILE", requires_all = ["listen", "tls_key"])]
    tls_cert: Option<std::path::PathBuf>,
    /// The private key (PEM) of --tls-cert
    #[arg(long, value_name = "FILE", requires = "tls_cert")]
    tls_key: Option<std::path::PathBuf>,
    /// With --listen: the largest request body relayed, in bytes; a larger one is answered
    /// 413 [default: 33554432]
    #[arg(long, value_name = "BYTES", requires = "listen")]
    max_body: Option<u64>,
    /// With --listen: client connections open at once; one more is answered 503 [default:
    /// 4096]
    #[arg(long, value_name = "N", requires = "listen",
          value_parser = clap::value_parser!(u32).range(1..))]
    max_connections: Option<u32>,
    /// With --listen: keep credentials (`Authorization`, `Cookie`, bearer tokens) in the
    /// --record trace; by default they are redacted there (the checks see them either way)
    #[arg(long, requires = "listen")]
    record_secrets: bool,
    /// The server command and its arguments (after `--`)
    #[arg(last = true, required_unless_present = "listen")]
    command: Vec<String>,
}

/// The exit statuses, for `--help`.
pub const EXIT_STATUS: &str = "Exit status: 0 the server exited with status 0; otherwise the \
server's own status (128 + the signal number when a signal ended it), whatever the monitor \
found; 2 also when the server could not be started or a --record or --report file could not \
be written. With --listen: 0 stopped by SIGINT or SIGTERM, 1 the upstream went away (a \
connection to it failed after it had answered), 2 the listen address cannot be bound or is not \
loopback without --allow-remote, the upstream URL is not http://HOST[:PORT], the --tls-cert or \
--tls-key file cannot be read, or a --record or --report file cannot be written.";

/// Bytes read from a stream at a time, and the capacity asked for the pipes to and from the
/// server. A relay adds a hop, and every byte a hop holds is latency in a flood: with the
/// kernel's default 64 KiB pipes and 64 KiB reads, the monitor held as much again as the
/// client's own pipe, which doubled a flood's round trip (p99 7.7 ms against 2.5 ms direct).
/// 16 KiB halves that and keeps the throughput (`bench/monitor`); 4 KiB cut it further but
/// cost a third of the throughput in wake-ups.
const CHUNK: usize = 16 * 1024;
/// How long the next read waits after a read that found a burst (`pause_in_a_burst`).
const BURST_PAUSE: Duration = Duration::from_micros(100);

/// What the relay threads share: the clock, the record and the checker's queue.
struct Tap {
    start: Instant,
    record: Mutex<Record>,
    queue: Queue,
    dropped: AtomicUsize,
    /// Set when the session is over and the checker must finish at once.
    hurry: AtomicBool,
    /// Whether events go to the checker at all (`--no-check`: no).
    check: bool,
    /// Our standard error, shared with the server's: the monitor's lines wait while the
    /// server is in the middle of one of its own.
    stderr: Mutex<SharedStderr>,
}

#[derive(Default)]
struct SharedStderr {
    mid_line: bool,
    held: Vec<String>,
}

impl Tap {
    /// One line of the monitor's on standard error, never inside a line of the server's.
    fn say(&self, line: String) {
        let mut shared = self.stderr.lock().unwrap_or_else(|e| e.into_inner());
        if shared.mid_line {
            shared.held.push(line);
        } else {
            output::stderr(&line);
        }
    }

    /// A chunk of the server's standard error; held lines follow it once it ends a line.
    fn server_stderr(&self, bytes: &[u8]) -> std::io::Result<()> {
        let mut shared = self.stderr.lock().unwrap_or_else(|e| e.into_inner());
        let mut err = std::io::stderr().lock();
        err.write_all(bytes).and_then(|()| err.flush())?;
        shared.mid_line = bytes.last().is_some_and(|&b| b != b'\n');
        if !shared.mid_line {
            for line in std::mem::take(&mut shared.held) {
                output::stderr(&line);
            }
        }
        Ok(())
    }

    /// Lines still held at the end (the server's last line had no newline).
    fn release(&self) {
        let mut shared = self.stderr.lock().unwrap_or_else(|e| e.into_inner());
        if shared.mid_line && !shared.held.is_empty() {
            output::stderr("\n");
        }
        for line in std::mem::take(&mut shared.held) {
            output::stderr(&line);
        }
        shared.mid_line = false;
    }
}

impl Tap {
    /// Records `event` and queues it for the checker.
    fn emit(&self, event: Event) {
        self.record_and_queue(vec![event]);
    }

    /// Records the events of one read and queues them for the checker as one batch, both
    /// under the record's lock: the relays of the two directions (and stderr) run on threads
    /// of their own, and the checker must take events in the order of the record, or a
    /// response could be checked before its request (and the live report would not be the
    /// record's, which `trace check` gives).
    fn record_and_queue(&self, batch: Vec<Event>) {
        let mut record = self.record.lock().unwrap_or_else(|e| e.into_inner());
        for event in &batch {
            // A failed write ends the record; the end of the session says so.
            let _ = record.write(event);
        }
        self.queue(batch);
    }

    /// Queues the events of one read for the checker as one batch: one wake-up of the
    /// checker per read rather than per line, which in a flood is most of what the checks
    /// cost the relay. Stderr lines are only recorded (they are not the protocol's). Never
    /// blocks: a batch the queue has no room for is counted as dropped.
    fn queue(&self, mut batch: Vec<Event>) {
        batch.retain(|e| e.dir != Dir::Stderr);
        if batch.is_empty() || !self.check {
            return;
        }
        let n = batch.len();
        if !self.queue.offer(batch) {
            self.dropped.fetch_add(n, Ordering::Relaxed);
        }
    }

    /// Taps the lines of one read: recorded and queued as one batch.
    fn lines(&self, lines: &mut Lines, chunk: &[u8], dir: Dir) {
        let mut batch = Vec::new();
        lines.feed(chunk, |line| {
            batch.push(Event::message(self.now(), dir, line))
        });
        self.record_and_queue(batch);
    }

    fn now(&self) -> f64 {
        self.start.elapsed().as_secs_f64()
    }

    fn process(&self, kind: &str, fields: Map<String, serde_json::Value>) {
        self.emit(Event::process(self.now(), kind, fields));
    }
}

pub fn run(args: Args) -> u8 {
    if let (Some(listen), Some(upstream)) = (args.listen.clone(), args.upstream.clone()) {
        let tls = args.tls_cert.zip(args.tls_key);
        let limits = agentpi_http_proxy::Limits::default();
        let limits = agentpi_http_proxy::Limits {
            max_body: args.max_body.unwrap_or(limits.max_body),
            max_connections: args
                .max_connections
                .map_or(limits.max_connections, |n| n as usize),
            ..limits
        };
        return super::monitor_http::run(super::monitor_http::Args {
            listen,
            upstream,
            record: args.record.map(std::path::PathBuf::from),
            report: args.report.map(std::path::PathBuf::from),
            format: args.format,
            no_check: args.no_check,
            access: agentpi_http_proxy::Access {
                allow_remote: args.allow_remote,
                hosts: args.allow_host,
                origins: args.allow_origin,
            },
            tls,
            limits,
            record_secrets: args.record_secrets,
            drain: args.drain,
        });
    }
    // Caught from the start, so that a signal at any moment still ends in a report.
    let signalled = crate::signals::caught();
    let record = match args
        .record
        .as_deref()
        .map(|p| super::private::create(p.as_ref()))
        .transpose()
    {
        Ok(f) => Record::new(f),
        Err(e) => {
            output::errln!(
                "error: cannot write `{}`: {e}",
                args.record.unwrap_or_default()
            );
            return 2;
        }
    };
    let mut child = match Command::new(&args.command[0])
        .args(&args.command[1..])
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
    {
        Ok(c) => c,
        Err(e) => {
            output::errln!("error: cannot start `{}`: {e}", args.command[0]);
            return 2;
        }
    };
    let (queue, events) = Queue::new();
    let tap = Arc::new(Tap {
        start: Instant::now(),
        record: Mutex::new(record),
        queue,
        dropped: AtomicUsize::new(0),
        hurry: AtomicBool::new(false),
        check: !args.no_check,
        stderr: Mutex::default(),
    });
    tap.process(
        "spawn",
        Map::from_iter([("command".into(), json!(args.command))]),
    );
    let checker = {
        let tap = tap.clone();
        thread(move || {
            check(events, &tap.queue, &tap.dropped, &tap.hurry, &|l| {
                tap.say(l)
            })
        })
    };
    let checker = match checker {
        Ok(checker) => checker,
        Err(e) => return refused_thread(&mut child, &e),
    };
    let status = relay(&mut child, &tap, &signalled);
    tap.queue.end();
    let (report, charts) = super::checker::join(checker, &tap.hurry, args.drain)
        .unwrap_or_else(|| (Session::new().finish(), Charts::new()));
    finish(&args, &report, &charts, &tap, status)
}

/// Relays until the server exits; returns its exit status.
fn relay(child: &mut Child, tap: &Arc<Tap>, signalled: &AtomicUsize) -> u8 {
    let stdin = child.stdin.take();
    let stdout = child.stdout.take();
    let stderr = child.stderr.take();
    if let Some(pipe) = &stdin {
        shrink(pipe);
    }
    if let Some(pipe) = &stdout {
        shrink(pipe);
    }
    let started = {
        let tap = tap.clone();
        // Not joined: it may wait on the client's stdin forever after the server has gone.
        thread(move || client_to_server(stdin, &tap))
    };
    let out = stdout.map(|s| {
        let tap = tap.clone();
        thread(move || pump(s, to_stdout, Dir::S2c, &tap))
    });
    let err = stderr.map(|s| {
        let tap = tap.clone();
        thread(move || pump(s, |b| tap.server_stderr(b), Dir::Stderr, &tap))
    });
    let (out, err) = match (started, out.transpose(), err.transpose()) {
        (Ok(_), Ok(out), Ok(err)) => (out, err),
        (Err(e), ..) | (_, Err(e), _) | (.., Err(e)) => return refused_thread(child, &e),
    };
    let status = wait(child, tap, signalled);
    for handle in [out, err].into_iter().flatten() {
        let _ = handle.join();
    }
    status
}

/// Starts a thread, which the system may refuse (`ulimit -u`, no memory left).
fn thread<T: Send + 'static>(
    f: impl FnOnce() -> T + Send + 'static,
) -> std::io::Result<std::thread::JoinHandle<T>> {
    std::thread::Builder::new().spawn(f)
}

/// A thread the monitor needs was refused: the server is stopped, and that is an error.
fn refused_thread(child: &mut Child, error: &std::io::Error) -> u8 {
    let _ = child.kill();
    let _ = child.wait();
    output::errln!("error: cannot start a thread to relay the server: {error}");
    2
}

/// Asks for a pipe to or from the server of `CHUNK` bytes. Best effort: where the kernel
/// refuses, or has no such call, the pipe keeps its default size, which only adds latency.
fn shrink(pipe: &impl std::os::fd::AsFd) {
    #[cfg(target_os = "linux")]
    let _ = rustix::pipe::fcntl_setpipe_size(pipe, CHUNK);
    #[cfg(not(target_os = "linux"))]
    let _ = pipe;
}

/// Waits for the server; SIGINT and SIGTERM to the monitor are passed on to it (then a kill
/// after a grace period), so that every ending goes through its exit and the report.
fn wait(child: &mut Child, tap: &Tap, signalled: &AtomicUsize) -> u8 {
    let mut since: Option<Instant> = None;
    loop {
        match child.try_wait() {
            Ok(Some(status)) => return exit(status, tap),
            Ok(None) => {}
            Err(_) => return 2,
        }
        let sig = signalled.swap(0, Ordering::Relaxed);
        if sig != 0 {
            tap.process(
                "signal",
                Map::from_iter([
                    ("signal".into(), json!(sig)),
                    ("to".into(), json!("monitor")),
                ]),
            );
            let _ = Command::new("kill")
                .arg(format!("-{sig}"))
                .arg(child.id().to_string())
                .status();
            since.get_or_insert_with(Instant::now);
        }
        if since.is_some_and(|s| s.elapsed() > Duration::from_secs(5)) {
            let _ = child.kill();
        }
        std::thread::sleep(Duration::from_millis(5));
    }
}

fn exit(status: std::process::ExitStatus, tap: &Tap) -> u8 {
    use std::os::unix::process::ExitStatusExt;
    if let Some(sig) = status.signal() {
        tap.process("exit", Map::from_iter([("signal".into(), json!(sig))]));
        return (128 + sig).clamp(0, 255) as u8;
    }
    let code = status.code().unwrap_or(1);
    tap.process("exit", Map::from_iter([("code".into(), json!(code))]));
    code.clamp(0, 255) as u8
}

fn client_to_server(stdin: Option<ChildStdin>, tap: &Tap) {
    let Some(mut to) = stdin else { return };
    let mut from = std::io::stdin().lock();
    let mut lines = Lines::default();
    let mut buf = vec![0u8; CHUNK];
    let mut server_gone = false;
    loop {
        let n = match from.read(&mut buf) {
            Ok(0) | Err(_) => break,
            Ok(n) => n,
        };
        // Tapped before it is passed on (both ways), so that the record never shows an
        // answer before its request.
        tap.lines(&mut lines, &buf[..n], Dir::C2s);
        if !server_gone && to.write_all(&buf[..n]).and_then(|()| to.flush()).is_err() {
            server_gone = true;
        }
        pause_in_a_burst(&buf[..n], buf.len());
    }
    lines.end(|line| tap.emit(Event::message(tap.now(), Dir::C2s, line)));
    tap.process("eof", Map::from_iter([("side".into(), json!("client"))]));
    drop(to);
}

/// Copies a server stream to ours, chunk by chunk, and taps its lines.
fn pump(
    mut from: impl Read,
    mut write: impl FnMut(&[u8]) -> std::io::Result<()>,
    dir: Dir,
    tap: &Tap,
) {
    let mut lines = Lines::default();
    let mut buf = vec![0u8; CHUNK];
    let mut reader_gone = false;
    loop {
        let n = match from.read(&mut buf) {
            Ok(0) | Err(_) => break,
            Ok(n) => n,
        };
        tap.lines(&mut lines, &buf[..n], dir);
        if !reader_gone && write(&buf[..n]).is_err() {
            reader_gone = true;
        }
        pause_in_a_burst(&buf[..n], buf.len());
    }
    lines.end(|line| tap.emit(Event::message(tap.now(), dir, line)));
    let side = if dir == Dir::S2c {
        "server"
    } else {
        "server stderr"
    };
    tap.process("eof", Map::from_iter([("side".into(), json!(side))]));
}

/// After a read that found several messages waiting (a burst), the next read waits a
/// moment so that it takes the rest of the burst in one piece: fewer wake-ups of this thread
/// and of the reader downstream, which is what a relay costs on a busy machine. A lone
/// message (one round trip at a time) is never held, and nothing read is ever held back.
/// A read that filled the buffer left more waiting: no pause then.
fn pause_in_a_burst(chunk: &[u8], room: usize) {
    if chunk.len() < room && chunk.iter().filter(|&&b| b == b'\n').count() > 1 {
        std::thread::sleep(BURST_PAUSE);
    }
}

/// A chunk to our standard output, under its lock so that nothing interleaves with it.
fn to_stdout(bytes: &[u8]) -> std::io::Result<()> {
    let mut out = std::io::stdout().lock();
    out.write_all(bytes).and_then(|()| out.flush())
}

fn finish(
    args: &Args,
    report: &agentpi_monitor::Report,
    charts: &Charts,
    tap: &Tap,
    status: u8,
) -> u8 {
    let mut failed = false;
    let record_failed = tap.record.lock().map_or(true, |r| r.failed());
    if record_failed {
        output::errln!("agentpi monitor: error: writing the record failed; it is incomplete");
        failed = true;
    }
    if let Some(path) = &args.report
        && let Err(e) = super::private::write(path.as_ref(), report.to_json().to_string() + "\n")
    {
        output::errln!("agentpi monitor: error: cannot write `{path}`: {e}");
        failed = true;
    }
    tap.release();
    output::stderr(&summary(args.format, report, charts));
    if failed && status == 0 { 2 } else { status }
}
