//! The fast path of the `.aut` reader: a transition line `(FROM, LABEL, TO)` parsed from its
//! bytes, with ASCII spacing and numbers that fit. It accepts a subset of what the careful
//! parser of `aut.rs` accepts, with the same meaning; any line it does not take (an error,
//! Unicode spacing, a number out of range) goes to that parser, which gives the verdict and
//! the error message, so the two cannot disagree on what a file means.

/// The ASCII characters `char::is_whitespace` holds for (the careful parser trims those and
/// the Unicode ones; a line with the latter goes to it).
fn is_space(b: u8) -> bool {
    b == b' ' || (b'\t'..=b'\r').contains(&b)
}

/// `(FROM, LABEL, TO)` with both states below `states`: (from, label bytes, to), the label
/// unquoted. `None` for anything else, left to the careful parser.
pub(crate) fn transition(line: &[u8], states: u32) -> Option<(u32, &[u8], u32)> {
    let mut p = Bytes { line, pos: 0 };
    p.token(b'(')?;
    let from = p.state(states)?;
    p.token(b',')?;
    p.skip_space();
    // The label runs to the last comma of the line, as in the careful parser.
    let last_comma = line.iter().rposition(|&b| b == b',')?;
    let label = label(line.get(p.pos..last_comma)?)?;
    p.pos = last_comma + 1;
    let to = p.state(states)?;
    p.token(b')')?;
    p.skip_space();
    (p.pos == line.len()).then_some((from, label, to))
}

/// The label in `region` (from its first non-space byte to the last comma): quoted or not,
/// trailing spaces dropped. `None` if a Unicode space could be at either end, or if it is
/// malformed.
fn label(region: &[u8]) -> Option<&[u8]> {
    let trimmed = region.len() - region.iter().rev().take_while(|&&b| is_space(b)).count();
    let region = &region[..trimmed];
    match region {
        [] => None,
        [first, ..] if *first >= 0x80 => None,
        [.., last] if *last >= 0x80 => None,
        [b'"', inner @ .., b'"'] => Some(inner),
        [b'"', ..] => None,
        _ => Some(region),
    }
}

/// A cursor over one line.
struct Bytes<'a> {
    line: &'a [u8],
    pos: usize,
}

impl Bytes<'_> {
    fn skip_space(&mut self) {
        while self.pos < self.line.len() && is_space(self.line[self.pos]) {
            self.pos += 1;
        }
    }

    fn token(&mut self, token: u8) -> Option<()> {
        self.skip_space();
        (self.line.get(self.pos) == Some(&token)).then(|| self.pos += 1)
    }

    /// A state number below `states`, of at most 10 digits (so it fits in a u64).
    fn state(&mut self, states: u32) -> Option<u32> {
        self.skip_space();
        let start = self.pos;
        let mut value = 0u64;
        while let Some(&b) = self.line.get(self.pos)
            && b.is_ascii_digit()
        {
            if self.pos - start == 10 {
                return None;
            }
            value = value * 10 + u64::from(b - b'0');
            self.pos += 1;
        }
        (self.pos > start && value < u64::from(states)).then_some(value as u32)
    }
}
