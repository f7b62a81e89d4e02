//! The loop of a bridge whose two sides are stdio (no `--listen`, no `--upstream`): one
//! thread waits on the client's standard input and the server's standard output at once
//! (`poll`) and steps each line through the direction's process as soon as it reads it, then
//! writes what the process says. No thread hands a line to another: where `run`'s channel
//! loop costs two wake-ups per message (the reader's, then the loop's), this costs one, as
//! `agentpi monitor`'s relay does. The process and both sides' monitors stay on this one
//! thread (they are not `Send`), so everything is stepped in the order it is read.
//!
//! The loop never blocks on a write: a peer that writes without reading (a full pipe both
//! ways) would otherwise deadlock with it, where the channel loop's readers kept draining.
//! So both outputs are non-blocking while it runs, what a peer does not take yet waits in
//! order in its `Outbox`, and the loop goes on reading. Hence it runs only when the client's
//! output is a pipe or socket of its own (`usable`): the non-blocking flag is on the open
//! file, shared with whoever else writes to it (our standard error, the server's).

use crate::engine::{Engine, To};
use crate::run::{self, Client, Server};
use agentpi_monitor::lines::Lines;
use rustix::event::{PollFd, PollFlags, Timespec, poll};
use rustix::fs::{FileType, OFlags, fcntl_getfl, fcntl_setfl, fstat};
use rustix::io::Errno;
use std::io::Write;
use std::os::fd::{AsFd, BorrowedFd};
use std::process::{ChildStdin, ChildStdout};
use std::time::Instant;

/// Whether the loop may run: the standard output is a pipe or a socket, not our standard
/// error's (a `2>&1` would make the server's and our error output non-blocking too).
pub(crate) fn usable() -> bool {
    let (Ok(out), Ok(err)) = (fstat(std::io::stdout()), fstat(std::io::stderr())) else {
        return false;
    };
    let kind = FileType::from_raw_mode(out.st_mode);
    let own = (out.st_dev, out.st_ino) != (err.st_dev, err.st_ino);
    matches!(kind, FileType::Fifo | FileType::Socket) && own
}

/// Bytes for one peer that it has not taken yet, in order.
#[derive(Default)]
struct Outbox {
    bytes: Vec<u8>,
    sent: usize,
}

impl Outbox {
    fn push(&mut self, bytes: &[u8]) {
        self.bytes.extend_from_slice(bytes);
        self.bytes.push(b'\n');
    }

    fn pending(&self) -> bool {
        self.sent < self.bytes.len()
    }

    /// Writes what `fd` takes now; an error other than "it would block" is the peer's end.
    fn flush(&mut self, fd: BorrowedFd) -> Result<(), Errno> {
        while self.pending() {
            match rustix::io::write(fd, &self.bytes[self.sent..]) {
                Ok(n) => self.sent += n,
                Err(Errno::INTR) => {}
                Err(Errno::AGAIN) => return Ok(()),
                Err(e) => return Err(e),
            }
        }
        self.bytes.clear();
        self.sent = 0;
        Ok(())
    }

    /// What is left, to be written blocking once the loop is over.
    fn rest(&self) -> &[u8] {
        &self.bytes[self.sent..]
    }
}

/// Makes an output non-blocking; its flags before, to put back.
fn non_blocking(fd: BorrowedFd) -> Option<OFlags> {
    let flags = fcntl_getfl(fd).ok()?;
    fcntl_setfl(fd, flags | OFlags::NONBLOCK).ok()?;
    Some(flags)
}

fn put_back(fd: BorrowedFd, flags: Option<OFlags>) {
    if let Some(flags) = flags {
        let _ = fcntl_setfl(fd, flags);
    }
}

/// How the loop ended, before the server's input is handed back.
enum End {
    Client,
    Server,
    ClientStopped,
}

/// The state of the loop: the two inputs split into lines, the two outputs' outboxes.
struct Loop {
    from_client: Lines,
    from_server: Lines,
    to_client: Outbox,
    to_server: Outbox,
    /// The server's input, taken from `Server` while the loop runs (`None`: it broke).
    stdin: Option<ChildStdin>,
}

/// The loop: each line to the bridge as it is read, what it writes queued and written as
/// the peer takes it; a due timeout told. Returns the status, as `run`'s channel loop does.
pub(crate) fn pump<E: Engine>(
    bridge: &mut E,
    from_server: &ChildStdout,
    server: &mut Server,
    client: &mut Client,
) -> (u8, Option<String>) {
    let Server::Child { stdin, .. } = server else {
        return run::client_end(bridge, server);
    };
    let mut state = Loop {
        from_client: Lines::default(),
        from_server: Lines::default(),
        to_client: Outbox::default(),
        to_server: Outbox::default(),
        stdin: stdin.take(),
    };
    let stdout = std::io::stdout();
    let client_flags = non_blocking(stdout.as_fd());
    let server_flags = state.stdin.as_ref().and_then(|s| non_blocking(s.as_fd()));
    let end = run_loop(bridge, from_server.as_fd(), &mut state);
    // Blocking again: what is queued is written as the channel loop would have, then the
    // server's input goes back for `run` to close.
    put_back(stdout.as_fd(), client_flags);
    if let Some(input) = &state.stdin {
        put_back(input.as_fd(), server_flags);
    }
    let mut out = stdout.lock();
    let stopped = out
        .write_all(state.to_client.rest())
        .and_then(|()| out.flush())
        .is_err();
    if let Some(mut input) = state.stdin.take() {
        if input.write_all(state.to_server.rest()).is_ok() {
            if let Server::Child { stdin, .. } = server {
                *stdin = Some(input);
            }
        }
    }
    match end {
        End::Server => run::server_end(bridge, server, client),
        End::Client if !stopped => run::client_end(bridge, server),
        End::Client | End::ClientStopped => run::client_stopped(bridge, server),
    }
}

