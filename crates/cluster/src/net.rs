//! One all-to-all channel on timely dataflow, used in rounds: every worker sends what it
//! has for others (each message to one worker), and the round ends when timely's progress
//! tracking says that no message of it is still on its way (the probe passed its time).

use std::cell::RefCell;
use std::rc::Rc;
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};
use timely::container::CapacityContainerBuilder;
use timely::dataflow::channels::pact::Exchange;
use timely::dataflow::operators::generic::operator::Operator;
use timely::dataflow::operators::{Input, Probe};
use timely::dataflow::{InputHandle, ProbeHandle};
use timely::worker::Worker;

/// A message: the worker it goes to, and its bytes (see [`crate::codec`]).
pub type Msg = (u32, Vec<u8>);

/// A message with its round: a faster worker may send the next round's before this one has
/// taken this round's.
type Sent = (u32, u64, Bytes);

/// A message's bytes, serialized as one block: serde's own `Vec<u8>` goes byte by byte,
/// which made (de)serializing most of a process's work.
#[derive(Clone)]
pub struct Bytes(Vec<u8>);

impl serde::Serialize for Bytes {
    fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        s.serialize_bytes(&self.0)
    }
}

impl<'de> serde::Deserialize<'de> for Bytes {
    fn deserialize<D: serde::Deserializer<'de>>(d: D) -> Result<Bytes, D::Error> {
        d.deserialize_byte_buf(BytesVisitor)
    }
}

struct BytesVisitor;

impl serde::de::Visitor<'_> for BytesVisitor {
    type Value = Bytes;

    fn expecting(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("bytes")
    }

    fn visit_byte_buf<E>(self, v: Vec<u8>) -> Result<Bytes, E> {
        Ok(Bytes(v))
    }

    fn visit_bytes<E>(self, v: &[u8]) -> Result<Bytes, E> {
        Ok(Bytes(v.to_vec()))
    }
}

pub struct Net {
    input: InputHandle<u64, CapacityContainerBuilder<Vec<Sent>>>,
    probe: ProbeHandle<u64>,
    inbox: Rc<RefCell<Vec<Sent>>>,
    /// This worker's index among all, and how many there are.
    pub index: usize,
    pub peers: usize,
    /// Set when a worker of this process stopped (it panicked): the others stop too,
    /// instead of waiting for its messages forever.
    stopped: Arc<AtomicBool>,
}

impl Net {
    pub fn new(worker: &mut Worker, stopped: Arc<AtomicBool>) -> Net {
        let mut input = InputHandle::new();
        let probe = ProbeHandle::new();
        let inbox: Rc<RefCell<Vec<Sent>>> = Rc::default();
        let sink = inbox.clone();
        worker.dataflow::<u64, _, _>(|scope| {
            scope
                .input_from(&mut input)
                .container::<Vec<Sent>>()
                // Taken, not copied, into the inbox; the probe after it passes a round once
                // every message of the round is in.
                .unary::<CapacityContainerBuilder<Vec<()>>, _, _, _>(
                    Exchange::new(|m: &Sent| u64::from(m.0)),
                    "Inbox",
                    move |_, _| {
                        move |input, _output| {
                            input.for_each(|_, data| sink.borrow_mut().append(data));
                        }
                    },
                )
                .probe_with(&probe);
        });
        Net {
            input,
            probe,
            inbox,
            index: worker.index(),
            peers: worker.peers(),
            stopped,
        }
    }

    /// Sends `out` and waits for the round's messages to this worker, in no set order.
    pub fn round(&mut self, worker: &mut Worker, out: Vec<Msg>) -> Vec<Vec<u8>> {
        let round = *self.input.time();
        for (to, bytes) in out {
            self.input.send((to, round, Bytes(bytes)));
        }
        let next = round + 1;
        self.input.advance_to(next);
        while self.probe.less_than(self.input.time()) {
            // Parked, not spinning: the machine is shared, and a round waits on the slowest.
            worker.step_or_park(Some(std::time::Duration::from_millis(20)));
            if self.stopped.load(Ordering::Relaxed) {
                panic!("another worker of this process stopped");
            }
        }
        let mut inbox = self.inbox.borrow_mut();
        let (this, later): (Vec<Sent>, Vec<Sent>) = inbox.drain(..).partition(|m| m.1 == round);
        *inbox = later;
        this.into_iter().map(|(_, _, b)| b.0).collect()
    }

    /// `bytes` to every worker, this one included.
    pub fn to_all(&self, bytes: &[u8]) -> Vec<Msg> {
        (0..self.peers as u32)
            .map(|w| (w, bytes.to_vec()))
            .collect()
    }
}
