//! A message sequence chart as data: lifelines, numbered rows (an arrow between two
//! lifelines or an event on one), where a lasso's loop starts, and how the run ends. A message
//! on a buffered channel is one arrow from the row that sends it to the row that receives it,
//! slanted across the rows in between ([`Message`]). The text chart (`crates/cli/src/msc.rs`) and the SVG are both drawn from this.

/// A chart; `rows` in order, `loop_start` the index of the row the loop starts at.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Chart {
    pub lifelines: Vec<String>,
    pub rows: Vec<Row>,
    pub loop_start: Option<usize>,
    /// Unnumbered rows after the last one: who waits for what where the run ends.
    pub notes: Vec<Note>,
    pub ending: Option<Ending>,
}

/// One numbered row: an arrow `from` → `to`, or an event on `from` when they are equal.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Row {
    pub number: usize,
    pub from: usize,
    pub to: usize,
    pub label: String,
    /// A finding at this row (`C3 MUST: ...`), drawn highlighted.
    pub mark: Option<String>,
    /// The row is one end of an asynchronous message (then `from` is its sender's lifeline
    /// and `to` its receiver's at both ends).
    pub message: Option<Message>,
}

/// The end of a message, sent into a buffer at one row and taken out at a later one, that a
/// row is.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Message {
    /// Sent here, received at row index `.0`: the arrow starts here, with the label.
    Sent(usize),
    /// Received here, sent at row index `.0`: the arrow ends here.
    Received(usize),
}

/// An unnumbered note on a lifeline.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Note {
    pub lifeline: usize,
    pub text: String,
}

/// How the run shown ends, when that is part of the verdict.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Ending {
    /// No step possible and not a valid end.
    Deadlock,
    /// A fault (a failed assertion, ...): what it says.
    Fault(String),
    /// Anything else the report says of the end (`compare`: what the other side cannot do).
    Said(String),
}

impl Row {
    /// Whether the row is an event on one lifeline rather than an arrow.
    pub fn is_event(&self) -> bool {
        self.from == self.to
    }
}

impl Ending {
    /// The words drawn at the end of the chart.
    pub fn text(&self) -> String {
        match self {
            Ending::Deadlock => "deadlock: no step is possible".to_string(),
            Ending::Fault(why) => format!("fault: {why}"),
            Ending::Said(what) => what.clone(),
        }
    }
}