fn run_loop<E: Engine>(bridge: &mut E, from_server: BorrowedFd, state: &mut Loop) -> End {
    let (stdin, stdout) = (std::io::stdin(), std::io::stdout());
    let mut buf = vec![0u8; 16 * 1024];
    loop {
        let to_client = state.to_client.pending().then(|| stdout.as_fd());
        let to_server = state.stdin.as_ref().filter(|_| state.to_server.pending());
        let outputs = [to_client, to_server.map(AsFd::as_fd)];
        let ready = wait([stdin.as_fd(), from_server], outputs, bridge.due());
        if bridge.due().is_some_and(|due| due <= Instant::now()) {
            bridge.tick(Instant::now());
        }
        if let Some(end) = send(bridge, state) {
            return end;
        }
        run::settle(bridge);
        for (fd, from) in [(stdin.as_fd(), To::Client), (from_server, To::Server)] {
            if !ready.contains(&from) {
                continue;
            }
            // Ready: this read does not block. An error ends the stream, as in `run`'s
            // readers.
            let n = rustix::io::read(fd, &mut buf).unwrap_or(0);
            // Out of `state` while its lines are stepped (`send` takes the rest of it).
            let lines = match from {
                To::Client => &mut state.from_client,
                To::Server => &mut state.from_server,
            };
            let mut lines = std::mem::take(lines);
            let mut stopped = None;
            let mut step = |line: &[u8]| {
                if stopped.is_none() && !run::blank(line) {
                    match from {
                        To::Client => bridge.client(line),
                        To::Server => bridge.server(line),
                    }
                    stopped = send(bridge, state);
                }
            };
            match n {
                0 => lines.end(&mut step),
                n => lines.feed(&buf[..n], &mut step),
            }
            match from {
                To::Client => state.from_client = lines,
                To::Server => state.from_server = lines,
            }
            if let Some(end) = stopped {
                return end;
            }
            // Written: now the monitors (off the path of the request, as the monitor's).
            run::settle(bridge);
            if n == 0 {
                return match from {
                    To::Client => End::Client,
                    To::Server => End::Server,
                };
            }
        }
    }
}

/// What the bridge said, queued in order and written as far as each peer takes it now;
/// `ClientStopped` when the client's output broke. A broken server input drops what is
/// queued for it: the server is going, and its end comes on its output.
fn send<E: Engine>(bridge: &mut E, state: &mut Loop) -> Option<End> {
    for written in bridge.take_routed() {
        match written.to {
            To::Client => state.to_client.push(&written.bytes),
            To::Server if state.stdin.is_some() => state.to_server.push(&written.bytes),
            To::Server => {}
        }
    }
    if state.to_client.flush(std::io::stdout().as_fd()).is_err() {
        return Some(End::ClientStopped);
    }
    let broke = state
        .stdin
        .as_ref()
        .is_some_and(|input| state.to_server.flush(input.as_fd()).is_err());
    if broke {
        state.stdin = None;
        state.to_server = Outbox::default();
    }
    None
}

/// Waits until an input can be read (or has ended), an output given (something is queued
/// for it) can be written, or `due` comes; which inputs can be read, the client's first.
fn wait(inputs: [BorrowedFd; 2], outputs: [Option<BorrowedFd>; 2], due: Option<Instant>) -> Vec<To> {
    let mut fds: Vec<PollFd> = inputs
        .iter()
        .map(|fd| PollFd::new(fd, PollFlags::IN))
        .collect();
    for fd in outputs.iter().flatten() {
        fds.push(PollFd::new(fd, PollFlags::OUT));
    }
    let timeout = due.map(|due| {
        let left = due.saturating_duration_since(Instant::now());
        Timespec::try_from(left).unwrap_or(Timespec {
            tv_sec: i64::MAX,
            tv_nsec: 0,
        })
    });
    loop {
        match poll(&mut fds, timeout.as_ref()) {
            Err(Errno::INTR) => continue,
            // Cannot wait (never expected on pipes): read both, which blocks on the first.
            Err(_) => return vec![To::Client, To::Server],
            Ok(_) => break,
        }
    }
    // A hang-up or an error is read too: the read gives the stream's end.
    let mut ready = Vec::new();
    for (fd, from) in fds.iter().zip([To::Client, To::Server]) {
        if !fd.revents().is_empty() {
            ready.push(from);
        }
    }
    ready
}
