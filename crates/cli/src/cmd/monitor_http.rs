//! `agentpi monitor --listen HOST:PORT --upstream URL [--record FILE]`: the Streamable HTTP
//! monitor. Runs the reverse proxy of `agentpi-http-proxy` until SIGINT or SIGTERM and writes
//! what crosses it as the trace of docs/monitor.md (JSON Lines, flushed per event).

use crate::output::errln;
use agentpi_http_proxy::{Dir, Event, EventKind, HttpExchange, Observer};
use base64::Engine;
use serde_json::{Map, Value, json};
use std::fs::File;
use std::io::{BufWriter, Write};
use std::net::{SocketAddr, ToSocketAddrs};
use std::path::PathBuf;
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

#[derive(clap::Args)]
pub struct Args {
    /// Address to listen on for MCP clients (port 0 picks a free port, printed at start).
    #[arg(long, value_name = "HOST:PORT")]
    pub listen: String,
    /// The Streamable HTTP server to relay to (http://); every request goes to its origin with
    /// its own path, so clients use the upstream's path on the listen address.
    #[arg(long, value_name = "URL")]
    pub upstream: String,
    /// Write the trace (JSON Lines, one event per line, flushed per event) to FILE.
    #[arg(long, value_name = "FILE")]
    pub record: Option<PathBuf>,
}

/// How long open exchanges (an SSE stream) get to finish once a signal came.
const GRACE: Duration = Duration::from_secs(2);

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
    let record = match &args.record {
        Some(path) => Some(
            File::create(path).map_err(|e| format!("cannot write `{}`: {e}", path.display()))?,
        ),
        None => None,
    };
    let recorder = Arc::new(Recorder::new(record));
    let observer: Arc<dyn Observer> = recorder.clone();
    let proxy = agentpi_http_proxy::serve(listen, &upstream, observer)
        .map_err(|e| format!("cannot listen on {listen}: {e}"))?;
    errln!(
        "agentpi monitor: listening on http://{}{}, relaying to {upstream}",
        proxy.local_addr(),
        upstream.path()
    );
    let signal = proxy.wait_for_signal();
    proxy.shutdown(GRACE);
    signal.map_err(|e| format!("cannot wait for signals: {e}"))?;
    match recorder.failure() {
        Some(error) => Err(error),
        None => Ok(0),
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

/// Writes each event as a trace line; the first failed write is kept to end the run with.
struct Recorder {
    start: Instant,
    file: Mutex<Option<BufWriter<File>>>,
    failure: Mutex<Option<String>>,
}

impl Recorder {
    fn new(file: Option<File>) -> Recorder {
        Recorder {
            start: Instant::now(),
            file: Mutex::new(file.map(BufWriter::new)),
            failure: Mutex::new(None),
        }
    }

    fn failure(&self) -> Option<String> {
        self.failure.lock().ok()?.clone()
    }
}

impl Observer for Recorder {
    fn observe(&self, event: Event) {
        let line = trace_line(&event, self.start);
        let Ok(mut file) = self.file.lock() else {
            return;
        };
        let Some(writer) = file.as_mut() else {
            return;
        };
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
}

/// One event in the trace format of docs/monitor.md.
fn trace_line(event: &Event, start: Instant) -> Value {
    let t = event.at.saturating_duration_since(start).as_secs_f64();
    let mut line = Map::new();
    line.insert("t".into(), json!(t));
    match &event.kind {
        EventKind::Message { dir, raw, sse_id } => {
            line.insert("dir".into(), json!(dir.as_str()));
            match std::str::from_utf8(raw) {
                Ok(text) => line.insert("raw".into(), json!(text)),
                Err(_) => {
                    let encoded = base64::engine::general_purpose::STANDARD.encode(raw);
                    line.insert("raw_b64".into(), json!(encoded))
                }
            };
            if let Some(id) = sse_id {
                line.insert("sse_id".into(), json!(id));
            }
        }
        EventKind::Http(http) => http_fields(&mut line, http),
        EventKind::Aborted {
            dir,
            reason,
            pending,
        } => {
            line.insert("dir".into(), json!("event"));
            line.insert("event".into(), json!("aborted"));
            line.insert("side".into(), json!(side(*dir)));
            line.insert("reason".into(), json!(reason));
            line.insert("pending_bytes".into(), json!(pending));
        }
    }
    line.insert("exchange".into(), json!(event.exchange));
    Value::Object(line)
}

fn http_fields(line: &mut Map<String, Value>, http: &HttpExchange) {
    let pairs = |headers: &[(String, String)]| -> Value {
        headers.iter().map(|(k, v)| json!([k, v])).collect()
    };
    line.insert("dir".into(), json!("event"));
    line.insert("event".into(), json!("http"));
    line.insert("method".into(), json!(http.method));
    line.insert("path".into(), json!(http.path));
    line.insert("status".into(), json!(http.status));
    line.insert("headers".into(), pairs(&http.response_headers));
    line.insert("request_headers".into(), pairs(&http.request_headers));
    if let Some(error) = &http.error {
        line.insert("error".into(), json!(error));
    }
}

/// Which side's body ended early: the client's request or the server's response.
fn side(dir: Dir) -> &'static str {
    match dir {
        Dir::C2s => "client",
        Dir::S2c => "server",
    }
}
