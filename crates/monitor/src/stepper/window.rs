//! Cutting a window out of an explanation, and putting a window's result back: the window
//! is a canonical state of its own (names numbered from 0), so the replay's rules run on it
//! unchanged; the names it held keep their stable ids through `track`, and names it made get
//! new ones.

use super::closure::{Hyp, Outside};
use super::split::{GroupId, Split};
use agentpi_check::replay::Key;
use agentpi_semantics::state::{canonicalize, for_each_fresh};
use agentpi_semantics::{DEAD, Proc, Semantics};
use rustc_hash::FxHashMap;
use std::rc::Rc;

/// The window of `split` holding its active components and the passive groups `groups` (in
/// that order), with the bindings of its names and the keys bound outside it.
pub fn cut(sem: &Semantics<'_>, split: &Split, groups: &[GroupId]) -> Hyp {
    let mut procs = split.active.clone();
    for &id in groups {
        if let Some(group) = split.rest.group(id) {
            procs.extend(group.procs().iter().cloned());
        }
    }
    // Stable ids to 0.. in order of first occurrence: the table canonicalize renames through
    // is as long as the window's names, not as the session's.
    let mut dense: FxHashMap<u32, u32> = FxHashMap::default();
    let mut stable: Vec<u32> = Vec::new();
    for_each_fresh(&procs, &mut |id| {
        dense.entry(id).or_insert_with(|| {
            stable.push(id);
            stable.len() as u32 - 1
        });
    });
    for proc in &mut procs {
        super::names::rename_proc(proc, &|id| dense[&id]);
    }
    let replicated = |t| sem.is_replication(t);
    let (state, renaming) = canonicalize(procs, Vec::new(), stable.len() as u32, &replicated);
    let by_name = &split.bindings.by_name;
    let mut names: Vec<(Key, u32)> = (stable.iter().enumerate())
        .filter_map(|(d, id)| Some((by_name.get(id)?.clone(), renaming[d])))
        .filter(|&(_, local)| local != DEAD)
        .collect();
    names.sort();
    let track = stable
        .iter()
        .enumerate()
        .filter(|&(d, _)| renaming[d] != DEAD)
        .map(|(d, &id)| (id, renaming[d]))
        .collect();
    let mut window = stable;
    window.sort_unstable();
    let elsewhere = Outside {
        bindings: split.bindings.clone(),
        window,
    };
    Hyp::new(state, names, track, Rc::new(elsewhere))
}

/// The components of a window's result in stable ids, and its bindings: names it held keep
/// their ids, names it made take the next ones of `counter`.
pub fn restore(hyp: &Hyp, counter: &mut u32) -> (Vec<Proc>, Vec<(Key, u32)>) {
    let mut map = vec![DEAD; hyp.state.fresh as usize];
    for &(stable, local) in &hyp.track {
        if let Some(slot) = map.get_mut(local as usize) {
            *slot = stable;
        }
    }
    for slot in map.iter_mut().filter(|s| **s == DEAD) {
        *slot = *counter;
        *counter += 1;
    }
    let to = |id: u32| map.get(id as usize).copied().unwrap_or(id);
    let mut procs = hyp.state.procs.to_vec();
    for proc in &mut procs {
        super::names::rename_proc(proc, &to);
    }
    let names = hyp
        .names
        .iter()
        .map(|(k, id)| (k.clone(), to(*id)))
        .collect();
    (procs, names)
}
