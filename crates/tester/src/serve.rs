//! The process of a Streamable HTTP server that the tester starts itself (`agentpi test --url
//! URL -- CMD`), one per run, shrinking try and replay, as a stdio server is: the URL's port
//! must be free first (the previous process fully gone, or a stray server would be tested in
//! its place), then the command is started in a process group of its own (so that a wrapper,
//! `sh -c` or `npx`, is stopped with the server it started), waited for until the URL accepts a
//! connection (a bounded wait, cut short when the command exits) and, at the run's end,
//! stopped (SIGTERM to the group, SIGKILL after a grace) and reaped.

use std::collections::VecDeque;
use std::io::{BufRead, BufReader, Read};
use std::net::{SocketAddr, TcpStream, ToSocketAddrs};
use std::os::unix::process::CommandExt;
use std::process::{Child, Command, ExitStatus, Stdio};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use rustix::process::{Pid, Signal};

/// How long the port may stay taken before a start (a previous process still closing it).
const PORT_GRACE: Duration = Duration::from_secs(2);
/// How long a group killed with SIGKILL may take to vanish.
const KILL_GRACE: Duration = Duration::from_secs(1);
/// How many of its last output lines an error quotes.
const TAIL: usize = 5;

/// The server's last lines of output (stdout and stderr: neither may reach agentpi's stdout,
/// which is the report's).
type Tail = Arc<Mutex<VecDeque<String>>>;

/// How long a command that exited gets for its last output to be read: the readers end with
/// the pipes, so this is spent only when a child of the command holds them open, and a loaded
/// machine may not schedule a reader for a while (the error quotes what it read).
const OUTPUT_GRACE: Duration = Duration::from_secs(2);

/// The process groups of the servers running now, so that a signal to agentpi can stop them
/// ([`stop_all`]): they are in groups of their own, out of reach of the terminal's Ctrl-C.
/// Once `closed`, no server starts (agentpi is ending).
struct Live {
    groups: Vec<Pid>,
    closed: bool,
}

static LIVE: Mutex<Live> = Mutex::new(Live {
    groups: Vec::new(),
    closed: false,
});

/// A running server command; killed when dropped, if still running.
pub struct Served {
    child: Child,
    group: Pid,
    tail: Tail,
    /// The threads reading its output into `tail`.
    readers: Vec<std::thread::JoinHandle<()>>,
    /// Stopped and reaped: its group id may belong to someone else now.
    stopped: bool,
}

/// How a server ended: its exit status (if it could be read), and whether it was killed.
#[derive(Debug)]
pub struct Stopped {
    pub status: Option<ExitStatus>,
    pub killed: bool,
}

impl Served {
    /// Starts `argv` once `url`'s port is free, and waits up to `within` until it accepts a
    /// connection. The error says why, with the command's last lines of output.
    pub fn start(argv: &[String], url: &str, within: Duration) -> Result<Served, String> {
        let (place, addresses) = addresses(url)?;
        let (program, args) = argv.split_first().ok_or("no server command given")?;
        if !port_free(&addresses, PORT_GRACE) {
            return Err(format!(
                "something already listens on {place} before the server command starts \
                 (a server left running?): it would be tested instead of the command's"
            ));
        }
        let mut child = spawn(program, args)?;
        let (tail, readers, refused) = kept_output(&mut child);
        let group = Pid::from_child(&child);
        let mut served = Served {
            child,
            group,
            tail,
            readers,
            stopped: false,
        };
        if let Some(e) = refused {
            // Dropping `served` ends the server: its output would fill a pipe nobody reads.
            return Err(format!(
                "cannot start a thread to read the server's output: {e}"
            ));
        }
        served.await_listening(&place, &addresses, within)?;
        Ok(served)
    }

    /// Polls the addresses until one accepts, the command exits, or `within` passes.
    fn await_listening(
        &mut self,
        place: &str,
        addresses: &[SocketAddr],
        within: Duration,
    ) -> Result<(), String> {
        let started = Instant::now();
        loop {
            if accepts(addresses) {
                return Ok(());
            }
            if let Ok(Some(status)) = self.child.try_wait() {
                // What it wrote last may still be in the pipes: the readers end with them.
                self.drain(OUTPUT_GRACE);
                return Err(format!(
                    "the server command {} before listening on {place}{}",
                    describe(status),
                    self.quoted_tail()
                ));
            }
            if started.elapsed() >= within {
                return Err(format!(
                    "the server command did not listen on {place} within {} s (--timeout){}",
                    within.as_secs_f64(),
                    self.quoted_tail()
                ));
            }
            std::thread::sleep(Duration::from_millis(50));
        }
    }

