//! A [`Chart`] drawn as SVG: a lifeline per instance (named in a box at the top, the names
//! repeated every [`REPEAT`] rows so that a long chart stays readable), an arrow with its
//! label per communication (a message through a buffer slanted from the row that sends it to
//! the row that receives it), an event as a box on its lifeline, the step numbers in a gutter
//! on the left, a finding's row highlighted with what it says on the right, a lasso's loop
//! marked from where it starts, and the end (a deadlock, a fault) said below the last row.
//! Every row has the same height and every column is wider than any text drawn in it (widths
//! counted by [`crate::width`]), so no two labels overlap. Integer coordinates only: the same
//! chart gives the same bytes.

use crate::chart::{Chart, Ending, Message, Row};
use crate::escape::html as esc;
use crate::width;

/// The height of a row, in px.
const ROW: u32 = 24;
/// The height of the band of lifeline names.
const HEAD: u32 = 30;
/// The height of the band that marks where the loop starts.
const LOOP: u32 = 22;
/// Space around text.
const PAD: u32 = 12;
/// The names are drawn again after this many rows.
pub const REPEAT: usize = 40;
/// The least width of a column.
const MIN_COLUMN: u32 = 120;
/// What the loop's band says.
const LOOP_TEXT: &str = "\u{21bb} the loop starts here and repeats forever";
/// The width of the loop's bracket on the right.
const BRACKET: u32 = 24;

/// What a chart is drawn in: one band after the other, top to bottom.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Band {
    Names,
    Loop,
    Step(usize),
    Note(usize),
    End,
}

/// Where things go.
struct Layout {
    /// Right edge of the step numbers.
    gutter: u32,
    /// The x of the first lifeline.
    left: u32,
    column: u32,
    /// The x where the findings' words start.
    marks: u32,
    width: u32,
    bands: Vec<(Band, u32)>,
    height: u32,
}

/// A standalone SVG document of `charts`, one below the other, each under its title (with
/// none, a line saying so: still a picture, never an empty file).
pub fn document(charts: &[(String, &Chart)]) -> String {
    let mut body = String::new();
    let (mut y, mut width) = (0, 0);
    if charts.is_empty() {
        let said = "no trace to draw: no counterexample, witness or finding";
        body += &format!(
            "<text x=\"{PAD}\" y=\"{}\">{said}</text>\n",
            PAD + width::FONT
        );
        y = 2 * PAD + width::FONT;
        width = width::of(said) + 2 * PAD;
    }
    for (i, (title, chart)) in charts.iter().enumerate() {
        y += PAD;
        body += &format!(
            "<text x=\"{PAD}\" y=\"{}\" font-weight=\"bold\">{}</text>\n",
            y + width::FONT,
            esc(title)
        );
        y += width::FONT + PAD / 2;
        let layout = layout(chart);
        body += &format!("<g transform=\"translate(0,{y})\">\n");
        body += &inner(chart, &format!("c{}", i + 1), &layout);
        body += "</g>\n";
        y += layout.height;
        width = width.max(layout.width).max(width::of(title) + 2 * PAD);
    }
    format!(
        "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"{width}\" height=\"{y}\" viewBox=\"0 0 {width} {y}\" font-family=\"monospace\" font-size=\"{}\">\n<style>{}</style>\n<rect width=\"100%\" height=\"100%\" fill=\"#fff\"/>\n{body}</svg>\n",
        width::FONT,
        STYLE
    )
}

/// Hovering a step highlights it (the HTML page does the same from its list of steps).
pub const STYLE: &str = ".step:hover>.band,.step.hl>.band{fill:#fff3b0;fill-opacity:1}.step:hover>line,.step.hl>line{stroke:#c60;stroke-width:2}.step:hover>.ev,.step.hl>.ev{stroke:#c60;stroke-width:2}";

/// An `<svg>` element of `chart` for an HTML page; `id` prefixes its element ids.
pub fn element(chart: &Chart, id: &str) -> String {
    let layout = layout(chart);
    format!(
        "<svg class=\"msc\" id=\"{id}\" xmlns=\"http://www.w3.org/2000/svg\" width=\"{w}\" height=\"{h}\" viewBox=\"0 0 {w} {h}\" font-family=\"monospace\" font-size=\"{}\">\n{}</svg>\n",
        width::FONT,
        inner(chart, id, &layout),
        w = layout.width,
        h = layout.height
    )
}

