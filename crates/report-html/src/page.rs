//! One self-contained HTML page: inline CSS and JS, charts as inline SVG, nothing fetched.
//! Everything taken from input goes through [`crate::escape`]. The page's script marks its
//! end with a hidden `#agentpi-ready` element (and an uncaught error with `#agentpi-error`),
//! which the browser tests read.

use crate::chart::Chart;
use crate::escape::html as esc;
use crate::svg;

const CSS: &str = include_str!("../assets/page.css");
const JS: &str = include_str!("../assets/page.js");
/// Installed first, so that an error anywhere later is seen.
pub(crate) const ERROR_JS: &str = include_str!("../assets/error.js");

/// A page being written.
#[derive(Debug)]
pub struct Page {
    title: String,
    body: String,
    charts: usize,
}

/// A cell of a table: its text and a class (the verdict's, to colour it).
#[derive(Debug, Clone)]
pub struct Cell {
    pub text: String,
    pub class: Option<String>,
}

impl Cell {
    pub fn new(text: impl Into<String>) -> Cell {
        Cell {
            text: text.into(),
            class: None,
        }
    }

    /// A cell whose class is its text with spaces as `_` (`not exercised` → `not_exercised`).
    pub fn verdict(text: impl Into<String>) -> Cell {
        let text = text.into();
        let class = Some(text.replace(' ', "_"));
        Cell { text, class }
    }
}

impl Page {
    pub fn new(title: &str) -> Page {
        Page {
            title: title.to_string(),
            body: format!("<h1>{}</h1>\n", esc(title)),
            charts: 0,
        }
    }

    /// A heading of level 2 or 3.
    pub fn heading(&mut self, level: u8, text: &str) {
        self.body += &format!("<h{level}>{}</h{level}>\n", esc(text));
    }

    /// A paragraph of `text`, its class `class` if given.
    pub fn para(&mut self, class: Option<&str>, text: &str) {
        match class {
            Some(c) => self.body += &format!("<p class=\"{}\">{}</p>\n", esc(c), esc(text)),
            None => self.body += &format!("<p>{}</p>\n", esc(text)),
        }
    }

    /// Preformatted text (a message, a formula).
    pub fn pre(&mut self, text: &str) {
        self.body += &format!("<pre>{}</pre>\n", esc(text));
    }

    /// A table with a head row; `class` names the table for the tests (`rules`, `checks`).
    pub fn table(&mut self, class: &str, head: &[&str], rows: &[Vec<Cell>]) {
        let mut out = format!("<table class=\"t {}\"><tr>", esc(class));
        for h in head {
            out += &format!("<th>{}</th>", esc(h));
        }
        out += "</tr>\n";
        for row in rows {
            out += "<tr>";
            for cell in row {
                match &cell.class {
                    Some(c) => out += &format!("<td class=\"{}\">{}</td>", esc(c), esc(&cell.text)),
                    None => out += &format!("<td>{}</td>", esc(&cell.text)),
                }
            }
            out += "</tr>\n";
        }
        self.body += &out;
        self.body += "</table>\n";
    }

    /// Opens a block (a finding) with `class`; [`Page::close`] ends it.
    pub fn open(&mut self, class: &str) {
        self.body += &format!("<div class=\"{}\">\n", esc(class));
    }

    pub fn close(&mut self) {
        self.body += "</div>\n";
    }

    /// The chart as SVG beside its numbered steps; hovering either highlights both.
    pub fn chart(&mut self, chart: &Chart) {
        self.charts += 1;
        let id = format!("c{}", self.charts);
        let mut out = format!(
            "<div class=\"chart\" data-chart=\"{id}\"><div class=\"svgbox\">{}</div><ol class=\"steps\">\n",
            svg::element(chart, &id)
        );
        for (i, row) in chart.rows.iter().enumerate() {
            let name = |k: usize| chart.lifelines.get(k).map_or("?", String::as_str);
            let who = if row.is_event() {
                name(row.from).to_string()
            } else {
                format!("{} \u{2192} {}", name(row.from), name(row.to))
            };
            let mark = row.mark.as_deref().map_or(String::new(), |m| {
                format!("<span class=\"mark\">{}</span>", esc(m))
            });
            out += &format!(
                "<li data-step=\"{i}\"{}><span class=\"num\">{}</span>{}<span class=\"who\">{}</span>{mark}</li>\n",
                if row.mark.is_some() {
                    " class=\"marked\""
                } else {
                    ""
                },
                row.number,
                esc(&row.label),
                esc(&who)
            );
        }
        self.body += &out;
        self.body += "</ol></div>\n";
    }

    /// The whole document.
    pub fn finish(self) -> String {
        document(
            &self.title,
            &format!("<style>{CSS}{}</style>", svg::STYLE),
            &self.body,
            JS,
        )
    }
}

/// An HTML document: `head` extra (styles), `body`, then `script`.
pub(crate) fn document(title: &str, head: &str, body: &str, script: &str) -> String {
    format!(
        "<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\"><meta name=\"viewport\" content=\"width=device-width\"><meta http-equiv=\"Content-Security-Policy\" content=\"default-src 'none'; style-src 'unsafe-inline'; script-src 'unsafe-inline'; img-src data:\"><title>{}</title><script>{ERROR_JS}</script>{head}</head>\n<body>\n{body}<script>{script}</script>\n</body></html>\n",
        esc(title)
    )
}
