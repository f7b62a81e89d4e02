//! The traffic viewer of `agentpi view`: one self-contained page with the trace embedded as
//! JSON (`<script type="application/json">`, escaped by [`crate::escape::script_json`]) and
//! a script that draws only the rows on screen, so that a trace of 100,000 messages opens
//! and scrolls as fast as a short one. The data is what the caller gives:
//! `{"file", "summary", "events": [{"i", "t", "d", "m", "r", "x"?, "p"?, "f"?, "s"?}],
//! "findings": [the report's violations]}` (docs/report.md).

use crate::escape::{html as esc, script_json};
use crate::page::document;

const CSS: &str = include_str!("../assets/view.css");
const JS: &str = include_str!("../assets/view.js");

/// The page of `data` for the trace `file`, `summary` said at the top.
pub fn page(file: &str, summary: &str, data: &serde_json::Value) -> String {
    let body = format!(
        "<header><h1>{}</h1><p id=\"summary\">{}</p><div id=\"filters\"><label>direction <select id=\"fdir\"><option value=\"\">all</option><option>c2s</option><option>s2c</option><option>event</option><option>stderr</option></select></label> <label>method <select id=\"fmethod\"><option value=\"\">all</option></select></label> <label><input type=\"checkbox\" id=\"ffound\"> findings only</label> <span id=\"shown\"></span></div><details id=\"findings\"><summary>findings</summary><ol id=\"flist\"></ol></details></header>\n<main><div id=\"list\"><div id=\"spacer\"></div></div><div id=\"detail\"><p class=\"hint\">Click a row to see its message.</p></div></main>\n<script type=\"application/json\" id=\"data\">{}</script>\n",
        esc(&format!("agentpi view {file}")),
        esc(summary),
        script_json(&data.to_string())
    );
    document(
        &format!("agentpi view {file}"),
        &format!("<style>{CSS}</style>"),
        &body,
        JS,
    )
}
