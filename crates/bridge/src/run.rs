//! The bridge's process: the server it starts (`-- CMD`), a reader thread for the client's
//! standard input and one for the server's standard output (the server's standard error
//! goes to ours), each handing a line to the direction's process (`ToModern` or `ToLegacy`,
//! an `Engine`, shared under a lock) and writing what it says, in order, on the thread that
//! read it: a hop wakes no other thread on its way (a hand-over to a loop thread cost each
//! hop a wake-up, which was most of what the bridge added to a call); a peer that does not
//! read gets what waits for it from a thread of its own (`Outlet`). One loop takes the
//! rest: the HTTP sides' exchanges, the ends of the streams, and a held call's timeout when
//! it is due. It ends when the client's input ends (the server is closed, status 0) or when
//! the server goes away (every request in flight gets an error, status 1).

use crate::engine::{Engine, To};
use crate::input::Input;
use crate::listen::Listener;
use crate::model::{self, TO_LEGACY_SYSTEMS, TO_MODERN_SYSTEMS};
use crate::outlet::Outlet;
use crate::per_session::PerSession;
use crate::refine;
use crate::serve_http;
use crate::sessions::SessionLimits;
use crate::side::Side;
use crate::to_legacy::ToLegacy;
use crate::to_modern::ToModern;
use crate::upstream::{Era, Upstream};
use agentpi_http_proxy::{Access, Limits};
use agentpi_monitor::Report;
use agentpi_monitor::lines::Lines;
use serde_json::{Map, json};
use std::io::Read;
use std::net::SocketAddr;
use std::os::fd::AsFd;
use std::panic::AssertUnwindSafe;
use std::path::PathBuf;
use std::process::{Child, ChildStdout, Command, Stdio};
use std::sync::mpsc::{Receiver, RecvTimeoutError, Sender, channel};
use std::sync::{Arc, Mutex, MutexGuard, PoisonError};
use std::time::{Duration, Instant};

/// The default of `--retry-timeout`: how long `--to legacy` holds a legacy call for the
/// modern client's retry (a person answering an elicitation takes time).
pub const RETRY_TIMEOUT: Duration = Duration::from_secs(300);

/// What `agentpi bridge` is asked.
#[derive(Clone, Debug)]
pub struct Options {
    pub command: Vec<String>,
    /// `--upstream URL`: the server is a Streamable HTTP one there (no command).
    pub upstream: Option<String>,
    /// `--listen HOST:PORT`: the client side is Streamable HTTP there (not stdio).
    pub listen: Option<SocketAddr>,
    /// Who may use the listening side (`--allow-remote`, `--allow-host`, `--allow-origin`).
    pub access: Access,
    pub limits: Limits,
    /// `--max-sessions`, `--session-idle`: the legacy client sessions a listening bridge keeps.
    pub sessions: SessionLimits,
    /// Told the address the listening side got (the command line prints it).
    pub listening: fn(SocketAddr),
    /// `--retry-timeout`: how long `--to legacy` holds a call for its retry.
    pub retry_timeout: Duration,
    /// `--record DIR`: one trace per side.
    pub record: Option<PathBuf>,
    /// `--report FILE`: both sides' findings.
    pub report: Option<PathBuf>,
}

/// How a bridge ended.
#[derive(Debug)]
pub struct Ended {
    /// 0 the client closed; 1 the checks failed or the server went away; 2 bad input.
    pub status: u8,
    /// What to tell the user (on standard error).
    pub message: Option<String>,
    pub legacy: Option<Report>,
    pub modern: Option<Report>,
    /// How many checks of mcp/bridge held at start.
    pub checks: usize,
    /// What the transports did outside the model (a lost session opened again, a refusal).
    pub transport: Vec<String>,
}

impl Ended {
    fn early(status: u8, message: String) -> Ended {
        Ended {
            status,
            message: Some(message),
            legacy: None,
            modern: None,
            checks: 0,
            transport: Vec::new(),
        }
    }
}

