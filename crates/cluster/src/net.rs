//! One all-to-all channel on timely dataflow, used in rounds: every worker sends what it
//! has for others (each message to one worker), and the round ends when timely's progress
//! tracking says that no message of it is still on its way (the probe passed its time).
//!
//! A round may be sent in chunks ([`Net::send`], [`Net::flush`]), each its own timely time
//! inside the round's (round `r` spans the times `r << 32` to `(r + 1) << 32`): closing a
//! time is what makes timely ship what it buffers for each worker, so a chunk leaves as soon
//! as it is flushed, and what arrived meanwhile is taken with [`Net::take`] while the round
//! goes on: neither side holds a whole round.
//!
//! Flow control: a worker ships a chunk only when at most [`Flow::credit`] `- 1` of its
//! chunks are not yet confirmed delivered by the frontier (every worker's input passed
//! them and every message before them was taken into its owner's inbox). The chunk times
//! also advance every few sources without a message ([`Net::next`]), so a worker that ships
//! less does not hold the others back: the workers move through a level about in step, and
//! what waits in timely's buffers for a slow (descheduled) worker is at most `credit`
//! chunks of each other worker, whatever the state space's size.

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

/// The bits of a timely time that number the chunks of a round.
const CHUNK_BITS: u32 = 32;

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

/// How successors flow: the bytes a worker batches before it ships them (a chunk), and how
/// many of its chunks may be on their way at once.
#[derive(Clone, Copy, Debug)]
pub struct Flow {
    pub chunk: usize,
    pub credit: u64,
}

impl Default for Flow {
    /// 1 MiB chunks, four on their way: a few MiB a worker in flight, and enough slack that a
    /// worker seldom waits for the others on a machine of its own.
    fn default() -> Flow {
        Flow {
            chunk: 1 << 20,
            credit: 4,
        }
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
    /// The current round, and the chunks of it flushed so far.
    round: u64,
    chunk: u64,
    /// Bytes sent to other workers: of other processes, and of this one (each process runs
    /// `threads` workers).
    pub sent_out: u64,
    pub sent_in: u64,
    threads: usize,
    credit: u64,
    /// The most bytes taken at once (by one [`Net::take`]) since [`Net::most`] was asked:
    /// what sat in this worker's inbox.
    most: u64,
    /// Over the whole run: the most bytes taken at once, and the most chunks of this worker
    /// that the frontier had not yet confirmed delivered when it flushed one more.
    pub most_taken: u64,
    pub most_unconfirmed: u64,
    /// The chunks with successors this worker shipped.
    pub shipped: u64,
}

impl Net {
    pub fn new(worker: &mut Worker, stopped: Arc<AtomicBool>, threads: usize, flow: Flow) -> Net {
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
            round: 0,
            chunk: 0,
            most: 0,
            most_taken: 0,
            most_unconfirmed: 0,
            shipped: 0,
            sent_out: 0,
            sent_in: 0,
            threads: threads.max(1),
            credit: flow.credit.max(1),
        }
    }

    /// Sends `bytes` to worker `to` in this round (shipped at the next [`Net::flush`] or at
    /// the round's end).
    pub fn send(&mut self, to: u32, bytes: Vec<u8>) {
        let process = |w: usize| w / self.threads;
        let to_us = process(to as usize) == process(self.index);
        match (to as usize == self.index, to_us) {
            (true, _) => {}
            (false, true) => self.sent_in += bytes.len() as u64,
            (false, false) => self.sent_out += bytes.len() as u64,
        }
        self.input.send((to, self.round, Bytes(bytes)));
    }

    /// Ends this worker's current chunk of the round with `out` (maybe none): first waits
    /// until fewer than `credit` of its chunks are unconfirmed (taking in, with `into`, what
    /// arrives meanwhile), then sends `out`, moves on to the next chunk (which makes timely
    /// ship it) and takes in what arrived.
    pub fn next(&mut self, worker: &mut Worker, out: Vec<Msg>, into: &mut dyn FnMut(Vec<u8>)) {
        while self.chunk - self.confirmed() >= self.credit {
            worker.step_or_park(Some(std::time::Duration::from_millis(1)));
            self.check_stopped();
            self.take(into);
        }
        self.shipped += u64::from(!out.is_empty());
        for (to, bytes) in out {
            self.send(to, bytes);
        }
        self.chunk += 1;
        assert!(self.chunk < 1 << CHUNK_BITS, "a round of 2^32 chunks");
        self.input.advance_to(self.round << CHUNK_BITS | self.chunk);
        self.poll(worker);
        let unconfirmed = self.chunk - self.confirmed();
        self.most_unconfirmed = self.most_unconfirmed.max(unconfirmed);
        self.take(into);
    }

    /// The chunks of this round that every worker's frontier has passed: each of them was
    /// delivered and taken into its owner's inbox.
    fn confirmed(&self) -> u64 {
        let start = self.round << CHUNK_BITS;
        let least = self.probe.with_frontier(|f| f.iter().min().copied());
        least.map_or(self.chunk, |t| (t.max(start) - start).min(self.chunk))
    }

    /// Lets timely move messages on, without waiting.
    fn poll(&mut self, worker: &mut Worker) {
        worker.step_or_park(Some(std::time::Duration::ZERO));
        self.check_stopped();
    }

    /// The most bytes taken at once since the last call.
    pub fn most(&mut self) -> u64 {
        std::mem::take(&mut self.most)
    }

    /// Hands `into` every message of this round that arrived so far.
    pub fn take(&mut self, into: &mut dyn FnMut(Vec<u8>)) {
        let round = self.round;
        let mut taken = 0;
        let mut inbox = std::mem::take(&mut *self.inbox.borrow_mut());
        let mut later = Vec::new();
        for (to, r, bytes) in inbox.drain(..) {
            match r == round {
                true => {
                    taken += bytes.0.len() as u64;
                    into(bytes.0);
                }
                false => later.push((to, r, bytes)),
            }
        }
        self.inbox.borrow_mut().append(&mut later);
        self.most = self.most.max(taken);
        self.most_taken = self.most_taken.max(taken);
    }

    /// Ends the round: waits until every message of it has arrived, handing each to `into`
    /// as it comes.
    pub fn end(&mut self, worker: &mut Worker, into: &mut dyn FnMut(Vec<u8>)) {
        let next = (self.round + 1) << CHUNK_BITS;
        self.input.advance_to(next);
        while self.probe.less_than(self.input.time()) {
            // Parked, not spinning: the machine is shared, and a round waits on the slowest.
            worker.step_or_park(Some(std::time::Duration::from_millis(20)));
            self.check_stopped();
            self.take(into);
        }
        self.take(into);
        self.round += 1;
        self.chunk = 0;
    }

    fn check_stopped(&self) {
        if self.stopped.load(Ordering::Relaxed) {
            panic!("another worker of this process stopped");
        }
    }

    /// Sends `out` and waits for the round's messages to this worker, in no set order.
    pub fn round(&mut self, worker: &mut Worker, out: Vec<Msg>) -> Vec<Vec<u8>> {
        for (to, bytes) in out {
            self.send(to, bytes);
        }
        let mut got = Vec::new();
        self.end(worker, &mut |bytes| got.push(bytes));
        got
    }

    /// `bytes` to every worker, this one included.
    pub fn to_all(&self, bytes: &[u8]) -> Vec<Msg> {
        (0..self.peers as u32)
            .map(|w| (w, bytes.to_vec()))
            .collect()
    }
}
