//! `agentpi monitor --listen HOST:PORT --upstream URL [--record FILE] [--report FILE]`: the
//! Streamable HTTP monitor. Runs the reverse proxy of `agentpi-http-proxy` until SIGINT or
//! SIGTERM (or until the upstream is gone), writes what crosses it as the trace of
//! docs/monitor.md (JSON Lines, flushed per event), and checks it with the stdio monitor's
//! checker thread: the proxy's observer records each event and hands it on to the checker's
//! queue (bounded in bytes, never waited on), so neither relaying nor recording waits on the
//! checks.

use super::Format;
use super::checker::{check, summary};
use super::queue::Queue;
use crate::output::{self, errln};
use agentpi_http_proxy::{
    Access, Dir, Event, EventKind, HttpExchange, Limits, Observer, Options, Refusal, Tls, redact,
};
use agentpi_monitor::Event as TraceEvent;
use serde_json::{Map, Value, json};
use std::fs::File;
use std::io::{BufWriter, Write};
use std::net::{SocketAddr, ToSocketAddrs};
use std::path::PathBuf;
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

pub struct Args {
    pub listen: String,
    pub upstream: String,
    pub record: Option<PathBuf>,
    pub report: Option<PathBuf>,
    pub format: Format,
    pub no_check: bool,
    /// Who may listen where and send which `Host` and `Origin`.
    pub access: Access,
    /// The certificate chain and key files to serve HTTPS with.
    pub tls: Option<(PathBuf, PathBuf)>,
    pub limits: Limits,
    /// Keep credentials in the record (they are redacted there by default).
    pub record_secrets: bool,
    /// `--drain`: seconds the checker may go on once the monitor stops.
    pub drain: f64,
}

/// How long open exchanges (an SSE stream) get to finish once the monitor is to stop.
const GRACE: Duration = Duration::from_secs(2);
/// How often the main thread looks for a signal or a vanished upstream.
const POLL: Duration = Duration::from_millis(10);

pub fn run(args: Args) -> u8 {
    match monitor(&args) {
        Ok(status) => status,
        Err(error) => {
            errln!("error: {error}");
            2
        }
    }
}

fn monitor(args: &Args) -> Result<u8, String> {
    let listen = resolve(&args.listen)?;
    let upstream = url::Url::parse(&args.upstream)
        .map_err(|e| format!("--upstream {:?}: {e}", args.upstream))?;
    let tls = match &args.tls {
        Some((cert, key)) => Some(Tls::from_pem_files(cert, key).map_err(|e| e.to_string())?),
        None => None,
    };
    let record = match &args.record {
        Some(path) => Some(
            super::private::create(path)
                .map_err(|e| format!("cannot write `{}`: {e}", path.display()))?,
        ),
        None => None,
    };
    // Caught from the start, so that a signal at any moment still ends in a report.
    let signalled = crate::signals::caught();
    let (queue, events) = Queue::new();
    let mut recorder = Recorder::new(record, queue, !args.no_check);
    recorder.secrets = args.record_secrets;
    let recorder = Arc::new(recorder);
    let checker = {
        let recorder = recorder.clone();
        std::thread::Builder::new().spawn(move || {
            check(
                events,
                &recorder.queue,
                &recorder.dropped,
                &recorder.hurry,
                &|l| output::stderr(&l),
            )
        })
    };
    // Nothing is listening yet: a checker that cannot start is an error before any traffic.
    let checker = checker.map_err(|e| format!("cannot start the checker thread: {e}"))?;
    let observer: Arc<dyn Observer> = recorder.clone();
    let scheme = if tls.is_some() { "https" } else { "http" };
    let options = Options {
        access: args.access.clone(),
        limits: args.limits,
        tls,
    };
    // An upstream the proxy cannot relay to (`https://`, no host) is the upstream's fault,
    // and a remote address not asked for is the guard's: said as such, not as the listening
    // address's.
    let proxy = agentpi_http_proxy::serve_with(listen, &upstream, observer, options).map_err(
        |e| match e.kind() {
            std::io::ErrorKind::InvalidInput => e.to_string(),
            _ => format!("cannot listen on {listen}: {e}"),
        },
    )?;
    errln!(
        "agentpi monitor: listening on {scheme}://{}{}, relaying to {upstream}",
        proxy.local_addr(),
        upstream.path()
    );
    let status = wait(&signalled, &recorder);
    proxy.shutdown(GRACE);
    recorder.end();
    let (report, charts) = super::checker::join(checker, &recorder.hurry, args.drain)
        .ok_or_else(|| "the checker failed".to_string())?;
    let mut failed = recorder.failure();
    if let Some(path) = &args.report
        && let Err(e) = super::private::write(path, report.to_json().to_string() + "\n")
    {
        failed.get_or_insert(format!("cannot write `{}`: {e}", path.display()));
    }
    output::stderr(&summary(args.format, &report, &charts));
    match failed {
        Some(error) => Err(error),
        None => Ok(status),
    }
}