/// A failures refinement: the spec, the implementation, the channels hidden.
type Refinement<'a> = (&'a str, &'a str, &'a [&'a str]);

/// The direction's checks and its failures refinements; how many held, or what failed.
fn checks(
    model: &model::Model,
    systems: &[&str],
    refinements: &[Refinement],
    flag: &str,
) -> Result<usize, String> {
    model::check(model, systems)
        .and_then(|n| {
            let refined = refinements.iter().map(|(spec, implementation, hidden)| {
                refine::failures(model, spec, implementation, hidden)
            });
            let failed: Vec<String> = refined.filter_map(Result::err).collect();
            match failed.is_empty() {
                true => Ok(n + refinements.len()),
                false => Err(failed),
            }
        })
        .map_err(|failed| {
            format!(
                "the checks of mcp/bridge for {flag} (and its failures refinements) do not hold, \
                 so the bridge does not run:\n  {}",
                failed.join("\n  ")
            )
        })
}

/// `--to modern`: runs the bridge until one side ends.
pub fn to_modern(options: &Options) -> Ended {
    let model = match model::model() {
        Ok(m) => m,
        Err(e) => return Ended::early(2, e),
    };
    // The session's, and the subscriptions' (with an update that crosses the unsubscribe).
    let hidden = &["mc2s", "ms2c"][..];
    let refinements = [
        ("LegacyDirect", "LegacyBridged", hidden),
        ("SubDirect", "SubCrossBridged", hidden),
    ];
    let checks = match checks(model, TO_MODERN_SYSTEMS, &refinements, "--to modern") {
        Ok(n) => n,
        Err(text) => return Ended::early(1, text),
    };
    // Over HTTP each legacy client session gets its own process (`per_session`).
    let mut ended = match options.listen {
        Some(_) => bridge(options, Era::Modern, |legacy, modern| {
            Ok(PerSession::new(model, legacy, modern))
        }),
        None => bridge(options, Era::Modern, |legacy, modern| {
            ToModern::new(model, legacy, modern)
        }),
    };
    ended.checks = checks;
    ended
}

/// Starts the server and runs `make`'s process until one side ends.
fn bridge<E: Engine + Send + 'static>(
    options: &Options,
    era: Era,
    make: impl FnOnce(Side, Side) -> Result<E, String>,
) -> Ended {
    let (tx, rx) = channel();
    match start(options, era, &tx, make) {
        Ok((bridge, server, stdout)) => serve(bridge, server, stdout, tx, &rx, options),
        Err(e) => Ended::early(2, e),
    }
}

/// `--to legacy`: runs the bridge until one side ends.
pub fn to_legacy(options: &Options) -> Ended {
    let model = match model::model() {
        Ok(m) => m,
        Err(e) => return Ended::early(2, e),
    };
    let refinement = ("ModernDirect", "ModernBridged", &["lc2s", "ls2c"][..]);
    let checks = match checks(model, TO_LEGACY_SYSTEMS, &[refinement], "--to legacy") {
        Ok(n) => n,
        Err(text) => return Ended::early(1, text),
    };
    let (timeout, by_stream) = (options.retry_timeout, options.upstream.is_some());
    let mut ended = bridge(options, Era::Legacy, |legacy, modern| {
        let bridge = ToLegacy::new(model, modern, legacy, timeout)?;
        Ok(if by_stream {
            bridge.by_stream()
        } else {
            bridge
        })
    });
    ended.checks = checks;
    ended
}

/// The server side: a stdio server the bridge started, or a Streamable HTTP upstream.
pub(crate) enum Server {
    Child {
        child: Child,
        /// Its standard input, until it is closed (or the server stopped reading).
        stdin: Option<Outlet>,
    },
    Http(Box<Upstream>),
}

