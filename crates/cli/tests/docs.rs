//! The documentation agrees with the tool: every command has a page that gives the exit
//! statuses its `--help` gives, every import in the docs names a model that exists, every
//! bundled model is in README.md, and the examples of docs/minimize.md print what they show.

use crate::support::repo;
use std::path::Path;
use std::process::Command;

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

/// `n` with a comma between thousands, as the docs write numbers.
fn thousands(n: &str) -> String {
    let digits: Vec<char> = n.chars().collect();
    let mut out = String::new();
    for (i, d) in digits.iter().enumerate() {
        if i > 0 && (digits.len() - i).is_multiple_of(3) {
            out.push(',');
        }
        out.push(*d);
    }
    out
}

/// The numbers of `line` (the first line of `snapshot` that starts with `prefix`), in order.
fn pinned_numbers(snapshot: &str, prefix: &str) -> Vec<String> {
    let text = read(snapshot);
    let line = text
        .lines()
        .find(|l| l.starts_with(prefix))
        .unwrap_or_else(|| panic!("{snapshot} has no line starting with {prefix:?}"));
    line.split(|c: char| !c.is_ascii_digit())
        .filter(|n| !n.is_empty())
        .map(thousands)
        .collect()
}

/// docs/paper.md's P4 figures are the ones the tests pin: the survey's totals
/// (crates/cli/tests/snapshots) and the token line of each real server's lint snapshot.
#[test]
fn the_p4_figures_of_docs_paper_are_those_the_tests_pin() {
    let doc = words(&read("docs/paper.md"));
    let p4 = &doc[doc.find("## P4: token reduction").unwrap()..];
    let survey = "crates/cli/tests/snapshots/cli__paper__survey.snap";
    let [full, summary, pct, plus_full, plus_summary] = &pinned_numbers(survey, "P4: ")[1..] else {
        panic!("the survey's P4 line changed shape");
    };
    let sgd = format!(
        "{full} tokens whole against {summary} summary-first ({pct}%); Φ⁺(S) costs {plus_full} \
         whole (the MCP+ blocks) and the same {plus_summary} summary-first"
    );
    assert!(p4.contains(&sgd), "docs/paper.md's P4 should say: {sgd}");
    for server in ["everything", "filesystem", "memory", "sequential-thinking"] {
        let snapshot = format!("crates/cli/tests/lint/snapshots/real_{server}.snap");
        let numbers = pinned_numbers(&snapshot, "tokens: ");
        let (full, summary, pct) = (&numbers[0], &numbers[1], &numbers[2]);
        let expected = format!("server-{server} {full} against {summary} ({pct}%)");
        assert!(
            p4.contains(&expected),
            "docs/paper.md's P4 should say: {expected}"
        );
    }
}

/// docs/monitor.md's rule table and the monitor agree: every rule the monitor reports has a
/// row that says where it is enforced, and every row that names a place is a rule it reports.
#[test]
fn the_monitor_rule_table_lists_what_the_monitor_reports() {
    let doc = read("docs/monitor.md");
    let rows: Vec<(&str, &str)> = doc
        .lines()
        .filter_map(|l| {
            let cells: Vec<&str> = l.split('|').map(str::trim).collect();
            let id = *cells.get(1)?;
            let id_like = id.len() <= 3 && id.chars().next()?.is_ascii_uppercase();
            (id_like && id.chars().skip(1).all(|c| c.is_ascii_digit()) && cells.len() > 3)
                .then(|| (id, cells[3]))
        })
        .collect();
    let enforced = |place: &str| place.starts_with("Rust") || place.starts_with("model");
    for rule in agentpi_monitor::rules::RULES {
        let row = rows.iter().find(|(id, _)| *id == rule.id);
        assert!(
            row.is_some_and(|(_, place)| enforced(place)),
            "docs/monitor.md should say where {} is enforced: {row:?}",
            rule.id
        );
    }
    // A row may be enforced under other ids ("reported as") or be an acceptance only.
    let own_id =
        |place: &&str| !place.contains("reported as") && !place.contains("nothing to report");
    for (id, place) in rows.iter().filter(|(_, p)| enforced(p) && own_id(p)) {
        assert!(
            agentpi_monitor::rules::find(id).is_some(),
            "docs/monitor.md says {id} is enforced ({place}), but the monitor has no such rule"
        );
    }
}
