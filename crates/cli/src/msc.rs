//! Text message sequence charts: one column per component, an arrow per communication.

use agentpi_check::Trace;

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

/// [`render_columns`] with row `i` numbered `numbers[i]` (the monitor numbers a trace's
/// messages by their index in it, and its charts must say the same numbers).
pub fn render_numbered(trace: &Trace, first: &[&str], numbers: &[usize]) -> String {
    render_all(trace, first, &[], Some(numbers))
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
    let mut columns: Vec<&str> = first.to_vec();
    let actors = trace.steps.iter().flat_map(|s| s.actors.iter());
    for actor in actors.chain(notes.iter().map(|n| &n.0)) {
        if !columns.contains(&actor.as_str()) {
            columns.push(actor);
        }
    }
    let noted = notes.iter().map(|n| n.1.chars().count() + 6);
    let width = column_width(trace, &columns).max(noted.max().unwrap_or(0));
    let mut out = String::new();
    out.push_str(&format!("{:5}{}\n", "", header(&columns, width)));
    for (i, step) in trace.steps.iter().enumerate() {
        if trace.loop_start == Some(i) {
            out.push_str(&format!("{:5}{}\n", "", "- - loop starts here - -"));
        }
        let cols: Vec<usize> = step
            .actors
            .iter()
            .map(|a| columns.iter().position(|c| c == a).unwrap_or(0))
            .collect();
        let number = numbers.and_then(|n| n.get(i).copied()).unwrap_or(i + 1);
        out.push_str(&format!(
            "{:>4} {}\n",
            number,
            row(&columns, width, &cols, &step.label).trim_end()
        ));
    }
    for (actor, note) in notes {
        let col = columns.iter().position(|c| c == actor).unwrap_or(0);
        let line = row(&columns, width, &[col], note);
        out.push_str(&format!("{:5}{}\n", "", line.trim_end()));
    }
    out
}

fn column_width(trace: &Trace, columns: &[&str]) -> usize {
    let labels = trace.steps.iter().map(|s| s.label.chars().count() + 6);
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
