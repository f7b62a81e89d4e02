//! The survey: for each service, its models explored and compared under the action
//! correspondence, Φ⁻¹ ∘ Φ against the identity, the lint findings of Φ(S) and Φ⁺(S), and
//! P4's token figures.

use crate::inverse::{Which, differences, inverse};
use crate::model::{self, MAPPING, Transactions};
use crate::phi::{phi, phi_plus};
use crate::schema::Service;
use agentpi_check::{Options, Progress, explore_system, trace::plain_label};
use agentpi_diagnostics::Severity;
use agentpi_lts::{Equivalence, Lts, LtsBuilder, Mapping, Model, compare_bisim};
use agentpi_mcp::lint::{self, Config, ToolSet, tokens::Tokens};
use agentpi_semantics::Semantics;
use serde_json::Value;

/// Explores system `system` of the model `text` (named `name` in errors) into an LTS whose
/// labels are as `agentpi lts` writes them (restricted channels as `tau`).
pub fn lts_of(name: &str, text: &str, system: &str) -> Result<Lts, String> {
    let loaded = agentpi_ir::load_str(name, text);
    if loaded.has_errors() {
        let first = loaded.diagnostics.first().map(|d| d.message.clone());
        return Err(format!(
            "{name} does not load: {}",
            first.unwrap_or_default()
        ));
    }
    let program = &loaded.program;
    let index = program
        .system(system)
        .ok_or_else(|| format!("{name} has no system `{system}`"))?;
    let sem = Semantics::new(program);
    let options = Options {
        threads: 1,
        ..Options::default()
    };
    let graph = explore_system(&sem, index, &options, &Progress::default())
        .map_err(|f| format!("{name}: the initial state faults: {}", f.kind))?;
    let mut builder = LtsBuilder::new();
    let labels: Vec<u32> = graph
        .labels
        .iter()
        .map(|l| builder.intern(&plain_label(&sem, l, true)))
        .collect();
    builder.require_states(graph.state_count());
    for s in 0..graph.state_count() as u32 {
        for e in graph.successors(s) {
            builder.add_transition_id(s, labels[e.label as usize], e.target);
        }
    }
    Ok(builder.finish(0))
}

/// Which equivalences hold between two mapped LTSs.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Verdicts {
    pub strong: bool,
    pub branching: bool,
    pub weak: bool,
    pub trace: bool,
    /// The branching distinguishing formula, when branching bisimilarity fails.
    pub formula: Option<String>,
}

impl Verdicts {
    /// The finest of the four that holds, or "none".
    pub fn finest(&self) -> &'static str {
        match (self.strong, self.branching, self.weak, self.trace) {
            (true, ..) => "strong",
            (_, true, ..) => "branching",
            (_, _, true, _) => "weak",
            (.., true) => "trace",
            _ => "none",
        }
    }
}

/// Compares `left` and `right` after the paper's correspondence ([`MAPPING`]). The
/// equivalences are nested (strong ⊂ branching ⊂ weak ⊂ trace), so only the ones the others do
/// not decide are computed: weak bisimilarity (with its slow evidence) only when branching
/// fails and trace equivalence holds.
pub fn verdicts(left: &Lts, right: &Lts) -> Verdicts {
    verdicts_hiding(left, right, &[])
}

/// [`verdicts`] with the actions named in `hide` hidden as well.
pub fn verdicts_hiding(left: &Lts, right: &Lts, hide: &[&str]) -> Verdicts {
    let mut mapping = Mapping::parse(MAPPING).expect("the built-in mapping parses");
    for name in hide {
        mapping.hide(name).expect("a name is a pattern");
    }
    let (l, r) = (mapping.apply(left), mapping.apply(right));
    let branching = compare_bisim(&l, &r, Equivalence::Branching);
    let trace = agentpi_lts::refinement_equivalent(&l, &r, Model::Traces).equivalent();
    let strong = branching.equivalent && compare_bisim(&l, &r, Equivalence::Strong).equivalent;
    let weak = match (branching.equivalent, trace) {
        (true, _) => true,
        (false, false) => false,
        (false, true) => weakly_bisimilar(&l, &r),
    };
    Verdicts {
        strong,
        branching: branching.equivalent,
        weak,
        trace,
        formula: branching.distinction.map(|d| d.formula.to_string()),
    }
}

