//! `agentpi sim FILE --system S` (or `FILE:S`): step through a system by hand (list the enabled
//! transitions, pick one, go back), or take a reproducible random run.

use crate::model::{self, Model};
use crate::output::{self, count_of};
use agentpi_check::trace::RunNames;
use agentpi_semantics::{Head, Semantics, State, Transition};
use std::io::BufRead;

#[derive(clap::Args)]
pub struct Args {
    /// A model file or the name of a bundled model, optionally with `:System`.
    pub file: String,
    /// The system to run (may be left out when the model has one).
    #[arg(long)]
    pub system: Option<String>,
    /// Pick transitions at random instead of asking.
    #[arg(long)]
    pub random: bool,
    /// The seed of the random run: the same seed gives the same run.
    #[arg(long, default_value_t = 1)]
    pub seed: u64,
    /// The most steps a random run takes.
    #[arg(long, default_value_t = 50)]
    pub steps: usize,
    /// Set a constant of the model: `-D N=6` (repeatable).
    #[arg(short = 'D', value_name = "NAME=VALUE")]
    pub define: Vec<String>,
    /// With --random: show the state before the first step and after each step (where each
    /// instance's components wait, with their values, and what each buffered channel holds).
    #[arg(long)]
    pub states: bool,
}

/// What printing a run needs: the model and its instances' names.
struct View<'a, 's> {
    sem: &'a Semantics<'s>,
    model: &'a Model,
    instances: Vec<String>,
}

/// The exit statuses, for `--help`.
pub const EXIT_STATUS: &str = "Exit status: 0 the run ended well (a valid end state, the last \
    of --steps, or `q`), 1 a random run ended in a deadlock or a failing step (or the initial \
    state fails), 2 an input error or an output that could not be written.";

pub fn run(args: Args) -> u8 {
    let (file, system) = model::file_and_system(&args.file, args.system.as_deref());
    let model = match model::load_defined(file, &args.define, "nothing was run") {
        Ok(m) => m,
        Err(status) => return status,
    };
    let system = match model::system(&model.program, system) {
        Ok(s) => s,
        Err(status) => return status,
    };
    let sem = Semantics::new(&model.program);
    let initial = match sem.initial(system) {
        Ok(state) => state,
        Err(fault) => {
            let at = model.sources.position(fault.span);
            return output::finish(
                &format!("the initial state fails: {at}: {}\n", fault.kind),
                1,
            );
        }
    };
    let name = &model.program.systems[system].name;
    let instances = crate::states::instance_names(&sem, &model, name);
    let view = View {
        sem: &sem,
        model: &model,
        instances,
    };
    if args.random {
        let show = args.states;
        random_run(&view, initial, (args.seed, args.steps), show)
    } else {
        interactive(&view, initial)
    }
}

/// A transition's label; a bare `tau` says who takes it and where (`tau   by Client at
/// f.pi:3:9`), since its label alone does not; a failing step says what failed.
fn label(view: &View<'_, '_>, names: &RunNames, t: &Transition) -> String {
    let (sem, model) = (view.sem, view.model);
    let text = sem.fmt_label(&t.label, &mut |c| names.name(sem, c));
    match (&t.fault, t.at) {
        (Some(f), _) => format!("{text}  !! {}: {}", model.sources.position(f.span), f.kind),
        (None, Some(at)) if matches!(t.label.head, Head::Tau) => {
            let who = t
                .actors
                .first()
                .and_then(|&a| view.instances.get(a as usize));
            let who = who.map_or("?", String::as_str);
            format!("{text}   by {who} at {}", model.sources.position(at))
        }
        (None, _) => text,
    }
}

fn describe(view: &View<'_, '_>, names: &RunNames, state: &State) -> String {
    let (sem, model) = (view.sem, view.model);
    let mut out = String::new();
    if state.procs.is_empty() {
        out.push_str("  (every component has terminated)\n");
    }
    for leaf in state.leaves() {
        let owner = match sem.owner(leaf.term) {
            Some(def) => model.program.def(def).name.clone(),
            None => "system".to_string(),
        };
        let mut values = String::new();
        let slots = crate::states::slot_names(model, leaf.term);
        for (i, v) in leaf.env.iter().enumerate() {
            if i > 0 {
                values.push_str(", ");
            }
            if let Some(name) = slots.get(i) {
                values.push_str(&format!("{name} = "));
            }
            sem.fmt_value(&mut values, v, &mut |c| names.name(sem, c));
        }
        let at = model.sources.position(model.program.info(leaf.term).span);
        out.push_str(&format!("  {owner} at {at} [{values}]\n"));
    }
    for queue in state.queues.iter() {
        let messages: Vec<String> = queue
            .messages
            .iter()
            .map(|m| {
                let values: Vec<String> = m
                    .iter()
                    .map(|v| {
                        let mut text = String::new();
                        sem.fmt_value(&mut text, v, &mut |c| names.name(sem, c));
                        text
                    })
                    .collect();
                format!("({})", values.join(", "))
            })
            .collect();
        let chan = names.name(sem, queue.chan);
        out.push_str(&format!("  {chan} holds {}\n", messages.join(" ")));
    }
    out
}

