//! The era bridge as a model (`mcp/bridge`, docs/bridge.md), through the binary: each
//! direction refines the era session it must look like (trace, failures and
//! failures-divergences), the eager bridge is caught by `compare` and by its check, each loss
//! is pinned with the counterexample `compare` prints, and each deliberate mistake in the
//! bridge's text breaks the checks or the refinement the docs say it breaks. The model's own
//! verdicts and state counts are pinned by verdicts.rs and models.rs with the other bundled
//! models.

use crate::models::agentpi;
use crate::support::repo;

const MODEL: &str = "mcp/bridge";
const EAGER: &str = "crates/cli/tests/bridge/eager.pi";

/// Runs `agentpi` from the repository root, expects exit status `expected` (0: holds or
/// refines, 1: violated or does not refine), and pins the standard output.
fn check(name: &str, args: &[&str], expected: i32) {
    let (status, stdout, stderr) = agentpi(args);
    assert_eq!(status, expected, "{name}\n{stdout}{stderr}");
    let report = format!(
        "$ agentpi {}\nexit status {status}\n{stdout}",
        args.join(" ")
    );
    insta::assert_snapshot!(name, report);
}

/// The wire the compared side does not see: `modern` hides the legacy wire (the modern
/// client's view of the bridge to a legacy server), `legacy` the modern one (the view of a
/// legacy client, or of a legacy server behind the bridge).
fn hidden(seen: &str) -> [&'static str; 4] {
    match seen {
        "legacy" => ["--hide", "mc2s", "--hide", "ms2c"],
        _ => ["--hide", "lc2s", "--hide", "ls2c"],
    }
}

/// `compare SPEC IMPL --equiv EQUIV`, seen from the `seen` era's wire.
fn compare(spec: &str, implementation: &str, equiv: &str, seen: &str) -> Vec<String> {
    let mut args = vec!["compare", spec, implementation, "--equiv", equiv];
    args.extend(hidden(seen));
    args.into_iter().map(str::to_string).collect()
}

fn run(name: &str, args: &[String], expected: i32) {
    let args: Vec<&str> = args.iter().map(String::as_str).collect();
    check(name, &args, expected);
}

/// Seen by its client, each direction refines the direct session of the client's era.
#[test]
fn each_direction_refines_its_era() {
    for (seen, spec, implementation) in [
        ("legacy", "LegacyDirect", "LegacyBridged"),
        ("modern", "ModernDirect", "ModernBridged"),
        ("legacy", "LegacyCrashDirect", "LegacyCrashBridged"),
        ("modern", "ModernCrashDirect", "ModernCrashBridged"),
    ] {
        let spec = format!("{MODEL}:{spec}");
        let implementation = format!("{MODEL}:{implementation}");
        for equiv in ["trace", "failures", "fd"] {
            let args = compare(&spec, &implementation, equiv, seen);
            let faults = if spec.contains("Crash") { "_crash" } else { "" };
            run(&format!("refines_{seen}{faults}_{equiv}"), &args, 0);
        }
    }
}

/// The deliberate mistake: a bridge that forwards before its legacy handshake is done. Its
/// check is violated, and the failures refinement fails with the error the modern client sees.
#[test]
fn the_eager_bridge_is_caught() {
    check("eager_check", &["check", EAGER], 1);
    let spec = format!("{MODEL}:ModernDirect");
    let eager = format!("{EAGER}:EagerBridged");
    let args = compare(&spec, &eager, "failures", "modern");
    run("eager_compare", &args, 1);
}

/// What cannot be carried across: the legacy peer's direct session does what the bridged
/// one cannot (`XBridged [T= XDirect` fails), seen on the legacy wire: the legacy client's
/// for logging and tasks, the legacy server's for roots and the undeclared elicitation. Each
/// with the shortest trace that shows it.
#[test]
fn the_losses_have_shortest_counterexamples() {
    for loss in ["Roots", "Log", "Task", "Declined"] {
        let bridged = format!("{MODEL}:{loss}Bridged");
        let direct = format!("{MODEL}:{loss}Direct");
        let name = format!("loss_{}", loss.to_lowercase());
        run(&name, &compare(&bridged, &direct, "trace", "legacy"), 1);
    }
}

