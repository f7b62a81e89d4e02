//! Fuzz target: `agentpi-lint.toml` (`mcp::lint::config::Config::parse`). Any text is a
//! configuration or an error at `FILE:LINE:COL`.

use agentpi_mcp::lint::config::Config;

fn check(data: &[u8]) {
    let Ok(text) = std::str::from_utf8(data) else {
        return;
    };
    let _ = Config::parse("agentpi-lint.toml", text);
}

fn main() {
    agentpi_fuzz::run(check);
}