/// Starts the server (or sets up the upstream) and makes the direction's process of the two
/// sides (`legacy`, `modern`); a started server's side records its `spawn`, and its
/// standard output is given back to be read.
fn start<E: Engine>(
    options: &Options,
    era: Era,
    tx: &Sender<Input>,
    make: impl FnOnce(Side, Side) -> Result<E, String>,
) -> Result<(E, Server, Option<ChildStdout>), String> {
    let dir = options.record.as_deref();
    if let Some(dir) = dir {
        std::fs::create_dir_all(dir)
            .map_err(|e| format!("cannot create `{}`: {e}", dir.display()))?;
    }
    let now = Instant::now();
    let (mut legacy, mut modern) = Side::pair(dir, now)?;
    if let Some(url) = &options.upstream {
        let upstream = Upstream::new(url, era, tx.clone())?;
        // Before the process is made: `ToLegacy` writes its `initialize` at once.
        match era {
            Era::Modern => modern.set_http(),
            Era::Legacy => legacy.set_http(),
        }
        return Ok((
            make(legacy, modern)?,
            Server::Http(Box::new(upstream)),
            None,
        ));
    }
    let (program, args) = options
        .command
        .split_first()
        .ok_or("no server command after `--` (or give --upstream URL)")?;
    let mut child = Command::new(program)
        .args(args)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::inherit())
        .spawn()
        .map_err(|e| format!("cannot start `{program}`: {e}"))?;
    let mut bridge = match make(legacy, modern) {
        Ok(bridge) => bridge,
        Err(e) => {
            let _ = child.kill();
            let _ = child.wait();
            return Err(e);
        }
    };
    bridge.server_side().process(
        "spawn",
        Map::from_iter([("command".into(), json!(options.command))]),
    );
    let stdout = child.stdout.take();
    // Nothing to tell when the server stops reading: its end comes on its stdout.
    let stdin = child.stdin.take().map(|s| Outlet::new(s.into(), || {}));
    let stdin = match stdin.transpose() {
        Ok(stdin) => stdin,
        Err(e) => {
            let _ = child.kill();
            let _ = child.wait();
            return Err(e);
        }
    };
    Ok((bridge, Server::Child { child, stdin }, stdout))
}

/// The client side: the standard streams, or a Streamable HTTP server.
pub(crate) enum Client {
    /// Our standard output (a client that stops reading it is told to the loop).
    Stdio(Outlet),
    Http(Box<Listener>),
}

/// The client side: `--listen` starts the HTTP server (its address told), else the
/// standard input is read (`read`, once the process is shared).
fn client_side<E: Engine>(
    bridge: &mut E,
    era: Era,
    tx: Sender<Input>,
    options: &Options,
) -> Result<Client, String> {
    let Some(listen) = options.listen else {
        let stdout = std::io::stdout().as_fd().try_clone_to_owned();
        let stdout = stdout.map_err(|e| format!("cannot write to the standard output: {e}"))?;
        let gone = move || drop(tx.send(Input::ClientGone));
        return Outlet::new(stdout, gone).map(Client::Stdio);
    };
    let listening = serve_http::start(listen, &options.access, options.limits, tx)?;
    bridge.client_side().set_http();
    (options.listening)(listening.address);
    let client_era = match era {
        Era::Modern => Era::Legacy,
        Era::Legacy => Era::Modern,
    };
    let listener = Listener::new(client_era, listening, options.sessions);
    Ok(Client::Http(Box::new(listener)))
}

/// What the loop and the stdio readers share, under one lock: the process and both
/// transports.
struct Shared<E> {
    bridge: E,
    server: Server,
    client: Client,
    /// A write to the client failed: it stopped reading (the loop ends the bridge).
    client_gone: bool,
    /// The loop has ended: a line read later is not stepped.
    over: bool,
}

type Locked<E> = Arc<Mutex<Shared<E>>>;

/// The shared state, also after a reader panicked with it (its panic ends the bridge:
/// `Input::Panicked`).
fn lock<E>(shared: &Mutex<Shared<E>>) -> MutexGuard<'_, Shared<E>> {
    shared.lock().unwrap_or_else(PoisonError::into_inner)
}

/// Which stdio peer a reader reads.
#[derive(Clone, Copy)]
enum Peer {
    Client,
    Server,
}

impl<E: Engine> Shared<E> {
    /// A line of a stdio peer stepped and what the process says written, on the reader's
    /// thread; the loop told when a held call's timeout moved, or when the client stopped
    /// reading.
    fn line(&mut self, peer: Peer, line: &[u8], tx: &Sender<Input>) {
        if self.over || self.client_gone || blank(line) {
            return;
        }
        let due = self.bridge.due();
        match peer {
            Peer::Client => self.bridge.client(line),
            Peer::Server => self.bridge.server(line),
        }
        if !write(&mut self.bridge, &mut self.server, &mut self.client) {
            self.client_gone = true;
            let _ = tx.send(Input::ClientGone);
            return;
        }
        settle(&mut self.bridge);
        if self.bridge.due() != due {
            let _ = tx.send(Input::Due);
        }
    }
}

