//! The documentation agrees with the tool: every command has a page that gives the exit
//! statuses its `--help` gives, every import in the docs names a model that exists, every
//! bundled model is in README.md, and the examples of docs/minimize.md print what they show.

use std::path::{Path, PathBuf};
use std::process::Command;

fn repo() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../..")
}

fn agentpi(dir: &Path, args: &[&str]) -> String {
    let out = Command::new(env!("CARGO_BIN_EXE_agentpi"))
        .args(args)
        .current_dir(dir)
        .output()
        .unwrap();
    String::from_utf8(out.stdout).unwrap()
}

/// Runs of whitespace as one space, so that wrapped text compares with unwrapped.
fn words(text: &str) -> String {
    text.split_whitespace().collect::<Vec<_>>().join(" ")
}

fn read(path: &str) -> String {
    std::fs::read_to_string(repo().join(path)).unwrap()
}

/// The subcommands `agentpi help` lists.
fn commands() -> Vec<String> {
    let help = agentpi(&repo(), &["help"]);
    help.lines()
        .skip_while(|l| *l != "Commands:")
        .skip(1)
        .take_while(|l| l.starts_with("  "))
        .filter(|l| !l.starts_with("   "))
        .filter_map(|l| l.split_whitespace().next())
        .filter(|c| *c != "help")
        .map(str::to_string)
        .collect()
}

#[test]
fn every_command_documents_the_exit_statuses_of_its_help() {
    let commands = commands();
    assert!(commands.len() >= 7, "{commands:?}");
    let readme = read("README.md");
    for command in commands {
        let help = agentpi(&repo(), &[&command, "--help"]);
        let statuses = help
            .split("\nExit status: ")
            .nth(1)
            .unwrap_or_else(|| panic!("`agentpi {command} --help` gives no exit status"));
        let statuses = format!("Exit status (also at the end of `agentpi {command} --help`): ")
            + &words(statuses);
        let page = read(&format!("docs/{command}.md"));
        assert!(
            words(&page).replace("**", "").contains(&statuses),
            "docs/{command}.md does not say:\n{statuses}"
        );
        assert!(
            readme.contains(&format!("| `agentpi {command}")),
            "README.md's command table has no `{command}`"
        );
    }
}

/// `import "name"` without a path in the docs names a bundled model (docs/language.md once
/// imported `mcp_session`, which never existed).
#[test]
fn imports_in_the_docs_name_bundled_models() {
    let listing = agentpi(&repo(), &["models"]);
    let readme = read("README.md");
    for page in ["docs/language.md", "README.md"] {
        let Ok(text) = std::fs::read_to_string(repo().join(page)) else {
            continue;
        };
        for name in text
            .split("import \"")
            .skip(1)
            .filter_map(|r| r.split('"').next())
        {
            if name.contains('/') || name.ends_with(".pi") || name == "name" {
                continue;
            }
            assert!(
                listing.contains(&format!("\n{name} ")) || listing.starts_with(&format!("{name} ")),
                "{page} imports `{name}`, which is not a bundled model"
            );
        }
    }
    for line in listing.lines().take_while(|l| !l.is_empty()) {
        let name = line.split_whitespace().next().unwrap();
        assert!(
            readme.contains(&format!("`{name}`")),
            "README.md does not name `{name}`"
        );
    }
}

/// The `$ agentpi minimize ...` examples of docs/minimize.md whose input is in the repository
/// print what the page shows.
#[test]
fn the_minimize_examples_print_what_the_page_shows() {
    let page = read("docs/minimize.md");
    let dir = repo().join("crates/cli/tests/compare");
    let mut checked = 0;
    for block in page.split("```text\n").skip(1) {
        let block = block.split("```").next().unwrap();
        let Some(command) = block
            .lines()
            .next()
            .and_then(|l| l.strip_prefix("$ agentpi "))
        else {
            continue;
        };
        let args: Vec<&str> = command.split_whitespace().collect();
        if !dir.join(args[1]).is_file() {
            continue;
        }
        let shown = block.split_once('\n').unwrap().1;
        assert_eq!(
            agentpi(&dir, &args),
            shown,
            "docs/minimize.md: $ agentpi {command}"
        );
        checked += 1;
    }
    assert!(checked >= 1, "no example of docs/minimize.md was run");
}
