//! The form of a passive group: its components with their names numbered by first
//! occurrence (the order of `Group::names`), numbered once. Two groups of one form differ only
//! in which names they hold, so what a message does to a window is a function of its groups'
//! forms, of which of their names are bound to which keys, and of the observation: what
//! `quick.rs` remembers a step by, without cutting the window.

use super::names::rename_proc;
use agentpi_semantics::Proc;
use rustc_hash::FxHashMap;
use std::rc::Rc;

/// A group's components with names `0..`, and the form's number (never given out twice in a
/// session: a remembered step names forms by it).
#[derive(Debug)]
pub struct Form {
    pub id: u32,
    pub procs: Box<[Proc]>,
}

/// Forms by their components. Starts over past [`LIMIT`] forms; numbers go on growing.
#[derive(Default)]
pub struct Forms {
    table: FxHashMap<Box<[Proc]>, Rc<Form>>,
    next: u32,
}

/// A session meets few forms (a flood's request groups are all of one).
const LIMIT: usize = 1 << 14;

impl Forms {
    /// The form of `procs`, which hold exactly `names` (in order of first occurrence).
    pub fn of(&mut self, procs: &[Proc], names: &[u32]) -> Rc<Form> {
        let local = |id: u32| names.iter().position(|&n| n == id).unwrap_or(0) as u32;
        let mut normal: Box<[Proc]> = procs.into();
        normal.iter_mut().for_each(|p| rename_proc(p, &local));
        if let Some(found) = self.table.get(&normal) {
            return found.clone();
        }
        if self.table.len() >= LIMIT {
            self.table.clear();
        }
        let form = Rc::new(Form {
            id: self.next,
            procs: normal.clone(),
        });
        self.next += 1;
        self.table.insert(normal, form.clone());
        form
    }
}

impl Form {
    /// Its components holding `names` (name `i` of the form is `names[i]`).
    pub fn with_names(&self, names: &[u32]) -> Vec<Proc> {
        let mut procs = self.procs.to_vec();
        let to = |id: u32| names.get(id as usize).copied().unwrap_or(id);
        procs.iter_mut().for_each(|p| rename_proc(p, &to));
        procs
    }
}