/// Waits for SIGINT or SIGTERM (status 0) or for the upstream to go away (status 1), and
/// records which.
fn wait(signalled: &AtomicUsize, recorder: &Recorder) -> u8 {
    loop {
        let sig = signalled.swap(0, Ordering::Relaxed);
        if sig != 0 {
            let fields = [
                ("signal".into(), json!(sig)),
                ("to".into(), json!("monitor")),
            ];
            recorder.emit(recorder.process("signal", Map::from_iter(fields)));
            return 0;
        }
        if recorder.gone.load(Ordering::Relaxed) {
            return 1;
        }
        std::thread::sleep(POLL);
    }
}

/// `HOST:PORT`, the host a name or an address (`[::1]:8080` for IPv6).
fn resolve(listen: &str) -> Result<SocketAddr, String> {
    let mut addresses = listen
        .to_socket_addrs()
        .map_err(|e| format!("--listen {listen:?}: {e} (give HOST:PORT)"))?;
    addresses
        .next()
        .ok_or_else(|| format!("--listen {listen:?}: no address"))
}

/// Writes each event as a trace line and queues it for the checker; the first failed write
/// is kept to end the run with.
struct Recorder {
    start: Instant,
    file: Mutex<Option<BufWriter<File>>>,
    failure: Mutex<Option<String>>,
    queue: Queue,
    check: bool,
    /// Events the checker's queue had no room for.
    dropped: AtomicUsize,
    /// Set when the session is over and the checker must finish at once.
    hurry: AtomicBool,
    /// The upstream has answered once; it is gone when a connection to it fails after that.
    answered: AtomicBool,
    gone: AtomicBool,
    /// Credentials are recorded as they are (`--record-secrets`), not redacted.
    secrets: bool,
}

impl Recorder {
    fn new(file: Option<File>, queue: Queue, check: bool) -> Recorder {
        Recorder {
            start: Instant::now(),
            file: Mutex::new(file.map(BufWriter::new)),
            failure: Mutex::new(None),
            queue,
            check,
            dropped: AtomicUsize::new(0),
            hurry: AtomicBool::new(false),
            answered: AtomicBool::new(false),
            gone: AtomicBool::new(false),
            secrets: false,
        }
    }

    fn failure(&self) -> Option<String> {
        self.failure.lock().ok()?.clone()
    }

    /// Seconds since the start, rounded as the trace writes them, so that the live checks
    /// see the times `trace check` reads back.
    fn seconds(&self, at: Instant) -> f64 {
        let t = at.saturating_duration_since(self.start).as_secs_f64();
        (t * 1e6).round() / 1e6
    }

    fn process(&self, kind: &str, fields: Map<String, Value>) -> TraceEvent {
        TraceEvent::process(self.seconds(Instant::now()), kind, fields)
    }

    /// Records `event`, then queues it for the checker without ever waiting; under one lock,
    /// so that the checker gets the events in the order of the record.
    fn emit(&self, event: TraceEvent) {
        self.emit_as(event, None);
    }

    /// Records `recorded` (`event` with its secrets redacted) or else `event`, and queues
    /// `event` for the checker: the checks see the real values.
    fn emit_as(&self, event: TraceEvent, recorded: Option<TraceEvent>) {
        let mut file = self.file.lock().unwrap_or_else(|e| e.into_inner());
        if let Some(writer) = file.as_mut() {
            let line = recorded.as_ref().unwrap_or(&event).to_line();
            let written = writeln!(writer, "{line}").and_then(|()| writer.flush());
            if let Err(error) = written {
                let error = format!("cannot write the trace: {error}");
                errln!("agentpi monitor: {error}; recording stops, relaying goes on");
                *file = None;
                if let Ok(mut failure) = self.failure.lock() {
                    failure.get_or_insert(error);
                }
            }
        }
        if self.check && !self.queue.offer(vec![event]) {
            self.dropped.fetch_add(1, Ordering::Relaxed);
        }
    }

    /// Ends the checker's session, once the proxy has delivered every event.
    fn end(&self) {
        self.queue.end();
    }

    fn watch_upstream(&self, http: &HttpExchange) {
        if http.error.is_none() {
            self.answered.store(true, Ordering::Relaxed);
        } else if self.answered.load(Ordering::Relaxed) {
            self.gone.store(true, Ordering::Relaxed);
        }
    }
}

