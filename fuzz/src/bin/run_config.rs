//! Fuzz target: `agentpi run --config FILE` (`run::config::Config::from_toml`). Any text is a
//! configuration or an error naming the file; each line of a text that reads is then tried as
//! a `--server` and as a `--bind` flag on it, as the command line adds to the file.

use agentpi_run::config::Config;

fn check(data: &[u8]) {
    let Ok(text) = std::str::from_utf8(data) else {
        return;
    };
    let Ok(mut config) = Config::from_toml(text, "fuzz.toml") else {
        return;
    };
    for line in text.lines() {
        let _ = config.server_flag(line);
        let _ = config.bind_flag(line);
    }
}

fn main() {
    agentpi_fuzz::run(check);
}