    /// Stops the server: SIGTERM to its group, SIGKILL when the command or anything of its
    /// group outlives `grace`; the command is reaped. An HTTP server does not end by itself
    /// when its client is done, so the signal is how every run ends.
    pub fn stop(&mut self, grace: Duration) -> Stopped {
        let early = self.child.try_wait().ok().flatten();
        if early.is_none() || !group_gone(self.group) {
            let _ = rustix::process::kill_process_group(self.group, Signal::TERM);
        }
        let deadline = Instant::now() + grace;
        let status = early.or_else(|| self.exit_by(deadline));
        let killed = status.is_none() || !group_gone_by(self.group, deadline);
        if killed {
            let _ = rustix::process::kill_process_group(self.group, Signal::KILL);
            group_gone_by(self.group, Instant::now() + KILL_GRACE);
        }
        let status = status.or_else(|| self.child.wait().ok());
        forget(self.group);
        self.stopped = true;
        Stopped { status, killed }
    }

    /// The command's exit status once it exits before `deadline`.
    fn exit_by(&mut self, deadline: Instant) -> Option<ExitStatus> {
        loop {
            match self.child.try_wait() {
                Ok(Some(status)) => return Some(status),
                Ok(None) if Instant::now() < deadline => {
                    std::thread::sleep(Duration::from_millis(10));
                }
                _ => return None,
            }
        }
    }

    /// Waits up to `most` for the output readers to reach the end of their pipes (a child
    /// of the command may hold them open longer).
    fn drain(&self, most: Duration) {
        let deadline = Instant::now() + most;
        while !self.readers.iter().all(|r| r.is_finished()) && Instant::now() < deadline {
            std::thread::sleep(Duration::from_millis(5));
        }
    }

    /// The server's last lines of output.
    pub fn tail(&self) -> Vec<String> {
        let lines = self.tail.lock().map(|t| t.clone()).unwrap_or_default();
        lines.into_iter().collect()
    }

    /// The server's last lines of output, for an error, or nothing.
    fn quoted_tail(&self) -> String {
        let lines = self.tail();
        if lines.is_empty() {
            return String::new();
        }
        format!("; its last output:\n  {}", lines.join("\n  "))
    }
}

impl Drop for Served {
    /// A server not stopped (a start that failed, a run given up) must not keep the port.
    fn drop(&mut self) {
        if self.stopped {
            return;
        }
        if matches!(self.child.try_wait(), Ok(None)) || !group_gone(self.group) {
            let _ = rustix::process::kill_process_group(self.group, Signal::KILL);
            let _ = self.child.wait();
        }
        forget(self.group);
    }
}

/// Starts `program` in a process group of its own, its output piped, and registers the group
/// in [`LIVE`] under the same lock, so that [`stop_all`] misses none.
fn spawn(program: &str, args: &[String]) -> Result<Child, String> {
    let mut live = LIVE.lock().map_err(|_| "agentpi is ending".to_string())?;
    if live.closed {
        return Err("agentpi is ending: no server is started".into());
    }
    let child = Command::new(program)
        .args(args)
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .process_group(0)
        .spawn()
        .map_err(|e| format!("cannot start `{program}`: {e}"))?;
    live.groups.push(Pid::from_child(&child));
    Ok(child)
}

/// Kills the group of every server running now, and lets no other start (agentpi was told
/// to stop: the servers' groups are not the terminal's, so nothing else would end them).
pub fn stop_all() {
    let Ok(mut live) = LIVE.lock() else { return };
    live.closed = true;
    for group in &live.groups {
        let _ = rustix::process::kill_process_group(*group, Signal::KILL);
    }
}

fn forget(group: Pid) {
    if let Ok(mut live) = LIVE.lock() {
        live.groups.retain(|g| *g != group);
    }
}

/// No live process is left in `group`. A zombie does not count: it holds no port, and an
/// orphan's zombie waits for PID 1 to reap it, which in a container may take seconds. Where
/// `/proc` cannot be read, signal 0 tells (zombies included).
fn group_gone(group: Pid) -> bool {
    match live_in_group(group) {
        Some(any) => !any,
        None => rustix::process::test_kill_process_group(group).is_err(),
    }
}

/// Whether `/proc` lists a process of `group` that is not a zombie; `None` without `/proc`.
fn live_in_group(group: Pid) -> Option<bool> {
    let entries = std::fs::read_dir("/proc").ok()?;
    let wanted = group.as_raw_nonzero().get().to_string();
    Some(entries.flatten().any(|entry| {
        let stat = std::fs::read_to_string(entry.path().join("stat")).unwrap_or_default();
        // `PID (COMM) STATE PPID PGRP ...`: COMM may hold spaces and parentheses.
        let rest = stat.rsplit_once(')').map_or("", |(_, r)| r);
        let fields: Vec<&str> = rest.split_whitespace().take(3).collect();
        matches!(fields[..], [state, _, pgrp] if pgrp == wanted && !matches!(state, "Z" | "X"))
    }))
}

/// Waits until no process is left in `group`, at most until `deadline`; whether none is.
fn group_gone_by(group: Pid, deadline: Instant) -> bool {
    loop {
        if group_gone(group) {
            return true;
        }
        if Instant::now() >= deadline {
            return false;
        }
        std::thread::sleep(Duration::from_millis(10));
    }
}

