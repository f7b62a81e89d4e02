//! Depth-first exploration (`check --search dfs`): the same store, engine and merge as the
//! breadth-first search, on one thread, with a stack of states to expand instead of a
//! frontier. A state is numbered when first reached, and its parent is the state whose
//! expansion reached it, so the parent links still give a real path from the initial state
//! (the way depth-first search went, not a shortest one). What it saves is the frontier's
//! breadth: a violation deep in a wide state space is met after a small part of it, where
//! breadth-first search must store every level above it first.
//!
//! Soundness is the breadth-first search's: a bound stops exploration with the verdicts
//! still open `unknown`, and `holds` needs the stack emptied (every reachable state
//! expanded). Only properties decided while exploring (deadlocks, assertions, `never`,
//! `reachable`) are checked this way: `agentpi check` refuses liveness with `--search dfs`.
//! One thread, one order: the output is the same whatever `--threads` says.

use super::{CHUNK, Run, expand, record};
use crate::engine::{Buffers, Engine};
use crate::explore::Progress;
use crate::graph::End;
use std::mem::take;

impl<'s, 'p> Run<'_, 's, 'p> {
    /// Explores depth first from state 0 until the stack is empty (`None`) or exploration
    /// must end (how).
    pub(super) fn depth_first(
        &mut self,
        engine: &mut Engine<'s, 'p>,
        progress: &Progress,
    ) -> Option<End> {
        // (state, depth): a state is pushed once, when first reached.
        let mut stack: Vec<(u32, u32)> = vec![(0, 0)];
        let mut spare = Buffers::default();
        let mut since = 0;
        while let Some((s, depth)) = stack.pop() {
            let before = self.graph.state_count();
            let expanded = expand(self.sem, engine, &self.graph.store, s, take(&mut spare));
            if let Some(end) = self.merge(engine, s, expanded, true, &mut spare) {
                return Some(end);
            }
            let after = self.graph.state_count();
            if after > before {
                self.graph.max_depth = self.graph.max_depth.max(depth as usize + 1);
            }
            // The first new target is expanded first: the semantics' order, as breadth first.
            stack.extend((before..after).rev().map(|t| (t as u32, depth + 1)));
            since += 1;
            if since == CHUNK {
                // The table of recently stored states only speeds lookups up: kept small.
                self.recent.clear();
                record(progress, &self.graph);
                since = 0;
            }
        }
        None
    }
}
