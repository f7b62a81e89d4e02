//! The Aldebaran `.aut` format: a streaming reader (one chunk of the file in memory at a time)
//! and a writer.
//!
//! ```text
//! des (INITIAL, NUM_TRANSITIONS, NUM_STATES)
//! (FROM, "label", TO)
//! (FROM, label, TO)
//! ```
//! The labels `i` and `tau` both denote the silent action.

use crate::aut_fast;
use crate::aut_lines::Lines;
use crate::builder::LtsBuilder;
use crate::lts::{Lts, TAU};
use rustc_hash::FxHashMap;
use std::fmt;
use std::io::{Read, Write};

/// A malformed `.aut` file: where, and what was expected.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct AutError {
    /// 1-based line number.
    pub line: usize,
    /// 1-based column.
    pub column: usize,
    /// What was wrong.
    pub message: String,
    /// The text of the offending line, for a snippet.
    pub text: String,
}

impl fmt::Display for AutError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}:{}: {}", self.line, self.column, self.message)
    }
}

impl std::error::Error for AutError {}

/// One line being parsed: a cursor with the error context.
struct Cursor<'a> {
    text: &'a str,
    pos: usize,
    line: usize,
}

impl<'a> Cursor<'a> {
    /// A cursor for an error that concerns a line as a whole.
    fn at_line(line: usize) -> Self {
        Cursor {
            text: "",
            pos: 0,
            line,
        }
    }

    fn error(&self, message: impl Into<String>) -> AutError {
        let column = self.text[..self.pos.min(self.text.len())].chars().count() + 1;
        AutError {
            line: self.line,
            column,
            message: message.into(),
            text: self.text.to_string(),
        }
    }

    fn skip_space(&mut self) {
        let rest = &self.text[self.pos..];
        self.pos += rest.len() - rest.trim_start().len();
    }

    fn expect(&mut self, token: &str, what: &str) -> Result<(), AutError> {
        self.skip_space();
        if self.text[self.pos..].starts_with(token) {
            self.pos += token.len();
            Ok(())
        } else {
            Err(self.error(format!("expected {what}")))
        }
    }

    fn number(&mut self, what: &str) -> Result<u64, AutError> {
        self.skip_space();
        let rest = &self.text[self.pos..];
        let digits = rest.len() - rest.trim_start_matches(|c: char| c.is_ascii_digit()).len();
        let value = rest[..digits].parse::<u64>();
        match value {
            Ok(v) if v <= u32::MAX as u64 => {
                self.pos += digits;
                Ok(v)
            }
            Ok(_) => Err(self.error(format!("{what} is too large"))),
            Err(_) => Err(self.error(format!("expected {what} (a natural number)"))),
        }
    }

    fn end(&mut self) -> Result<(), AutError> {
        self.skip_space();
        if self.pos == self.text.len() {
            Ok(())
        } else {
            Err(self.error("expected the end of the line"))
        }
    }
}

/// The numbers in the `des` header, and where they are (for errors found later).
#[derive(Clone, Debug)]
struct Header {
    initial: u32,
    transitions: u64,
    states: u32,
    /// The header line, and the byte offsets of its initial state and transition count.
    text: String,
    line: usize,
    initial_at: usize,
    transitions_at: usize,
}

impl Header {
    /// An error pointing at the header's number that starts at byte `at`.
    fn error_at(&self, at: usize, message: String) -> AutError {
        let cursor = Cursor {
            text: &self.text,
            pos: at,
            line: self.line,
        };
        cursor.error(message)
    }
}

fn parse_header(cursor: &mut Cursor) -> Result<Header, AutError> {
    cursor.expect("des", "the header `des (INITIAL, TRANSITIONS, STATES)`")?;
    cursor.expect("(", "`(` after `des`")?;
    cursor.skip_space();
    let initial_at = cursor.pos;
    let initial = cursor.number("the initial state")?;
    cursor.expect(",", "`,` after the initial state")?;
    cursor.skip_space();
    let transitions_at = cursor.pos;
    let transitions = cursor.number("the number of transitions")?;
    cursor.expect(",", "`,` after the number of transitions")?;
    let states = cursor.number("the number of states")?;
    cursor.expect(")", "`)` closing the header")?;
    cursor.end()?;
    if initial >= states {
        cursor.pos = 0;
        return Err(cursor.error(format!(
            "initial state {initial} is not below the number of states {states}"
        )));
    }
    Ok(Header {
        initial: initial as u32,
        transitions,
        states: states as u32,
        text: cursor.text.to_string(),
        line: cursor.line,
        initial_at,
        transitions_at,
    })
}