fn layout(chart: &Chart) -> Layout {
    let widest = |texts: &mut dyn Iterator<Item = u32>| texts.max().unwrap_or(0);
    let names = widest(&mut chart.lifelines.iter().map(|n| width::of(n)));
    let labels = widest(&mut chart.rows.iter().map(|r| width::of(&r.label)));
    let notes = widest(&mut chart.notes.iter().map(|n| width::of(&n.text)));
    let marks = widest(
        &mut chart
            .rows
            .iter()
            .filter_map(|r| r.mark.as_deref().map(width::of)),
    );
    let last = chart.rows.last().map_or(0, |r| r.number);
    let gutter = width::of(&format!("!{last}")) + 2 * PAD;
    let column = (labels.max(notes) + 2 * PAD + 16)
        .max(names + 2 * PAD)
        .max(MIN_COLUMN);
    let left = gutter + PAD.max(names / 2 + PAD);
    let lanes = chart.lifelines.len().max(1) as u32;
    let marks_at = left + lanes * column;
    let mut right = marks_at;
    if marks > 0 {
        right += marks + 2 * PAD;
    }
    if chart.loop_start.is_some() {
        right = (right + BRACKET).max(gutter + width::of(LOOP_TEXT) + BRACKET + 2 * PAD);
    }
    let ending = chart.ending.as_ref().map_or(0, |e| width::of(&e.text()));
    let width = right.max(gutter + ending + 2 * PAD);
    let bands = bands(chart);
    let height = bands.iter().map(|b| b.1).sum::<u32>() + PAD;
    Layout {
        gutter,
        left,
        column,
        marks: marks_at + PAD,
        width,
        bands,
        height,
    }
}

fn bands(chart: &Chart) -> Vec<(Band, u32)> {
    let mut bands = vec![(Band::Names, HEAD)];
    for i in 0..chart.rows.len() {
        if i > 0 && i % REPEAT == 0 {
            bands.push((Band::Names, HEAD));
        }
        if chart.loop_start == Some(i) {
            bands.push((Band::Loop, LOOP));
        }
        bands.push((Band::Step(i), ROW));
    }
    bands.extend((0..chart.notes.len()).map(|i| (Band::Note(i), ROW)));
    if chart.ending.is_some() {
        bands.push((Band::End, ROW));
    }
    bands
}

fn inner(chart: &Chart, id: &str, l: &Layout) -> String {
    let mut out = format!(
        "<defs><marker id=\"{id}-ah\" viewBox=\"0 0 10 10\" refX=\"10\" refY=\"5\" markerWidth=\"8\" markerHeight=\"8\" orient=\"auto\"><path d=\"M0,0 L10,5 L0,10 z\" fill=\"#333\"/></marker></defs>\n"
    );
    let lines_end = l.height - PAD - if chart.ending.is_some() { ROW } else { 0 };
    for i in 0..chart.lifelines.len() {
        let x = lane(l, i);
        out += &format!(
            "<line class=\"life\" x1=\"{x}\" y1=\"{HEAD}\" x2=\"{x}\" y2=\"{lines_end}\" stroke=\"#999\" stroke-dasharray=\"4 3\"/>\n"
        );
    }
    let tops = step_tops(l);
    let mut y = 0;
    let mut loop_top = None;
    for (band, height) in &l.bands {
        out += &match band {
            Band::Names => names(chart, l, y),
            Band::Loop => {
                loop_top = Some(y);
                loop_band(l, y)
            }
            Band::Step(i) => step(chart, *i, id, l, &tops),
            Band::Note(i) => note(chart, *i, l, y),
            Band::End => end(chart, l, y),
        };
        y += height;
    }
    if let Some(top) = loop_top {
        out += &bracket(l, top);
    }
    out
}

