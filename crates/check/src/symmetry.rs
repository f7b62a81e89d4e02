//! Symmetry reduction (`--symmetry`): instances started by identical calls (`Client | Client`,
//! `par i in 0..N-1 . Worker`: the same definition with the same arguments, printed
//! `Client#1`, `Client#2`) are interchangeable, so a state is stored as the representative of
//! its orbit under permutations of such instances (docs/semantics.md, *Symmetry reduction*).
//!
//! An instance number is only a name: it is in no label and no value, and every rule treats
//! components of different instances alike. So renaming the instances of one class maps a
//! state's transitions to the renamed state's, label for label: the state space is symmetric,
//! and every property that speaks only of labels and states (deadlocks, assertions, `never`,
//! `reachable`) has the same verdict on the quotient. The representative sorts the instances
//! of each class by what they hold (their components, compared with the instance left out)
//! and numbers them in that order.

use crate::intern::Interner;
use agentpi_semantics::state::reinstanced;
use agentpi_semantics::{Proc, State};

/// The classes of interchangeable instances of one system, each ascending, of at least two.
#[derive(Clone, Debug)]
pub(crate) struct Symmetry {
    classes: Vec<Vec<u32>>,
}

impl Symmetry {
    /// The classes of `instances` (the names `initial_with_instances` gives: calls that print
    /// alike are numbered `#1`, `#2`, ...) whose members start with the same components in
    /// `initial` (key order); `None` when there is none, or when `program` makes fresh names
    /// (`new`): their numbering follows the order of components, instances included, so a
    /// renamed state would have to be renumbered and states of one orbit could not be told
    /// apart by their components alone.
    pub(crate) fn of(
        program: &agentpi_ir::core::Program,
        instances: &[String],
        interner: &mut Interner,
        initial: &[u32],
    ) -> Option<Self> {
        use agentpi_ir::core::Term;
        if program.terms.iter().any(|t| matches!(t, Term::New(..))) {
            return None;
        }
        let mut by_call: Vec<(&str, Vec<u32>)> = Vec::new();
        for (i, name) in instances.iter().enumerate().skip(1) {
            let Some((call, _)) = name.rsplit_once('#') else {
                continue;
            };
            match by_call.iter_mut().find(|(c, _)| *c == call) {
                Some((_, members)) => members.push(i as u32),
                None => by_call.push((call, vec![i as u32])),
            }
        }
        let classes: Vec<Vec<u32>> = by_call
            .into_iter()
            .map(|(_, members)| members)
            .filter(|members| members.len() > 1 && alike(interner, initial, members))
            .collect();
        (!classes.is_empty()).then_some(Symmetry { classes })
    }

    /// The representative of the state with ids `ids` (key order), in key order: in each
    /// class, the instance holding the smallest bag of components takes the smallest number,
    /// and so on. Interns the renamed components it needs.
    pub(crate) fn representative(&self, interner: &mut Interner, ids: &[u32]) -> Vec<u32> {
        let mut out = ids.to_vec();
        for class in &self.classes {
            let mut bags: Vec<(Vec<u32>, u32)> = class
                .iter()
                .map(|&i| (bag(interner, &out, i, class[0]), i))
                .collect();
            bags.sort();
            let moves: Vec<(u32, u32)> = bags
                .iter()
                .map(|(_, i)| *i)
                .zip(class.iter().copied())
                .collect();
            if moves.iter().all(|(from, to)| from == to) {
                continue;
            }
            for id in out.iter_mut() {
                let of = interner.order_key(*id).0;
                if let Some(&(from, to)) = moves.iter().find(|(from, _)| *from == of) {
                    *id = interner.reinstance(*id, from, to);
                }
            }
        }
        interner.key_order(&mut out);
        out
    }

    /// The number of classes.
    pub(crate) fn classes(&self) -> usize {
        self.classes.len()
    }

    /// Whether two states (without fresh names) are in one orbit: the same components outside
    /// the classes, and in each class the same bags (components with the instance left out)
    /// however numbered.
    pub(crate) fn same_orbit(&self, a: &State, b: &State) -> bool {
        a.queues == b.queues && self.shape(a) == self.shape(b)
    }

    /// A state's components with each class's instance left out, grouped per instance and
    /// sorted: equal for states of one orbit.
    fn shape(&self, state: &State) -> Vec<(Option<usize>, Vec<String>)> {
        let class_of = |i: u32| self.classes.iter().position(|c| c.contains(&i));
        let mut groups: Vec<(Option<usize>, u32, Vec<String>)> = Vec::new();
        for proc in state.procs.iter() {
            let instance = instance_of(proc);
            let class = class_of(instance);
            let text = match class {
                Some(_) => format!("{:?}", reinstanced(proc, instance, 0)),
                None => format!("{proc:?}"),
            };
            let key = (class, if class.is_some() { instance } else { u32::MAX });
            match groups.iter_mut().find(|(c, i, _)| (*c, *i) == key) {
                Some((_, _, texts)) => texts.push(text),
                None => groups.push((key.0, key.1, vec![text])),
            }
        }
        let mut out: Vec<(Option<usize>, Vec<String>)> = groups
            .into_iter()
            .map(|(class, _, mut texts)| {
                texts.sort();
                (class, texts)
            })
            .collect();
        out.sort();
        out
    }
}

/// Whether the members of a class start alike: each one's components, renamed to the
/// first's instance, are the first's.
fn alike(interner: &mut Interner, initial: &[u32], members: &[u32]) -> bool {
    let first = bag(interner, initial, members[0], members[0]);
    members[1..]
        .iter()
        .all(|&i| bag(interner, initial, i, members[0]) == first)
}

/// The components of instance `i` in `ids`, renamed to instance `to`, sorted.
fn bag(interner: &mut Interner, ids: &[u32], i: u32, to: u32) -> Vec<u32> {
    let mine: Vec<u32> = ids
        .iter()
        .copied()
        .filter(|&id| interner.order_key(id).0 == i)
        .collect();
    let mut out: Vec<u32> = mine
        .into_iter()
        .map(|id| interner.reinstance(id, i, to))
        .collect();
    out.sort_unstable();
    out
}

/// The instance a component belongs to: its closure's, or a sequence's right side's.
fn instance_of(proc: &Proc) -> u32 {
    match proc {
        Proc::Leaf(c) => c.instance,
        Proc::Seq(_, right) => right.instance,
    }
}
