//! Transition labels and how labels and values print: `c(v1, ..., vn)`, `ev(v)`, `tau`.

use crate::Semantics;
use crate::value::{Chan, Value};
use agentpi_ir::core::EventId;
use std::fmt::Write;

/// What a transition does, as properties and traces see it.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub enum Head {
    Tau,
    /// A communication on this channel (ids in the numbering of the source state).
    Chan(Chan),
    /// A message put into a buffered channel (`c!(v)`).
    Send(Chan),
    /// A message sent into a lossy buffered channel and lost (`c!(v) lost`).
    Lost(Chan),
    /// A message taken from a buffered channel (`c?(v)`).
    Receive(Chan),
    Event(EventId),
}

impl Head {
    /// The channel of a communication, a send or a receive.
    pub fn chan(&self) -> Option<Chan> {
        match self {
            Head::Chan(c) | Head::Send(c) | Head::Lost(c) | Head::Receive(c) => Some(*c),
            Head::Tau | Head::Event(_) => None,
        }
    }
}

#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct Label {
    pub head: Head,
    pub args: Box<[Value]>,
}

impl Label {
    pub fn tau() -> Label {
        Label {
            head: Head::Tau,
            args: Box::default(),
        }
    }

    pub fn is_tau(&self) -> bool {
        self.head == Head::Tau
    }
}

impl Semantics<'_> {
    /// Prints a label, naming channels with `chan_name` (which may add instance numbers).
    pub fn fmt_label(&self, label: &Label, chan_name: &mut dyn FnMut(Chan) -> String) -> String {
        let mut out = match &label.head {
            Head::Tau => return "tau".to_string(),
            Head::Chan(c) => chan_name(*c),
            Head::Send(c) | Head::Lost(c) => format!("{}!", chan_name(*c)),
            Head::Receive(c) => format!("{}?", chan_name(*c)),
            Head::Event(e) => self.program.events[e.0 as usize].name.clone(),
        };
        if !label.args.is_empty() {
            out.push('(');
            self.fmt_list(&mut out, &label.args, chan_name);
            out.push(')');
        }
        if let Head::Lost(_) = label.head {
            out.push_str(" lost");
        }
        out
    }

    /// Prints a label with channels by their plain names.
    pub fn label_text(&self, label: &Label) -> String {
        self.fmt_label(label, &mut |c| self.chan_name(c).to_string())
    }

    pub fn fmt_value(
        &self,
        out: &mut String,
        value: &Value,
        chan_name: &mut dyn FnMut(Chan) -> String,
    ) {
        match value {
            Value::Bool(b) => {
                let _ = write!(out, "{b}");
            }
            Value::Int(i) => {
                let _ = write!(out, "{i}");
            }
            Value::Chan(c) => out.push_str(&chan_name(*c)),
            Value::Ctor(e, i, args) => {
                out.push_str(&self.program.enums[e.0 as usize].ctors[*i as usize].name);
                if !args.is_empty() {
                    out.push('(');
                    self.fmt_list(out, args, chan_name);
                    out.push(')');
                }
            }
            Value::Tuple(items) => {
                out.push('(');
                self.fmt_list(out, items, chan_name);
                out.push(')');
            }
        }
    }

    fn fmt_list(
        &self,
        out: &mut String,
        values: &[Value],
        chan_name: &mut dyn FnMut(Chan) -> String,
    ) {
        for (i, v) in values.iter().enumerate() {
            if i > 0 {
                out.push_str(", ");
            }
            self.fmt_value(out, v, chan_name);
        }
    }

    /// The name a channel was given where it was created.
    pub fn chan_name(&self, chan: Chan) -> &str {
        match chan {
            Chan::Global(id) => &self.program.chans[id.0 as usize].name,
            Chan::Fresh { origin, .. } => self.origin_name(origin),
        }
    }
}
