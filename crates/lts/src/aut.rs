//! The Aldebaran `.aut` format: a streaming reader (one line in memory at a time) and a writer.
//!
//! ```text
//! des (INITIAL, NUM_TRANSITIONS, NUM_STATES)
//! (FROM, "label", TO)
//! (FROM, label, TO)
//! ```
//! The labels `i` and `tau` both denote the silent action.

use crate::builder::LtsBuilder;
use crate::lts::{Lts, TAU};
use std::fmt;
use std::io::{BufRead, Write};

/// A malformed `.aut` file: where, and what was expected.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct AutError {
    /// 1-based line number (0 when the input could not be read at all).
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

/// The numbers in the `des` header.
#[derive(Clone, Copy, Debug)]
struct Header {
    initial: u32,
    transitions: u64,
    states: u32,
}

fn parse_header(cursor: &mut Cursor) -> Result<Header, AutError> {
    cursor.expect("des", "the header `des (INITIAL, TRANSITIONS, STATES)`")?;
    cursor.expect("(", "`(` after `des`")?;
    let initial = cursor.number("the initial state")?;
    cursor.expect(",", "`,` after the initial state")?;
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

/// Reads a `.aut` file line by line. `i` and `tau` become the silent action.
pub fn read_aut<R: BufRead>(reader: R) -> Result<Lts, AutError> {
    let mut lines = Lines {
        reader,
        line: String::new(),
        number: 0,
    };
    let header = match lines.next_nonblank()? {
        Some(mut cursor) => parse_header(&mut cursor)?,
        None => {
            let message =
                "expected the header `des (INITIAL, TRANSITIONS, STATES)`, found an empty file";
            return Err(Cursor::at_line(lines.number).error(message));
        }
    };
    let mut builder = LtsBuilder::new();
    builder.require_states(header.states as usize);
    let mut count = 0u64;
    while let Some(mut cursor) = lines.next_nonblank()? {
        let (from, text, to) = parse_transition(&mut cursor, header.states)?;
        let label = if text == "i" {
            TAU
        } else {
            builder.intern(text)
        };
        builder.add_transition_id(from, label, to);
        count += 1;
    }
    if count != header.transitions {
        let message = format!(
            "the header declares {} transitions but the file has {count}",
            header.transitions
        );
        return Err(Cursor::at_line(lines.number - 1).error(message));
    }
    Ok(builder.finish(header.initial))
}

/// The input, one reused line buffer at a time.
struct Lines<R> {
    reader: R,
    line: String,
    number: usize,
}

impl<R: BufRead> Lines<R> {
    /// The next line that is not blank, as a cursor, or `None` at the end.
    fn next_nonblank(&mut self) -> Result<Option<Cursor<'_>>, AutError> {
        loop {
            self.number += 1;
            if read_line(&mut self.reader, &mut self.line, self.number)? == 0 {
                return Ok(None);
            }
            if !self.line.trim().is_empty() {
                return Ok(Some(Cursor {
                    text: self.line.trim_end(),
                    pos: 0,
                    line: self.number,
                }));
            }
        }
    }
}

fn read_line<R: BufRead>(
    reader: &mut R,
    line: &mut String,
    number: usize,
) -> Result<usize, AutError> {
    line.clear();
    reader.read_line(line).map_err(|e| AutError {
        line: number,
        column: 1,
        message: format!("cannot read: {e}"),
        text: String::new(),
    })
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
