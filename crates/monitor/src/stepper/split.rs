//! One explanation held apart: the components that may move between messages (`active`,
//! always in a window) and the *passive* groups (`Rest`: components linked by the names they
//! share, every move of which is visible or an input on a hidden channel), indexed by the
//! heads of the labels they can take part in and the hidden channels they take. Names keep one stable id for the session, so a message touches only the groups
//! it can concern and the explanation is never renumbered or hashed whole.

use super::forms::{Form, Forms};
use super::summary::{ArgKey, Head, OutKey, Summary};
use agentpi_check::replay::Key;
use agentpi_semantics::Proc;
use rustc_hash::FxHashMap;
use std::cell::{Cell, OnceCell};
use std::collections::hash_map::Entry;
use std::rc::Rc;
use std::sync::atomic::{AtomicU64, Ordering};

/// Where every [`Rest::epoch`] is drawn from: no two changes anywhere share a value, so an
/// epoch names one content of what walks read (see `Rest::epoch`).
static EPOCHS: AtomicU64 = AtomicU64::new(1);

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

/// A label offered, by number: its head, the constructor of its first value (if any), and
/// the constructor at a place of that one's payload (see [`Rest::walked`]).
pub type Offer = (Head, Option<Head>, Option<(usize, Head)>);

/// A group's number: never reused in a session (64 bits do not run out).
pub type GroupId = u64;

/// Components linked by shared names, all passive: they stay as they are until a message
/// concerns one of them, or a component of a window outputs on a hidden channel they take.
#[derive(Clone)]
pub struct Group {
    /// Its components, once a window needed them: a step taken in place (`quick.rs`) files
    /// a group by its form and names alone, and most groups leave the explanation by another
    /// step taken in place without ever being in a cut window.
    procs: OnceCell<Vec<Proc>>,
    names: Vec<u32>,
    /// What it is filed under: its component's summary, or theirs merged (its `hidden_ins`,
    /// the hidden channels it takes; none: the group is inert).
    keys: Rc<Summary>,
    /// `procs` with `names` numbered `0..` (see `forms.rs`).
    form: Rc<Form>,
    /// Its place in its class's list of groups ([`Members`]).
    slot: usize,
}

/// The passive groups and their indices. Group ids grow with the session. Groups are filed
/// by what they are filed under (their `keys`, by address: groups of one form share it), and
/// each such class once under every head its summary names: a message that adds or removes
/// a group touches one set of ids, not one per head (a request's group is filed under half a
/// dozen). The sets are hashed; every reader sorts what it takes from them, so that windows
/// are cut the same way every time.
#[derive(Clone, Default)]
pub struct Rest {
    groups: FxHashMap<GroupId, Group>,
    /// The group holding each name.
    owner: FxHashMap<u32, GroupId>,
    /// The groups filed under each summary, by its address.
    classes: FxHashMap<Class, Members>,
    /// Classes taking part in any label of a head.
    ins: FxHashMap<Head, Vec<Class>>,
    /// Classes offering a label of a head whose first value is a constructor (or not).
    outs: FxHashMap<OutKey, Vec<Class>>,
    /// Classes offering a label with a constructor at a position of its first value.
    out_args: FxHashMap<ArgKey, Vec<Class>>,
    /// Classes offering any label of a head.
    out_heads: FxHashMap<Head, Vec<Class>>,
    /// Classes taking a hidden channel.
    hidden: FxHashMap<Head, Vec<Class>>,
    /// Classes that are passive but not inert (that take a hidden channel).
    passive: Vec<Class>,
    next: GroupId,
    /// The name lists of groups dropped, for groups to come ([`Rest::drop_group`]).
    spare_names: Vec<Vec<u32>>,
    /// Drawn afresh (`EPOCHS`) whenever a class is listed or unlisted, or a walked class
    /// (one whose groups a walk of the lists took) gains or loses a group: the groups any
    /// walk finds are the same while it stays (`Stepper::window_of` remembers them by it).
    epoch: Epoch,
}

