//! A trace as it is written (`--record`), shared by the writers of live sessions
//! (`agentpi monitor`, the bridge's judges): each event one line (`Event::to_line`), flushed
//! at once, so that a trace read while the session runs, or left by a crash, ends on a
//! whole event; and the set-up of a thread that judges behind a relay (`judge_thread`).

use crate::trace::Event;
use std::fs::File;
use std::io::{BufWriter, Write};

/// A record being written, or none. A write that fails ends it: what follows is not
/// written (a record with a hole would mislead `trace check`), and `failed` says so.
#[derive(Default)]
pub struct Record {
    file: Option<BufWriter<File>>,
    failed: bool,
}

impl Record {
    pub fn new(file: Option<File>) -> Record {
        Record {
            file: file.map(BufWriter::new),
            failed: false,
        }
    }

    /// Writes `event` as a line, flushed. The error of the write that ended the record
    /// (once: later events are dropped quietly).
    pub fn write(&mut self, event: &Event) -> std::io::Result<()> {
        let Some(file) = self.file.as_mut() else {
            return Ok(());
        };
        let line = event.to_line() + "\n";
        let written = file.write_all(line.as_bytes()).and_then(|()| file.flush());
        if written.is_err() {
            self.file = None;
            self.failed = true;
        }
        written
    }

    /// Whether a write failed, so that the record is incomplete.
    pub fn failed(&self) -> bool {
        self.failed
    }
}

/// The niceness of a thread that judges what a relay passed on: a tenth of the CPU of a
/// thread at the default priority when they compete for a core, so that the traffic does
/// not wait for the checks.
const JUDGE_NICE: i32 = 10;

/// Sets up the calling thread to judge behind a relay: below the relay's priority (best
/// effort: where the system refuses, it runs at the relay's), with both eras' models
/// loaded now, while the server starts, rather than on the first message.
pub fn judge_thread() {
    let me = rustix::thread::gettid();
    let _ = rustix::process::setpriority_process(Some(me), JUDGE_NICE);
    let _ = crate::model::legacy();
    let _ = crate::model::modern();
}