impl Observer for Recorder {
    fn observe(&self, event: Event) {
        if let EventKind::Http(http) = &event.kind {
            self.watch_upstream(http);
        }
        let t = self.seconds(event.at);
        let redacted = (!self.secrets).then(|| redact::redacted(&event.kind));
        if let EventKind::Refused(refusal) = redacted.as_ref().unwrap_or(&event.kind) {
            errln!("agentpi monitor: {}", refused_line(refusal));
        }
        let recorded = redacted.map(|kind| trace_event(&kind, event.exchange, t));
        self.emit_as(trace_event(&event.kind, event.exchange, t), recorded);
    }
}

/// What the monitor says of a request or connection the proxy refused.
fn refused_line(refusal: &Refusal) -> String {
    let answer = refusal
        .status
        .map_or("closed".to_string(), |s| format!("answered {s}"));
    let request = if refusal.method.is_empty() {
        "a connection".to_string()
    } else {
        format!("{} {}", refusal.method, refusal.path)
    };
    format!(
        "refused {request} from {} ({answer}): {}",
        refusal.peer, refusal.reason
    )
}

/// One event of the proxy as a trace event (docs/monitor.md), `exchange` included (but for a
/// refusal, which is no exchange's).
fn trace_event(kind: &EventKind, exchange: u64, t: f64) -> TraceEvent {
    let exchange = ("exchange".to_string(), json!(exchange));
    match kind {
        EventKind::Message {
            dir,
            raw,
            sse_id,
            relayed,
            session,
            connection,
        } => {
            let dir = match dir {
                Dir::C2s => agentpi_monitor::Dir::C2s,
                Dir::S2c => agentpi_monitor::Dir::S2c,
            };
            let mut message = TraceEvent::message(t, dir, raw);
            if let Some(id) = sse_id {
                message.fields.insert("sse_id".into(), json!(id));
            }
            if !relayed {
                // Sent after the client closed the stream: recorded, never relayed.
                message.fields.insert("relayed".into(), json!(false));
            }
            if dir == agentpi_monitor::Dir::C2s {
                // Which session the request is of, before its response's head says it.
                message
                    .fields
                    .insert("mcp_session_id".into(), json!(session));
                // Which client connection: what tells modern clients apart (no session).
                message
                    .fields
                    .insert("connection".into(), json!(connection));
            }
            message.fields.extend([exchange]);
            message
        }
        EventKind::Http(http) => {
            let mut fields = http_fields(http);
            fields.extend([exchange]);
            TraceEvent::process(t, "http", fields)
        }
        EventKind::Aborted {
            dir,
            reason,
            pending,
            by_receiver,
        } => {
            let mut fields = vec![
                ("side".to_string(), json!(side(*dir))),
                ("reason".to_string(), json!(reason)),
                ("pending_bytes".to_string(), json!(pending)),
                exchange,
            ];
            if *by_receiver && *dir == Dir::S2c {
                // The client closed the response stream: a modern request's cancellation.
                fields.push(("closed_by".to_string(), json!("client")));
            }
            TraceEvent::process(t, "aborted", Map::from_iter(fields))
        }
        EventKind::Refused(refusal) => TraceEvent::process(t, "refused", refused_fields(refusal)),
    }
}

fn refused_fields(refusal: &Refusal) -> Map<String, Value> {
    let mut fields = Map::new();
    fields.insert("status".into(), json!(refusal.status));
    fields.insert("reason".into(), json!(refusal.reason));
    fields.insert("peer".into(), json!(refusal.peer.to_string()));
    if !refusal.method.is_empty() {
        fields.insert("method".into(), json!(refusal.method));
        fields.insert("path".into(), json!(refusal.path));
        fields.insert("request_headers".into(), pairs(&refusal.request_headers));
    }
    fields
}

fn pairs(headers: &[(String, String)]) -> Value {
    headers.iter().map(|(k, v)| json!([k, v])).collect()
}

fn http_fields(http: &HttpExchange) -> Map<String, Value> {
    let mut fields = Map::new();
    fields.insert("method".into(), json!(http.method));
    fields.insert("path".into(), json!(http.path));
    fields.insert("status".into(), json!(http.status));
    fields.insert("headers".into(), pairs(&http.response_headers));
    fields.insert("request_headers".into(), pairs(&http.request_headers));
    if let Some(error) = &http.error {
        fields.insert("error".into(), json!(error));
    }
    if !http.relayed {
        // The client had closed its connection: the head was read, not relayed.
        fields.insert("relayed".into(), json!(false));
    }
    fields
}

/// Which side's body ended early: the client's request or the server's response.
fn side(dir: Dir) -> &'static str {
    match dir {
        Dir::C2s => "client",
        Dir::S2c => "server",
    }
}
