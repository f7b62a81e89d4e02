//! One explanation held apart: the components that may move between messages (`active`,
//! always in a window) and the *passive* groups (`Rest`: components linked by the names they
//! share, every move of which is visible or an input on a hidden channel), indexed by the
//! heads of the labels they can take part in and the hidden channels they take. Names keep one stable id for the session, so a message touches only the groups
//! it can concern and the explanation is never renumbered or hashed whole.

use super::forms::{Form, Forms};
use super::summary::{ArgKey, Head, OutKey, Summary};
use agentpi_check::replay::Key;
use agentpi_semantics::Proc;
use rustc_hash::{FxHashMap, FxHashSet};
use std::rc::Rc;

/// An explanation: its components and the keys bound to its names (stable ids).
#[derive(Clone, Default)]
pub struct Split {
    pub active: Vec<Proc>,
    pub rest: Rc<Rest>,
    pub bindings: Rc<Bindings>,
}

/// Keys and the names bound to them, both ways (a key is bound to one name, a name to one
/// key: only a name bound to no key is bound).
#[derive(Clone, Debug, Default)]
pub struct Bindings {
    pub by_key: FxHashMap<Key, u32>,
    pub by_name: FxHashMap<u32, Key>,
}

impl Bindings {
    pub fn bind(&mut self, key: Key, name: u32) {
        self.by_name.insert(name, key.clone());
        self.by_key.insert(key, name);
    }

    pub fn unbind(&mut self, name: u32) {
        if let Some(key) = self.by_name.remove(&name) {
            self.by_key.remove(&key);
        }
    }
}

/// A group's number: never reused in a session (64 bits do not run out).
pub type GroupId = u64;

/// Components linked by shared names, all passive: they stay as they are until a message
/// concerns one of them, or a component of a window outputs on a hidden channel they take.
#[derive(Clone)]
pub struct Group {
    pub procs: Vec<Proc>,
    names: Vec<u32>,
    /// What it is filed under: its component's summary, or theirs merged (its `hidden_ins`,
    /// the hidden channels it takes; none: the group is inert).
    keys: Rc<Summary>,
    /// `procs` with `names` numbered `0..` (see `forms.rs`).
    form: Rc<Form>,
}

/// The passive groups and their indices. Group ids grow with the session. The sets of ids
/// are hashed (a flood files thousands of groups under one key, and a message adds or removes
/// one): every reader sorts what it takes from them, so that windows are cut the same way
/// every time.
#[derive(Clone, Default)]
pub struct Rest {
    groups: FxHashMap<GroupId, Group>,
    /// The group holding each name.
    owner: FxHashMap<u32, GroupId>,
    /// Groups taking part in any label of a head.
    ins: FxHashMap<Head, FxHashSet<GroupId>>,
    /// Groups offering a label of a head whose first value is a constructor (or not).
    outs: FxHashMap<OutKey, FxHashSet<GroupId>>,
    /// Groups offering a label with a constructor at a position of its first value.
    out_args: FxHashMap<ArgKey, FxHashSet<GroupId>>,
    /// Groups offering any label of a head.
    out_heads: FxHashMap<Head, FxHashSet<GroupId>>,
    /// Groups taking a hidden channel.
    hidden: FxHashMap<Head, FxHashSet<GroupId>>,
    /// Groups that are passive but not inert.
    passive: FxHashSet<GroupId>,
    next: GroupId,
}

impl Group {
    /// The names it holds (stable ids).
    pub fn names(&self) -> &[u32] {
        &self.names
    }

    /// What it is filed under.
    pub fn keys(&self) -> &Rc<Summary> {
        &self.keys
    }

    /// Its components up to their names.
    pub fn form(&self) -> &Rc<Form> {
        &self.form
    }
}

impl Rest {
    /// Every group id, in order.
    pub fn ids(&self) -> Vec<GroupId> {
        let mut ids: Vec<GroupId> = self.groups.keys().copied().collect();
        ids.sort_unstable();
        ids
    }

    /// The groups that take part in a label with `group`'s outputs (their inputs), with it.
    pub fn partners(&self, id: GroupId) -> Vec<GroupId> {
        let mut out = vec![id];
        if let Some(group) = self.groups.get(&id) {
            let heads = group.keys.outs.iter().map(|(head, _)| head);
            heads.for_each(|&head| out.extend(self.taking(head)));
        }
        out.sort_unstable();
        out.dedup();
        out
    }

    /// How many groups were made (ids given out): the id the next one gets.
    pub fn next_id(&self) -> GroupId {
        self.next
    }

    pub fn group(&self, id: GroupId) -> Option<&Group> {
        self.groups.get(&id)
    }

