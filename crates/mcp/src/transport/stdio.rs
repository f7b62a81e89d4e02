//! The stdio transport: the server is a child process; one JSON-RPC message per line on its
//! stdin and stdout. A reader thread turns stdout into lines on a channel, so waits can time
//! out; another drains stderr (a full pipe would block the server) and keeps its tail for error
//! messages. The child is killed when the transport is dropped. Besides the request/response
//! [`Transport`], a client that must see every byte (`agentpi test`) writes raw lines and reads
//! each stdout line as it came, with the time it was read ([`Stdio::write_line`],
//! [`Stdio::read_output`]).

use super::{ClientError, Transport};
use crate::jsonrpc::{self, Incoming};
use serde_json::Value;
use std::collections::VecDeque;
use std::io::{BufRead, BufReader, Read, Write};
use std::process::{Child, ChildStdin, Command, Stdio as Pipe};
use std::sync::mpsc::{self, Receiver, RecvTimeoutError};
use std::sync::{Arc, Mutex};
use std::thread;
use std::time::{Duration, Instant};

/// How many stderr lines to keep for error messages.
const STDERR_TAIL: usize = 12;

enum Line {
    /// A stdout line without its newline, and when it was read.
    Text(Vec<u8>, Instant),
    Eof,
}

/// What the server wrote next (see [`Stdio::read_output`]).
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Output {
    /// One line of stdout, without its newline (nor a `\r` before it), and when it was read.
    Line(Vec<u8>, Instant),
    /// Stdout is closed: the server closed it or exited.
    Closed,
    /// Nothing within the time given.
    Quiet,
}

pub struct Stdio {
    child: Child,
    stdin: Option<ChildStdin>,
    lines: Receiver<Line>,
    stderr: Arc<Mutex<VecDeque<String>>>,
    stderr_done: Receiver<()>,
    noise: Vec<String>,
    closed: bool,
}

impl Stdio {
    /// Starts `program` with `args`, stdin/stdout piped, stderr drained.
    pub fn spawn(program: &str, args: &[String]) -> Result<Stdio, ClientError> {
        let mut child = Command::new(program)
            .args(args)
            .stdin(Pipe::piped())
            .stdout(Pipe::piped())
            .stderr(Pipe::piped())
            .spawn()
            .map_err(|e| ClientError::Spawn {
                command: program.into(),
                reason: e.to_string(),
            })?;
        let stdin = child.stdin.take();
        let (sender, lines) = mpsc::channel();
        let stdout = child.stdout.take().expect("stdout is piped");
        let stderr = Arc::new(Mutex::new(VecDeque::new()));
        let (done, stderr_done) = mpsc::channel();
        let tail = Arc::clone(&stderr);
        let pipe = child.stderr.take().expect("stderr is piped");
        // A thread the system refuses (`ulimit -u`, no memory) is an error, not a panic;
        // the server is stopped, as it would be when the transport is dropped.
        let started = thread::Builder::new()
            .spawn(move || read_lines(stdout, sender))
            .and_then(|_| thread::Builder::new().spawn(move || drain(pipe, tail, done)));
        if let Err(e) = started {
            let _ = child.kill();
            let _ = child.wait();
            return Err(ClientError::Spawn {
                command: program.into(),
                reason: format!("cannot start a thread to read it: {e}"),
            });
        }
        Ok(Stdio {
            child,
            stdin,
            lines,
            stderr,
            stderr_done,
            noise: Vec::new(),
            closed: false,
        })
    }

    /// Writes `bytes` and a newline to the server's stdin as they are (a test client's
    /// malformed frames too); false once the server no longer reads its stdin.
    pub fn write_line(&mut self, bytes: &[u8]) -> bool {
        let Some(stdin) = self.stdin.as_mut() else {
            return false;
        };
        let mut line = bytes.to_vec();
        line.push(b'\n');
        let written = stdin.write_all(&line).and_then(|()| stdin.flush()).is_ok();
        if !written {
            self.stdin = None;
        }
        written
    }

    /// The next line the server wrote on stdout, waiting at most `timeout`.
    pub fn read_output(&mut self, timeout: Duration) -> Output {
        if self.closed {
            return Output::Closed;
        }
        match self.lines.recv_timeout(timeout) {
            Ok(Line::Text(bytes, at)) => Output::Line(bytes, at),
            Ok(Line::Eof) | Err(RecvTimeoutError::Disconnected) => {
                self.closed = true;
                Output::Closed
            }
            Err(RecvTimeoutError::Timeout) => Output::Quiet,
        }
    }

    /// Closes the server's stdin (end of input: how a stdio client ends a session).
    pub fn close_input(&mut self) {
        self.stdin = None;
    }

    /// The server's exit status once it exits, waiting at most `timeout`.
    pub fn exit_within(&mut self, timeout: Duration) -> Option<std::process::ExitStatus> {
        let deadline = Instant::now() + timeout;
        loop {
            match self.child.try_wait() {
                Ok(Some(status)) => return Some(status),
                Ok(None) if Instant::now() < deadline => thread::sleep(Duration::from_millis(5)),
                _ => return None,
            }
        }
    }

