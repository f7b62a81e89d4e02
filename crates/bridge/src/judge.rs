//! Both sides' monitors and traces on one thread of their own, below the bridge's priority,
//! as `agentpi monitor`'s checker runs below its relay: the loop hands over what crossed once
//! it has written what it makes of it and goes back to the wire at once; on a busy machine
//! the judging takes the CPU the relaying leaves. One thread for the two sides, so that a
//! hop wakes one thread, not two. Nothing is skipped: a side's report waits for every event
//! of it to be judged (`finish`), and a judge far behind holds the loop back (`BACKLOG`)
//! rather than queueing without bound.

use agentpi_monitor::{Event, Record, Report, Sessions};
use std::fs::File;
use std::sync::mpsc::{Receiver, SyncSender, channel, sync_channel};
use std::sync::{Arc, Mutex, PoisonError};
use std::thread::JoinHandle;

/// How many batches (what crossed a side between two writes) may wait for the judge before
/// the loop waits for it.
const BACKLOG: usize = 256;

/// What the judge returns for a side: its report, and whether its record is incomplete.
pub type Judged = (Report, bool);

/// What a side tells the judge thread.
enum Told {
    /// Events of side `.0` to judge and record, in order, after those given before.
    Events(usize, Vec<Event>),
    /// Side `.0` is over: its report, once everything before is judged.
    Finish(usize, std::sync::mpsc::Sender<Judged>),
}

/// The judge thread, joined by whichever side finds it gone (it panicked).
type Thread = Arc<Mutex<Option<JoinHandle<()>>>>;

/// One side's handle on the judge thread of its pair.
pub struct Judge {
    side: usize,
    tx: Option<SyncSender<Told>>,
    thread: Thread,
    /// The report once `finish` had it (a second `finish` gets it again).
    judged: Option<Judged>,
}

impl Judge {
    /// One judge thread for the two sides `names`, each recording to its `records` entry
    /// if given; a handle for each side, in the order of `names`.
    pub fn pair(names: [&str; 2], records: [Option<File>; 2]) -> Result<[Judge; 2], String> {
        let (tx, rx) = sync_channel(BACKLOG);
        let records = records.map(Record::new);
        let thread = std::thread::Builder::new()
            .name(format!("judge {} {}", names[0], names[1]))
            .spawn(move || judge(&rx, records))
            .map_err(|e| format!("cannot start a thread to judge the bridge's sides: {e}"))?;
        let thread: Thread = Arc::new(Mutex::new(Some(thread)));
        let handle = |side| Judge {
            side,
            tx: Some(tx.clone()),
            thread: thread.clone(),
            judged: None,
        };
        Ok([handle(0), handle(1)])
    }

    /// Events to judge and record, in order, after those given before.
    pub fn send(&mut self, events: Vec<Event>) {
        if events.is_empty() {
            return;
        }
        if let Some(tx) = &self.tx {
            // The thread ends only when both sides are over (or when it panicked: `finish`
            // says so).
            let _ = tx.send(Told::Events(self.side, events));
        }
    }

    /// Waits until everything sent is judged and recorded; the side's report.
    pub fn finish(&mut self) -> Judged {
        if let Some(tx) = self.tx.take() {
            let (reply, report) = channel();
            let _ = tx.send(Told::Finish(self.side, reply));
            match report.recv() {
                Ok(judged) => self.judged = Some(judged),
                Err(_) => self.gone(),
            }
        }
        self.judged.clone().expect("a judge that answered")
    }

    /// The judge thread ended without answering: a bug of the monitor is the bridge's, and
    /// it ends as it would have on the loop's thread.
    fn gone(&self) -> ! {
        let thread = self
            .thread
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .take();
        if let Some(Err(panic)) = thread.map(JoinHandle::join) {
            std::panic::resume_unwind(panic);
        }
        panic!("the bridge's judge thread ended before it judged everything");
    }
}

/// The judge's thread: each event recorded, then fed to its side's sessions; a side's
/// report when it is over. It ends when both are.
fn judge(rx: &Receiver<Told>, mut records: [Record; 2]) {
    agentpi_monitor::record::judge_thread();
    let mut sessions = [Sessions::new(), Sessions::new()];
    let mut over = 0;
    while let Ok(told) = rx.recv() {
        match told {
            Told::Events(side, events) => {
                for event in &events {
                    let _ = records[side].write(event);
                    let _ = sessions[side].feed(event);
                }
            }
            Told::Finish(side, reply) => {
                let failed = records[side].failed();
                // Closed now: a finished side's record is whole when its report is given.
                records[side] = Record::default();
                let _ = reply.send((sessions[side].finish(), failed));
                over += 1;
                if over == 2 {
                    return;
                }
            }
        }
    }
}