/// Parses `(FROM, LABEL, TO)`; returns (from, label text, to).
fn parse_transition<'a>(
    cursor: &mut Cursor<'a>,
    states: u32,
) -> Result<(u32, &'a str, u32), AutError> {
    cursor.expect("(", "`(` starting a transition `(FROM, LABEL, TO)`")?;
    let from = state(cursor, states, "the source state")?;
    cursor.expect(",", "`,` after the source state")?;
    cursor.skip_space();
    let label = label(cursor)?;
    cursor.expect(",", "`,` after the label")?;
    let to = state(cursor, states, "the target state")?;
    cursor.expect(")", "`)` closing the transition")?;
    cursor.end()?;
    Ok((from, label, to))
}

fn state(cursor: &mut Cursor, states: u32, what: &str) -> Result<u32, AutError> {
    let start = cursor.pos;
    let value = cursor.number(what)?;
    if value >= states as u64 {
        cursor.pos = start;
        cursor.skip_space();
        return Err(cursor.error(format!(
            "{what} {value} is not below the number of states {states}"
        )));
    }
    Ok(value as u32)
}

/// A quoted label (`"..."`, possibly containing commas) or an unquoted one up to the last comma.
fn label<'a>(cursor: &mut Cursor<'a>) -> Result<&'a str, AutError> {
    let text: &'a str = cursor.text;
    let rest = &text[cursor.pos..];
    let last_comma = rest
        .rfind(',')
        .ok_or_else(|| cursor.error("expected `, TO)` after the label"))?;
    let region = rest[..last_comma].trim_end();
    let label = if let Some(inner) = region.strip_prefix('"') {
        inner
            .strip_suffix('"')
            .ok_or_else(|| cursor.error("expected a closing `\"` for the label"))?
    } else {
        region
    };
    if label.is_empty() && !region.starts_with('"') {
        return Err(cursor.error("expected a label"));
    }
    cursor.pos += last_comma;
    Ok(label)
}

/// States numbered beyond twice the transitions (which use at most that many states) plus this
/// slack are refused: only a numbering with gaps gets there, and every state up to the largest
/// number costs memory whether a transition uses it or not.
const SPARE_STATES: u64 = 1 << 16;

/// Reads a `.aut` file. `i` and `tau` become the silent action.
///
/// Nothing is allocated from the header's counts: the LTS has the states up to the largest one
/// a transition (or the header's initial state) names; states the header declares beyond it
/// have no transitions, are unreachable, and are left out. A transition count that disagrees
/// with the body is an error at the header's count.
///
/// The input is read in large chunks and each line parsed from its bytes where it is plain
/// (`aut_fast.rs`); a line that is not, and the first line with each label, go through the
/// careful parser here, which gives every error.
pub fn read_aut<R: Read>(reader: R) -> Result<Lts, AutError> {
    read_aut_sized(reader, None)
}

/// [`read_aut`] of an input of `bytes` bytes, if known (a file's length): then the header's
/// transition count, as far as that many bytes can hold (a transition takes at least 7), is
/// made room for at once, and the transitions are written where the LTS keeps them.
pub fn read_aut_sized<R: Read>(reader: R, bytes: Option<u64>) -> Result<Lts, AutError> {
    let mut lines = Lines::new(reader);
    let header = read_header(&mut lines)?;
    let mut builder = LtsBuilder::new();
    if let Some(bytes) = bytes {
        builder.reserve_transitions(header.transitions.min(bytes / 7) as usize);
        builder.reserve_sources(u64::from(header.states).min(bytes / 7) as usize);
    }
    let mut labels = Labels::default();
    let mut count = 0u64;
    let mut largest = Largest::new(header.initial);
    loop {
        let (number, line) = match lines.next_line() {
            Ok(Some(line)) => line,
            Ok(None) => break,
            Err(e) => return Err(read_error(lines.number, &e)),
        };
        let fast = aut_fast::transition(line, header.states)
            .and_then(|(from, text, to)| Some((from, labels.known(text)?, to)));
        let (from, label, to) = match fast {
            Some(transition) => transition,
            None => match careful_transition(line, number, header.states)? {
                Some((from, text, to)) => (from, labels.intern(text, &mut builder), to),
                None => continue,
            },
        };
        count += 1;
        largest.see(from.max(to), count, number, line);
        builder.add_transition_id(from, label, to);
    }
    check_counts(&header, count, &largest)?;
    Ok(builder.finish(header.initial))
}

/// The header: the first line that is not blank.
fn read_header<R: Read>(lines: &mut Lines<R>) -> Result<Header, AutError> {
    loop {
        let (number, line) = match lines.next_line() {
            Ok(Some(line)) => line,
            Ok(None) => {
                let message =
                    "expected the header `des (INITIAL, TRANSITIONS, STATES)`, found an empty file";
                return Err(Cursor::at_line(lines.number.max(1)).error(message));
            }
            Err(e) => return Err(read_error(lines.number, &e)),
        };
        let text = utf8(line, number)?;
        if !text.trim().is_empty() {
            return parse_header(&mut Cursor {
                text: text.trim_end(),
                pos: 0,
                line: number,
            });
        }
    }
}

