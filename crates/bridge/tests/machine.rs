//! A copy of the bridge's process steps by look-up once a step is known (`machine`'s table):
//! each step of a request through `ToLegacy`, taken first by the semantics, then again by
//! look-up, gives what the semantics give a copy of another load of the model (a table of
//! its own), and reaches the same state.

use agentpi_bridge::machine::Machine;
use agentpi_bridge::model::{BRIDGE, Model, load, model};
use agentpi_bridge::msg::{CALL, Caps, INIT, Kind, Msg};

/// What is asked of a copy: an input on a wire channel, or the next output.
enum Ask {
    In(&'static str, Msg),
    Out,
}

/// A request through a session that is open: the request, the legacy call, its answer, the
/// modern answer, and nothing more.
const REQUEST: &[Ask] = &[
    Ask::In("mc2s", Msg::MReq(CALL, Kind::Tools, Caps::Bare)),
    Ask::Out,
    Ask::In("ls2c", Msg::Res(CALL, true)),
    Ask::Out,
    Ask::Out,
];

fn chan(model: &Model, name: &str) -> agentpi_ir::core::ChanId {
    match name {
        "mc2s" => model.mc2s,
        "ls2c" => model.ls2c,
        _ => unreachable!("an input channel of ToLegacy"),
    }
}

/// `ToLegacy`'s session, open: its `initialize` answered.
fn session(model: &'static Model) -> Machine {
    let mut session = Machine::start(model, "RunToLegacy").unwrap();
    let outputs = [model.ms2c, model.lc2s];
    let init = session.output(&outputs).unwrap();
    assert!(
        matches!(init, Some((_, Msg::Req(_, Kind::Initialize(_))))),
        "{init:?}"
    );
    session.input(model.ls2c, Msg::Res(INIT, true)).unwrap();
    let note = session.output(&outputs).unwrap();
    assert!(
        matches!(note, Some((_, Msg::Note(Kind::Initialized)))),
        "{note:?}"
    );
    assert_eq!(session.output(&outputs), Ok(None));
    session
}

/// What each step of `REQUEST` gave a copy of `session`.
fn steps(model: &'static Model, session: &Machine, copy: &mut Machine) -> Vec<String> {
    let outputs = [model.ms2c, model.lc2s];
    let mut seen = Vec::new();
    for ask in REQUEST {
        let got = match ask {
            Ask::In(name, msg) => format!("{:?}", copy.input(chan(model, name), *msg)),
            Ask::Out => format!("{:?}", copy.output(&outputs)),
        };
        seen.push(got);
    }
    seen.push(format!("back at the session: {}", copy.same_as(session)));
    seen
}

#[test]
fn a_remembered_step_is_the_semantics_step() {
    let shared = model().unwrap();
    let other: &'static Model = Box::leak(Box::new(load(BRIDGE).unwrap()));
    let (session, other_session) = (session(shared), session(other));
    let mut found = session.clone();
    let first = steps(shared, &session, &mut found);
    let mut remembered = session.clone();
    let again = steps(shared, &session, &mut remembered);
    let mut elsewhere = other_session.clone();
    let by_the_semantics = steps(other, &other_session, &mut elsewhere);
    assert_eq!(first, by_the_semantics);
    assert_eq!(again, by_the_semantics);
    assert_eq!(first.last().unwrap(), "back at the session: true");
    // Copies of two loads compare by their components.
    assert!(remembered.same_as(&elsewhere));
    assert!(!session.clone().same_as(&{
        let mut moved = other_session.clone();
        moved
            .input(other.mc2s, Msg::MReq(CALL, Kind::Tools, Caps::Bare))
            .unwrap();
        moved
    }));
}
