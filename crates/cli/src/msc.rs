//! Message sequence charts: one column per component, an arrow per communication. [`chart`]
//! lays a trace out as data; [`text`] draws it as text, `agentpi_report_html::svg` as SVG.

use agentpi_check::Trace;
use agentpi_report_html::{Chart, Note, Row};

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

/// The chart of `trace` as data, which the text and the SVG are both drawn from: lifelines
/// `first` then the others in order of first appearance (a noted component that never moved
/// included), row `i` numbered `numbers[i]` (else `i + 1`), `notes` at the end.
pub fn chart(
    trace: &Trace,
    first: &[&str],
    notes: &[(String, String)],
    numbers: Option<&[usize]>,
) -> Chart {
    let mut columns: Vec<String> = first.iter().map(|c| c.to_string()).collect();
    let actors = trace.steps.iter().flat_map(|s| s.actors.iter());
    for actor in actors.chain(notes.iter().map(|n| &n.0)) {
        if !columns.contains(actor) {
            columns.push(actor.clone());
        }
    }
    let at = |a: &String| columns.iter().position(|c| c == a).unwrap_or(0);
    let rows = trace
        .steps
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
                label: step.label.clone(),
                mark: None,
            }
        })
        .collect();
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
        loop_start: trace.loop_start,
        notes,
        ending: None,
    }
}

/// The chart as text: a column per lifeline, a line per row.
pub fn text(chart: &Chart) -> String {
    let columns: Vec<&str> = chart.lifelines.iter().map(String::as_str).collect();
    let noted = chart.notes.iter().map(|n| n.text.chars().count() + 6);
    let width = column_width(chart, &columns).max(noted.max().unwrap_or(0));
    let mut out = String::new();
    out.push_str(&format!("{:5}{}\n", "", header(&columns, width)));
    for (i, r) in chart.rows.iter().enumerate() {
        if chart.loop_start == Some(i) {
            out.push_str(&format!("{:5}{}\n", "", "- - loop starts here - -"));
        }
        out.push_str(&format!(
            "{:>4} {}\n",
            r.number,
            row(&columns, width, &[r.from, r.to], &r.label).trim_end()
        ));
    }
    for n in &chart.notes {
        let line = row(&columns, width, &[n.lifeline], &n.text);
        out.push_str(&format!("{:5}{}\n", "", line.trim_end()));
    }
    out
}

fn column_width(chart: &Chart, columns: &[&str]) -> usize {
    let labels = chart.rows.iter().map(|s| s.label.chars().count() + 6);
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
fn row(columns: &[&str], width: usize, cols: &[usize], label: &str) -> String {
    let total = columns.len() * width;
    let mut line: Vec<char> = vec![' '; total + label.chars().count() + 4];
    for c in 0..columns.len() {
        line[c * width] = '|';
    }
    match cols {
        [from, to] if from != to => arrow(&mut line, width, *from, *to, label),
        [at, ..] => note(&mut line, width, *at, label),
        [] => note(&mut line, width, 0, label),
    }
    line.into_iter().collect()
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
}
