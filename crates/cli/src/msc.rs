//! Message sequence charts: one column per component, an arrow per communication. [`chart`]
//! lays a trace out as data; [`text`] draws it as text, `agentpi_report_html::svg` as SVG. A
//! message on a buffered channel is one arrow, slanted from the step that sends it to the step
//! that receives it (sends and receives paired first in, first out per channel, as the buffer
//! delivers them); a message lost or still in the buffer at the end stays a box on its sender.

use agentpi_check::Trace;
use agentpi_report_html::{Chart, Message, Row};

const MIN_WIDTH: usize = 14;

/// Draws `trace` as a chart; components are columns in order of first appearance.
pub fn render(trace: &Trace) -> String {
    render_columns(trace, &[])
}

/// Draws `trace` with `first` as the leftmost columns, then the others in order of first
/// appearance (the monitor always puts the client on the left).
pub fn render_columns(trace: &Trace, first: &[&str]) -> String {
    render_all(trace, first, &[], None)
}

/// Draws `trace`, then one unnumbered row per `(component, note)` where the run ends (who
/// waits for what in a deadlock); a component that never moved gets its column there.
pub fn render_with_notes(trace: &Trace, notes: &[(String, String)]) -> String {
    render_all(trace, &[], notes, None)
}

fn render_all(
    trace: &Trace,
    first: &[&str],
    notes: &[(String, String)],
    numbers: Option<&[usize]>,
) -> String {
    text(&chart(trace, first, notes, numbers))
}

/// The chart of `trace` as data, which the text and the SVG are both drawn from (see
/// [`agentpi_report_html::layout`]).
pub use agentpi_check_report::chart::of_trace as chart;

/// The chart as text: a column per lifeline, a line per row.
pub fn text(chart: &Chart) -> String {
    let columns: Vec<&str> = chart.lifelines.iter().map(String::as_str).collect();
    let noted = chart.notes.iter().map(|n| n.text.chars().count() + 6);
    let width = column_width(chart, &columns).max(noted.max().unwrap_or(0));
    let mut lines: Vec<Vec<char>> = chart
        .rows
        .iter()
        .map(|r| match r.message {
            None => row(&columns, width, &[r.from, r.to], &r.label),
            Some(m) => message_end(&columns, width, r, m),
        })
        .collect();
    for (s, r) in chart.rows.iter().enumerate() {
        if let Some(Message::Sent(t)) = r.message {
            slant(&mut lines[s..=t], width, r);
        }
    }
    let mut out = String::new();
    out.push_str(&format!("{:5}{}\n", "", header(&columns, width)));
    for (i, (r, line)) in chart.rows.iter().zip(lines).enumerate() {
        if chart.loop_start == Some(i) {
            out.push_str(&format!("{:5}{}\n", "", "- - loop starts here - -"));
        }
        let line: String = line.into_iter().collect();
        out.push_str(&format!("{:>4} {}\n", r.number, line.trim_end()));
    }
    for n in &chart.notes {
        let line: String = row(&columns, width, &[n.lifeline], &n.text)
            .into_iter()
            .collect();
        out.push_str(&format!("{:5}{}\n", "", line.trim_end()));
    }
    out
}

/// Room between a message's label and the next lifeline for its slant to be seen.
const SLANT: usize = 8;

fn column_width(chart: &Chart, columns: &[&str]) -> usize {
    let room = |r: &Row| match r.message {
        Some(Message::Sent(_)) => SLANT,
        _ => 0,
    };
    let labels = chart
        .rows
        .iter()
        .map(|s| s.label.chars().count() + 6 + room(s));
    let names = columns.iter().map(|c| c.chars().count() + 2);
    labels.chain(names).max().unwrap_or(0).max(MIN_WIDTH)
}

fn header(columns: &[&str], width: usize) -> String {
    columns
        .iter()
        .map(|c| format!("{:<width$}", c))
        .collect::<String>()
        .trim_end()
        .to_string()
}

/// One line: lifelines `|` at each column start, with an arrow or a note on it.
fn row(columns: &[&str], width: usize, cols: &[usize], label: &str) -> Vec<char> {
    let mut line = lifelines(columns, width, label);
    match cols {
        [from, to] if from != to => arrow(&mut line, width, *from, *to, label),
        [at, ..] => note(&mut line, width, *at, label),
        [] => note(&mut line, width, 0, label),
    }
    line
}

/// A line with only the lifelines, long enough for `label` after the last.
fn lifelines(columns: &[&str], width: usize, label: &str) -> Vec<char> {
    let total = columns.len() * width;
    let mut line: Vec<char> = vec![' '; total + label.chars().count() + 4];
    for c in 0..columns.len() {
        line[c * width] = '|';
    }
    line
}

