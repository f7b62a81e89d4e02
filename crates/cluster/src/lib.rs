//! Distributed exploration on timely dataflow: a level-synchronous breadth-first search over
//! the workers of one or more processes, each state owned by the worker its fingerprint
//! names. It decides the safety checks (deadlocks, assertions, `never`, `reachable`, state
//! checks) with the single-process engine's states, transitions, verdicts and shortest
//! counterexamples (see [`search`]); liveness is refused before exploring ([`refusal`]).

pub mod codec;
mod connect;
mod expand;
pub mod net;
mod paths;
mod ranks;
pub mod search;
mod stats;
mod workers;

use agentpi_check::parts::{Findings, goals_for, graph_of, is_safety};
use agentpi_check::{End, Limit, Options, SystemReport};
use agentpi_ir::core::{Program, Property};
use agentpi_semantics::{Fault, Semantics};
use expand::{DEADLOCK, FAULT};
pub use net::Flow;
use std::sync::Arc;
use timely::worker::Worker;

/// Where the workers run.
#[derive(Clone, Debug)]
pub struct Cluster {
    /// Every process's `host:port`, in process order (timely's host file); `None`: this
    /// process alone.
    pub hosts: Option<Vec<String>>,
    /// This process's index among them.
    pub process: usize,
    /// Workers (threads) in each process.
    pub workers: usize,
    /// The bytes each process may hold (`--max-memory`).
    pub max_memory: Option<u64>,
    /// The states the search may store, over all processes (`--max-states`).
    pub max_states: Option<usize>,
}

/// The selected checks, each system's in one group (as `agentpi check` groups them).
pub type Groups = Vec<(usize, Vec<usize>)>;

/// Why these checks cannot run on a cluster: the first that is not decided while exploring
/// breadth first (liveness, `ltl`, a relation).
pub fn refusal(program: &Program, groups: &Groups) -> Option<String> {
    let checks = groups.iter().flat_map(|(_, c)| c.iter());
    let c = checks
        .map(|&c| &program.checks[c])
        .find(|c| !is_safety(&c.property))?;
    let system = &program.systems[c.system].name;
    let what = match c.property {
        Property::Relation(_) => "a relation between systems",
        _ => "a liveness check",
    };
    Some(format!(
        "`--cluster` decides safety checks only (deadlock free, never, reachable, assertions, checks over states) for now, and `{system}: {}` is {what}; run it without `--cluster`, or pick the safety checks with `--property`",
        c.text
    ))
}

/// The host file: one `host:port` a line (blank lines and `#` comments left out); a line
/// that is not `host:port` is an error naming its `file:line:column`.
pub fn read_hosts(path: &str) -> Result<Vec<String>, String> {
    let text = std::fs::read_to_string(path).map_err(|e| format!("{path}: {e}"))?;
    let mut hosts = Vec::new();
    for (n, line) in text.lines().enumerate() {
        let entry = line.split('#').next().unwrap_or("");
        let host = entry.trim();
        if host.is_empty() {
            continue;
        }
        let column = entry.len() - entry.trim_start().len() + 1;
        if !is_host_port(host) {
            let at = format!("{path}:{}:{column}", n + 1);
            return Err(format!("{at}: `{host}` is not `host:port`"));
        }
        hosts.push(host.to_string());
    }
    match hosts.is_empty() {
        true => Err(format!("{path}: no `host:port` line")),
        false => Ok(hosts),
    }
}

/// `host:port` with a host and a port number (an IPv6 host in brackets: `[::1]:2101`).
fn is_host_port(entry: &str) -> bool {
    entry
        .rsplit_once(':')
        .is_some_and(|(host, port)| !host.is_empty() && port.parse::<u16>().is_ok())
}

/// Runs the checks on the cluster: the reports on process 0, `None` on the others.
pub fn check(
    program: Program,
    groups: Groups,
    cluster: &Cluster,
) -> Result<Option<Vec<SystemReport>>, String> {
    check_with(program, groups, cluster, Flow::default()).map(|(reports, _)| reports)
}

/// What this process's workers sent, and how their chunks flowed (see [`net::Flow`]).
#[derive(Clone, Debug, Default)]
pub struct Traffic {
    /// The chunks of successors shipped, over every worker of this process.
    pub shipped: u64,
    /// The most chunks of one worker not yet confirmed delivered when it had shipped one.
    pub most_unconfirmed: u64,
    /// The bytes sent to workers of other processes, and to other workers of this one.
    pub sent_out: u64,
    pub sent_in: u64,
}

