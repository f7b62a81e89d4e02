//! Fuzz target: `.pi` source. Any bytes (read as UTF-8, a bad byte replaced) give the parser's
//! tree and diagnostics, and the whole front end (`ir::load`, as `agentpi check` loads a file,
//! importing the bundled models by name) a program and every diagnostic, each inside its
//! file, rendered as the terminal shows them.

use agentpi_diagnostics::{SourceMap, render};
use agentpi_ir::Loader;

/// The input's name, as a file on the command line.
const ROOT: &str = "fuzz.pi";

/// The bundled models an input may import, by the names `agentpi` gives them.
const BUNDLED: &[(&str, &str)] = &[
    ("mcp_basic", include_str!("../../../models/mcp_basic.pi")),
    (
        "mcp_timeout",
        include_str!("../../../models/mcp_timeout.pi"),
    ),
    ("ring", include_str!("../../../models/ring.pi")),
];

/// The input as the root file; imports from the bundled models.
struct Input<'a>(&'a str);

impl Loader for Input<'_> {
    fn read(&self, name: &str, importer: Option<&str>) -> Result<(String, String), String> {
        if importer.is_none() {
            return Ok((ROOT.to_string(), self.0.to_string()));
        }
        let name = name.strip_suffix(".pi").unwrap_or(name);
        let found = BUNDLED.iter().find(|(bundled, _)| *bundled == name);
        found
            .map(|(bundled, text)| (format!("<bundled>/{bundled}.pi"), text.to_string()))
            .ok_or_else(|| format!("no bundled model `{name}`"))
    }
}

fn check(data: &[u8]) {
    let text = String::from_utf8_lossy(data);
    let mut sources = SourceMap::new();
    let file = sources.add(ROOT, text.as_ref());
    let (_tree, diagnostics) = agentpi_syntax::parse(file, &text);
    agentpi_fuzz::located(&diagnostics, &sources);
    let loaded = agentpi_ir::load(ROOT, &Input(&text));
    agentpi_fuzz::located(&loaded.diagnostics, &loaded.sources);
    let _ = render::terminal_all(&loaded.diagnostics, &loaded.sources);
}

fn main() {
    agentpi_fuzz::run(check);
}