    /// Kills the server and returns how it ended.
    pub fn kill(&mut self) -> Option<std::process::ExitStatus> {
        let _ = self.child.kill();
        self.child.wait().ok()
    }

    /// The last lines the server wrote on stderr.
    pub fn stderr_lines(&self) -> Vec<String> {
        self.stderr_tail()
    }

    fn send(&mut self, message: &Value) {
        // A write error means the server is gone; the reader then sees EOF and reports it.
        if let Some(stdin) = self.stdin.as_mut() {
            let line = format!("{message}\n");
            if stdin
                .write_all(line.as_bytes())
                .and_then(|()| stdin.flush())
                .is_err()
            {
                self.stdin = None;
            }
        }
    }

    fn stderr_tail(&self) -> Vec<String> {
        self.stderr
            .lock()
            .map(|tail| tail.iter().cloned().collect())
            .unwrap_or_default()
    }

    /// The exit status once stdout closed, waiting briefly for the process and its stderr.
    fn exit_status(&mut self) -> String {
        let deadline = Instant::now() + Duration::from_secs(2);
        let status = loop {
            match self.child.try_wait() {
                Ok(Some(status)) => break status.to_string(),
                Ok(None) if Instant::now() < deadline => thread::sleep(Duration::from_millis(20)),
                _ => break "still running, stdout closed".to_string(),
            }
        };
        let _ = self.stderr_done.recv_timeout(Duration::from_millis(500));
        status
    }

    /// Handles one stdout line; returns the response if it answers request `id`.
    fn line(&mut self, text: String, id: u64) -> Option<Value> {
        if text.trim().is_empty() {
            return None;
        }
        let Ok(message) = serde_json::from_str::<Value>(&text) else {
            self.noise.push(text);
            return None;
        };
        match jsonrpc::classify(&message) {
            Incoming::Response(got) if jsonrpc::is_id(got, id) => return Some(message),
            Incoming::Request(from) => {
                let reply = jsonrpc::method_not_found(from);
                self.send(&reply);
            }
            Incoming::Other => self.noise.push(text),
            _ => {}
        }
        None
    }
}

impl Transport for Stdio {
    fn request(
        &mut self,
        id: u64,
        method: &str,
        params: Value,
        timeout: Duration,
    ) -> Result<Value, ClientError> {
        self.send(&jsonrpc::request(id, method, params));
        let deadline = Instant::now() + timeout;
        loop {
            if self.closed {
                let status = self.exit_status();
                return Err(ClientError::Exited {
                    method: method.into(),
                    status,
                    stderr: self.stderr_tail(),
                });
            }
            let left = deadline.saturating_duration_since(Instant::now());
            match self.lines.recv_timeout(left) {
                Ok(Line::Text(bytes, _)) => {
                    let text = String::from_utf8_lossy(&bytes).into_owned();
                    if let Some(response) = self.line(text, id) {
                        return Ok(response);
                    }
                }
                Ok(Line::Eof) | Err(RecvTimeoutError::Disconnected) => self.closed = true,
                Err(RecvTimeoutError::Timeout) => {
                    let stderr = self.stderr_tail();
                    return Err(ClientError::Timeout {
                        method: method.into(),
                        id,
                        timeout,
                        stderr,
                        unanswered: Vec::new(),
                    });
                }
            }
        }
    }

    fn notify(&mut self, method: &str, params: Value) -> Result<(), ClientError> {
        self.send(&jsonrpc::notification(method, params));
        Ok(())
    }

    fn noise(&self) -> &[String] {
        &self.noise
    }
}

/// How long a server gets to exit by itself once its stdin is closed.
const GRACE: Duration = Duration::from_millis(300);

impl Drop for Stdio {
    /// Shuts the server down as the specification asks: close its stdin first (so it, and any
    /// process it started, sees EOF), give it a moment, then kill it.
    fn drop(&mut self) {
        self.stdin = None;
        let deadline = Instant::now() + GRACE;
        while Instant::now() < deadline {
            if let Ok(Some(_)) = self.child.try_wait() {
                return;
            }
            thread::sleep(Duration::from_millis(10));
        }
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

fn read_lines(stdout: impl Read, sender: mpsc::Sender<Line>) {
    let mut reader = BufReader::new(stdout);
    let mut buffer = Vec::new();
    loop {
        buffer.clear();
        match reader.read_until(b'\n', &mut buffer) {
            Ok(0) | Err(_) => break,
            Ok(_) => {
                let at = Instant::now();
                let line = buffer.strip_suffix(b"\n").unwrap_or(&buffer);
                let line = line.strip_suffix(b"\r").unwrap_or(line);
                if sender.send(Line::Text(line.to_vec(), at)).is_err() {
                    return;
                }
            }
        }
    }
    let _ = sender.send(Line::Eof);
}

fn drain(stderr: impl Read, tail: Arc<Mutex<VecDeque<String>>>, done: mpsc::Sender<()>) {
    let reader = BufReader::new(stderr);
    for line in reader.split(b'\n').map_while(Result::ok) {
        let text = String::from_utf8_lossy(&line).trim_end().to_string();
        if let Ok(mut tail) = tail.lock() {
            if tail.len() == STDERR_TAIL {
                tail.pop_front();
            }
            tail.push_back(text);
        }
    }
    let _ = done.send(());
}