fn serve<E: Engine + Send + 'static>(
    mut bridge: E,
    mut server: Server,
    stdout: Option<ChildStdout>,
    tx: Sender<Input>,
    rx: &Receiver<Input>,
    options: &Options,
) -> Ended {
    let era = match bridge.client_side().name {
        "legacy" => Era::Modern,
        _ => Era::Legacy,
    };
    let mut client = match client_side(&mut bridge, era, tx.clone(), options) {
        Ok(c) => c,
        Err(e) => {
            end_server(&mut bridge, &mut server);
            return Ended::early(2, e);
        }
    };
    // What the process wrote at its start (`--to legacy`: the legacy `initialize`).
    write(&mut bridge, &mut server, &mut client);
    let stdin = matches!(client, Client::Stdio(_));
    let shared = Arc::new(Mutex::new(Shared {
        bridge,
        server,
        client,
        client_gone: false,
        over: false,
    }));
    let read = stdout
        .map_or(Ok(()), |out| read(out, &shared, &tx, Peer::Server))
        .and_then(|()| match stdin {
            true => read(std::io::stdin(), &shared, &tx, Peer::Client),
            false => Ok(()),
        });
    drop(tx);
    let (status, message) = match read {
        Ok(()) => pump(&shared, rx, options),
        Err(e) => {
            let mut guard = lock(&shared);
            let Shared { bridge, server, .. } = &mut *guard;
            end_server(bridge, server);
            guard.over = true;
            (2, Some(e))
        }
    };
    let mut guard = lock(&shared);
    let Shared {
        bridge,
        server,
        client,
        ..
    } = &mut *guard;
    let mut notes = match server {
        Server::Http(upstream) => {
            upstream.close();
            upstream.notes.take()
        }
        Server::Child { .. } => Vec::new(),
    };
    match client {
        Client::Http(listener) => {
            listener.close();
            notes.extend(listener.notes.take());
        }
        // Every answer written before the report (as long as the client reads).
        Client::Stdio(stdout) => stdout.close(None),
    }
    let mut ended = finish(bridge, status, message, options, &notes);
    ended.transport = notes;
    ended
}

/// A thread reading the lines of a stdio peer from `from` and stepping each; its end (or its
/// panic) told to the loop. An error if the system will not start one.
fn read<E: Engine + Send + 'static>(
    from: impl Read + Send + 'static,
    shared: &Locked<E>,
    tx: &Sender<Input>,
    peer: Peer,
) -> Result<(), String> {
    let (shared, tx) = (shared.clone(), tx.clone());
    let spawned = std::thread::Builder::new().spawn(move || {
        let read = std::panic::catch_unwind(AssertUnwindSafe(|| lines(from, &shared, &tx, peer)));
        let _ = tx.send(match (read, peer) {
            (Err(panic), _) => Input::Panicked(panic),
            (Ok(()), Peer::Client) => Input::ClientEnd,
            (Ok(()), Peer::Server) => Input::ServerEnd,
        });
    });
    spawned
        .map(drop)
        .map_err(|e| format!("cannot start a thread to read a side: {e}"))
}

/// Reads `from` until it ends, each line stepped under the lock.
fn lines<E: Engine>(
    mut from: impl Read,
    shared: &Mutex<Shared<E>>,
    tx: &Sender<Input>,
    peer: Peer,
) {
    let mut lines = Lines::default();
    let mut buf = vec![0u8; 16 * 1024];
    loop {
        let n = match from.read(&mut buf) {
            Ok(0) | Err(_) => break,
            Ok(n) => n,
        };
        let mut shared = lock(shared);
        lines.feed(&buf[..n], |l| shared.line(peer, l, tx));
    }
    lines.end(|l| lock(shared).line(peer, l, tx));
}