/// A mistake written into the bridge's text: the checks it violates, and whether each
/// direction's failures refinement still holds: legacy, modern, and each with a server that
/// may go away (`LegacyCrash`, `ModernCrash`).
struct Mistake {
    name: &'static str,
    from: &'static str,
    to: &'static str,
    violated: &'static [&'static str],
    refines: [bool; 4],
}

const MISTAKES: &[Mistake] = &[
    Mistake {
        name: "answers the modern client after its cancel",
        from: "    ls2c?res(=Call, ok) . (ms2c!res(i, ok) . TLServe + mc2s?cancel(=i) . TLServe)",
        to: "    ls2c?res(=Call, ok) . (ms2c!res(i, ok) . TLServe + mc2s?cancel(=i) . ms2c!res(i, ok) . TLServe)",
        violated: &[
            "ModernBridged: ltl [] (mc2s(cancel(i)) -> [] not (ms2c(res(i, _)) or ms2c(input_required(i))))",
            "ModernCrashBridged: ltl [] (mc2s(cancel(i)) -> [] not (ms2c(res(i, _)) or ms2c(input_required(i)) or ms2c(gone(i))))",
        ],
        refines: [true, false, true, false],
    },
    Mistake {
        name: "answers the legacy client after its cancel",
        from: "proc LAnswer(i: Id, ok: Bool) = ls2c!res(i, ok) + lc2s?cancel(=i)",
        to: "proc LAnswer(i: Id, ok: Bool) = ls2c!res(i, ok) + lc2s?cancel(=i) . ls2c!res(i, ok)",
        violated: &[
            "LegacyBridged: ltl [] (lc2s(cancel(i)) -> [] not (ls2c(res(i, _)) or ls2c(req(_, elicitation))))",
            "LegacyCrashBridged: ltl [] (lc2s(cancel(i)) -> [] not (ls2c(res(i, _)) or ls2c(gone(i)) or ls2c(req(_, elicitation))))",
        ],
        refines: [false, true, false, true],
    },
    Mistake {
        name: "refuses the legacy client's cancel of an answer on its way",
        from: "proc LAnswer(i: Id, ok: Bool) = ls2c!res(i, ok) + lc2s?cancel(=i)",
        to: "proc LAnswer(i: Id, ok: Bool) = ls2c!res(i, ok)",
        violated: &[],
        refines: [false, true, false, true],
    },
    Mistake {
        name: "drops the legacy client's cancel instead of closing the modern request",
        from: "  + lc2s?cancel(=i) . (mc2s!cancel(Call + r) + ms2c?down)",
        to: "  + lc2s?cancel(=i)",
        violated: &[
            "LegacyBridged: deadlock free",
            "LegacyBridged: ltl [] (mc2s(mreq(j, _, _)) -> X <> (ms2c(res(j, _)) or ms2c(logs(j)) or ms2c(input_required(j)) or mc2s(cancel(j))))",
            "LegacyBridged: ltl [] (mc2s(retry(j, _)) -> X <> (ms2c(res(j, _)) or ms2c(input_required(j)) or mc2s(cancel(j))))",
            "LegacyCrashBridged: deadlock free",
            "LegacyCrashBridged: ltl [] (mc2s(mreq(j, _, _)) -> X <> (ms2c(res(j, _)) or ms2c(logs(j)) or ms2c(input_required(j)) or ms2c(down) or mc2s(cancel(j))))",
            "LegacyCrashBridged: ltl [] (mc2s(retry(j, _)) -> X <> (ms2c(res(j, _)) or ms2c(input_required(j)) or ms2c(down) or mc2s(cancel(j))))",
            "LegacyRudeBridged: deadlock free",
            "LegacyRudeBridged: ltl [] (mc2s(retry(j, _)) -> X <> (ms2c(res(j, _)) or ms2c(input_required(j)) or ms2c(undeclared(j, _)) or mc2s(cancel(j))))",
        ],
        refines: [true, true, true, true],
    },
    Mistake {
        name: "refuses the legacy client's cancel in the middle of an elicitation",
        from: "  + lc2s?cancel(=i) . Withdraw(r)\n",
        to: "",
        violated: &["LegacyBridged: reachable ls2c(cancel(_))"],
        refines: [false, true, true, true],
    },
    Mistake {
        name: "takes the cancel in the middle of an elicitation but leaves the elicitation open",
        from: "  + lc2s?cancel(=i) . Withdraw(r)\n",
        to: "  + lc2s?cancel(=i)\n",
        violated: &[
            "LegacyBridged: deadlock free",
            "LegacyBridged: ltl [] (ls2c(req(e, _)) -> X <> (lc2s(res(e, _)) or ls2c(cancel(e))))",
            "LegacyBridged: reachable ls2c(cancel(_))",
            "LegacyCrashBridged: deadlock free",
            "LegacyCrashBridged: ltl [] (ls2c(req(e, _)) -> X <> (lc2s(res(e, _)) or ls2c(cancel(e))))",
            "LegacyRudeBridged: deadlock free",
        ],
        refines: [false, true, false, true],
    },
    Mistake {
        name: "sends elicitation caps the legacy client never declared",
        from: "mc2s!mreq(Call, tools, c) . TMAwait",
        to: "mc2s!mreq(Call, tools, elicit) . TMAwait",
        violated: &[
            "LegacyBridged: ltl [] (lc2s(req(_, initialize(bare))) -> [] not (mc2s(mreq(_, _, elicit)) or mc2s(retry(_, elicit))))",
            "LegacyRudeBridged: reachable mc2s(retry(_, bare))",
        ],
        refines: [false, true, false, true],
    },
    Mistake {
        name: "asks a modern client that declared no elicitation",
        from: "    if c != need and c != full then lc2s!res(e, false) . TLAnswered(i, c, r) + ls2c?down . MGone(i)\n    else if",
        to: "    if false then 0\n    else if",
        violated: &[
            "ModernBridged: ltl [] (mc2s(mreq(_, _, bare)) -> [] not ms2c(input_required(_)))",
            "ModernBridged: ltl [] (mc2s(mreq(_, _, elicit)) -> [] (ls2c(req(e, sampling)) -> X lc2s(res(e, false))))",
            "DeclinedBridged: never lc2s(res(_, true))",
        ],
        refines: [true, false, true, false],
    },
    Mistake {
        name: "carries sampling to a modern client that declared elicitation only",
        from: "    if c != need and c != full then",
        to: "    if c == bare then",
        violated: &[
            "ModernBridged: ltl [] (mc2s(mreq(_, _, elicit)) -> [] (ls2c(req(e, sampling)) -> X lc2s(res(e, false))))",
        ],
        refines: [true, true, true, true],
    },
    Mistake {
        name: "asks the legacy client for more than K elicitations",
        from: "(if c != bare and r < K then TMAsk",
        to: "(if c != bare then TMAsk",
        // The round leaves its range (0..K) at the K+1st: the assertion of the range.
        violated: &[
            "LegacyBridged: assertions",
            "LegacyBridged: never ls2c(req(K, elicitation))",
            "LegacyCrashBridged: assertions",
            "LegacyRudeBridged: assertions",
        ],
        refines: [false, true, false, true],
    },
    // X1 as the bridge was before: a round asking for input the legacy client never declared
    // is carried to it like any other. Only a server that breaks M11 asks so, so the
    // refinements (with conforming servers) do not see it; the checks of `LegacyRudeBridged` do.
    Mistake {
        name: "carries input the legacy client never declared",
        from: "(if k == elicitation and r < K then TMDecline(i, c, r, l) else LAnswer(i, false))",
        to: "(if c != bare and r < K then TMAsk(i, c, r, k, l) else LAnswer(i, false))",
        violated: &[
            "LegacyRudeBridged: never ls2c(req(_, sampling))",
            "LegacyRudeBridged: never ls2c(req(_, roots))",
            "LegacyRudeBridged: reachable mc2s(retry(_, bare))",
        ],
        refines: [true, true, true, true],
    },
    Mistake {
        name: "gives the modern client more than K input_required rounds",
        from: "    else if r < K then",
        to: "    else if true then",
        violated: &[
            "ModernBridged: assertions",
            "ModernBridged: never ms2c(input_required(Last))",
            "ModernBridged: never mc2s(retry(Beyond, _))",
            "ModernCrashBridged: assertions",
        ],
        refines: [true, false, true, false],
    },
    Mistake {
        name: "does not take the modern server's end with a call in flight",
        from: "  + ms2c?down . LGone(i)\n",
        to: "",
        violated: &[],
        refines: [true, true, false, true],
    },
    Mistake {
        name: "does not take the legacy server's end with a call in flight",
        from: "  + ls2c?down . MGone(i)\n  // A progress of the held call",
        to: "  // A progress of the held call",
        violated: &[],
        refines: [true, true, true, false],
    },
    Mistake {
        name: "sends the call again in the lost session, not a new one",
        from: "  + ls2c?lost(=Call) . lc2s!req(Init, initialize(full)) .
        (ls2c?res(=Init, _) . lc2s!note(initialized) . lc2s!req(Call, tools) . TLHeld(i, c, 0)
       + ls2c?down . MGone(i))",
        to: "  + ls2c?lost(=Call) . lc2s!req(Call, tools) . TLHeld(i, c, 0)",
        violated: &[
            "ModernCrashBridged: deadlock free",
            "ModernCrashBridged: ltl [] (mc2s(mreq(i, _, _)) -> X <> (ms2c(res(i, _)) or ms2c(input_required(i)) or ms2c(gone(i)) or mc2s(cancel(i))))",
        ],
        refines: [true, true, true, false],
    },
    Mistake {
        name: "does not take the legacy server's end while re-opening its session",
        from: "\n       + ls2c?down . MGone(i))\n// Modern request",
        to: ")\n// Modern request",
        violated: &[
            "ModernCrashBridged: deadlock free",
            "ModernCrashBridged: ltl [] (mc2s(mreq(i, _, _)) -> X <> (ms2c(res(i, _)) or ms2c(input_required(i)) or ms2c(gone(i)) or mc2s(cancel(i))))",
            "ModernCrashBridged: ltl [] (lc2s(req(j, _)) -> X <> (ls2c(res(j, _)) or ls2c(lost(j)) or ls2c(down) or lc2s(cancel(j))))",
        ],
        refines: [true, true, true, false],
    },
    // Progress (the server's `notifications/progress`): under the modern round's token
    // rather than the legacy client's own, relayed after the client's cancel, and to the
    // modern request that ended with its `input_required` rather than to the retry that
    // carries the held call now.
    Mistake {
        name: "relays a retry's progress under the round's token, not the legacy client's",
        from: "    ls2c!prog(i) . TMAwait(i, c, r, l)",
        to: "    ls2c!prog(Call + r) . TMAwait(i, c, r, l)",
        violated: &[
            "LegacyBridged: ltl [] (ms2c(prog(_)) -> X <> (ls2c(prog(Call)) or lc2s(cancel(Call))))",
            "LegacyBridged: ltl [] (ls2c(res(i, _)) -> [] not ls2c(prog(i)))",
        ],
        refines: [false, true, false, true],
    },
    Mistake {
        name: "relays a progress after the legacy client's cancel",
        from: "  + lc2s?cancel(=i) . (ms2c?down + mc2s!cancel(Call + r))",
        to: "  + lc2s?cancel(=i) . ls2c!prog(i) . (ms2c?down + mc2s!cancel(Call + r))",
        violated: &["LegacyBridged: ltl [] (lc2s(cancel(i)) -> [] not ls2c(prog(i)))"],
        refines: [false, true, false, true],
    },
    // A log line of a server that declared no `logging` relayed all the same (X6 broken in
    // the bridge's name). The legacy specs log whatever was declared, so only the check sees it.
    Mistake {
        name: "relays the log line of a server that did not declare logging",
        from: "(if l then TMLog(i, c, r, l) else TMAwait(i, c, r, l))",
        to: "TMLog(i, c, r, l)",
        violated: &["LegacyBridged: ltl [] (ms2c(res(Disc, true)) -> [] not ls2c(note(log)))"],
        refines: [true, true, true, true],
    },
    Mistake {
        name: "relays a held call's log line to the request that ended, not to its retry",
        from: "    ms2c!mlog(i) . TLHeld(i, c, r)",
        to: "    ms2c!mlog(Call) . TLHeld(i, c, r)",
        violated: &[
            "ModernBridged: ltl [] (ms2c(input_required(i)) -> [] not ms2c(mlog(i)))",
            "ModernBridged: reachable ms2c(mlog(Last))",
        ],
        refines: [true, false, true, false],
    },
    Mistake {
        name: "relays a held call's progress to the request that ended, not to its retry",
        from: "    ms2c!prog(i) . TLHeld(i, c, r)",
        to: "    ms2c!prog(Call) . TLHeld(i, c, r)",
        violated: &[
            "ModernBridged: ltl [] (ms2c(input_required(i)) -> [] not ms2c(prog(i)))",
            "ModernBridged: reachable ms2c(prog(Last))",
        ],
        refines: [true, false, true, false],
    },
    Mistake {
        name: "waits for a retry forever",
        from: "  + tau . (lc2s!cancel(Call) . TLServe + ls2c?down . TLGone)\n",
        to: "",
        violated: &[
            "ModernBridged: deadlock free",
            "ModernBridged: ltl [] (lc2s(req(j, _)) -> X <> (ls2c(res(j, _)) or lc2s(cancel(j))))",
            "ModernBridged: ltl [] (ls2c(req(e, _)) -> X <> (lc2s(res(e, _)) or lc2s(cancel(Call))))",
            "ModernCrashBridged: deadlock free",
            "ModernCrashBridged: ltl [] (lc2s(req(j, _)) -> X <> (ls2c(res(j, _)) or ls2c(lost(j)) or ls2c(down) or lc2s(cancel(j))))",
            "ModernCrashBridged: ltl [] (ls2c(req(e, _)) -> X <> (lc2s(res(e, _)) or ls2c(down) or ls2c(lost(Call)) or lc2s(cancel(Call))))",
        ],
        refines: [true, true, true, true],
    },
    // Which call asks (two calls on one legacy session on stdio): the bridge as it was, with
    // no turn, where the server's question went to the first held call whose copy took it.
    // The refinements (one call) do not see it; the checks of `TwoCallsBridged` do.
    Mistake {
        name: "gives the server's elicitation to any held call, with no turn",
        from: "    | TwoCopy(MA, LA, true) | TwoCopy(MB, LB, true)",
        to: "    | TwoCopy(MA, LA, false) | TwoCopy(MB, LB, false)",
        violated: &[
            "TwoCallsBridged: deadlock free",
            "TwoCallsBridged: ltl [] (ls2c(req(EA, _)) -> X ((not ms2c(input_required(MB))) W (lc2s(res(EA, _)) or lc2s(cancel(LA)))))",
            "TwoCallsBridged: ltl [] (ls2c(req(EB, _)) -> X ((not ms2c(input_required(MA))) W (lc2s(res(EB, _)) or lc2s(cancel(LB)))))",
            "TwoCallsBridged: ltl (not lc2s(res(EA, true))) W mc2s(retry(RA, _))",
            "TwoCallsBridged: ltl (not lc2s(res(EB, true))) W mc2s(retry(RB, _))",
            "TwoCallsBridged: never lc2s(res(EA, false))",
            "TwoCallsBridged: ltl [] (mc2s(mreq(m, _, _)) -> X <> (ms2c(res(m, _)) or ms2c(input_required(m))))",
            "TwoCallsBridged: ltl [] (mc2s(retry(j, _)) -> X <> ms2c(res(j, _)))",
        ],
        refines: [true, true, true, true],
    },
];