fn end_note(sem: &Semantics<'_>, state: &State) -> &'static str {
    if sem.is_valid_end(state) {
        "no transitions: a valid end state"
    } else {
        "no transitions: DEADLOCK"
    }
}

/// A random run; status 1 when it ends in a deadlock or a failing step. With `show`, the
/// state before the first step and after each.
fn random_run(
    view: &View<'_, '_>,
    mut state: State,
    (seed, steps): (u64, usize),
    show: bool,
) -> u8 {
    let sem = view.sem;
    let mut rng = seed.wrapping_mul(0x9E37_79B9_7F4A_7C15) | 1;
    let mut names = RunNames::new(sem, &state);
    let shown = |s: &State| match show {
        true => crate::states::describe(sem, view.model, &view.instances, s, "         "),
        false => String::new(),
    };
    let mut out = String::new();
    if show {
        out.push_str(&format!("   start:\n{}", shown(&state)));
    }
    let mut status = 0;
    for step in 1..=steps + 1 {
        let transitions = sem.successors(&state);
        if transitions.is_empty() {
            let steps = count_of(step - 1, "step");
            out.push_str(&format!("after {steps}, {}\n", end_note(sem, &state)));
            status = u8::from(!sem.is_valid_end(&state));
            break;
        }
        if step > steps {
            // The run could go on: say it was the bound that ended it, not the model.
            out.push_str(&format!(
                "stopped after {} (--steps {steps}); the run could go on\n",
                count_of(steps, "step")
            ));
            break;
        }
        rng ^= rng << 13;
        rng ^= rng >> 7;
        rng ^= rng << 17;
        let t = &transitions[(rng % transitions.len() as u64) as usize];
        out.push_str(&format!("{step:>4}. {}\n", label(view, &names, t)));
        if t.fault.is_some() {
            status = 1;
            break;
        }
        names = names.after(sem, t);
        state = t.target.clone();
        out.push_str(&shown(&state));
    }
    output::finish(&out, status)
}

fn interactive(view: &View<'_, '_>, initial: State) -> u8 {
    let sem = view.sem;
    let names = RunNames::new(sem, &initial);
    let mut history = vec![(initial, names)];
    let stdin = std::io::stdin();
    let mut lines = stdin.lock().lines();
    loop {
        let (state, names) = history
            .last()
            .expect("history starts with the initial state")
            .clone();
        let transitions = sem.successors(&state);
        let mut screen = format!(
            "state after {}:\n{}",
            count_of(history.len() - 1, "step"),
            describe(view, &names, &state)
        );
        if transitions.is_empty() {
            screen += &format!("{}\n", end_note(sem, &state));
        }
        for (i, t) in transitions.iter().enumerate() {
            screen += &format!("  {:>3}) {}\n", i + 1, label(view, &names, t));
        }
        screen += "pick a number, b to go back, q to quit> ";
        if let Err(status) = output::stdout(&screen) {
            return status;
        }
        let Some(Ok(line)) = lines.next() else {
            return 0;
        };
        let answer = match line.trim() {
            "q" => return 0,
            "b" if history.len() > 1 => {
                history.pop();
                None
            }
            "b" => Some("already at the initial state".to_string()),
            choice => match choice.parse::<usize>() {
                Ok(n)
                    if (1..=transitions.len()).contains(&n)
                        && transitions[n - 1].fault.is_none() =>
                {
                    let next = names.after(sem, &transitions[n - 1]);
                    history.push((transitions[n - 1].target.clone(), next));
                    None
                }
                Ok(n) if (1..=transitions.len()).contains(&n) => {
                    Some("that step fails; it leads nowhere".to_string())
                }
                _ => Some(format!("`{choice}` is not one of the choices")),
            },
        };
        if let Some(answer) = answer
            && let Err(status) = output::stdout(&format!("{answer}\n"))
        {
            return status;
        }
    }
}
