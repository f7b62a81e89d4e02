//! A modeller's experience, from the small models a new user wrote (`tests/modeller/`, each
//! with the mistake it makes in its header): what `agentpi` tells them, pinned with exit
//! status, stdout and stderr (less the timing line of `check`) in one snapshot per item.

use std::path::Path;
use std::process::Command;

/// Runs `agentpi ARGS` inside `tests/modeller/` and renders what a user would see, without
/// the statistics line `check` writes to stderr (it holds times).
fn run(args: &[&str]) -> String {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/modeller");
    let output = Command::new(env!("CARGO_BIN_EXE_agentpi"))
        .args(args)
        .current_dir(dir)
        .output()
        .unwrap();
    let stderr = String::from_utf8_lossy(&output.stderr);
    let stderr: String = stderr
        .lines()
        .filter(|l| !l.contains(" MiB kept ("))
        .map(|l| format!("{l}\n"))
        .collect();
    format!(
        "$ agentpi {}\nexit: {}\n--- stdout\n{}--- stderr\n{stderr}",
        args.join(" "),
        output.status.code().unwrap_or(-1),
        String::from_utf8_lossy(&output.stdout),
    )
}

/// Runs every command and pins the output in one snapshot named `name`.
fn check(name: &str, commands: &[&[&str]]) {
    let text: Vec<String> = commands.iter().map(|args| run(args)).collect();
    insta::with_settings!({snapshot_path => "modeller/snapshots", prepend_module_to_snapshot => false}, {
        insta::assert_snapshot!(name, text.join("\n"));
    });
}

/// A deadlock says who is stuck where and for what, in text, JSON and the chart, and hints
/// at `daemon proc` / `end:` when an instance waits to receive at the top of a loop.
#[test]
fn a_deadlock_says_who_is_stuck_where() {
    check(
        "deadlock",
        &[
            &["check", "server.pi"],
            &["check", "server.pi", "--format", "json"],
            &["check", "pipeline.pi"],
            &["check", "replicated.pi"],
        ],
    );
}

/// Every printed label reads back: `replay` takes the `link!(1)` and `link?(1)` that `lts`
/// and `check` print, and a trace that does not read is an input error (exit 2) at
/// FILE:LINE:COL, or at its index in a JSON list.
#[test]
fn every_printed_label_reads_back() {
    check(
        "labels",
        &[
            &["lts", "buffer.pi"],
            &["replay", "buffer.pi", "sent.trace"],
            &["replay", "buffer.pi", "wrong.trace"],
            &["replay", "buffer.pi", "unreadable.trace"],
            &["replay", "buffer.pi", "unreadable.json"],
        ],
    );
}

/// A send that a lossy channel loses says so in its label (`link!(1) lost`), in `lts`,
/// `check` and `sim` alike, and reads back in `replay`.
#[test]
fn a_lost_message_is_named_in_its_label() {
    check(
        "lost",
        &[
            &["check", "lossy.pi"],
            &["sim", "lossy.pi", "--random", "--seed", "3"],
            &["replay", "buffer.pi", "lost.trace"],
            &["replay", "buffer.pi", "sent.trace"],
        ],
    );
}

/// A message through a buffer is one arrow, from the step that sends it to the step that
/// receives it, slanted across the steps between (sends and receives paired first in, first
/// out per channel); a message lost, or still in the buffer at the end, stays a box on its
/// sender (in the SVG, a box of its own colour). The SVG of the ring's chart is pinned in
/// tests/pictures.rs (`ring`).
#[test]
fn a_buffered_message_is_one_arrow() {
    check(
        "buffered_arrows",
        &[
            &[
                "check",
                "ring",
                "-D",
                "N=3",
                "--property",
                "never leader(0)",
            ],
            &["check", "lossy.pi"],
            &["check", "lossy.pi", "--format", "svg"],
            &[
                "check",
                "retransmit.pi",
                "--property",
                "Retransmit: fair eventually delivered",
            ],
        ],
    );
}

/// The small things of the issue, each as the newcomer met it: `-D` in `compare`, `minimize`
/// and `replay`; `--property` spaced any way; a mistyped bundled model; `eventually (a or
/// b)`; `sim --random` stopped by `--steps`; an empty family index (one error, not one per
/// use); `trace check` numbering a finding and its chart alike.
#[test]
fn small_things_that_cost_a_newcomer_time() {
    let trace = "../../../monitor/tests/traces/t1_t6_x6_undeclared.jsonl";
    check(
        "small_things",
        &[
            &["compare", "family.pi:C", "family.pi:C", "-D", "N=3"],
            &["minimize", "family.pi:C", "-D", "N=3", "--no-time"],
            &["minimize", "family.pi:C", "-D", "N"],
            &["replay", "family.pi:C", "commit.trace", "-D", "N=1"],
            &[
                "check",
                "lossy.pi",
                "--property",
                "L:reachable   link!( _ )",
            ],
            &["check", "philosopher"],
            &["check", "eventually.pi"],
            &["check", "eventually_ltl.pi"],
            &["sim", "replicated.pi", "--random", "--steps", "1"],
            &["sim", "replicated.pi", "--random", "--steps", "2"],
            &["check", "family.pi", "-D", "N=0"],
            &["check", "family_range.pi"],
            &["trace", "check", trace],
        ],
    );
}