/// The verdicts other than `holds` that `agentpi check` gives for the model at `path`.
fn violated(path: &str) -> Vec<String> {
    let (status, stdout, stderr) = agentpi(&["check", path, "--format", "json"]);
    assert!(matches!(status, 0 | 1), "{path}: status {status}\n{stderr}");
    let report: serde_json::Value = serde_json::from_str(&stdout).unwrap();
    let text = |v: &serde_json::Value| v.as_str().unwrap().to_string();
    let checks = report["checks"].as_array().unwrap();
    let broken = checks.iter().filter(|c| c["verdict"] != "holds");
    broken
        .map(|c| format!("{}: {}", text(&c["system"]), text(&c["property"])))
        .collect()
}

/// Whether the failures refinement of `direction` holds for the model at `path`.
fn refines(path: &str, direction: &str, spec: &str, implementation: &str) -> bool {
    let spec = format!("{path}:{spec}");
    let implementation = format!("{path}:{implementation}");
    let mut args = compare(&spec, &implementation, "failures", direction);
    args.extend(["--format", "json"].map(str::to_string));
    let args: Vec<&str> = args.iter().map(String::as_str).collect();
    let (status, stdout, stderr) = agentpi(&args);
    assert!(matches!(status, 0 | 1), "{path}: status {status}\n{stderr}");
    let report: serde_json::Value = serde_json::from_str(&stdout).unwrap();
    report["verdict"] == "refines"
}

