//! States and the search's messages as bytes, for timely to carry between processes: the
//! state's own structure, word by word (no serde in `agentpi-semantics`), each 32-bit word
//! as a LEB128 varint (most are small: tags, term ids, lengths; a state takes about a
//! quarter of the bytes it took in whole words).

use agentpi_ir::core::{ChanId, EnumId, TermId};
use agentpi_semantics::{Chan, Closure, Proc, Queue, State, Value};
use std::sync::Arc;

/// Appends words to a message.
#[derive(Default)]
pub struct Out(pub Vec<u8>);

impl Out {
    /// A varint: seven bits a byte, the high bit set on every byte but the last.
    pub fn u32(&mut self, mut w: u32) {
        while w >= 0x80 {
            self.0.push(w as u8 | 0x80);
            w >>= 7;
        }
        self.0.push(w as u8);
    }

    pub fn u64(&mut self, w: u64) {
        self.0.extend_from_slice(&w.to_le_bytes());
    }

    pub fn state(&mut self, s: &State) {
        self.u32(s.procs.len() as u32);
        s.procs.iter().for_each(|p| self.proc(p));
        self.u32(s.queues.len() as u32);
        for q in s.queues.iter() {
            self.chan(q.chan);
            self.u32(q.messages.len() as u32);
            q.messages.iter().for_each(|m| self.values(m));
        }
        self.u32(s.fresh);
    }

    fn proc(&mut self, p: &Proc) {
        match p {
            Proc::Leaf(c) => {
                self.u32(0);
                self.closure(c);
            }
            Proc::Seq(ps, c) => {
                self.u32(1);
                self.u32(ps.len() as u32);
                ps.iter().for_each(|p| self.proc(p));
                self.closure(c);
            }
        }
    }

    fn closure(&mut self, c: &Closure) {
        self.u32(c.term.0);
        self.values(&c.env);
        self.u32(c.instance);
    }

    fn values(&mut self, vs: &[Value]) {
        self.u32(vs.len() as u32);
        vs.iter().for_each(|v| self.value(v));
    }

    fn value(&mut self, v: &Value) {
        match v {
            Value::Bool(b) => {
                self.u32(0);
                self.u32(u32::from(*b));
            }
            Value::Int(i) => {
                self.u32(1);
                self.u64(*i as u64);
            }
            Value::Chan(c) => {
                self.u32(2);
                self.chan(*c);
            }
            Value::Ctor(e, k, vs) => {
                self.u32(3);
                self.u32(e.0);
                self.u32(*k);
                self.values(vs);
            }
            Value::Tuple(vs) => {
                self.u32(4);
                self.values(vs);
            }
        }
    }

    fn chan(&mut self, c: Chan) {
        match c {
            Chan::Global(id) => {
                self.u32(0);
                self.u32(id.0);
            }
            Chan::Fresh { id, origin } => {
                self.u32(1);
                self.u32(id);
                self.u32(origin);
            }
        }
    }
}

/// The worker that owns the state encoded as `bytes`, among `peers`: by xxh3 of the
/// encoding, the same on every process (and the encoding is already at hand: no second walk
/// over the state to hash it).
pub fn owner(bytes: &[u8], peers: usize) -> usize {
    (xxhash_rust::xxh3::xxh3_64(bytes) % peers as u64) as usize
}

/// Reads a message back; a malformed one (another version's) is an error, not a panic.
pub struct In<'b> {
    bytes: &'b [u8],
}

pub type Bad = &'static str;

impl<'b> In<'b> {
    pub fn new(bytes: &'b [u8]) -> Self {
        In { bytes }
    }

    pub fn is_empty(&self) -> bool {
        self.bytes.is_empty()
    }

    pub fn u32(&mut self) -> Result<u32, Bad> {
        let mut w = 0u32;
        for shift in (0..35).step_by(7) {
            let (&b, rest) = self.bytes.split_first().ok_or("a message cut short")?;
            self.bytes = rest;
            let bits = u32::from(b & 0x7f);
            if shift == 28 && bits > 0x0f {
                return Err("a word past 32 bits");
            }
            w |= bits << shift;
            if b & 0x80 == 0 {
                return Ok(w);
            }
        }
        Err("a word past 32 bits")
    }

