//! `agentpi test --url URL -- CMD ARGS...`: the Streamable HTTP server under test started by
//! agentpi itself. It waits until the URL's host and port accept connections (a bounded
//! wait, cut short when the command exits), and stops the server once the tests are done,
//! however they ended (SIGTERM, then SIGKILL), saying how it exited.

use std::collections::VecDeque;
use std::io::{BufRead, BufReader, Read};
use std::net::{SocketAddr, TcpStream, ToSocketAddrs};
use std::process::{Child, Command, ExitStatus, Stdio};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

/// How long the server has to exit after SIGTERM before it is killed.
const GRACE: Duration = Duration::from_secs(2);
/// How many of its last output lines an error quotes.
const TAIL: usize = 5;

/// The server's last lines of output (stdout and stderr: neither may reach agentpi's stdout,
/// which is the report's).
type Tail = Arc<Mutex<VecDeque<String>>>;

/// A running server command; killed when dropped, if still running.
pub struct Server {
    child: Child,
    tail: Tail,
}

impl Server {
    /// Starts `argv` and waits up to `within` until `url` accepts a connection.
    pub fn start(argv: &[String], url: &str, within: Duration) -> Result<Server, String> {
        let (place, addresses) = addresses(url)?;
        let (program, args) = argv.split_first().ok_or("no server command given")?;
        let mut child = Command::new(program)
            .args(args)
            .stdin(Stdio::null())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .spawn()
            .map_err(|e| format!("cannot start `{program}`: {e}"))?;
        let tail = Tail::default();
        if let Some(out) = child.stdout.take() {
            keep_tail(out, &tail);
        }
        if let Some(err) = child.stderr.take() {
            keep_tail(err, &tail);
        }
        let mut server = Server { child, tail };
        server.await_listening(&place, &addresses, within)?;
        Ok(server)
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
            let probe = Duration::from_millis(200);
            if addresses
                .iter()
                .any(|a| TcpStream::connect_timeout(a, probe).is_ok())
            {
                return Ok(());
            }
            if let Ok(Some(status)) = self.child.try_wait() {
                let how = describe(status);
                return Err(format!(
                    "the server command {how} before listening on {place}{}",
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

    /// Stops the server (SIGTERM, then SIGKILL after a grace); how it ended.
    pub fn stop(&mut self) -> String {
        if let Ok(Some(status)) = self.child.try_wait() {
            return format!("the server command {} during the tests", describe(status));
        }
        let pid = rustix::process::Pid::from_child(&self.child);
        let _ = rustix::process::kill_process(pid, rustix::process::Signal::TERM);
        let deadline = Instant::now() + GRACE;
        while Instant::now() < deadline {
            if let Ok(Some(status)) = self.child.try_wait() {
                return format!("stopped the server command: it {}", describe(status));
            }
            std::thread::sleep(Duration::from_millis(20));
        }
        let _ = self.child.kill();
        match self.child.wait() {
            Ok(status) => format!(
                "stopped the server command: it ignored SIGTERM for {} s and was killed ({})",
                GRACE.as_secs(),
                describe(status)
            ),
            Err(e) => format!("stopped the server command: cannot tell how it ended: {e}"),
        }
    }

    /// The server's last lines of output, for an error, or nothing.
    fn quoted_tail(&self) -> String {
        let lines = self.tail.lock().map(|t| t.clone()).unwrap_or_default();
        if lines.is_empty() {
            return String::new();
        }
        let lines: Vec<String> = lines.into_iter().collect();
        format!("; its last output:\n  {}", lines.join("\n  "))
    }
}

impl Drop for Server {
    fn drop(&mut self) {
        if matches!(self.child.try_wait(), Ok(None)) {
            let _ = self.child.kill();
            let _ = self.child.wait();
        }
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

/// Reads `from` to its end on a thread of its own, keeping its last lines in `tail`.
fn keep_tail(from: impl Read + Send + 'static, tail: &Tail) {
    let tail = tail.clone();
    std::thread::spawn(move || {
        for line in BufReader::new(from).lines() {
            let Ok(line) = line else { break };
            if let Ok(mut t) = tail.lock() {
                if t.len() == TAIL {
                    t.pop_front();
                }
                t.push_back(line);
            }
        }
    });
}