/// The y of each step's band, by row index.
fn step_tops(l: &Layout) -> Vec<u32> {
    let mut y = 0;
    let mut tops = Vec::new();
    for (band, height) in &l.bands {
        if let Band::Step(_) = band {
            tops.push(y);
        }
        y += height;
    }
    tops
}

fn lane(l: &Layout, i: usize) -> u32 {
    l.left + i as u32 * l.column
}

/// The baseline of text in a band starting at `y`.
fn baseline(y: u32, height: u32) -> u32 {
    y + height / 2 + width::FONT / 2 - 2
}

fn names(chart: &Chart, l: &Layout, y: u32) -> String {
    let mut out = String::from("<g class=\"names\">");
    for (i, name) in chart.lifelines.iter().enumerate() {
        let (x, w) = (lane(l, i), width::of(name) + PAD);
        out += &format!(
            "<rect x=\"{}\" y=\"{}\" width=\"{w}\" height=\"{}\" rx=\"3\" fill=\"#e8eef7\" stroke=\"#4a6fa5\"/><text x=\"{x}\" y=\"{}\" text-anchor=\"middle\" font-weight=\"bold\">{}</text>",
            x - w / 2,
            y + 4,
            HEAD - 8,
            baseline(y, HEAD),
            esc(name)
        );
    }
    out + "</g>\n"
}

fn step(chart: &Chart, i: usize, id: &str, l: &Layout, tops: &[u32]) -> String {
    let (row, y) = (&chart.rows[i], tops[i]);
    let name = |k: usize| chart.lifelines.get(k).map_or("?", String::as_str);
    let who = if row.is_event() {
        name(row.from).to_string()
    } else {
        format!("{} \u{2192} {}", name(row.from), name(row.to))
    };
    let mark = row
        .mark
        .as_deref()
        .map_or(String::new(), |m| format!(" \u{2014} {m}"));
    let (class, band) = match row.mark {
        Some(_) => ("step marked", "fill=\"#fde2e2\" fill-opacity=\"1\""),
        None => ("step", "fill=\"#fff\" fill-opacity=\"0\""),
    };
    let text_y = baseline(y, ROW);
    let mut out = format!(
        "<g class=\"{class}\" id=\"{id}-s{i}\" data-step=\"{i}\"><title>{}. {} ({}){}</title><rect class=\"band\" x=\"0\" y=\"{y}\" width=\"{}\" height=\"{ROW}\" {band}/><text class=\"num\" x=\"{}\" y=\"{text_y}\" text-anchor=\"end\" fill=\"#666\">{}{}</text>",
        row.number,
        esc(&row.label),
        esc(&who),
        esc(&mark),
        l.width,
        l.gutter - PAD / 2,
        if row.mark.is_some() { "!" } else { "" },
        row.number
    );
    if let Some(m) = row.message {
        out += &message_end(l, row, m, (y, tops), id);
    } else if row.is_event() && row.label.ends_with(" lost") {
        // A message a lossy channel lost: a send that reaches nobody, drawn apart.
        out += &event_box(lane(l, row.from), y, &row.label, "#fbeaea", "#a33");
    } else if row.is_event() {
        out += &event_box(lane(l, row.from), y, &row.label, "#eef3e8", "#5a7d3a");
    } else {
        out += &arrow(l, row.from, row.to, y, &row.label, id);
    }
    if let Some(m) = &row.mark {
        out += &format!(
            "<text class=\"mark\" x=\"{}\" y=\"{text_y}\" fill=\"#b00\" font-weight=\"bold\">{}</text>",
            l.marks,
            esc(m)
        );
    }
    out + "</g>\n"
}

fn arrow(l: &Layout, from: usize, to: usize, y: u32, label: &str, id: &str) -> String {
    let (x1, x2) = (lane(l, from), lane(l, to));
    let line_y = y + ROW - 6;
    // The head's tip ends on the lifeline it points at.
    format!(
        "<line x1=\"{x1}\" y1=\"{line_y}\" x2=\"{x2}\" y2=\"{line_y}\" stroke=\"#333\" marker-end=\"url(#{id}-ah)\"/><text x=\"{}\" y=\"{}\">{}</text>",
        x1.min(x2) + PAD,
        line_y - 4,
        esc(label)
    )
}

