//! A run's steps laid out as a [`Chart`]: a lifeline per actor, a row per step, and each
//! message on a buffered channel paired into one arrow. The CLI's charts (text, SVG, HTML)
//! and the language server's are all laid out here.

use crate::chart::{Chart, Message, Note, Row};
use std::collections::{HashMap, VecDeque};

/// One step of a run: its label and who moved (one actor for an event, sender then receiver
/// for a communication).
pub struct Step<'a> {
    pub label: &'a str,
    pub actors: &'a [String],
}

/// The chart of `steps`: lifelines `first` then the others in order of first appearance (a
/// noted component that never moved included), row `i` numbered `numbers[i]` (else `i + 1`),
/// `notes` at the end, the loop starting at `loop_start`.
pub fn lay_out(
    steps: &[Step<'_>],
    loop_start: Option<usize>,
    first: &[&str],
    notes: &[(String, String)],
    numbers: Option<&[usize]>,
) -> Chart {
    let mut columns: Vec<String> = first.iter().map(|c| c.to_string()).collect();
    let actors = steps.iter().flat_map(|s| s.actors.iter());
    for actor in actors.chain(notes.iter().map(|n| &n.0)) {
        if !columns.contains(actor) {
            columns.push(actor.clone());
        }
    }
    let at = |a: &String| columns.iter().position(|c| c == a).unwrap_or(0);
    let mut rows: Vec<Row> = steps
        .iter()
        .enumerate()
        .map(|(i, step)| {
            let cols: Vec<usize> = step.actors.iter().map(at).collect();
            let (from, to) = match cols.as_slice() {
                [from, to] => (*from, *to),
                [at, ..] => (*at, *at),
                [] => (0, 0),
            };
            Row {
                number: numbers.and_then(|n| n.get(i).copied()).unwrap_or(i + 1),
                from,
                to,
                label: step.label.to_string(),
                mark: None,
                message: None,
            }
        })
        .collect();
    pair_messages(&mut rows);
    let notes = notes
        .iter()
        .map(|(actor, text)| Note {
            lifeline: at(actor),
            text: text.clone(),
        })
        .collect();
    Chart {
        lifelines: columns,
        rows,
        loop_start,
        notes,
        ending: None,
    }
}
/// Whether `label` is a send into a buffered channel (`c!(v)`, not `c!(v) lost`) or a receive
/// from one (`c?(v)`), with the channel's name (an array element's index included).
fn buffered(label: &str) -> Option<(&str, bool)> {
    let mut depth = 0;
    for (i, ch) in label.char_indices() {
        match ch {
            '[' => depth += 1,
            ']' => depth -= 1,
            '!' | '?' if depth == 0 => {
                let rest = &label[i + 1..];
                let whole = rest.is_empty() || (rest.starts_with('(') && rest.ends_with(')'));
                return whole.then_some((&label[..i], ch == '!'));
            }
            '(' | ' ' if depth == 0 => return None,
            _ => {}
        }
    }
    None
}

/// Pairs each receive from a buffered channel with the oldest send into it not yet received
/// (the channel is a FIFO queue) and makes the two rows the ends of one message, drawn from
/// the sender's lifeline to the receiver's.
fn pair_messages(rows: &mut [Row]) {
    let mut queues: HashMap<String, VecDeque<usize>> = HashMap::new();
    for t in 0..rows.len() {
        let Some((chan, send)) = buffered(&rows[t].label) else {
            continue;
        };
        let queue = queues.entry(chan.to_string()).or_default();
        if send {
            queue.push_back(t);
            continue;
        }
        let Some(s) = queue.pop_front() else {
            continue;
        };
        let (from, to) = (rows[s].from, rows[t].from);
        if from != to && rows[s].is_event() && rows[t].is_event() {
            rows[s].to = to;
            rows[s].message = Some(Message::Sent(t));
            (rows[t].from, rows[t].to) = (from, to);
            rows[t].message = Some(Message::Received(s));
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_buffered_channel_is_told_by_its_label() {
        assert_eq!(buffered("link[(1, 2)]?(x)"), Some(("link[(1, 2)]", false)));
        assert_eq!(buffered("c!(1) lost"), None);
        assert_eq!(buffered("call(r!)"), None);
    }
}