/// Whether the initial states of `l` and `r` fall in one class of the weak bisimulation of
/// both (no evidence is built): minimised under a new initial state that reaches each side by
/// a label of its own, so that both sides are reachable.
fn weakly_bisimilar(l: &Lts, r: &Lts) -> bool {
    let mut b = LtsBuilder::new();
    let offset = 1 + l.num_states() as u32;
    b.require_states(offset as usize + r.num_states());
    for (lts, base) in [(l, 1), (r, offset)] {
        let ids: Vec<u32> = lts.labels().iter().map(|x| b.intern(x)).collect();
        for (s, x, t) in lts.transitions() {
            b.add_transition_id(base + s, ids[x as usize], base + t);
        }
    }
    let (to_left, to_right) = (b.intern("\u{0}left"), b.intern("\u{0}right"));
    b.add_transition_id(0, to_left, 1 + l.initial());
    b.add_transition_id(0, to_right, offset + r.initial());
    let reduced = agentpi_lts::minimize(&b.finish(0), Equivalence::Weak);
    reduced.class[(1 + l.initial()) as usize] == reduced.class[(offset + r.initial()) as usize]
}

/// The lint of a tool listing: errors, warnings and the codes found (sorted, once each).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct LintSummary {
    pub errors: usize,
    pub warnings: usize,
    pub codes: Vec<String>,
    pub tokens: Tokens,
}

pub fn lint_listing(origin: &str, listing: &Value) -> LintSummary {
    let tools = listing["tools"].as_array().cloned().unwrap_or_default();
    let set = ToolSet::from_values(origin, origin, "/tools", &tools);
    let report = lint::lint(&set, &lint::Options::default(), &Config::default());
    let mut codes: Vec<String> = report
        .findings
        .iter()
        .map(|f| f.diagnostic.code.to_string())
        .collect();
    codes.sort();
    codes.dedup();
    LintSummary {
        errors: report.count(Severity::Error),
        warnings: report.count(Severity::Warning),
        codes,
        tokens: report.tokens,
    }
}

/// Everything the survey finds about one service.
#[derive(Clone, Debug)]
pub struct Row {
    pub service: String,
    pub transactional: Vec<String>,
    /// States of the SGD model (flag semantics) and of the MCP image.
    pub states: (usize, usize),
    /// SGD (t has no behaviour) against Φ(S).
    pub flag: Verdicts,
    /// SGD (transactional intents approved) against Φ(S).
    pub approval: Verdicts,
    /// The same with `approve` and `decline` hidden: the approval as an internal step.
    pub approval_hidden: Verdicts,
    /// SGD (transactional intents approved) against Φ⁺(S).
    pub plus: Verdicts,
    /// What Φ⁻¹ ∘ Φ changed (empty: the identity).
    pub roundtrip: Vec<String>,
    pub lint: LintSummary,
    pub lint_plus: LintSummary,
}

/// Surveys one service.
pub fn survey(service: &Service) -> Result<Row, String> {
    let name = &service.service_name;
    let build = |what: &str, text: String, system: &str| {
        lts_of(&format!("{name}.{what}.pi"), &text, system)
    };
    let sgd_flag = build("sgd", model::sgd(service, Transactions::Flag), "Sgd")?;
    let sgd_approval = build(
        "sgd_approval",
        model::sgd(service, Transactions::Approval),
        "Sgd",
    )?;
    let mcp = build("mcp", model::mcp(service, Transactions::Flag), "Mcp")?;
    let mcp_plus = build(
        "mcp_plus",
        model::mcp(service, Transactions::Approval),
        "Mcp",
    )?;
    let image = phi(service);
    let back = inverse(&image, name, Which::Plain)?;
    let roundtrip = match &back.result {
        Ok(s) => differences(service, s),
        Err(u) => vec![format!("Φ⁻¹ undefined on {} terms", u.len())],
    };
    Ok(Row {
        service: name.clone(),
        transactional: service
            .intents
            .iter()
            .filter(|i| i.is_transactional)
            .map(|i| i.name.clone())
            .collect(),
        states: (sgd_flag.num_states(), mcp.num_states()),
        flag: verdicts(&sgd_flag, &mcp),
        approval: verdicts(&sgd_approval, &mcp),
        approval_hidden: verdicts_hiding(&sgd_approval, &mcp, &["approve", "decline"]),
        plus: verdicts(&sgd_approval, &mcp_plus),
        roundtrip,
        lint: lint_listing(name, &image),
        lint_plus: lint_listing(name, &phi_plus(service)),
    })
}