/// A transition line by the careful parser; `None` if the line is blank.
fn careful_transition(
    line: &[u8],
    number: usize,
    states: u32,
) -> Result<Option<(u32, &str, u32)>, AutError> {
    let text = utf8(line, number)?;
    if text.trim().is_empty() {
        return Ok(None);
    }
    let mut cursor = Cursor {
        text: text.trim_end(),
        pos: 0,
        line: number,
    };
    parse_transition(&mut cursor, states).map(Some)
}

/// A line as text; a line that is not UTF-8 is an error at its first bad byte.
fn utf8(line: &[u8], number: usize) -> Result<&str, AutError> {
    std::str::from_utf8(line).map_err(|e| not_utf8(line, e.valid_up_to(), number))
}

fn read_error(line: usize, e: &std::io::Error) -> AutError {
    AutError {
        line,
        column: 1,
        message: format!("cannot read: {e}"),
        text: String::new(),
    }
}

/// The label ids by the bytes of the label text, so that a label met before costs one hash
/// lookup of its bytes (the careful parser met it first, so it is UTF-8).
#[derive(Default)]
struct Labels {
    ids: FxHashMap<Box<[u8]>, u32>,
}

impl Labels {
    fn known(&self, text: &[u8]) -> Option<u32> {
        self.ids.get(text).copied()
    }

    fn intern(&mut self, text: &str, builder: &mut LtsBuilder) -> u32 {
        if let Some(id) = self.known(text.as_bytes()) {
            return id;
        }
        let id = if text == "i" {
            TAU
        } else {
            builder.intern(text)
        };
        self.ids.insert(text.as_bytes().into(), id);
        id
    }
}

/// The largest state number met, and where it was first met while it was already beyond what
/// the transitions read so far can use (only kept then: a dense file never copies a line).
struct Largest {
    state: u32,
    first_beyond: Option<AutError>,
}

impl Largest {
    fn new(initial: u32) -> Self {
        Largest {
            state: initial,
            first_beyond: None,
        }
    }

    /// Sees `state` on line `number`, whose text is `line`.
    fn see(&mut self, state: u32, transitions: u64, number: usize, line: &[u8]) {
        if state > self.state {
            self.state = state;
            if u64::from(state) > usable_states(transitions) {
                self.first_beyond = Some(AutError {
                    line: number,
                    column: 1,
                    message: String::new(),
                    text: String::from_utf8_lossy(line).trim_end().to_string(),
                });
            }
        }
    }
}

/// The most states `transitions` transitions can use, plus [`SPARE_STATES`].
fn usable_states(transitions: u64) -> u64 {
    2 * transitions + SPARE_STATES
}

fn check_counts(header: &Header, count: u64, largest: &Largest) -> Result<(), AutError> {
    if count != header.transitions {
        let message = format!(
            "the header declares {} transitions but the file has {count}",
            header.transitions
        );
        return Err(header.error_at(header.transitions_at, message));
    }
    if u64::from(largest.state) <= usable_states(count) {
        return Ok(());
    }
    let transitions = if count == 1 {
        "transition"
    } else {
        "transitions"
    };
    let why = format!(
        "state {} leaves a gap too large for a file of {count} {transitions}: number the \
         states without large gaps (every number up to the largest costs memory)",
        largest.state
    );
    Err(match &largest.first_beyond {
        Some(at) => AutError {
            message: why,
            ..at.clone()
        },
        None => header.error_at(header.initial_at, format!("the initial {why}")),
    })
}

/// The error for a line whose bytes from `valid` on are not UTF-8.
fn not_utf8(bytes: &[u8], valid: usize, line: usize) -> AutError {
    let text = String::from_utf8_lossy(bytes).trim_end().to_string();
    let prefix = std::str::from_utf8(&bytes[..valid]).unwrap_or("");
    AutError {
        line,
        column: prefix.chars().count() + 1,
        message: format!(
            "the file is not UTF-8 text: byte 0x{:02x} here (a `.aut` file is text)",
            bytes[valid]
        ),
        text,
    }
}

/// Writes `lts` in `.aut` format; the silent action is written `tau`, labels are quoted.
pub fn write_aut<W: Write>(lts: &Lts, mut out: W) -> std::io::Result<()> {
    writeln!(
        out,
        "des ({}, {}, {})",
        lts.initial(),
        lts.num_transitions(),
        lts.num_states()
    )?;
    for (s, l, t) in lts.transitions() {
        writeln!(out, "({s}, \"{}\", {t})", lts.label_name(l))?;
    }
    out.flush()
}
