//! The `.aut` reader and writer: malformed input is reported with line, column and what was
//! expected; well-formed input round-trips.

mod common;

use agentpi_lts::{read_aut, read_aut_sized, write_aut, write_dot};

/// Reads `text` and pins either the sizes or the error message.
fn check(text: &str, expected: &str) {
    let actual = match read_aut(text.as_bytes()) {
        Ok(lts) => format!(
            "ok: {} states, {} transitions, labels {:?}",
            lts.num_states(),
            lts.num_transitions(),
            lts.labels()
        ),
        Err(e) => e.to_string(),
    };
    assert_eq!(actual, expected, "input:\n{text}");
}

#[test]
fn reads_quoted_unquoted_and_silent_labels() {
    check(
        "des (0, 3, 2)\n(0, \"call(1, ok)\", 1)\n(1, i, 0)\n(1, tau, 0)\n",
        r#"ok: 2 states, 2 transitions, labels ["tau", "call(1, ok)"]"#,
    );
    check(
        "des(0,1,2)\n  (0,a b,1)  \n\n",
        r#"ok: 2 states, 1 transitions, labels ["tau", "a b"]"#,
    );
    // States the header declares beyond those used cost nothing: they are left out.
    check(
        "\ndes (1, 0, 3)\n",
        r#"ok: 2 states, 0 transitions, labels ["tau"]"#,
    );
}

/// The header's counts are never allocated for: a header of 4,000,000,000 states with one
/// transition reads as the two states used (it took 16 GB once), and a numbering with a
/// gap too large for the transitions is refused where the large number first appears.
#[test]
fn header_counts_are_not_allocated_for() {
    check(
        "des (0, 1, 4000000000)\n(0, a, 1)\n",
        r#"ok: 2 states, 1 transitions, labels ["tau", "a"]"#,
    );
    check(
        "des (0, 2, 4000000000)\n(0, a, 1)\n(1, b, 3999999999)\n",
        "3:1: state 3999999999 leaves a gap too large for a file of 2 transitions: number the states without large gaps (every number up to the largest costs memory)",
    );
    check(
        "des (3999999999, 0, 4000000000)\n",
        "1:6: the initial state 3999999999 leaves a gap too large for a file of 0 transitions: number the states without large gaps (every number up to the largest costs memory)",
    );
    // Gaps the transitions could pay for are fine.
    check(
        "des (0, 1, 70000)\n(0, a, 65000)\n",
        r#"ok: 65001 states, 1 transitions, labels ["tau", "a"]"#,
    );
}

#[test]
fn a_file_that_is_not_utf8_is_an_error_at_the_first_bad_byte() {
    let text = b"des (0, 1, 2)\n(0, \"caf\xe9\", 1)\n";
    let error = read_aut(&text[..]).unwrap_err();
    assert_eq!(
        error.to_string(),
        "2:9: the file is not UTF-8 text: byte 0xe9 here (a `.aut` file is text)"
    );
    assert_eq!(error.text, "(0, \"caf\u{fffd}\", 1)");
}

#[test]
fn reports_malformed_input_with_position() {
    let cases = [
        (
            "",
            "1:1: expected the header `des (INITIAL, TRANSITIONS, STATES)`, found an empty file",
        ),
        (
            "dse (0, 0, 1)\n",
            "1:1: expected the header `des (INITIAL, TRANSITIONS, STATES)`",
        ),
        (
            "des (0, 0)\n",
            "1:10: expected `,` after the number of transitions",
        ),
        (
            "des (x, 0, 1)\n",
            "1:6: expected the initial state (a natural number)",
        ),
        (
            "des (2, 0, 1)\n",
            "1:1: initial state 2 is not below the number of states 1",
        ),
        (
            "des (0, 1, 2)\n(0, a, 2)\n",
            "2:8: the target state 2 is not below the number of states 2",
        ),
        (
            "des (0, 1, 2)\n(0, \"a, 1)\n",
            "2:5: expected a closing `\"` for the label",
        ),
        (
            "des (0, 1, 2)\n(0 a, 1)\n",
            "2:4: expected `,` after the source state",
        ),
        (
            "des (0, 1, 2)\n(0, a, 1) x\n",
            "2:11: expected the end of the line",
        ),
        ("des (0, 1, 2)\n(0, , 1)\n", "2:5: expected a label"),
        (
            "des (0, 2, 2)\n(0, a, 1)\n",
            "1:9: the header declares 2 transitions but the file has 1",
        ),
        (
            "des (0,  3, 2)\n(0, a, 1)\n\n\n",
            "1:10: the header declares 3 transitions but the file has 1",
        ),
        (
            "des (0, 1, 99999999999)\n",
            "1:12: the number of states is too large",
        ),
    ];
    for (text, expected) in cases {
        check(text, expected);
    }
}