/// One end of a message at the row whose band starts at `y`: where it is sent, the arrow
/// slanted down to the row it is received at (whose band starts at `tops[t]`), its label
/// along the sender's lifeline; where it is received, the label past the receiver's lifeline.
fn message_end(l: &Layout, row: &Row, m: Message, (y, tops): (u32, &[u32]), id: &str) -> String {
    let (x1, x2) = (lane(l, row.from), lane(l, row.to));
    match m {
        Message::Sent(t) => {
            // It leaves below its label and arrives at the top of the receive's row, above
            // the label there, which the arrow then never crosses.
            let (y1, y2) = (y + ROW - 6, tops[t] + 6);
            let (x, anchor) = if x1 < x2 {
                (x1 + PAD, "start")
            } else {
                (x1 - PAD, "end")
            };
            format!(
                "<line class=\"msg\" x1=\"{x1}\" y1=\"{y1}\" x2=\"{x2}\" y2=\"{y2}\" stroke=\"#333\" marker-end=\"url(#{id}-ah)\"/><text x=\"{x}\" y=\"{}\" text-anchor=\"{anchor}\">{}</text>",
                y1 - 4,
                esc(&row.label)
            )
        }
        Message::Received(_) => format!(
            "<text x=\"{}\" y=\"{}\" fill=\"#555\">{}</text>",
            x2 + PAD,
            baseline(y, ROW),
            esc(&row.label)
        ),
    }
}

fn event_box(x: u32, y: u32, text: &str, fill: &str, stroke: &str) -> String {
    format!(
        "<rect class=\"ev\" x=\"{}\" y=\"{}\" width=\"{}\" height=\"{}\" rx=\"3\" fill=\"{fill}\" stroke=\"{stroke}\"/><text x=\"{}\" y=\"{}\">{}</text>",
        x + 6,
        y + 3,
        width::of(text) + PAD,
        ROW - 6,
        x + 6 + PAD / 2,
        baseline(y, ROW),
        esc(text)
    )
}

fn note(chart: &Chart, i: usize, l: &Layout, y: u32) -> String {
    let n = &chart.notes[i];
    let stroke = if chart.ending == Some(Ending::Deadlock) {
        "#b00"
    } else {
        "#777"
    };
    format!(
        "<g class=\"note\">{}</g>\n",
        event_box(lane(l, n.lifeline), y, &n.text, "#fff8e0", stroke)
    )
}

fn loop_band(l: &Layout, y: u32) -> String {
    let line_y = y + LOOP / 2;
    format!(
        "<g class=\"loop\"><line x1=\"{}\" y1=\"{line_y}\" x2=\"{}\" y2=\"{line_y}\" stroke=\"#36c\" stroke-dasharray=\"6 4\"/><text x=\"{}\" y=\"{}\" fill=\"#36c\" font-style=\"italic\">{LOOP_TEXT}</text></g>\n",
        PAD,
        l.width - PAD,
        l.gutter,
        line_y - 3
    )
}

/// The loop's bracket on the right, from where it starts to its last row.
fn bracket(l: &Layout, top: u32) -> String {
    let steps = l
        .bands
        .iter()
        .filter(|b| matches!(b.0, Band::Step(_) | Band::Loop | Band::Names));
    let bottom = steps.map(|b| b.1).sum::<u32>();
    let x = l.width - BRACKET / 2;
    format!(
        "<path class=\"bracket\" d=\"M{} {} H{x} V{bottom} H{}\" fill=\"none\" stroke=\"#36c\" stroke-width=\"2\"/>\n",
        x - 6,
        top + LOOP / 2,
        x - 6
    )
}

fn end(chart: &Chart, l: &Layout, y: u32) -> String {
    let Some(ending) = &chart.ending else {
        return String::new();
    };
    let colour = match ending {
        Ending::Said(_) => "#933",
        _ => "#b00",
    };
    format!(
        "<g class=\"end\"><text x=\"{}\" y=\"{}\" fill=\"{colour}\" font-weight=\"bold\">{}</text></g>\n",
        l.gutter,
        baseline(y, ROW),
        esc(&ending.text())
    )
}
