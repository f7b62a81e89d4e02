//! Both sides' monitors and traces on one thread of their own, below the bridge's priority,
//! as `agentpi monitor`'s checker runs below its relay: the loop hands over what crossed once
//! it has written what it makes of it and goes back to the wire at once; on a busy machine
//! the judging takes the CPU the relaying leaves. One thread for the two sides, and a hop
//! wakes it only when it sleeps: while messages keep coming the judge looks for them every
//! `TICK` on its own (a wake-up a hop put a second thread to run on the other core just
//! when the peer the hop woke needed it), and sleeps until woken once nothing came for
//! `IDLE`. Nothing is skipped: a side's report waits for every event of it to be judged
//! (`finish`), and a judge far behind holds the loop back (`BACKLOG`) rather than queueing
//! without bound.

use agentpi_monitor::{Event, Record, Report, Sessions};
use std::collections::VecDeque;
use std::fs::File;
use std::sync::mpsc::{Sender, channel};
use std::sync::{Arc, Condvar, Mutex, MutexGuard, PoisonError};
use std::thread::JoinHandle;
use std::time::{Duration, Instant};

/// How many batches (what crossed a side between two writes) may wait for the judge before
/// the loop waits for it.
const BACKLOG: usize = 256;
/// How often a judge with messages coming looks for more.
const TICK: Duration = Duration::from_millis(2);
/// How long a judge finds nothing before it sleeps until a hop wakes it.
const IDLE: Duration = Duration::from_millis(50);

/// What the judge returns for a side: its report, and whether its record is incomplete.
pub type Judged = (Report, bool);

/// What a side tells the judge thread.
enum Told {
    /// Events of side `.0` to judge and record, in order, after those given before.
    Events(usize, Vec<Event>),
    /// Side `.0` is over: its report, once everything before is judged.
    Finish(usize, Sender<Judged>),
}

/// What the sides have told the judge and it has not taken yet.
#[derive(Default)]
struct Queue {
    told: VecDeque<Told>,
    /// The judge waits to be woken (it looks on its own otherwise).
    asleep: bool,
    /// The judge thread has ended (it panicked): nothing more is taken.
    gone: bool,
}

/// The queue and its two signals: something to take (for a sleeping judge), and room again
/// (for a side held back).
#[derive(Default)]
struct Shared {
    queue: Mutex<Queue>,
    told: Condvar,
    room: Condvar,
}

impl Shared {
    fn lock(&self) -> MutexGuard<'_, Queue> {
        self.queue.lock().unwrap_or_else(PoisonError::into_inner)
    }
}

/// The judge thread, joined by whichever side finds it gone (it panicked).
type Thread = Arc<Mutex<Option<JoinHandle<()>>>>;

/// One side's handle on the judge thread of its pair.
pub struct Judge {
    side: usize,
    shared: Arc<Shared>,
    thread: Thread,
    /// The report once `finish` had it (a second `finish` gets it again).
    judged: Option<Judged>,
}

impl Judge {
    /// One judge thread for the two sides `names`, each recording to its `records` entry
    /// if given; a handle for each side, in the order of `names`.
    pub fn pair(names: [&str; 2], records: [Option<File>; 2]) -> Result<[Judge; 2], String> {
        let shared = Arc::new(Shared::default());
        let records = records.map(Record::new);
        let theirs = shared.clone();
        let thread = std::thread::Builder::new()
            .name(format!("judge {} {}", names[0], names[1]))
            .spawn(move || judge(&theirs, records))
            .map_err(|e| format!("cannot start a thread to judge the bridge's sides: {e}"))?;
        let thread: Thread = Arc::new(Mutex::new(Some(thread)));
        let handle = |side| Judge {
            side,
            shared: shared.clone(),
            thread: thread.clone(),
            judged: None,
        };
        Ok([handle(0), handle(1)])
    }

    /// Events to judge and record, in order, after those given before.
    pub fn send(&mut self, events: Vec<Event>) {
        if events.is_empty() || self.judged.is_some() {
            return;
        }
        let shared = &*self.shared;
        let mut queue = shared.lock();
        while queue.told.len() >= BACKLOG && !queue.gone {
            queue = (shared.room.wait(queue)).unwrap_or_else(PoisonError::into_inner);
        }
        // A judge gone is told at `finish`.
        if !queue.gone {
            queue.told.push_back(Told::Events(self.side, events));
            wake(&mut queue, shared);
        }
    }

    /// Waits until everything sent is judged and recorded; the side's report.
    pub fn finish(&mut self) -> Judged {
        if let Some(judged) = &self.judged {
            return judged.clone();
        }
        let (reply, report) = channel();
        {
            let shared = &*self.shared;
            let mut queue = shared.lock();
            // A judge gone never answers: the reply is dropped here, or with the queue.
            if !queue.gone {
                queue.told.push_back(Told::Finish(self.side, reply));
                queue.asleep = true;
                wake(&mut queue, shared);
            }
        }
        match report.recv() {
            Ok(judged) => self.judged = Some(judged.clone()),
            Err(_) => self.gone(),
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

/// A judge that sleeps is woken; one that looks on its own is not.
fn wake(queue: &mut Queue, shared: &Shared) {
    if std::mem::take(&mut queue.asleep) {
        shared.told.notify_one();
    }
}

/// Marks the judge gone when its thread ends, also by a panic: what waits in the queue (a
/// `finish`'s reply) is dropped, and a side held back goes on.
struct Ending<'a>(&'a Shared);

impl Drop for Ending<'_> {
    fn drop(&mut self) {
        let mut queue = self.0.lock();
        queue.gone = true;
        queue.told.clear();
        self.0.room.notify_all();
    }
}

/// The judge's thread: each event recorded, then fed to its side's sessions; a side's
/// report when it is over. It ends when both are.
fn judge(shared: &Shared, mut records: [Record; 2]) {
    let _ending = Ending(shared);
    agentpi_monitor::record::judge_thread();
    let mut sessions = [Sessions::new(), Sessions::new()];
    let mut over = 0;
    loop {
        for told in take(shared) {
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
}

/// Everything told so far, once there is something: looked for every `TICK`, or, after
/// `IDLE` with nothing, waited for until a side wakes the judge.
fn take(shared: &Shared) -> Vec<Told> {
    let mut queue = shared.lock();
    let since = Instant::now();
    while queue.told.is_empty() {
        if since.elapsed() < IDLE {
            queue = (shared.told.wait_timeout(queue, TICK))
                .unwrap_or_else(PoisonError::into_inner)
                .0;
        } else {
            queue.asleep = true;
            queue = (shared.told.wait(queue)).unwrap_or_else(PoisonError::into_inner);
        }
    }
    queue.asleep = false;
    let told = queue.told.drain(..).collect();
    shared.room.notify_all();
    told
}