#[test]
fn writes_what_it_reads() {
    let text = "des (0, 3, 3)\n(0, \"a\", 1)\n(1, \"tau\", 2)\n(2, \"b(x, y)\", 0)\n";
    let lts = common::aut(text);
    let mut out = Vec::new();
    write_aut(&lts, &mut out).unwrap();
    assert_eq!(String::from_utf8(out).unwrap(), text);
    let mut dot = Vec::new();
    write_dot(&lts, &mut dot).unwrap();
    let expected = "digraph lts {\n  node [shape=circle];\n  0 [shape=doublecircle];\n  0 -> 1 [label=\"a\"];\n  1 -> 2 [label=\"tau\"];\n  2 -> 0 [label=\"b(x, y)\"];\n}\n";
    assert_eq!(String::from_utf8(dot).unwrap(), expected);
}

/// Lines the fast path of the reader leaves to the careful parser (Unicode spacing, numbers
/// with many digits, tabs and carriage returns, commas inside labels) mean what they meant.
#[test]
fn unusual_but_valid_lines_read_as_before() {
    check(
        "des (0, 4, 3)\r\n(0,\t\"a, \"b\"\"\t,1)\r\n(\u{a0}1, \u{a0}c\u{a0}, 2\u{a0})\u{2003}\n\
         (00000000002, d,e, 000000000000000)\n(2, \"\", 1)\n",
        r#"ok: 3 states, 4 transitions, labels ["tau", "a, \"b\"", "c", "d,e", ""]"#,
    );
}

/// An error after lines the fast path took is where it was, with the careful parser's
/// message; so is a bad byte in a label met before.
#[test]
fn errors_after_plain_lines_keep_their_position() {
    let cases: [(&[u8], &str); 4] = [
        (
            b"des (0, 3, 2)\n(0, a, 1)\n(1, a, 0)\n(1, a 0)\n",
            "4:5: expected `, TO)` after the label",
        ),
        (
            b"des (0, 2, 2)\n(0, a, 1)\n(1, a\xff, 0)\n",
            "3:6: the file is not UTF-8 text: byte 0xff here (a `.aut` file is text)",
        ),
        (
            b"des (0, 2, 2)\n(0, a, 1)\n(1, a, 99999999999999999999999)\n",
            "3:8: expected the target state (a natural number)",
        ),
        (
            b"des (0, 2, 2)\n(0, a, 1)\n(1, a, 4294967296)\n",
            "3:8: the target state is too large",
        ),
    ];
    for (text, expected) in cases {
        let actual = read_aut(text).map(|_| ()).unwrap_err().to_string();
        assert_eq!(actual, expected, "input: {}", String::from_utf8_lossy(text));
    }
}

/// A reader that hands out at most `step` bytes a call, so that lines straddle every buffer
/// boundary; and one line longer than the reader's buffer (256 KiB).
struct Trickle<'a> {
    text: &'a [u8],
    step: usize,
}

impl std::io::Read for Trickle<'_> {
    fn read(&mut self, buf: &mut [u8]) -> std::io::Result<usize> {
        let k = self.step.min(buf.len()).min(self.text.len());
        buf[..k].copy_from_slice(&self.text[..k]);
        self.text = &self.text[k..];
        Ok(k)
    }
}

#[test]
fn how_the_input_arrives_does_not_matter() {
    let long = "x".repeat(300_000);
    let mut text = format!("des (0, 2001, 1000)\n(0, \"{long}\", 1)\n");
    for i in 0..2000 {
        text += &format!(
            "({}, {}, {})\n",
            i % 1000,
            ["a", "i", "b"][i % 3],
            (i * 7) % 1000
        );
    }
    text.pop(); // no newline after the last line
    let whole = read_aut(text.as_bytes()).unwrap();
    for step in [1, 7, 4096, 1 << 20] {
        let trickled = read_aut(Trickle {
            text: text.as_bytes(),
            step,
        });
        assert_eq!(trickled.unwrap(), whole, "{step} bytes at a time");
    }
    assert_eq!((whole.num_states(), whole.num_transitions()), (1000, 2001));
    // The size given or not, right or wrong: the same LTS, room made or not.
    for bytes in [0, 100, text.len() as u64, u64::MAX] {
        assert_eq!(read_aut_sized(text.as_bytes(), Some(bytes)).unwrap(), whole);
    }
}

/// Malformed input never panics: every prefix of a file, and the file with every byte in
/// turn replaced by each of a few bytes, reads as an LTS or as an error with a position.
#[test]
fn damaged_files_are_errors_not_panics() {
    let text = b"des (0, 4, 3)\n(0, \"a(1, 2)\", 1)\n(1, i, 2)\n(2, b c, 0)\n(2, tau, 1)\n";
    for end in 0..text.len() {
        check_no_panic(&text[..end]);
    }
    for at in 0..text.len() {
        for byte in [b'(', b')', b',', b'"', b' ', b'\n', b'9', b'x', 0xc3, 0xff] {
            let mut damaged = text.to_vec();
            damaged[at] = byte;
            check_no_panic(&damaged);
        }
    }
}

fn check_no_panic(text: &[u8]) {
    if let Err(e) = read_aut(text) {
        assert!(e.line >= 1 && e.column >= 1, "{e}");
    }
}