    pub fn u64(&mut self) -> Result<u64, Bad> {
        let (w, rest) = self
            .bytes
            .split_first_chunk::<8>()
            .ok_or("a message cut short")?;
        self.bytes = rest;
        Ok(u64::from_le_bytes(*w))
    }

    fn len(&mut self) -> Result<usize, Bad> {
        let n = self.u32()? as usize;
        // Every item takes at least a byte: a longer length is a malformed message.
        match n <= self.bytes.len() {
            true => Ok(n),
            false => Err("a length past the message's end"),
        }
    }

    pub fn state(&mut self) -> Result<State, Bad> {
        let n = self.len()?;
        let procs = (0..n).map(|_| self.proc()).collect::<Result<_, _>>()?;
        let n = self.len()?;
        let queues = (0..n)
            .map(|_| {
                let chan = self.chan()?;
                let m = self.len()?;
                let messages = (0..m).map(|_| self.values()).collect::<Result<_, _>>()?;
                Ok(Queue { chan, messages })
            })
            .collect::<Result<_, Bad>>()?;
        let fresh = self.u32()?;
        Ok(State {
            procs,
            queues,
            fresh,
        })
    }

    fn proc(&mut self) -> Result<Proc, Bad> {
        match self.u32()? {
            0 => Ok(Proc::Leaf(Arc::new(self.closure()?))),
            1 => {
                let n = self.len()?;
                let ps = (0..n).map(|_| self.proc()).collect::<Result<_, _>>()?;
                Ok(Proc::Seq(ps, Arc::new(self.closure()?)))
            }
            _ => Err("an unknown component"),
        }
    }

    fn closure(&mut self) -> Result<Closure, Bad> {
        let term = TermId(self.u32()?);
        let env = self.values()?;
        let instance = self.u32()?;
        Ok(Closure {
            term,
            env,
            instance,
        })
    }

    fn values(&mut self) -> Result<Box<[Value]>, Bad> {
        let n = self.len()?;
        (0..n).map(|_| self.value()).collect()
    }

    fn value(&mut self) -> Result<Value, Bad> {
        Ok(match self.u32()? {
            0 => Value::Bool(self.u32()? != 0),
            1 => Value::Int(self.u64()? as i64),
            2 => Value::Chan(self.chan()?),
            3 => Value::Ctor(EnumId(self.u32()?), self.u32()?, self.values()?),
            4 => Value::Tuple(self.values()?),
            _ => return Err("an unknown value"),
        })
    }

    fn chan(&mut self) -> Result<Chan, Bad> {
        Ok(match self.u32()? {
            0 => Chan::Global(ChanId(self.u32()?)),
            1 => Chan::Fresh {
                id: self.u32()?,
                origin: self.u32()?,
            },
            _ => return Err("an unknown channel"),
        })
    }
}

/// A message this build cannot read: another version of agentpi on a process of the
/// cluster. The worker stops; the others see it gone.
pub fn malformed(why: &str) -> ! {
    panic!(
        "a malformed message from another process of the cluster ({why}): is every process the same agentpi?"
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn words_read_back_and_malformed_ones_are_errors() {
        let words = [0, 1, 127, 128, 16_383, 16_384, 1 << 28, u32::MAX];
        let mut out = Out::default();
        words.iter().for_each(|&w| out.u32(w));
        let mut r = In::new(&out.0);
        let back: Vec<u32> = words.iter().map(|_| r.u32().unwrap()).collect();
        assert_eq!(back, words);
        assert!(r.is_empty());
        // (bytes, what reading a word says)
        let bad: &[(&[u8], Bad)] = &[
            (&[], "a message cut short"),
            (&[0x80], "a message cut short"),
            (&[0xff, 0xff, 0xff, 0xff, 0x1f], "a word past 32 bits"),
            (&[0x80, 0x80, 0x80, 0x80, 0x80, 0x01], "a word past 32 bits"),
        ];
        for (bytes, says) in bad {
            assert_eq!(In::new(bytes).u32(), Err(*says), "{bytes:?}");
        }
    }
}
