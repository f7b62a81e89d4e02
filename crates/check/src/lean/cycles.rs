//! Which monitor states can lie on an accepting cycle of the product. A cycle of the product
//! moves its monitor around a cycle of the monitor's own graph (its inside moves, as learnt
//! on the product's edges), with the same pending bits on its edges: so a node whose monitor
//! state is on no cycle of that graph that clears every bit somewhere lies in no accepting
//! component, and the cycle search leaves it out. Under `ltl <> [] p`'s automaton, say, the
//! product's nodes still waiting for `[] p` (about half of them) postpone the eventuality on
//! every edge that stays: the search reads only the others.

/// For each monitor state `0..states`, whether it lies on a cycle of `moves` (edges `from ->
/// to` with their pending bits) in a strongly connected part whose edges clear every bit.
pub(super) fn accepting(states: usize, moves: &[(u32, u32, u64)]) -> Vec<bool> {
    let part = components(states, moves);
    // Per component: the bits pending on all its inner edges, and whether it has one.
    let mut all = vec![u64::MAX; states];
    let mut cyclic = vec![false; states];
    for &(from, to, pending) in moves {
        let p = part[from as usize];
        if p == part[to as usize] {
            all[p as usize] &= pending;
            cyclic[p as usize] = true;
        }
    }
    let ok = |p: u32| cyclic[p as usize] && all[p as usize] == 0;
    part.iter().map(|&p| ok(p)).collect()
}

/// The strongly connected component of each state, by Kosaraju's two searches (the graph is
/// the monitor's: a few states, often; iterative, for the thousands some bindings make).
fn components(states: usize, moves: &[(u32, u32, u64)]) -> Vec<u32> {
    let adjacency = |reverse: bool| {
        let mut out: Vec<Vec<u32>> = vec![Vec::new(); states];
        for &(from, to, _) in moves {
            let (a, b) = if reverse { (to, from) } else { (from, to) };
            out[a as usize].push(b);
        }
        out
    };
    let (forward, backward) = (adjacency(false), adjacency(true));
    // The states in the order their search ends.
    let mut finished = Vec::with_capacity(states);
    let mut seen = vec![false; states];
    for root in 0..states {
        if seen[root] {
            continue;
        }
        seen[root] = true;
        let mut stack = vec![(root, 0usize)];
        while let Some(&mut (v, ref mut i)) = stack.last_mut() {
            match forward[v].get(*i) {
                Some(&w) => {
                    *i += 1;
                    if !seen[w as usize] {
                        seen[w as usize] = true;
                        stack.push((w as usize, 0));
                    }
                }
                None => {
                    finished.push(v);
                    stack.pop();
                }
            }
        }
    }
    let mut part = vec![u32::MAX; states];
    for (p, &root) in finished.iter().rev().enumerate() {
        if part[root] != u32::MAX {
            continue;
        }
        part[root] = p as u32;
        let mut stack = vec![root];
        while let Some(v) = stack.pop() {
            for &w in &backward[v] {
                if part[w as usize] == u32::MAX {
                    part[w as usize] = p as u32;
                    stack.push(w as usize);
                }
            }
        }
    }
    part
}

#[cfg(test)]
mod tests {
    use super::*;

    /// `<> [] p`'s shape: state 0 loops postponing bit 1 and moves to state 1, which loops
    /// clearing it; state 2 and 3 form a cycle that clears nothing; state 4 is on no cycle.
    #[test]
    fn only_cycles_that_clear_every_bit_are_accepting() {
        let moves = [
            (0, 0, 1),
            (0, 1, 0),
            (1, 1, 0),
            (2, 3, 1),
            (3, 2, 1),
            (3, 4, 0),
            (1, 4, 0),
        ];
        let ok = accepting(5, &moves);
        assert_eq!(ok, [false, true, false, false, false]);
        // Another edge of the 2-3 cycle clears the bit: it is accepting.
        let ok = accepting(5, &[moves.as_slice(), &[(2, 3, 0)]].concat());
        assert_eq!(ok, [false, true, true, true, false]);
    }
}
