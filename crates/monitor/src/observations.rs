//! A message's observations made in the buffers of the last message's: a request or a
//! response is observed as one `head(name(args))` (`c2s(req(k, ping, _))`), which held three
//! vectors (the message's list, the label's arguments, the constructor's), each allocated and
//! freed again for every message of a flood. The pool keeps them, emptied, for the next.

use agentpi_check::replay::{Arg, HeadPat, Observation};
use agentpi_ir::core::LabelDir;

/// At most this many observations are kept (a message makes one, an `initialize` a few).
const KEEP: usize = 4;

/// Emptied observations and a list, for the next message.
#[derive(Default)]
pub struct Pool {
    list: Vec<Observation>,
    spare: Vec<Observation>,
}

impl Pool {
    /// An empty list for a message's observations.
    pub fn list(&mut self) -> Vec<Observation> {
        std::mem::take(&mut self.list)
    }

    /// `head(name(args))`: the observation `Observation::new(head, vec![Arg::Ctor(name,
    /// args)])` makes, in a kept observation's buffers when there is one.
    pub fn ctor<const N: usize>(
        &mut self,
        head: &'static str,
        name: &'static str,
        args: [Arg; N],
    ) -> Observation {
        let Some(mut obs) = self.spare.pop() else {
            let args = Vec::from(args);
            return Observation::new(head, vec![Arg::Ctor(name.into(), args)]);
        };
        let mut inner = match obs.args.pop() {
            Some(Arg::Ctor(_, inner)) => inner,
            _ => Vec::new(),
        };
        obs.args.clear();
        inner.clear();
        inner.extend(args);
        obs.args.push(Arg::Ctor(name.into(), inner));
        obs.head = HeadPat::Named(head.into());
        obs.dir = LabelDir::Any;
        obs.lost = false;
        obs
    }

    /// Takes back a message's observations once stepped: their contents (keys among them)
    /// are dropped now, their buffers kept.
    pub fn recycle(&mut self, mut list: Vec<Observation>) {
        for mut obs in list.drain(..) {
            if self.spare.len() >= KEEP {
                break;
            }
            if let [Arg::Ctor(_, inner)] = obs.args.as_mut_slice() {
                inner.clear();
                self.spare.push(obs);
            }
        }
        self.list = list;
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use agentpi_check::replay::Key;

    /// An observation made in kept buffers is the one made afresh, whatever the observation
    /// the buffers held before (more or fewer arguments, another head, a lost send).
    #[test]
    fn a_kept_observation_is_made_as_a_new_one() {
        let key = |k: &str| Arg::Name(Key::from(k));
        let mut pool = Pool::default();
        let mut list = pool.list();
        list.push(pool.ctor("c2s", "req", [key("c2s:1"), Arg::Any, Arg::Bool(true)]));
        list.push(pool.ctor("s2c", "stray_res", []));
        list[1].dir = LabelDir::Send;
        list[1].lost = true;
        // Two arguments: not the shape kept.
        list.push(Observation::new("s2c", vec![Arg::Any, Arg::Int(3)]));
        pool.recycle(list);
        let mut list = pool.list();
        assert!(list.is_empty() && list.capacity() >= 3, "the list is kept");
        assert_eq!(pool.spare.len(), 2, "the two of one constructor are kept");
        for _ in 0..3 {
            let made = pool.ctor("s2c", "res", [key("c2s:7"), Arg::Bool(false)]);
            let fresh = Observation::new(
                "s2c",
                vec![Arg::Ctor(
                    "res".into(),
                    vec![key("c2s:7"), Arg::Bool(false)],
                )],
            );
            assert_eq!(made, fresh);
            list.push(made);
        }
        let made = pool.ctor("c2s", "again", []);
        assert_eq!(
            made,
            Observation::new("c2s", vec![Arg::Ctor("again".into(), vec![])])
        );
        pool.recycle(list);
        assert_eq!(pool.spare.len(), 3, "kept, emptied");
        assert!(pool.spare.iter().all(|o| matches!(o.args.as_slice(),
            [Arg::Ctor(_, inner)] if inner.is_empty())));
    }
}
