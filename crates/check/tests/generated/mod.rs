//! The generated programs of the differential suite (seeded, so every run checks the same
//! ones): name passing, replication, sequencing, buffered channels and assertions; also
//! held to the distributed search by `crates/cluster/tests`.

use super::common::Rng;

/// Writes random well-typed processes: `chans` are the channel variables in scope (of type
/// `chan V`), `vals` the value variables (of type `V`).
struct Writer {
    rng: Rng,
    procs: usize,
    next_var: usize,
}

impl Writer {
    fn fresh(&mut self, stem: &str) -> String {
        self.next_var += 1;
        format!("{stem}{}", self.next_var)
    }

    fn pick(&mut self, items: &[String]) -> String {
        items[self.rng.below(items.len())].clone()
    }

    fn value(&mut self, vals: &[String]) -> String {
        match self.rng.below(3) {
            0 if !vals.is_empty() => self.pick(vals),
            k => (k % 2).to_string(),
        }
    }

    fn process(&mut self, depth: u32, chans: &[String], vals: &[String]) -> String {
        if depth == 0 {
            return self.leaf(chans);
        }
        let d = depth - 1;
        match self.rng.below(12) {
            0..=4 => self.prefixed(d, chans, vals),
            5 => {
                let (a, b) = (self.prefixed(d, chans, vals), self.prefixed(d, chans, vals));
                format!("({a} + {b})")
            }
            6 => {
                let (a, b) = (self.process(d, chans, vals), self.process(d, chans, vals));
                format!("(({a}) ; ({b}))")
            }
            7 => {
                let (a, b) = (self.process(d, chans, vals), self.process(d, chans, vals));
                format!("(({a}) | ({b}))")
            }
            8 => self.restricted(d, chans, vals),
            9 => format!("!({})", self.prefixed(d, chans, vals)),
            10 if !vals.is_empty() => {
                let v = self.pick(vals);
                let (a, b) = (self.process(d, chans, vals), self.process(d, chans, vals));
                format!("(if {v} == 0 then ({a}) else ({b}))")
            }
            _ => self.leaf(chans),
        }
    }

    fn leaf(&mut self, chans: &[String]) -> String {
        match self.rng.below(3) {
            0 => "0".to_string(),
            _ => {
                let k = self.rng.below(self.procs);
                format!("P{k}({})", self.pick(chans))
            }
        }
    }

    fn restricted(&mut self, depth: u32, chans: &[String], vals: &[String]) -> String {
        let c = self.fresh("c");
        let buffer = match self.rng.below(4) {
            0 => " buffer 1",
            1 => " lossy buffer 1",
            _ => "",
        };
        let mut inner = chans.to_vec();
        inner.push(c.clone());
        let body = self.process(depth, &inner, vals);
        format!("(new {c}: chan V{buffer} . ({body}))")
    }

    /// A prefix and what follows it, with the variables the prefix binds in scope.
    fn prefixed(&mut self, depth: u32, chans: &[String], vals: &[String]) -> String {
        let (mut chans, mut vals) = (chans.to_vec(), vals.to_vec());
        let prefix = match self.rng.below(10) {
            0 => "e".to_string(),
            1 => "tau".to_string(),
            2 => format!("f({})", self.value(&vals)),
            3 | 4 => format!("{}!{}", self.pick(&chans), self.value(&vals)),
            5 | 6 => {
                let (c, x) = (self.pick(&chans), self.fresh("x"));
                vals.push(x.clone());
                format!("{c}?{x}")
            }
            7 => format!("link!{}", self.pick(&chans)),
            8 => {
                let d = self.fresh("d");
                chans.push(d.clone());
                format!("link?{d}")
            }
            _ if !vals.is_empty() => format!("assert({} == 0)", self.pick(&vals)),
            _ => "tau".to_string(),
        };
        let body = self.process(depth, &chans, &vals);
        format!("{prefix} . ({body})")
    }
}

/// A random program: a few processes over channels of `V`, a system of some of them, and
/// `deadlock free` (the assertions are checked implicitly).
pub fn program(seed: u64) -> String {
    let mut w = Writer {
        rng: Rng(seed.wrapping_mul(0x9E37_79B9_7F4A_7C15) | 1),
        procs: 2 + seed as usize % 3,
        next_var: 0,
    };
    let mut text = String::from("type V = 0..1\nevent e\nevent f(V)\nchan h : V\n");
    text += if w.rng.chance(50) {
        "chan q : V buffer 2\n"
    } else {
        "chan q : V lossy buffer 1\n"
    };
    text += "chan link : chan V\n";
    let globals = vec!["h".to_string(), "q".to_string()];
    for k in 0..w.procs {
        let daemon = if w.rng.chance(30) { "daemon " } else { "" };
        let body = w.process(3, &["c".to_string()], &[]);
        text += &format!("{daemon}proc P{k}(c: chan V) = {body}\n");
    }
    let parts: Vec<String> = (0..1 + w.rng.below(3))
        .map(|_| {
            let k = w.rng.below(w.procs);
            format!("P{k}({})", w.pick(&globals))
        })
        .collect();
    text + &format!("system S = {}\ncheck S: deadlock free\n", parts.join(" | "))
}