    pub fn owner(&self, name: u32) -> Option<GroupId> {
        self.owner.get(&name).copied()
    }

    pub fn taking(&self, head: Head) -> impl Iterator<Item = GroupId> + '_ {
        self.ins.get(&head).into_iter().flatten().copied()
    }

    /// The groups taking hidden channel `head`.
    pub fn takers(&self, head: Head) -> impl Iterator<Item = GroupId> + '_ {
        self.hidden.get(&head).into_iter().flatten().copied()
    }

    /// The groups that are passive but not inert, in no order.
    pub fn passive(&self) -> impl Iterator<Item = GroupId> + '_ {
        self.passive.iter().copied()
    }

    /// Groups that offer a label of `head`, whose first value is constructor `ctor` when
    /// `ctor` is given, with constructor `inner` at position `at` of its payload when `inner`
    /// is given as `(at, inner)`.
    pub fn offering(
        &self,
        head: Head,
        ctor: Option<Head>,
        inner: Option<(usize, Head)>,
    ) -> impl Iterator<Item = GroupId> + '_ {
        let set = match (ctor, inner) {
            (Some(c), Some((at, i))) => self.out_args.get(&(head, c, at, i)),
            (Some(c), None) => self.outs.get(&(head, Some(c))),
            (None, _) => self.out_heads.get(&head),
        };
        set.into_iter().flatten().copied()
    }

    /// Files `procs` (holding `names`, of form `form`) as a new group under `keys` (see
    /// [`Grouping`]).
    pub fn insert(&mut self, procs: Vec<Proc>, names: Vec<u32>, keys: Rc<Summary>, form: Rc<Form>) {
        let id = self.next;
        self.next += 1;
        for &key in &keys.out_args {
            self.out_args.entry(key).or_default().insert(id);
        }
        for &head in &keys.hidden_ins {
            self.hidden.entry(head).or_default().insert(id);
        }
        if !keys.hidden_ins.is_empty() {
            self.passive.insert(id);
        }
        for &head in &keys.ins {
            self.ins.entry(head).or_default().insert(id);
        }
        for &key in &keys.outs {
            self.outs.entry(key).or_default().insert(id);
            self.out_heads.entry(key.0).or_default().insert(id);
        }
        for &name in &names {
            self.owner.insert(name, id);
        }
        let group = Group {
            procs,
            names,
            keys,
            form,
        };
        self.groups.insert(id, group);
    }

    /// Puts `procs` (holding `names`, of form `form`: one passive component, filed under the
    /// keys group `id` has) in the place of group `id`'s: the indices stay as they are, and
    /// only the names change owner.
    pub fn replace(&mut self, id: GroupId, procs: Vec<Proc>, names: Vec<u32>, form: Rc<Form>) {
        let Some(old) = self.groups.get_mut(&id) else {
            return;
        };
        for name in &old.names {
            if self.owner.get(name) == Some(&id) {
                self.owner.remove(name);
            }
        }
        old.names = names;
        old.procs = procs;
        old.form = form;
        for &name in &old.names {
            self.owner.insert(name, id);
        }
    }

    pub fn remove(&mut self, id: GroupId) -> Option<Group> {
        let group = self.groups.remove(&id)?;
        let unlist = |map: &mut FxHashMap<Head, FxHashSet<GroupId>>, head: &Head| {
            if let Some(set) = map.get_mut(head) {
                set.remove(&id);
                if set.is_empty() {
                    map.remove(head);
                }
            }
        };
        let keys = &group.keys;
        for head in &keys.ins {
            unlist(&mut self.ins, head);
        }
        for head in &keys.hidden_ins {
            unlist(&mut self.hidden, head);
        }
        self.passive.remove(&id);
        for key in &keys.outs {
            if let Some(set) = self.outs.get_mut(key) {
                set.remove(&id);
                if set.is_empty() {
                    self.outs.remove(key);
                }
            }
            unlist(&mut self.out_heads, &key.0);
        }
        for key in &keys.out_args {
            if let Some(set) = self.out_args.get_mut(key) {
                set.remove(&id);
                if set.is_empty() {
                    self.out_args.remove(key);
                }
            }
        }
        for name in &group.names {
            self.owner.remove(name);
        }
        Some(group)
    }
}

/// Sorts `procs` (a window's result, with stable ids, each with its summary) into `active`
/// and new passive groups of `rest`: components sharing a name are one group, passive when
/// each of its components is.
pub fn regroup(
    procs: Vec<(Proc, Rc<Summary>)>,
    active: &mut Vec<Proc>,
    rest: &mut Rest,
    forms: &mut Forms,
) {
    file(plan(procs), active, rest, forms);
}