/// Each mistake is caught, by the checks, the refinement, or both, exactly as the table says;
/// the unchanged text passes all (so each difference is the mistake's).
#[test]
fn every_mistake_in_the_bridge_is_caught() {
    let text = std::fs::read_to_string(repo().join("models/mcp/bridge.pi")).unwrap();
    let dir = std::path::Path::new(env!("CARGO_TARGET_TMPDIR")).join("bridge_mistakes");
    std::fs::create_dir_all(&dir).unwrap();
    let unchanged = Mistake {
        name: "none",
        from: "",
        to: "",
        violated: &[],
        refines: [true; 4],
    };
    for (i, mistake) in std::iter::once(&unchanged).chain(MISTAKES).enumerate() {
        let changed = if mistake.from.is_empty() {
            text.clone()
        } else {
            assert_eq!(text.matches(mistake.from).count(), 1, "{}", mistake.name);
            text.replace(mistake.from, mistake.to)
        };
        let path = dir.join(format!("mistake_{i}.pi"));
        std::fs::write(&path, changed).unwrap();
        let path = path.to_str().unwrap();
        assert_eq!(violated(path), mistake.violated, "{}", mistake.name);
        let found = [
            refines(path, "legacy", "LegacyDirect", "LegacyBridged"),
            refines(path, "modern", "ModernDirect", "ModernBridged"),
            refines(path, "legacy", "LegacyCrashDirect", "LegacyCrashBridged"),
            refines(path, "modern", "ModernCrashDirect", "ModernCrashBridged"),
        ];
        assert_eq!(found, mistake.refines, "{}", mistake.name);
        assert!(
            i == 0 || !mistake.violated.is_empty() || found != [true; 4],
            "{}: nothing catches it",
            mistake.name
        );
    }
}