/// How many name lists of dropped groups [`Rest`] keeps.
const SPARE_NAMES: usize = 16;

/// A [`Rest::epoch`]. A copy draws its own: the original and the copy may then change in
/// classes no walk took without a new epoch, each its own way, so a walk remembered of one
/// under a shared epoch could be taken again on the other, which lacks what it found.
#[derive(Default)]
struct Epoch(u64);

impl Clone for Epoch {
    fn clone(&self) -> Self {
        Epoch(EPOCHS.fetch_add(1, Ordering::Relaxed))
    }
}

/// The groups of one class, and whether a walk took them (then a change of them is a new
/// [`Rest::epoch`]). A class no walk took may change freely: a request's group, found by
/// the name it holds, not by a walk. A list, not a hashed set: each group knows its place in
/// it (`Group::slot`), so a group joins by a push and leaves by a swap with the last (the
/// class of a flood's requests holds every request in flight); the readers sort what they take.
#[derive(Clone, Default)]
struct Members {
    groups: Vec<GroupId>,
    walked: Cell<bool>,
}

/// A summary's address: the class of the groups filed under it (each of them holds it, so
/// no other summary takes the address while one is filed).
type Class = usize;

impl Group {
    /// Its components (with stable ids), made from its form and names when first needed:
    /// the same components (`Form::with_names` of the names `Forms::of` numbered).
    pub fn procs(&self) -> &[Proc] {
        self.procs.get_or_init(|| self.form.with_names(&self.names))
    }

    /// How many components it has.
    pub fn len(&self) -> usize {
        self.form.procs.len()
    }

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
    /// What the walks read, as of now (see the field).
    pub fn epoch(&self) -> u64 {
        self.epoch.0
    }

