//! A side's monitor and trace on a thread of their own, below the bridge's priority, as
//! `agentpi monitor`'s checker runs below its relay: the loop hands over what crossed once it
//! has written what it makes of it and goes back to the wire at once; on a busy machine the
//! judging takes the CPU the relaying leaves. Nothing is skipped: the session's report waits
//! for every event to be judged (`finish`), and a judge far behind holds the loop back
//! (`BACKLOG`) rather than queueing without bound.

use agentpi_monitor::{Event, Report, Sessions};
use std::fs::File;
use std::io::{BufWriter, Write};
use std::sync::mpsc::{Receiver, SyncSender, sync_channel};
use std::thread::JoinHandle;

/// The judge's niceness: a tenth of the CPU of a thread at the default priority when they
/// compete for a core (`agentpi monitor`'s checker's).
const NICE: i32 = 10;

/// How many batches (what crossed between two writes) may wait for the judge before the
/// loop waits for it.
const BACKLOG: usize = 256;

/// What a judge thread returns: the side's report, and whether its record is incomplete.
type Judged = (Report, bool);

pub struct Judge {
    tx: Option<SyncSender<Vec<Event>>>,
    thread: Option<JoinHandle<Judged>>,
    /// The report once `finish` had it (a second `finish` gets it again).
    judged: Option<Judged>,
}

impl Judge {
    /// A judge of the side `name`, recording to `record` if given.
    pub fn start(name: &str, record: Option<BufWriter<File>>) -> Result<Judge, String> {
        let (tx, rx) = sync_channel(BACKLOG);
        let thread = std::thread::Builder::new()
            .name(format!("judge {name}"))
            .spawn(move || judge(&rx, record))
            .map_err(|e| format!("cannot start a thread to judge the {name} side: {e}"))?;
        Ok(Judge {
            tx: Some(tx),
            thread: Some(thread),
            judged: None,
        })
    }

    /// Events to judge and record, in order, after those given before.
    pub fn send(&mut self, events: Vec<Event>) {
        if events.is_empty() {
            return;
        }
        if let Some(tx) = &self.tx {
            // The thread ends only when told (or when it panicked: `finish` says so).
            let _ = tx.send(events);
        }
    }

    /// Waits until everything sent is judged and recorded; the side's report.
    pub fn finish(&mut self) -> Judged {
        drop(self.tx.take());
        if let Some(thread) = self.thread.take() {
            match thread.join() {
                Ok(judged) => self.judged = Some(judged),
                // A bug of the monitor is the bridge's: it ends as it did on the loop's thread.
                Err(panic) => std::panic::resume_unwind(panic),
            }
        }
        self.judged.clone().expect("a judge that was started")
    }
}

/// The judge's thread: each event recorded, then fed to the side's sessions.
fn judge(rx: &Receiver<Vec<Event>>, mut record: Option<BufWriter<File>>) -> Judged {
    let me = rustix::thread::gettid();
    // Best effort: where the system refuses, the judge runs at the loop's priority.
    let _ = rustix::process::setpriority_process(Some(me), NICE);
    // Both eras' models now, while the bridge starts, not on the first message.
    let _ = agentpi_monitor::model::legacy();
    let _ = agentpi_monitor::model::modern();
    let mut sessions = Sessions::new();
    let mut record_failed = false;
    while let Ok(events) = rx.recv() {
        for event in &events {
            if let Some(file) = record.as_mut() {
                let line = event.to_line() + "\n";
                if file
                    .write_all(line.as_bytes())
                    .and_then(|()| file.flush())
                    .is_err()
                {
                    record_failed = true;
                    record = None;
                }
            }
            let _ = sessions.feed(event);
        }
    }
    (sessions.finish(), record_failed)
}