/// The `$ agentpi compare ...` examples of docs/bridge.md print what the page shows (blank
/// space aside): the page quotes the tool, not a memory of it.
#[test]
fn the_page_shows_what_compare_prints() {
    let page = std::fs::read_to_string(repo().join("docs/bridge.md")).unwrap();
    let mut shown = 0;
    for block in page.split("```text\n").skip(1) {
        let block = block.split("\n```").next().unwrap();
        for example in block.split("$ agentpi ").skip(1) {
            let (command, output) = example.split_once('\n').unwrap_or((example, ""));
            if !command.starts_with("compare ") {
                continue;
            }
            let args: Vec<&str> = command.split_whitespace().collect();
            let (_, stdout, stderr) = agentpi(&args);
            let words = |t: &str| t.split_whitespace().collect::<Vec<_>>().join(" ");
            assert_eq!(words(output), words(&stdout), "{command}\n{stderr}");
            shown += 1;
        }
    }
    assert_eq!(shown, 7, "the examples of docs/bridge.md");
}

/// Every check holds whatever the number of rounds K the bridge carries (at K = 0 the
/// exchanges the `reachable` checks ask for cannot happen), and the state counts, pinned as
/// agentpi gives them, grow by 54 states a round with a legacy client and 93 with a legacy
/// server that crashes; with a modern client (whose legacy server may ask for elicitation or
/// sampling each round) by more each round: 56, 65, 74, and with a server that may go away
/// or lose its session 174, 197, 220; with a modern server that asks for undeclared input
/// (X1) by 27. (The modern server's discover that declares `logging`, `logs`, adds 18 states
/// at every K to the legacy client's systems; the modern server's loss of the session while
/// a call runs after a round, in `LSCall`, adds none: it is the state its answer leads to.
/// A server's progress, once a round before its answer, took the counts at K = 1..4 from
/// 108, 126, 144, 162 / 92, 139, 195, 260 / 147, 177, 207, 237 / 249, 396, 566, 759 to
/// 138, 168, 198, 228 / 106, 159, 221, 292 / 207, 261, 315, 369 / 291, 456, 644, 855; a
/// modern server's log line, once a round before its answer, and the bridge's `l` carried
/// into each call (whether the server declared `logging`), the legacy client's to 195, 249,
/// 303, 357 / 306, 399, 492, 585; a legacy server's log line likewise, the modern client's
/// to these; the undeclared-input server sends neither. Two calls on one legacy session,
/// `TwoCallsBridged`, have one round each whatever K: 231 states.)
#[test]
fn the_checks_hold_for_every_k() {
    let counts = [
        (1, [195, 113, 306, 312, 96, 231]),
        (2, [249, 169, 399, 486, 123, 231]),
        (3, [303, 234, 492, 683, 150, 231]),
        (4, [357, 308, 585, 903, 177, 231]),
    ];
    let systems = [
        "LegacyBridged",
        "ModernBridged",
        "LegacyCrashBridged",
        "ModernCrashBridged",
        "LegacyRudeBridged",
        "TwoCallsBridged",
    ];
    for (k, states) in counts {
        let k = format!("K={k}");
        let (status, stdout, stderr) = agentpi(&["check", MODEL, "-D", &k]);
        assert_eq!(status, 0, "{k}\n{stdout}{stderr}");
        for (system, states) in systems.iter().zip(states) {
            let line = format!("{system}: deadlock free ... holds ({states} states");
            assert!(stdout.contains(&line), "{k}: {line}\n{stdout}");
        }
    }
}

