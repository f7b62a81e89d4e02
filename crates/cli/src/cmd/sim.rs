//! `agentpi sim FILE --system S`: step through a system by hand (list the enabled
//! transitions, pick one, go back), or take a reproducible random run.

use crate::model::{self, Model};
use agentpi_semantics::{Chan, Semantics, State, Transition};
use std::io::{BufRead, Write};

#[derive(clap::Args)]
pub struct Args {
    /// A model file, or the name of a bundled model.
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
}

pub fn run(args: Args) -> u8 {
    let model = match model::load_defined(&args.file, &args.define) {
        Ok(m) => m,
        Err(status) => return status,
    };
    let system = match model::system(&model.program, args.system.as_deref()) {
        Ok(s) => s,
        Err(status) => return status,
    };
    let sem = Semantics::new(&model.program);
    let initial = match sem.initial(system) {
        Ok(state) => state,
        Err(fault) => {
            println!(
                "the initial state fails: {}: {}",
                model.sources.position(fault.span),
                fault.kind
            );
            return 1;
        }
    };
    if args.random {
        random_run(&sem, &model, initial, args.seed, args.steps)
    } else {
        interactive(&sem, &model, initial)
    }
}

/// A fresh channel printed with its number in the current state.
fn chan_name(sem: &Semantics<'_>, chan: Chan) -> String {
    match chan {
        Chan::Fresh { id, .. } => format!("{}#{}", sem.chan_name(chan), id + 1),
        Chan::Global(_) => sem.chan_name(chan).to_string(),
    }
}

fn label(sem: &Semantics<'_>, model: &Model, t: &Transition) -> String {
    let text = sem.fmt_label(&t.label, &mut |c| chan_name(sem, c));
    match &t.fault {
        Some(f) => format!("{text}  !! {}: {}", model.sources.position(f.span), f.kind),
        None => text,
    }
}

fn describe(sem: &Semantics<'_>, model: &Model, state: &State) -> String {
    if state.procs.is_empty() {
        return "  (every component has terminated)\n".to_string();
    }
    let mut out = String::new();
    for leaf in state.leaves() {
        let owner = match sem.owner(leaf.term) {
            Some(def) => model.program.def(def).name.clone(),
            None => "system".to_string(),
        };
        let mut values = String::new();
        for (i, v) in leaf.env.iter().enumerate() {
            if i > 0 {
                values.push_str(", ");
            }
            sem.fmt_value(&mut values, v, &mut |c| chan_name(sem, c));
        }
        let at = model.sources.position(model.program.info(leaf.term).span);
        out.push_str(&format!("  {owner} at {at} [{values}]\n"));
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

fn random_run(sem: &Semantics<'_>, model: &Model, mut state: State, seed: u64, steps: usize) -> u8 {
    let mut rng = seed.wrapping_mul(0x9E37_79B9_7F4A_7C15) | 1;
    let mut out = String::new();
    for step in 1..=steps {
        let transitions = sem.successors(&state);
        if transitions.is_empty() {
            out.push_str(&format!(
                "after {} steps, {}\n",
                step - 1,
                end_note(sem, &state)
            ));
            break;
        }
        rng ^= rng << 13;
        rng ^= rng >> 7;
        rng ^= rng << 17;
        let t = &transitions[(rng % transitions.len() as u64) as usize];
        out.push_str(&format!("{step:>4}. {}\n", label(sem, model, t)));
        if t.fault.is_some() {
            break;
        }
        state = t.target.clone();
    }
    print!("{out}");
    0
}

fn interactive(sem: &Semantics<'_>, model: &Model, initial: State) -> u8 {
    let mut history = vec![initial];
    let stdin = std::io::stdin();
    let mut lines = stdin.lock().lines();
    loop {
        let state = history
            .last()
            .expect("history starts with the initial state")
            .clone();
        let transitions = sem.successors(&state);
        print!(
            "state after {} steps:\n{}",
            history.len() - 1,
            describe(sem, model, &state)
        );
        if transitions.is_empty() {
            println!("{}", end_note(sem, &state));
        }
        for (i, t) in transitions.iter().enumerate() {
            println!("  {:>3}) {}", i + 1, label(sem, model, t));
        }
        print!("pick a number, b to go back, q to quit> ");
        let _ = std::io::stdout().flush();
        let Some(Ok(line)) = lines.next() else {
            return 0;
        };
        match line.trim() {
            "q" => return 0,
            "b" if history.len() > 1 => drop(history.pop()),
            "b" => println!("already at the initial state"),
            choice => match choice.parse::<usize>() {
                Ok(n)
                    if (1..=transitions.len()).contains(&n)
                        && transitions[n - 1].fault.is_none() =>
                {
                    history.push(transitions[n - 1].target.clone());
                }
                Ok(n) if (1..=transitions.len()).contains(&n) => {
                    println!("that step fails; it leads nowhere")
                }
                _ => println!("`{choice}` is not one of the choices"),
            },
        }
    }
}
