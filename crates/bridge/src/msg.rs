//! The model's messages (`Msg` of `mcp/bridge`: `req(Id, Kind)`, `mreq(Id, Kind, Caps)`, ...)
//! as Rust values, to and from the semantics' `Value`s by constructor name, so that the
//! runtime reads and writes exactly the labels the checks explored.

use agentpi_ir::core::{EnumId, Program};
use agentpi_semantics::Value;

/// The client's capabilities as the model has them: elicitation and sampling each on its
/// own (`Full`: both); `Rooted` only in the losses.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Caps {
    Bare,
    Elicit,
    Sample,
    Full,
    Rooted,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Kind {
    Initialize(Caps),
    Ping,
    Discover,
    Tools,
    Elicitation,
    Sampling,
    Roots,
    Logging,
    Task,
    Initialized,
    Log,
    /// `resources/subscribe`, `resources/unsubscribe` (legacy).
    Subscribe,
    Unsubscribe,
    /// `subscriptions/listen`: for a resource (true) or for the list changes.
    Listen(bool),
    /// `notifications/resources/updated`, a `notifications/*/list_changed`.
    Updated,
    Changed,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Msg {
    Req(i64, Kind),
    MReq(i64, Kind, Caps),
    Retry(i64, Caps),
    Res(i64, bool),
    InputRequired(i64),
    /// An `input_required` result asking for a kind of input the request did not declare.
    Undeclared(i64, Kind),
    Cancel(i64),
    Note(Kind),
    /// An error for a request in flight: the server went away.
    Gone(i64),
    /// The server's end (stdio: its output closed).
    Down,
    /// HTTP 404 for a message of the call: the legacy server lost the session.
    Lost(i64),
    /// `notifications/subscriptions/acknowledged` for a listen.
    Ack(i64),
    /// A notification on a listen's stream.
    Sub(i64, Kind),
    /// A `server/discover` result (a success) that declares `logging`.
    Logs(i64),
    /// `notifications/progress` naming the progress token of request `i`.
    Prog(i64),
    /// `notifications/message` on the stream of modern request `i`.
    MLog(i64),
}

/// The model's constant ids (`Init`, `Call`, `Ping`, `Level`, `Disc` of `mcp/bridge`).
pub const INIT: i64 = 0;
pub const CALL: i64 = 1;
pub const PING: i64 = 2;
pub const LEVEL: i64 = 3;
pub const DISC: i64 = 0;
/// The subscription part's ids (`Sub`, `Unsub`, `Lists`, `Watch`).
pub const SUB: i64 = 2;
pub const UNSUB: i64 = 3;
pub const LISTS: i64 = 2;
pub const WATCH: i64 = 3;

fn ctor(program: &Program, ty: &str, name: &str, payload: Vec<Value>) -> Value {
    let e = program
        .enums
        .iter()
        .position(|e| e.name == ty)
        .expect("mcp/bridge declares its types");
    let c = program.enums[e]
        .ctors
        .iter()
        .position(|c| c.name == name)
        .expect("mcp/bridge declares its constructors");
    Value::Ctor(EnumId(e as u32), c as u32, payload.into_boxed_slice())
}

/// The constructor's name and payload of an enum value.
fn open<'a>(program: &'a Program, v: &'a Value) -> Option<(&'a str, &'a [Value])> {
    let Value::Ctor(e, c, payload) = v else {
        return None;
    };
    let name = &program.enums[e.0 as usize].ctors[*c as usize].name;
    Some((name.as_str(), &payload[..]))
}

impl Caps {
    fn name(self) -> &'static str {
        match self {
            Caps::Bare => "bare",
            Caps::Elicit => "elicit",
            Caps::Sample => "sample",
            Caps::Full => "full",
            Caps::Rooted => "rooted",
        }
    }

    fn value(self, p: &Program) -> Value {
        ctor(p, "Caps", self.name(), Vec::new())
    }

    fn of(p: &Program, v: &Value) -> Option<Caps> {
        Some(match open(p, v)?.0 {
            "bare" => Caps::Bare,
            "elicit" => Caps::Elicit,
            "sample" => Caps::Sample,
            "full" => Caps::Full,
            "rooted" => Caps::Rooted,
            _ => return None,
        })
    }
}

