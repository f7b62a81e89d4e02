//! A check's trace as a chart: its steps laid out (`agentpi_report_html::layout`), ending in
//! the deadlock (with a note per waiting instance) or the fault it reached.

use agentpi_check::{CheckResult, Trace};
use agentpi_diagnostics::SourceMap;
use agentpi_report_html::layout::{Step, lay_out};
use agentpi_report_html::{Chart, Ending};

/// The chart of `trace` as data, which the text and the SVG are both drawn from: `first` the
/// leftmost columns, `notes` one unnumbered row per `(component, note)` at the end, `numbers`
/// the rows' numbers when not 1, 2, ...
pub fn of_trace(
    trace: &Trace,
    first: &[&str],
    notes: &[(String, String)],
    numbers: Option<&[usize]>,
) -> Chart {
    let steps: Vec<Step<'_>> = trace
        .steps
        .iter()
        .map(|s| Step {
            label: &s.label,
            actors: &s.actors,
        })
        .collect();
    lay_out(&steps, trace.loop_start, first, notes, numbers)
}

/// The chart of a result's trace, with who is stuck where, ending in its deadlock or fault
/// (positions told with `sources`); none without a trace.
pub fn of_result(sources: &SourceMap, result: &CheckResult) -> Option<Chart> {
    let trace = result.trace.as_ref()?;
    let notes = crate::stuck::chart_notes(&result.blocked);
    let mut chart = of_trace(trace, &[], &notes, None);
    chart.ending = match &result.fault {
        Some(f) => Some(Ending::Fault(format!(
            "{}: {}",
            sources.position(f.span),
            f.kind
        ))),
        None if result.stuck => Some(Ending::Deadlock),
        None => None,
    };
    Some(chart)
}
