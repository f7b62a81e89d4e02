//! A stdio peer's input as the bridge writes to it (the client's standard output, the
//! server's standard input), from whichever thread stepped the message. A message the pipe
//! has room for is written at once, on that thread: no other thread is woken on a request's
//! path (on Linux, where the pipe's size and fill can be asked; elsewhere every write is). One it has no room for is queued for the outlet's own thread, which writes it when
//! the peer reads, so that a thread that reads a side never waits for a peer that does not
//! read: a client that writes all its requests before it reads an answer, more than both
//! pipes hold, would otherwise stop the bridge reading it, and both would wait for ever.

use std::collections::VecDeque;
use std::fs::File;
use std::io::Write;
use std::os::fd::OwnedFd;
use std::sync::{Arc, Condvar, Mutex, MutexGuard, PoisonError};
use std::time::{Duration, Instant};

/// Room a pipe keeps beyond what it holds: it fills by pages, a page partly read or partly
/// written counting whole.
const SLACK: usize = 2 * 4096;

pub struct Outlet {
    shared: Arc<Shared>,
}

struct Shared {
    file: File,
    /// The pipe's size in bytes; `None` for what is not a pipe (a file, a terminal), where a
    /// write is taken as never waiting for a reader.
    capacity: Option<usize>,
    state: Mutex<State>,
    /// Told when a message is queued, when the outlet's thread has written one, and at the end.
    changed: Condvar,
}

#[derive(Default)]
struct State {
    queued: VecDeque<Vec<u8>>,
    /// The outlet's thread is writing a message it took off the queue.
    writing: bool,
    /// A write failed: the peer stopped reading (nothing more is written).
    failed: bool,
    /// Nothing more will be queued: the thread ends once the queue is written.
    closed: bool,
}

impl Outlet {
    /// An outlet writing to `fd`; `gone` is called (on the outlet's thread) when a queued
    /// message cannot be written.
    pub fn new(fd: OwnedFd, gone: impl FnOnce() + Send + 'static) -> Result<Outlet, String> {
        let capacity = pipe_size(&fd);
        let shared = Arc::new(Shared {
            file: File::from(fd),
            capacity,
            state: Mutex::default(),
            changed: Condvar::new(),
        });
        let writer = shared.clone();
        std::thread::Builder::new()
            .spawn(move || writer.write_queued(gone))
            .map_err(|e| format!("cannot start a thread to write to a side: {e}"))?;
        Ok(Outlet { shared })
    }

    /// Writes `bytes` (one whole message), or queues it; false once the peer stopped
    /// reading.
    pub fn write(&self, bytes: Vec<u8>) -> bool {
        let shared = &*self.shared;
        let mut state = shared.lock();
        if state.failed {
            return false;
        }
        let idle = state.queued.is_empty() && !state.writing;
        if idle && shared.room(bytes.len()) {
            // Under the lock, the outlet's thread idle: the order of the messages holds.
            if (&shared.file).write_all(&bytes).is_err() {
                state.failed = true;
                return false;
            }
            return true;
        }
        state.queued.push_back(bytes);
        shared.changed.notify_all();
        true
    }

    /// No more messages: waits until those queued are written (or the peer failed), for at
    /// most `limit` if given. The outlet's thread then ends, and the file is closed once the
    /// outlet is dropped.
    pub fn close(&self, limit: Option<Duration>) {
        let shared = &*self.shared;
        let since = Instant::now();
        let mut state = shared.lock();
        state.closed = true;
        shared.changed.notify_all();
        while !state.failed && (state.writing || !state.queued.is_empty()) {
            let wait = match limit {
                None => Duration::from_secs(1),
                Some(limit) if since.elapsed() < limit => limit - since.elapsed(),
                Some(_) => return,
            };
            state = (shared.changed.wait_timeout(state, wait))
                .unwrap_or_else(PoisonError::into_inner)
                .0;
        }
    }
}

impl Drop for Outlet {
    fn drop(&mut self) {
        let mut state = self.shared.lock();
        state.closed = true;
        self.shared.changed.notify_all();
    }
}

impl Shared {
    fn lock(&self) -> MutexGuard<'_, State> {
        self.state.lock().unwrap_or_else(PoisonError::into_inner)
    }

    /// Whether a write of `len` bytes would not wait for the reader: the pipe holds few
    /// enough bytes (`FIONREAD`, one system call). An error says yes: the write then tells
    /// what is wrong.
    fn room(&self, len: usize) -> bool {
        let Some(capacity) = self.capacity else {
            return true;
        };
        match rustix::io::ioctl_fionread(&self.file) {
            Ok(held) => usize::try_from(held).is_ok_and(|held| held + len + SLACK <= capacity),
            Err(_) => true,
        }
    }

    /// The outlet's thread: each queued message written, in order, waiting for the peer
    /// to read; `gone` once a write fails.
    fn write_queued(&self, gone: impl FnOnce()) {
        let mut state = self.lock();
        loop {
            let Some(bytes) = state.queued.pop_front() else {
                if state.closed || state.failed {
                    return;
                }
                state = (self.changed.wait(state)).unwrap_or_else(PoisonError::into_inner);
                continue;
            };
            state.writing = true;
            drop(state);
            let written = (&self.file).write_all(&bytes);
            state = self.lock();
            state.writing = false;
            self.changed.notify_all();
            if written.is_err() {
                state.failed = true;
                state.queued.clear();
                drop(state);
                gone();
                return;
            }
        }
    }
}

/// The size of the pipe `fd` is, if it is one.
fn pipe_size(fd: &OwnedFd) -> Option<usize> {
    #[cfg(target_os = "linux")]
    let size = rustix::pipe::fcntl_getpipe_size(fd).ok();
    #[cfg(not(target_os = "linux"))]
    let size = {
        let _ = fd;
        None
    };
    size
}
