//! Graphviz DOT output, meant for small LTSs that a person will look at.

use crate::lts::Lts;
use std::io::Write;

/// Writes `lts` as a DOT digraph; the initial state is drawn with a double circle.
pub fn write_dot<W: Write>(lts: &Lts, mut out: W) -> std::io::Result<()> {
    writeln!(out, "digraph lts {{")?;
    writeln!(out, "  node [shape=circle];")?;
    writeln!(out, "  {} [shape=doublecircle];", lts.initial())?;
    for (s, l, t) in lts.transitions() {
        writeln!(out, "  {s} -> {t} [label=\"{}\"];", escape(lts.label_name(l)))?;
    }
    writeln!(out, "}}")?;
    out.flush()
}

fn escape(text: &str) -> String {
    text.replace('\\', "\\\\").replace('"', "\\\"")
}