impl Kind {
    fn value(self, p: &Program) -> Value {
        let plain = |name| ctor(p, "Kind", name, Vec::new());
        match self {
            Kind::Initialize(c) => ctor(p, "Kind", "initialize", vec![c.value(p)]),
            Kind::Ping => plain("ping"),
            Kind::Discover => plain("discover"),
            Kind::Tools => plain("tools"),
            Kind::Elicitation => plain("elicitation"),
            Kind::Sampling => plain("sampling"),
            Kind::Roots => plain("roots"),
            Kind::Logging => plain("logging"),
            Kind::Task => plain("task"),
            Kind::Initialized => plain("initialized"),
            Kind::Log => plain("log"),
            Kind::Subscribe => plain("subscribe"),
            Kind::Unsubscribe => plain("unsubscribe"),
            Kind::Listen(b) => ctor(p, "Kind", "listen", vec![Value::Bool(b)]),
            Kind::Updated => plain("updated"),
            Kind::Changed => plain("changed"),
        }
    }

    fn of(p: &Program, v: &Value) -> Option<Kind> {
        let (name, payload) = open(p, v)?;
        Some(match name {
            "initialize" => Kind::Initialize(Caps::of(p, payload.first()?)?),
            "ping" => Kind::Ping,
            "discover" => Kind::Discover,
            "tools" => Kind::Tools,
            "elicitation" => Kind::Elicitation,
            "sampling" => Kind::Sampling,
            "roots" => Kind::Roots,
            "logging" => Kind::Logging,
            "task" => Kind::Task,
            "initialized" => Kind::Initialized,
            "log" => Kind::Log,
            "subscribe" => Kind::Subscribe,
            "unsubscribe" => Kind::Unsubscribe,
            "listen" => Kind::Listen(payload.first()?.as_bool()?),
            "updated" => Kind::Updated,
            "changed" => Kind::Changed,
            _ => return None,
        })
    }
}

impl Msg {
    /// The model's value of this message.
    pub fn value(self, p: &Program) -> Value {
        let msg = |name, payload| ctor(p, "Msg", name, payload);
        match self {
            Msg::Req(i, k) => msg("req", vec![Value::Int(i), k.value(p)]),
            Msg::MReq(i, k, c) => msg("mreq", vec![Value::Int(i), k.value(p), c.value(p)]),
            Msg::Retry(i, c) => msg("retry", vec![Value::Int(i), c.value(p)]),
            Msg::Res(i, ok) => msg("res", vec![Value::Int(i), Value::Bool(ok)]),
            Msg::InputRequired(i) => msg("input_required", vec![Value::Int(i)]),
            Msg::Undeclared(i, k) => msg("undeclared", vec![Value::Int(i), k.value(p)]),
            Msg::Cancel(i) => msg("cancel", vec![Value::Int(i)]),
            Msg::Note(k) => msg("note", vec![k.value(p)]),
            Msg::Gone(i) => msg("gone", vec![Value::Int(i)]),
            Msg::Down => msg("down", Vec::new()),
            Msg::Lost(i) => msg("lost", vec![Value::Int(i)]),
            Msg::Ack(i) => msg("ack", vec![Value::Int(i)]),
            Msg::Sub(i, k) => msg("sub", vec![Value::Int(i), k.value(p)]),
            Msg::Logs(i) => msg("logs", vec![Value::Int(i)]),
            Msg::Prog(i) => msg("prog", vec![Value::Int(i)]),
            Msg::MLog(i) => msg("mlog", vec![Value::Int(i)]),
        }
    }

    /// The message a model value is (`None` for a value of another type).
    pub fn of(p: &Program, v: &Value) -> Option<Msg> {
        let (name, a) = open(p, v)?;
        let int = |k: usize| match a.get(k) {
            Some(Value::Int(i)) => Some(*i),
            _ => None,
        };
        Some(match name {
            "req" => Msg::Req(int(0)?, Kind::of(p, a.get(1)?)?),
            "mreq" => Msg::MReq(int(0)?, Kind::of(p, a.get(1)?)?, Caps::of(p, a.get(2)?)?),
            "retry" => Msg::Retry(int(0)?, Caps::of(p, a.get(1)?)?),
            "res" => Msg::Res(int(0)?, a.get(1)?.as_bool()?),
            "input_required" => Msg::InputRequired(int(0)?),
            "undeclared" => Msg::Undeclared(int(0)?, Kind::of(p, a.get(1)?)?),
            "cancel" => Msg::Cancel(int(0)?),
            "note" => Msg::Note(Kind::of(p, a.first()?)?),
            "gone" => Msg::Gone(int(0)?),
            "down" => Msg::Down,
            "lost" => Msg::Lost(int(0)?),
            "ack" => Msg::Ack(int(0)?),
            "sub" => Msg::Sub(int(0)?, Kind::of(p, a.get(1)?)?),
            "logs" => Msg::Logs(int(0)?),
            "prog" => Msg::Prog(int(0)?),
            "mlog" => Msg::MLog(int(0)?),
            _ => return None,
        })
    }
}