/// The loop: what the HTTP sides and the ends of the stdio streams bring, taken under the
/// lock; a due timeout told. Returns the status, the stdio readers told to stop stepping.
fn pump<E: Engine>(
    shared: &Mutex<Shared<E>>,
    rx: &Receiver<Input>,
    options: &Options,
) -> (u8, Option<String>) {
    loop {
        let due = lock(shared).bridge.due();
        let input = match due {
            None => rx.recv().map_err(|_| RecvTimeoutError::Disconnected),
            Some(due) => rx.recv_timeout(due.saturating_duration_since(Instant::now())),
        };
        if let Ok(Input::Panicked(panic)) = input {
            std::panic::resume_unwind(panic);
        }
        let mut guard = lock(shared);
        let Shared {
            bridge,
            server,
            client,
            ..
        } = &mut *guard;
        if let Some(ended) = take(input, bridge, server, client, options) {
            guard.over = true;
            return ended;
        }
    }
}

/// One input of the loop; the status when the bridge ends.
fn take<E: Engine>(
    input: Result<Input, RecvTimeoutError>,
    bridge: &mut E,
    server: &mut Server,
    client: &mut Client,
    options: &Options,
) -> Option<(u8, Option<String>)> {
    match input {
        Err(RecvTimeoutError::Disconnected) => return Some((1, None)),
        Err(RecvTimeoutError::Timeout) => bridge.tick(Instant::now()),
        // The reader that stepped the line settled it; the loop waits until the new due.
        Ok(Input::Due | Input::Panicked(_)) => return None,
        Ok(Input::Listen(posted)) => {
            if let Client::Http(listener) = client {
                listener.posted(posted, bridge);
            }
        }
        Ok(Input::StreamClosed(stream)) => {
            if let Client::Http(listener) = client {
                listener.stream_closed(stream, bridge);
            }
        }
        Ok(Input::NotAllowed(request)) => {
            if let Client::Http(listener) = client {
                listener.not_allowed(&request, bridge.client_side());
            }
        }
        Ok(Input::Refused(refused)) => {
            if let Client::Http(listener) = client {
                listener.refused(&refused, bridge.client_side());
            }
        }
        Ok(Input::Upstream(up)) => {
            let Server::Http(upstream) = server else {
                return None;
            };
            if let Err(why) = upstream.on(up, bridge) {
                let url = options.upstream.as_deref().unwrap_or_default();
                let flight = bridge.in_flight();
                let why = format!(
                    "upstream {url} cannot be reached ({why}); {flight} request(s) in flight"
                );
                bridge.server_gone(&why);
                write(bridge, server, client);
                return Some((1, Some(format!("the {why}"))));
            }
        }
        Ok(Input::ClientEnd) => {
            bridge.client_side().process("eof", side("client"));
            bridge.closing();
            write(bridge, server, client);
            end_server(bridge, server);
            return Some((0, None));
        }
        Ok(Input::ServerEnd) => {
            bridge.server_side().process("eof", side("server"));
            let code = end_server(bridge, server);
            let flight = bridge.in_flight();
            let why = format!(
                "exited (status {}) with {flight} request(s) in flight",
                show(code)
            );
            bridge.server_gone(&why);
            write(bridge, server, client);
            return Some((1, Some(format!("the server {why}"))));
        }
        Ok(Input::ClientGone) => return Some(client_gone(bridge, server, client)),
    }
    if !write(bridge, server, client) {
        return Some(client_gone(bridge, server, client));
    }
    settle(bridge);
    None
}

/// The client stopped reading: the bridge closes as when its input ends.
fn client_gone<E: Engine>(
    bridge: &mut E,
    server: &mut Server,
    client: &mut Client,
) -> (u8, Option<String>) {
    bridge.client_side().process("eof", side("client"));
    bridge.closing();
    write(bridge, server, client);
    end_server(bridge, server);
    (0, Some("the client stopped reading".into()))
}

/// Both sides' monitors judge and record what crossed, once it is written (`Side::settle`).
fn settle<E: Engine>(bridge: &mut E) {
    bridge.client_side().settle();
    bridge.server_side().settle();
}

/// Closes the server: a started one's input closed and its exit waited for (and recorded);
/// an upstream's open exchanges stopped.
fn end_server<E: Engine>(bridge: &mut E, server: &mut Server) -> Option<i32> {
    match server {
        Server::Child { child, stdin } => {
            if let Some(stdin) = stdin.take() {
                // What is queued for it, within the grace a server gets to exit.
                stdin.close(Some(Duration::from_secs(1)));
            }
            let code = close(child);
            bridge.server_side().process("exit", code_field(code));
            code
        }
        Server::Http(upstream) => {
            upstream.end_session(bridge.server_side());
            upstream.close();
            None
        }
    }
}