/// Components of a window's result that share names (one group of `Rest`, or active ones).
pub struct NewGroup {
    pub procs: Vec<Proc>,
    /// What it is filed under: its component's summary, or theirs merged.
    pub keys: Rc<Summary>,
    /// Passive, and no two of its components equal (twins are opened in the window).
    pub passive: bool,
}

/// How a window's result falls into groups, by the positions of its components: a function
/// of the result's state alone (a renaming that keeps names apart links the same components,
/// keeps twins twins and each component's summary), so a remembered step keeps it.
pub struct Grouping {
    groups: Vec<Planned>,
}

/// One group of a [`Grouping`].
struct Planned {
    members: Vec<usize>,
    keys: Rc<Summary>,
    passive: bool,
}

/// The groups of `procs` (see [`regroup`]), in order of their first components.
pub fn plan(procs: Vec<(Proc, Rc<Summary>)>) -> Vec<NewGroup> {
    let (procs, summaries): (Vec<Proc>, Vec<Rc<Summary>>) = procs.into_iter().unzip();
    let grouping = grouping(&procs, &summaries);
    let left = vec![false; procs.len()];
    apply(&grouping, procs, &left)
}

/// The groups of `procs` (each with its summary `summaries[i]`), in order of their first
/// components.
pub fn grouping(procs: &[Proc], summaries: &[Rc<Summary>]) -> Grouping {
    let linked = link(procs);
    let mut groups: Vec<Vec<usize>> = Vec::new();
    // Roots are indices of `procs`: a slot per index, in order of first appearance.
    let mut slot = vec![usize::MAX; linked.len()];
    for (i, &root) in linked.iter().enumerate() {
        if slot[root] == usize::MAX {
            slot[root] = groups.len();
            groups.push(Vec::new());
        }
        groups[slot[root]].push(i);
    }
    let planned = |members: Vec<usize>| {
        let found: Vec<Rc<Summary>> = members.iter().map(|&i| summaries[i].clone()).collect();
        // Two equal components side by side are opened as twins: kept in the window.
        let twins =
            (1..members.len()).any(|i| members[..i].iter().any(|&j| procs[j] == procs[members[i]]));
        let passive = found.iter().all(|s| s.passive) && !twins;
        let keys = match found.as_slice() {
            [one] => one.clone(),
            _ => Rc::new(Summary::merge(&found)),
        };
        Planned {
            members,
            keys,
            passive,
        }
    };
    Grouping {
        groups: groups.into_iter().map(planned).collect(),
    }
}

/// The groups of `procs` as `grouping` (of a state `procs` is a renaming of) has them,
/// without the components marked in `left` (left in place: each is a group of its own, one
/// holding no name another component holds).
pub fn apply(grouping: &Grouping, procs: Vec<Proc>, left: &[bool]) -> Vec<NewGroup> {
    let mut procs: Vec<Option<Proc>> = procs.into_iter().map(Some).collect();
    let mut out = Vec::with_capacity(grouping.groups.len());
    for group in &grouping.groups {
        let members = group.members.iter().filter(|&&i| !left[i]);
        let taken: Vec<Proc> = members.filter_map(|&i| procs[i].take()).collect();
        if taken.is_empty() {
            continue;
        }
        debug_assert_eq!(
            taken.len(),
            group.members.len(),
            "only a lone group is left"
        );
        out.push(NewGroup {
            procs: taken,
            keys: group.keys.clone(),
            passive: group.passive,
        });
    }
    out
}

/// Files `groups`: the passive ones as new groups of `rest`, the others into `active`.
pub fn file(groups: Vec<NewGroup>, active: &mut Vec<Proc>, rest: &mut Rest, forms: &mut Forms) {
    for group in groups {
        if group.passive {
            let names = super::names::names_of(&group.procs);
            let form = forms.of(&group.procs, &names);
            rest.insert(group.procs, names, group.keys, form);
        } else {
            active.extend(group.procs);
        }
    }
}

/// For each component, a representative of its group (components linked by shared names).
fn link(procs: &[Proc]) -> Vec<usize> {
    let mut parent: Vec<usize> = (0..procs.len()).collect();
    fn root(parent: &mut [usize], mut i: usize) -> usize {
        while parent[i] != i {
            parent[i] = parent[parent[i]];
            i = parent[i];
        }
        i
    }
    let mut holder: FxHashMap<u32, usize> = FxHashMap::default();
    for (i, proc) in procs.iter().enumerate() {
        agentpi_semantics::state::for_each_fresh(std::slice::from_ref(proc), &mut |id| {
            let first = *holder.entry(id).or_insert(i);
            let (a, b) = (root(&mut parent, first), root(&mut parent, i));
            parent[a.max(b)] = a.min(b);
        });
    }
    (0..procs.len()).map(|i| root(&mut parent, i)).collect()
}