/// Where a message's arrow leaves the row it is sent at: the `.` after (before, leftwards)
/// its label, which starts next to the sender's lifeline as an arrow's label does.
fn departure(width: usize, r: &Row) -> usize {
    let len = r.label.chars().count();
    if r.from < r.to {
        r.from * width + len + 4
    } else {
        r.from * width - len - 4
    }
}

/// A row that is one end of a message: at the send, `--label-.` leaving the sender's lifeline
/// towards the receiver's; at the receive, the arrowhead (the slant between is [`slant`]'s).
fn message_end(columns: &[&str], width: usize, r: &Row, m: Message) -> Vec<char> {
    let mut line = lifelines(columns, width, &r.label);
    let right = r.from < r.to;
    if let Message::Sent(_) = m {
        let dot = departure(width, r);
        let (lo, hi) = if right {
            (r.from * width + 1, dot)
        } else {
            (dot, r.from * width - 1)
        };
        for cell in &mut line[lo..=hi] {
            *cell = '-';
        }
        line[dot] = '.';
        let start = if right { lo + 2 } else { dot + 2 };
        for (i, ch) in r.label.chars().enumerate() {
            line[start + i] = ch;
        }
    } else {
        let head = if right {
            r.to * width - 1
        } else {
            r.to * width + 1
        };
        line[head] = if right { '>' } else { '<' };
    }
    line
}

/// Draws the message sent at `lines[0]` and received at the last of `lines`: a `\` (`/`
/// leftwards) on each row between where the line passes, unless something is drawn there,
/// and the receive's row from where the line arrives to its head.
fn slant(lines: &mut [Vec<char>], width: usize, r: &Row) {
    let k = lines.len() as i64 - 1;
    let dot = departure(width, r) as i64;
    let right = r.from < r.to;
    let (head, dir) = if right {
        ((r.to * width - 1) as i64, 1)
    } else {
        ((r.to * width + 1) as i64, -1)
    };
    let span = (head - dot).abs() - 1;
    let at = |j: i64| (dot + dir * (1 + span * (j - 1) / k.max(1))) as usize;
    for j in 1..k {
        let cell = &mut lines[j as usize][at(j)];
        if *cell == ' ' {
            *cell = if right { '\\' } else { '/' };
        }
    }
    let last = &mut lines[k as usize];
    let (from, to) = (at(k).min(head as usize), at(k).max(head as usize));
    for cell in &mut last[from..=to] {
        *cell = '-';
    }
    last[at(k)] = if right { '`' } else { '\'' };
    last[head as usize] = if right { '>' } else { '<' };
}

fn arrow(line: &mut [char], width: usize, from: usize, to: usize, label: &str) {
    let (lo, hi) = (from.min(to) * width, from.max(to) * width);
    for cell in line.iter_mut().take(hi).skip(lo + 1) {
        *cell = '-';
    }
    if from < to {
        line[hi - 1] = '>';
    } else {
        line[lo + 1] = '<';
    }
    for (i, ch) in label.chars().enumerate() {
        line[lo + 3 + i] = ch;
    }
}

fn note(line: &mut [char], width: usize, at: usize, label: &str) {
    let start = at * width + 2;
    for (i, ch) in format!("[{label}]").chars().enumerate() {
        line[start + i] = ch;
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use agentpi_check::TraceStep;

    fn step(label: &str, actors: &[&str]) -> TraceStep {
        TraceStep {
            label: label.into(),
            actors: actors.iter().map(|a| a.to_string()).collect(),
        }
    }

    #[test]
    fn arrows_point_from_sender_to_receiver() {
        let trace = Trace {
            steps: vec![
                step("call(r, 1)", &["Client", "Server"]),
                step("crash", &["Server"]),
                step("r(ok)", &["Server", "Client"]),
            ],
            loop_start: None,
            states: Vec::new(),
        };
        let chart = render(&trace);
        let expected = "     Client          Server\n   1 |--call(r, 1)-->|\n   2 |               | [crash]\n   3 |<-r(ok)--------|\n";
        assert_eq!(chart, expected);
    }

    #[test]
    fn a_buffered_message_is_one_arrow_paired_first_in_first_out() {
        let trace = Trace {
            steps: vec![
                step("q[0]!(1)", &["A"]),
                step("q[0]!(2)", &["A"]),
                step("q[0]!(3) lost", &["A"]),
                step("q[0]?(1)", &["B"]),
                step("q[0]?(2)", &["B"]),
                step("r!", &["B"]),
            ],
            loop_start: None,
            states: Vec::new(),
        };
        let c = chart(&trace, &[], &[], None);
        let ends: Vec<_> = c.rows.iter().map(|r| (r.from, r.to, r.message)).collect();
        let (sent, got) = (Message::Sent, Message::Received);
        let expected = vec![
            (0, 1, Some(sent(3))),
            (0, 1, Some(sent(4))),
            (0, 0, None),
            (0, 1, Some(got(0))),
            (0, 1, Some(got(1))),
            (1, 1, None),
        ];
        assert_eq!(ends, expected);
    }
}