impl Traffic {
    fn add(&mut self, net: &Traffic) {
        self.shipped += net.shipped;
        self.most_unconfirmed = self.most_unconfirmed.max(net.most_unconfirmed);
        self.sent_out += net.sent_out;
        self.sent_in += net.sent_in;
    }

    fn of(net: &net::Net) -> Traffic {
        Traffic {
            shipped: net.shipped,
            most_unconfirmed: net.most_unconfirmed,
            sent_out: net.sent_out,
            sent_in: net.sent_in,
        }
    }
}

/// [`check`] with chunks of `flow`'s size and credit; also what this process's workers sent.
pub fn check_with(
    program: Program,
    groups: Groups,
    cluster: &Cluster,
    flow: Flow,
) -> Result<(Option<Vec<SystemReport>>, Traffic), String> {
    let program = Arc::new(program);
    let shared = (
        program.clone(),
        Arc::new(groups.clone()),
        (cluster.max_memory, cluster.max_states, flow.chunk),
    );
    let (builders, network) = allocators(cluster)?;
    let stopped = Arc::new(std::sync::atomic::AtomicBool::new(false));
    let why: Arc<std::sync::Mutex<Option<String>>> = Arc::default();
    let first_why = why.clone();
    let threads = cluster.workers;
    let run = move |worker: &mut Worker| {
        let (program, groups, bounds) = &shared;
        let mut net = net::Net::new(worker, stopped.clone(), threads, flow);
        let work = std::panic::AssertUnwindSafe(|| {
            let each = |(system, checks): &(usize, Vec<usize>)| {
                explore(worker, &mut net, program, (*system, checks), *bounds)
            };
            let found = groups.iter().map(each).collect::<Vec<_>>();
            stats::sent(&net);
            (found, Traffic::of(&net))
        });
        match std::panic::catch_unwind(work) {
            Ok(found) => found,
            Err(panic) => {
                let mut why = first_why.lock().unwrap_or_else(|p| p.into_inner());
                why.get_or_insert_with(|| panic_text(&*panic));
                stopped.store(true, std::sync::atomic::Ordering::Relaxed);
                std::panic::resume_unwind(panic)
            }
        }
    };
    // Ending timely's network threads panics when one of them did (a connection broke).
    let joined = std::panic::catch_unwind(std::panic::AssertUnwindSafe(move || {
        workers::execute(builders, network, worker_config(), run)
    }));
    let why = || why.lock().unwrap_or_else(|p| p.into_inner()).clone();
    let joined = joined.map_err(|panic| {
        let said = why().unwrap_or_else(|| panic_text(&*panic));
        format!("a worker of the cluster stopped: {said}")
    })??;
    let mut results = joined.into_iter();
    let first = results.next().expect("a process runs one worker at least");
    // Every worker's end: a worker that stopped (a process lost) makes the run an error,
    // told by the first worker that stopped.
    let stopped = |panic: Box<dyn std::any::Any + Send>| {
        format!(
            "a worker of the cluster stopped: {}",
            why().unwrap_or_else(|| panic_text(&*panic))
        )
    };
    let (found, mut traffic) = first.map_err(stopped)?;
    for r in results {
        traffic.add(&r.map_err(stopped)?.1);
    }
    if cluster.process != 0 {
        return Ok((None, traffic));
    }
    let options = Options {
        max_memory: cluster.max_memory,
        max_states: cluster.max_states,
        ..Options::default()
    };
    let reports = groups.iter().zip(found).map(|((system, checks), found)| {
        let found = std::cell::RefCell::new(found);
        let explore = |sem: &Semantics<'_>, _: &Options, _: &agentpi_check::Goals<'_>| match found
            .borrow_mut()
            .take()
            .expect("explored once")
        {
            Ok(findings) => Ok(graph_of(sem, *system, findings)),
            Err(fault) => Err(fault),
        };
        agentpi_check::check_system_with(&program, *system, checks, &options, &explore)
    });
    Ok((Some(reports.collect()), traffic))
}