/// `--states` shows the state along a counterexample or witness: after each step, where each
/// instance waits (with its variables by name) and what each buffered channel holds; in text,
/// in JSON (`start_state`, each step's `state`) and in `sim --random`.
#[test]
fn states_along_a_counterexample() {
    check(
        "states",
        &[
            &["check", "buffer.pi", "--states"],
            &["check", "server.pi", "--states"],
            &["check", "lossy.pi", "--states"],
            &["check", "server.pi", "--states", "--format", "json"],
            &["sim", "queue.pi", "--random", "--states", "--steps", "4"],
        ],
    );
}

/// Properties over families: `forall i in T: ...` is one check per index value, each named
/// with its value; an index variable bound nowhere, or by the left of `leads to`, is an error
/// that says how to write it; `-D` and `--property` with the text as written work alike.
#[test]
fn properties_over_families() {
    check(
        "forall",
        &[
            &["check", "pingpong.pi"],
            &["check", "pingpong_unbound.pi"],
            &[
                "check",
                "pingpong.pi",
                "-D",
                "N=2",
                "--property",
                "fair forall i in Id: ping[i] leads to pong[i]",
            ],
        ],
    );
}

/// State predicates: where instances are (`at Proc.point`, `at Proc(args).point`) and what
/// buffered channels hold (`len`, `contains`), in `never`, `reachable`, `always` and `ltl`;
/// with the shortest path into the state; symmetry reduction kept (fewer states, same
/// verdicts), partial-order reduction refused with a note; mistakes said at FILE:LINE:COL.
#[test]
fn state_predicates() {
    check(
        "state_predicates",
        &[
            &["check", "mutex.pi"],
            &["check", "queue.pi"],
            &["check", "queue.pi", "--property", "2", "--states"],
            &[
                "check",
                "mutex.pi",
                "--property",
                "Two: always at Lock.busy or not at Careful.printing",
            ],
            &[
                "check",
                "mutex.pi",
                "--property",
                "Two: always at Lock.busy or not at Careful.printing",
                "--symmetry",
                "--por",
            ],
            &[
                "check",
                "mutex.pi",
                "--property",
                "Two: reachable at Careful(0).printing",
                "--symmetry",
            ],
            &["check", "mutex_typo.pi"],
        ],
    );
}

/// `sim` says who takes a bare `tau` and where: its label alone names nobody.
#[test]
fn sim_says_who_takes_a_tau() {
    check(
        "sim_tau",
        &[&[
            "sim",
            "pingpong.pi",
            "--random",
            "--steps",
            "6",
            "--seed",
            "4",
        ]],
    );
}

/// Refinement, equivalence and determinism in the model file, as FDR users write them
/// (`check Impl: refines Spec failures`, `check A: equivalent B branching`, `check S:
/// deterministic`): decided as `compare` decides them, with the same evidence, in text and
/// JSON; mistakes in them are input errors.
#[test]
fn relations_in_the_model_file() {
    check(
        "relations",
        &[
            &["check", "relations.pi"],
            &[
                "check",
                "relations.pi",
                "--format",
                "json",
                "--property",
                "13",
            ],
            &[
                "check",
                "relations.pi",
                "--property",
                "1",
                "--max-states",
                "5",
            ],
            &["check", "relation_errors.pi"],
        ],
    );
}

/// `strong fair`: a retransmitting sender over a lossy channel delivers under strong
/// fairness (of instances and channels) but not under weak fairness; two cases where strong
/// fairness is not enough (a channel shared by two senders, a choice inside one instance).
/// `strong fair(link)`, strong fairness of the channel alone, is enough; of the instances
/// alone (`strong fair(Receiver, Sender(0))`) it is not. What may be selected, and the errors.
#[test]
fn strong_fairness_over_a_lossy_channel() {
    check(
        "strong_fair",
        &[
            &["check", "retransmit.pi"],
            &[
                "check",
                "retransmit.pi",
                "--format",
                "json",
                "--property",
                "7",
            ],
            &["check", "strong_on_errors.pi"],
        ],
    );
}

/// `--search dfs`: depth first finds the deep bug of a two-phase commit after a small part
/// of its state space (a table in docs/check.md), says its counterexample may not be
/// the shortest (text and JSON), explores everything before a `holds` (the same counts as
/// breadth first), gives `unknown` at a bound, and refuses liveness.
#[test]
fn depth_first_search() {
    const DFS: &[&str] = &["--search", "dfs"];
    const NEVER_ABORTED: &[&str] = &["--property", "never aborted"];
    const DEADLOCK_FREE: &[&str] = &["--property", "deadlock free"];
    // `agentpi check commit.pi` with these groups of flags.
    let commit = |flags: &[&[&'static str]]| -> Vec<&'static str> {
        let mut args = vec!["check", "commit.pi"];
        args.extend(flags.concat());
        args
    };
    let commands = [
        commit(&[DFS, NEVER_ABORTED]),
        commit(&[&["-D", "N=2"], DFS, NEVER_ABORTED, &["--format", "json"]]),
        commit(&[&["-D", "N=8"], NEVER_ABORTED]),
        commit(&[&["-D", "N=8"], DFS, NEVER_ABORTED]),
        commit(&[&["-D", "N=4"], DFS, DEADLOCK_FREE]),
        commit(&[&["-D", "N=4"], DEADLOCK_FREE]),
        commit(&[&["-D", "N=6"], DFS, &["--max-states", "10"]]),
        commit(&[&["-D", "N=6"], DFS, &["--threads", "2"], NEVER_ABORTED]),
        vec!["check", "retransmit.pi", "--search", "dfs"],
    ];
    let commands: Vec<&[&str]> = commands.iter().map(Vec::as_slice).collect();
    check("dfs", &commands);
}