/// The refinements hold whatever K (`compare -D`, both sides), K = 1 to 3; and `-D` reaches
/// them: a bridge whose bound is the literal 2 rather than K refines only at K = 2.
#[test]
fn the_refinements_hold_for_every_k() {
    let pairs = [
        ("legacy", "LegacyDirect", "LegacyBridged"),
        ("modern", "ModernDirect", "ModernBridged"),
        ("legacy", "LegacyCrashDirect", "LegacyCrashBridged"),
        ("modern", "ModernCrashDirect", "ModernCrashBridged"),
    ];
    let text = std::fs::read_to_string(repo().join("models/mcp/bridge.pi")).unwrap();
    let bound = "if c != bare and r < K then TMAsk(i, c, r, elicitation, l)";
    assert_eq!(text.matches(bound).count(), 1);
    let fixed = text.replace(
        bound,
        "if c != bare and r < 2 then TMAsk(i, c, r, elicitation, l)",
    );
    let dir = std::path::Path::new(env!("CARGO_TARGET_TMPDIR")).join("bridge_k");
    std::fs::create_dir_all(&dir).unwrap();
    let fixed_path = dir.join("fixed.pi");
    std::fs::write(&fixed_path, fixed).unwrap();
    let fixed_path = fixed_path.to_str().unwrap();
    for k in 1..=3 {
        let define = format!("K={k}");
        for (seen, spec, implementation) in pairs {
            for equiv in ["failures", "fd"] {
                let spec = format!("{MODEL}:{spec}");
                let implementation = format!("{MODEL}:{implementation}");
                let mut args = compare(&spec, &implementation, equiv, seen);
                args.extend(["-D".to_string(), define.clone()]);
                let args: Vec<&str> = args.iter().map(String::as_str).collect();
                let (status, stdout, stderr) = agentpi(&args);
                assert_eq!(status, 0, "{define}: {args:?}\n{stdout}{stderr}");
            }
        }
        let spec = format!("{fixed_path}:LegacyDirect");
        let implementation = format!("{fixed_path}:LegacyBridged");
        let mut args = compare(&spec, &implementation, "failures", "legacy");
        args.extend(["-D".to_string(), define.clone()]);
        let args: Vec<&str> = args.iter().map(String::as_str).collect();
        let (status, stdout, _) = agentpi(&args);
        assert_eq!(status, if k == 2 { 0 } else { 1 }, "{define}: {stdout}");
    }
}