/// Workers that park at once when they wait (for another worker's messages): timely's
/// default spins a while first, which on a shared machine burns as much CPU as the waiting
/// lasts.
fn worker_config() -> timely::WorkerConfig {
    timely::WorkerConfig::default().idle_spin(std::time::Duration::ZERO)
}

/// What a panic said; timely's own, when a connection broke, said plainly.
fn panic_text(panic: &(dyn std::any::Any + Send)) -> String {
    let text = match (panic.downcast_ref::<&str>(), panic.downcast_ref::<String>()) {
        (Some(s), _) => s.to_string(),
        (_, Some(s)) => s.clone(),
        _ => "it panicked".to_string(),
    };
    let broken = [
        "MergeQueue poisoned",
        "timely communication error",
        "thread panic",
    ];
    match broken.iter().any(|b| text.contains(b)) {
        true => {
            "the connection to another process broke (did it stop?); nothing was decided".into()
        }
        false => text,
    }
}

/// The workers' allocators: connected to the other processes of the cluster, or of this
/// process alone.
fn allocators(
    cluster: &Cluster,
) -> Result<
    (
        Vec<timely::communication::AllocatorBuilder>,
        Box<dyn std::any::Any + Send>,
    ),
    String,
> {
    use timely::CommunicationConfig as C;
    let threads = cluster.workers.max(1);
    let communication = match &cluster.hosts {
        Some(hosts) => {
            if cluster.process >= hosts.len() {
                return Err(format!(
                    "--process {}: the host file has {} `host:port` lines (processes 0 to {})",
                    cluster.process,
                    hosts.len(),
                    hosts.len() - 1
                ));
            }
            return connect::builders(hosts, cluster.process, threads);
        }
        None if threads > 1 => C::Process(threads),
        None => C::Thread,
    };
    communication.try_build()
}

/// One worker's exploration of one system: on the first worker, what it found (or the
/// initial state's fault).
fn explore(
    worker: &mut Worker,
    net: &mut net::Net,
    program: &Program,
    (system, checks): (usize, &[usize]),
    (max_memory, max_states, chunk): (Option<u64>, Option<usize>, usize),
) -> Option<Result<Findings, Fault>> {
    let sem = Semantics::new(program);
    let goals = goals_for(&sem, program, system, checks);
    let initial = match sem.initial_with_instances(system) {
        Ok((initial, _)) => initial,
        Err(fault) => return (net.index == 0).then_some(Err(fault)),
    };
    let search = search::Search {
        sem: &sem,
        goals: &goals,
        max_memory,
        max_states,
        chunk,
    };
    let (ended, part) = search.run(worker, net, &initial);
    let known = paths::fetch(worker, net, &part, &ended);
    (net.index == 0).then(|| Ok(findings(&sem, &known, ended, goals.labels.len())))
}

/// What the first worker reports: counts, and each finding's path.
fn findings(
    sem: &Semantics<'_>,
    known: &rustc_hash::FxHashMap<u64, (agentpi_semantics::State, u64)>,
    ended: search::Ended,
    label_goals: usize,
) -> Findings {
    let path = |e: &expand::Event| paths::path(known, e.place);
    let labels = ended.firsts.len();
    let fault = ended.firsts[FAULT].as_ref().map(|e| {
        let p = path(e);
        let t = sem
            .successors(p.last().expect("a path"))
            .swap_remove(e.pos as usize);
        (p, t.label, t.fault.expect("a faulty transition"))
    });
    let goals = &ended.firsts[2..labels];
    let (matches, states) = goals.split_at(label_goals);
    let end = match (&ended.end, &ended.limit) {
        (End::Limit(Limit::Cancelled), Some(e)) => {
            let source = path(e).pop().expect("a path");
            let t = sem.successors(&source).into_iter();
            let fault = t.filter_map(|t| t.fault).find(|f| f.kind.is_limit());
            End::Limit(Limit::Model(fault.expect("a bound of the semantics")))
        }
        (end, _) => end.clone(),
    };
    Findings {
        states: ended.states,
        transitions: ended.transitions,
        depth: ended.depth,
        expanded: ended.expanded,
        bytes: ended.bytes,
        end,
        deadlock: ended.firsts[DEADLOCK].as_ref().map(path),
        fault,
        matches: matches
            .iter()
            .map(|m| m.as_ref().map(|e| (path(e), e.pos)))
            .collect(),
        state_goals: states.iter().map(|s| s.as_ref().map(path)).collect(),
    }
}