    fn new_epoch(&mut self) {
        self.epoch = Epoch(EPOCHS.fetch_add(1, Ordering::Relaxed));
    }

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
        self.members(self.ins.get(&head))
    }

    /// The groups taking hidden channel `head`.
    pub fn takers(&self, head: Head) -> impl Iterator<Item = GroupId> + '_ {
        self.members(self.hidden.get(&head))
    }

    /// The groups that are passive but not inert, in no order.
    pub fn passive(&self) -> impl Iterator<Item = GroupId> + '_ {
        self.members(Some(&self.passive))
    }

    /// The classes of the groups that offer a label of `head`, whose first value is
    /// constructor `ctor` when `ctor` is given, with constructor `inner` at position `at` of
    /// its payload when `inner` is given as `(at, inner)`.
    fn offered(
        &self,
        head: Head,
        ctor: Option<Head>,
        inner: Option<(usize, Head)>,
    ) -> Option<&Vec<Class>> {
        match (ctor, inner) {
            (Some(c), Some((at, i))) => self.out_args.get(&(head, c, at, i)),
            (Some(c), None) => self.outs.get(&(head, Some(c))),
            (None, _) => self.out_heads.get(&head),
        }
    }

    /// The groups of `classes` (each class once in a list, and a group in one class: each
    /// group once), in no order.
    fn members<'a>(
        &'a self,
        classes: Option<&'a Vec<Class>>,
    ) -> impl Iterator<Item = GroupId> + 'a {
        self.walk(classes, false)
    }

    /// [`Rest::members`]; with `mark`, each class is marked walked: from then on a change of
    /// its groups is a new epoch, so what the walk found may be remembered by the epoch.
    fn walk<'a>(
        &'a self,
        classes: Option<&'a Vec<Class>>,
        mark: bool,
    ) -> impl Iterator<Item = GroupId> + 'a {
        let groups = move |c: &Class| {
            let members = self.classes.get(c);
            if mark {
                members.iter().for_each(|m| m.walked.set(true));
            }
            members.into_iter().flat_map(|m| &m.groups)
        };
        classes.into_iter().flatten().flat_map(groups).copied()
    }

    /// [`Rest::taking`], the groups offering `offer` (see [`Rest::offered`]) and [`Rest::takers`] of
    /// each of `hidden`, the classes walked marked (see [`Rest::walk`]).
    pub fn walked<'a>(
        &'a self,
        taking: Option<Head>,
        offer: Option<Offer>,
        hidden: &'a [Head],
    ) -> impl Iterator<Item = GroupId> + 'a {
        let taking = taking.and_then(|h| self.ins.get(&h));
        let offering = offer.and_then(|(h, c, i)| self.offered(h, c, i));
        let takers = hidden.iter().filter_map(|h| self.hidden.get(h));
        let lists = [taking, offering].into_iter().flatten().chain(takers);
        lists.flat_map(|list| self.walk(Some(list), true))
    }

    /// Files `procs` (holding `names`, of form `form`) as a new group under `keys` (see
    /// [`Grouping`]); `procs` may be left to be made from the form when a window needs them.
    pub fn insert(
        &mut self,
        procs: Option<Vec<Proc>>,
        names: Vec<u32>,
        keys: Rc<Summary>,
        form: Rc<Form>,
    ) {
        let id = self.next;
        self.next += 1;
        let class = Rc::as_ptr(&keys) as Class;
        let slot = match self.classes.get_mut(&class) {
            Some(members) => {
                members.groups.push(id);
                let slot = members.groups.len() - 1;
                if members.walked.get() {
                    self.new_epoch();
                }
                slot
            }
            None => {
                self.list(class, &keys);
                let groups = vec![id];
                let walked = Cell::new(false);
                self.classes.insert(class, Members { groups, walked });
                0
            }
        };
        for &name in &names {
            self.owner.insert(name, id);
        }
        let group = Group {
            procs: procs.map(OnceCell::from).unwrap_or_default(),
            names,
            keys,
            form,
            slot,
        };
        self.groups.insert(id, group);
    }

    /// Lists a new class under every head its summary `keys` names (once under each).
    fn list(&mut self, class: Class, keys: &Summary) {
        self.new_epoch();
        fn add<K: std::hash::Hash + Eq>(map: &mut FxHashMap<K, Vec<Class>>, key: K, class: Class) {
            let list = map.entry(key).or_default();
            if !list.contains(&class) {
                list.push(class);
            }
        }
        keys.out_args
            .iter()
            .for_each(|&k| add(&mut self.out_args, k, class));
        keys.hidden_ins
            .iter()
            .for_each(|&h| add(&mut self.hidden, h, class));
        if !keys.hidden_ins.is_empty() {
            self.passive.push(class);
        }
        keys.ins.iter().for_each(|&h| add(&mut self.ins, h, class));
        for &key in &keys.outs {
            add(&mut self.outs, key, class);
            add(&mut self.out_heads, key.0, class);
        }
    }

    /// Takes a class no group is filed under any more off every list.
    fn unlist(&mut self, class: Class, keys: &Summary) {
        self.new_epoch();
        fn drop<K: std::hash::Hash + Eq>(
            map: &mut FxHashMap<K, Vec<Class>>,
            key: &K,
            class: Class,
        ) {
            if let Some(list) = map.get_mut(key) {
                list.retain(|&c| c != class);
                if list.is_empty() {
                    map.remove(key);
                }
            }
        }
        keys.out_args
            .iter()
            .for_each(|k| drop(&mut self.out_args, k, class));
        keys.hidden_ins
            .iter()
            .for_each(|h| drop(&mut self.hidden, h, class));
        self.passive.retain(|&c| c != class);
        keys.ins.iter().for_each(|h| drop(&mut self.ins, h, class));
        for key in &keys.outs {
            drop(&mut self.outs, key, class);
            drop(&mut self.out_heads, &key.0, class);
        }
    }

    /// Puts `procs` (holding `names`, of form `form`: one passive component, filed under the
    /// keys group `id` has) in the place of group `id`'s: the indices stay as they are, and
    /// only the names change owner.
    pub fn replace(
        &mut self,
        id: GroupId,
        procs: Option<Vec<Proc>>,
        names: impl IntoIterator<Item = u32>,
        form: Rc<Form>,
    ) {
        let Some(old) = self.groups.get_mut(&id) else {
            return;
        };
        // One probe a name (a ping's sender keeps none of its names: each goes).
        for &name in &old.names {
            if let Entry::Occupied(owned) = self.owner.entry(name)
                && *owned.get() == id
            {
                owned.remove();
            }
        }
        // In the old list's buffer (a request's sender is replaced by every request).
        old.names.clear();
        old.names.extend(names);
        old.procs = procs.map(OnceCell::from).unwrap_or_default();
        old.form = form;
        for &name in &old.names {
            self.owner.insert(name, id);
        }
    }

    /// [`Rest::remove`], keeping the group's list of names for [`Rest::names_buffer`] (a
    /// step taken in place removes a request's group as it files the next one's).
    pub fn drop_group(&mut self, id: GroupId) {
        if let Some(group) = self.remove(id)
            && self.spare_names.len() < SPARE_NAMES
        {
            let mut names = group.names;
            names.clear();
            self.spare_names.push(names);
        }
    }

    /// An empty list for a group's names, one a dropped group left when there is one.
    pub fn names_buffer(&mut self) -> Vec<u32> {
        self.spare_names.pop().unwrap_or_default()
    }

    pub fn remove(&mut self, id: GroupId) -> Option<Group> {
        let group = self.groups.remove(&id)?;
        let class = Rc::as_ptr(&group.keys) as Class;
        if let Some(members) = self.classes.get_mut(&class) {
            debug_assert_eq!(members.groups.get(group.slot), Some(&id), "a group's slot");
            members.groups.swap_remove(group.slot);
            // The last group took its place.
            let moved = members.groups.get(group.slot);
            if let Some(moved) = moved.and_then(|m| self.groups.get_mut(m)) {
                moved.slot = group.slot;
            }
            let walked = members.walked.get();
            if members.groups.is_empty() {
                self.classes.remove(&class);
                self.unlist(class, &group.keys);
            } else if walked {
                self.new_epoch();
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
            rest.insert(Some(group.procs), names, group.keys, form);
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

#[cfg(test)]
mod tests {
    use super::*;

    fn sorted(ids: impl Iterator<Item = GroupId>) -> Vec<GroupId> {
        let mut ids: Vec<GroupId> = ids.collect();
        ids.sort_unstable();
        ids
    }

    /// Groups filed under one summary are found under each of its heads once, while any of
    /// them is filed, and under none once all are gone.
    #[test]
    fn groups_are_found_by_their_summary_s_heads_while_filed() {
        let keys = Rc::new(Summary {
            passive: true,
            hidden_ins: vec![9],
            ins: vec![7],
            // Two outputs of one head: the head lists the class once.
            outs: vec![(7, Some(1)), (7, Some(2))],
            ..Summary::default()
        });
        let form = Rc::new(Form {
            id: 0,
            procs: Box::new([]),
        });
        let mut rest = Rest::default();
        rest.insert(None, vec![1], keys.clone(), form.clone());
        rest.insert(None, vec![2], keys.clone(), form.clone());
        assert_eq!(sorted(rest.taking(7)), [0, 1]);
        assert_eq!(
            sorted(rest.walked(None, Some((7, None, None)), &[])),
            [0, 1]
        );
        assert_eq!(
            sorted(rest.walked(None, Some((7, Some(2), None)), &[])),
            [0, 1]
        );
        rest.remove(0);
        assert_eq!(sorted(rest.taking(7)), [1]);
        assert_eq!(sorted(rest.takers(9)), [1]);
        assert_eq!(sorted(rest.passive()), [1]);
        assert_eq!(rest.owner(2), Some(1));
        rest.remove(1);
        assert_eq!(
            sorted(rest.walked(None, Some((7, None, None)), &[])),
            [] as [GroupId; 0]
        );
        assert!(rest.ins.is_empty() && rest.out_heads.is_empty() && rest.passive.is_empty());
        rest.insert(None, vec![3], keys, form);
        assert_eq!(
            sorted(rest.walked(None, Some((7, Some(1), None)), &[])),
            [2]
        );
    }

    /// A class's groups leave from anywhere in its list (the last takes the place of the one
    /// that left): what is found under its heads is always the groups filed, and each group
    /// keeps the place it has in the list.
    #[test]
    fn a_class_keeps_its_groups_whichever_leave() {
        let keys = Rc::new(Summary {
            passive: true,
            ins: vec![7],
            ..Summary::default()
        });
        let form = Rc::new(Form {
            id: 0,
            procs: Box::new([]),
        });
        let mut rest = Rest::default();
        let mut filed: Vec<GroupId> = Vec::new();
        for round in 0..3u32 {
            for name in 0..6 {
                rest.insert(None, vec![round * 10 + name], keys.clone(), form.clone());
                filed.push(rest.next_id() - 1);
            }
            // From the middle, the front, the back, and the one just moved.
            for at in [2, 0, filed.len() - 1, 1] {
                let id = filed.remove(at.min(filed.len() - 1));
                assert!(rest.remove(id).is_some());
                assert_eq!(sorted(rest.taking(7)), filed, "round {round}");
                let members = &rest.classes[&(Rc::as_ptr(&keys) as Class)].groups;
                for (slot, id) in members.iter().enumerate() {
                    assert_eq!(rest.groups[id].slot, slot, "the place of group {id}");
                }
            }
        }
    }

    /// The epoch stays while what a walk would find does: a class no walk took gains and
    /// loses groups freely, a group replaced in place changes no class; a walked class's new
    /// or lost group, or a class listed or unlisted, is a new epoch, never one seen before.
    #[test]
    fn the_epoch_changes_with_what_walks_find() {
        let keys = |head: Head| {
            Rc::new(Summary {
                passive: true,
                ins: vec![head],
                ..Summary::default()
            })
        };
        let form = Rc::new(Form {
            id: 0,
            procs: Box::new([]),
        });
        let (walked, other) = (keys(7), keys(8));
        let mut rest = Rest::default();
        rest.insert(None, vec![1], walked.clone(), form.clone());
        rest.insert(None, vec![2], other.clone(), form.clone());
        let first = rest.epoch();
        rest.insert(None, vec![3], walked.clone(), form.clone());
        assert_eq!(rest.epoch(), first, "a class no walk took yet");
        assert_eq!(sorted(rest.taking(7)), [0, 2]);
        assert_eq!(sorted(rest.taking(8)), [1]);
        assert_eq!(rest.epoch(), first, "looked at, not walked");
        assert_eq!(sorted(rest.walked(Some(7), None, &[])), [0, 2]);
        rest.insert(None, vec![4], other.clone(), form.clone());
        rest.remove(3);
        rest.replace(0, None, vec![5], form.clone());
        assert_eq!(
            rest.epoch(),
            first,
            "an unwalked class, a group replaced in place"
        );
        let mut seen = vec![first];
        let mut changed = |rest: &Rest, what: &str| {
            assert!(!seen.contains(&rest.epoch()), "{what}");
            seen.push(rest.epoch());
        };
        rest.insert(None, vec![6], walked.clone(), form.clone());
        changed(&rest, "a walked class gained a group");
        rest.remove(2);
        changed(&rest, "a walked class lost a group");
        rest.remove(1);
        changed(&rest, "a class was unlisted");
        let copy = rest.clone();
        changed(&copy, "a copy draws its own");
        rest.insert(None, vec![7], other, form);
        changed(&rest, "a class was listed");
        assert_eq!(sorted(rest.walked(Some(7), None, &[])), [0, 4]);
        assert_eq!(sorted(copy.walked(Some(7), None, &[])), [0, 4]);
    }
}
