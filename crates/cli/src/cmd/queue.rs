//! The checker's queue: the relays hand it events and never wait, and it holds at most a
//! budget of bytes rather than a number of batches. A flood of small messages read one at a
//! time (a batch per line) then waits for the checker, which catches up after the burst,
//! instead of being dropped once a thousand batches are queued; the memory held is bounded
//! as before. An event weighs what it occupies once parsed (`footprint`), not its bytes alone:
//! an `http` event has no bytes, but its headers are a few KiB of strings.

use agentpi_monitor::Event;
use agentpi_monitor::footprint;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::mpsc::{Receiver, Sender, channel};

/// A batch of events, or `None`: the session is over.
pub(super) type Batch = Option<Vec<Event>>;

/// What the queue may hold, in bytes of memory: 64 MiB, what 1,024 batches of a 64 KiB read
/// held.
const BUDGET: usize = 64 << 20;

pub(super) struct Queue {
    sender: Sender<Batch>,
    /// The weight of the batches queued and not yet taken by the checker.
    held: AtomicUsize,
}

/// What a batch weighs against the budget.
pub(super) fn weight(batch: &[Event]) -> usize {
    batch.iter().map(footprint::of_event).sum()
}

impl Queue {
    pub(super) fn new() -> (Queue, Receiver<Batch>) {
        let (sender, receiver) = channel();
        let queue = Queue {
            sender,
            held: AtomicUsize::new(0),
        };
        (queue, receiver)
    }

    /// Queues `batch` unless the queue already holds its budget (an empty queue takes a
    /// batch of any weight, so that a very long message is still checked); whether it did.
    /// Never blocks.
    pub(super) fn offer(&self, batch: Vec<Event>) -> bool {
        let w = weight(&batch);
        let before = self.held.fetch_add(w, Ordering::AcqRel);
        if before > 0 && before + w > BUDGET {
            self.held.fetch_sub(w, Ordering::AcqRel);
            return false;
        }
        if self.sender.send(Some(batch)).is_err() {
            self.held.fetch_sub(w, Ordering::AcqRel);
            return false;
        }
        true
    }

    /// The checker took a batch of weight `w` off the queue.
    pub(super) fn taken(&self, w: usize) {
        self.held.fetch_sub(w, Ordering::AcqRel);
    }

    /// Ends the checker's session (after every event queued before).
    pub(super) fn end(&self) {
        let _ = self.sender.send(None);
    }
}