/// Whether one of the addresses accepts a connection now.
fn accepts(addresses: &[SocketAddr]) -> bool {
    let probe = Duration::from_millis(200);
    addresses
        .iter()
        .any(|a| TcpStream::connect_timeout(a, probe).is_ok())
}

/// Waits up to `within` until none of the addresses accepts a connection.
fn port_free(addresses: &[SocketAddr], within: Duration) -> bool {
    let deadline = Instant::now() + within;
    loop {
        if !accepts(addresses) {
            return true;
        }
        if Instant::now() >= deadline {
            return false;
        }
        std::thread::sleep(Duration::from_millis(20));
    }
}

/// `host:port` of an http:// or https:// URL, and the addresses it names.
fn addresses(url: &str) -> Result<(String, Vec<SocketAddr>), String> {
    let parsed = url::Url::parse(url).map_err(|e| format!("--url `{url}`: {e}"))?;
    let host = parsed
        .host_str()
        .ok_or_else(|| format!("--url `{url}` names no host"))?;
    let port = parsed
        .port_or_known_default()
        .ok_or_else(|| format!("--url `{url}` names no port"))?;
    // `[::1]` comes bracketed: the resolver wants the bare address.
    let bare = host.trim_start_matches('[').trim_end_matches(']');
    let addresses: Vec<SocketAddr> = (bare, port)
        .to_socket_addrs()
        .map_err(|e| format!("--url `{url}`: cannot resolve {host}: {e}"))?
        .collect();
    Ok((format!("{host}:{port}"), addresses))
}

/// "exited with status N" or "was ended by signal N".
fn describe(status: ExitStatus) -> String {
    use std::os::unix::process::ExitStatusExt;
    match (status.code(), status.signal()) {
        (Some(code), _) => format!("exited with status {code}"),
        (None, Some(signal)) => format!("was ended by signal {signal}"),
        (None, None) => "ended".to_string(),
    }
}

/// The last lines of the child's stdout and stderr, read on threads of their own (a full pipe
/// would block the server); and why a reader did not start, if one did not (the system
/// starts no more threads).
type Readers = Vec<std::thread::JoinHandle<()>>;

fn kept_output(child: &mut Child) -> (Tail, Readers, Option<std::io::Error>) {
    let tail = Tail::default();
    let mut readers = Vec::new();
    let mut refused = None;
    let pipes = [
        child
            .stdout
            .take()
            .map(|p| Box::new(p) as Box<dyn Read + Send>),
        child
            .stderr
            .take()
            .map(|p| Box::new(p) as Box<dyn Read + Send>),
    ];
    for pipe in pipes.into_iter().flatten() {
        match keep_tail(pipe, &tail) {
            Ok(reader) => readers.push(reader),
            Err(e) => refused = Some(e),
        }
    }
    (tail, readers, refused)
}

/// Reads `from` to its end on a thread of its own, keeping its last lines in `tail`.
fn keep_tail(
    from: impl Read + Send + 'static,
    tail: &Tail,
) -> std::io::Result<std::thread::JoinHandle<()>> {
    let tail = tail.clone();
    std::thread::Builder::new().spawn(move || {
        for line in BufReader::new(from).lines() {
            let Ok(line) = line else { break };
            if let Ok(mut t) = tail.lock() {
                if t.len() == TAIL {
                    t.pop_front();
                }
                t.push_back(line);
            }
        }
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn sh(script: &str) -> Vec<String> {
        ["sh", "-c", script].map(String::from).to_vec()
    }

    /// A command that exits before listening, or never listens, is an error that says so;
    /// a URL that names no port is refused before anything starts.
    #[test]
    fn a_command_that_does_not_listen_is_an_error() {
        let port = std::net::TcpListener::bind("127.0.0.1:0")
            .unwrap()
            .local_addr()
            .unwrap()
            .port();
        let url = format!("http://127.0.0.1:{port}/mcp");
        let short = Duration::from_millis(300);
        let exited = Served::start(&sh("echo bye; exit 3"), &url, Duration::from_secs(5));
        let why = exited.err().unwrap();
        assert!(
            why.contains("exited with status 3 before listening"),
            "{why}"
        );
        assert!(why.contains("bye"), "{why}");
        let silent = Served::start(&sh("sleep 30"), &url, short).err().unwrap();
        assert!(silent.contains("did not listen"), "{silent}");
        let bad = Served::start(&sh("true"), "no url", short).err().unwrap();
        assert!(bad.contains("--url `no url`"), "{bad}");
    }

    /// A port something else holds is not started on: the command's server would not be
    /// the one tested.
    #[test]
    fn a_taken_port_is_an_error() {
        let taken = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
        let port = taken.local_addr().unwrap().port();
        let url = format!("http://127.0.0.1:{port}/mcp");
        let why = Served::start(&sh("true"), &url, Duration::from_secs(1))
            .err()
            .unwrap();
        assert!(why.contains("already listens"), "{why}");
    }
}