fn blank(line: &[u8]) -> bool {
    line.iter().all(u8::is_ascii_whitespace)
}

fn side(name: &str) -> Map<String, serde_json::Value> {
    Map::from_iter([("side".into(), json!(name))])
}

fn code_field(code: Option<i32>) -> Map<String, serde_json::Value> {
    Map::from_iter([("code".into(), json!(code))])
}

fn show(code: Option<i32>) -> String {
    code.map_or("unknown".into(), |c| c.to_string())
}

/// Writes what the bridge said, in order; false when the client stopped reading.
fn write<E: Engine>(bridge: &mut E, server: &mut Server, client: &mut Client) -> bool {
    for written in bridge.take_routed() {
        let mut bytes = written.bytes;
        match (written.to, &mut *server, &mut *client) {
            (To::Client, _, Client::Http(listener)) => {
                let route = (written.session.as_deref(), written.call.as_ref());
                listener.write(bytes, route, bridge.client_side());
            }
            (To::Client, _, Client::Stdio(stdout)) => {
                bytes.push(b'\n');
                if !stdout.write(bytes) {
                    return false;
                }
            }
            (To::Server, Server::Http(upstream), _) => upstream.post(bytes, bridge.server_side()),
            (To::Server, Server::Child { stdin, .. }, _) => {
                bytes.push(b'\n');
                if stdin.as_ref().is_some_and(|s| !s.write(bytes)) {
                    // The server is going: its end comes on its stdout.
                    *stdin = None;
                }
            }
        }
    }
    true
}

/// Waits for the server to exit after its input closed: a grace of one second, then a kill.
/// Shorter than the grace hosts give the bridge itself (the SDKs' stdio clients wait two
/// seconds, then end the process tree), so that the report and records are written first:
/// a server with a request of its own still pending (a held call cancelled) may not exit.
fn close(child: &mut Child) -> Option<i32> {
    let since = Instant::now();
    loop {
        match child.try_wait() {
            Ok(Some(status)) => return exit_code(status),
            Ok(None) if since.elapsed() > Duration::from_secs(1) => {
                let _ = child.kill();
                return child.wait().ok().and_then(exit_code);
            }
            Ok(None) => std::thread::sleep(Duration::from_millis(5)),
            Err(_) => return None,
        }
    }
}

fn exit_code(status: std::process::ExitStatus) -> Option<i32> {
    use std::os::unix::process::ExitStatusExt;
    status.code().or_else(|| status.signal().map(|s| 128 + s))
}

/// Both sides' reports, and `--report FILE`.
fn finish<E: Engine>(
    bridge: &mut E,
    status: u8,
    message: Option<String>,
    options: &Options,
    transport: &[String],
) -> Ended {
    let (client, client_failed) = bridge.client_side().finish();
    let (server, server_failed) = bridge.server_side().finish();
    let client_is_legacy = bridge.client_side().name == "legacy";
    let (legacy, legacy_failed, modern, modern_failed) = match client_is_legacy {
        true => (client, client_failed, server, server_failed),
        false => (server, server_failed, client, client_failed),
    };
    let mut ended = Ended {
        status,
        message,
        legacy: Some(legacy),
        modern: Some(modern),
        checks: 0,
        transport: Vec::new(),
    };
    if legacy_failed || modern_failed {
        ended.message = Some("writing a record failed; it is incomplete".into());
        ended.status = ended.status.max(2);
    }
    if let Some(path) = &options.report {
        let report = json!({
            "legacy": ended.legacy.as_ref().map(Report::to_json),
            "modern": ended.modern.as_ref().map(Report::to_json),
            "bridge": {"notes": bridge.notes()},
            "transport": {"notes": transport},
        });
        if let Err(e) = std::fs::write(path, report.to_string() + "\n") {
            ended.message = Some(format!("cannot write `{}`: {e}", path.display()));
            ended.status = ended.status.max(2);
        }
    }
    ended
}
