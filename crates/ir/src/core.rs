//! The core calculus: the lowered, resolved and typed form of a model that `semantics` steps.
//!
//! Everything is resolved to indices: process terms live in one arena ([`Program::terms`]),
//! variables are cells of the enclosing definition's frame, channels declared with `chan` are
//! [`ChanId`]s, events [`EventId`]s, enum constructors `(EnumId, index)`. Constants are
//! inlined. Every binder of a definition has its own slot, which names it
//! ([`Def::slot_names`]); its cell is the number of binders in scope where it is bound, so
//! binders never in scope together (the branches of a choice, the arms of a `match`) share a
//! cell and a frame is as large as binders nest deep (`lower/layout.rs`). Each term records
//! the slots it reads ([`TermInfo::free`]) and their cells ([`TermInfo::cells`]) so that a
//! running component keeps only the values it can still use: two components that differ only
//! in dead variables are one state.

pub mod ltl;
pub mod state;
pub use state::{AtPoint, Point, StateCheck, StatePred};

use agentpi_diagnostics::Span;

/// Index of a process term in [`Program::terms`].
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct TermId(pub u32);

/// Index of a process definition in [`Program::defs`].
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct DefId(pub u32);

/// Index of a `chan` declaration in [`Program::chans`].
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct ChanId(pub u32);

/// Index of an `event` declaration in [`Program::events`].
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct EventId(pub u32);

/// Index of an enum type in [`Program::enums`].
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct EnumId(pub u32);

/// A variable of the enclosing definition (or system). In a lowered program's terms
/// (`Expr::Var`, `Pattern::Bind`, `NewName::slot`) it is the variable's cell in the frame; in
/// [`TermInfo::free`] and [`Def::slot_names`] it is the binder's own slot, which names it.
/// Parameters are both slot and cell `0..n`.
pub type Slot = u32;

/// Types after resolution: aliases expanded, ranges evaluated.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub enum Type {
    Bool,
    /// A bounded integer range `lo..hi`, both inclusive.
    Int {
        lo: i64,
        hi: i64,
    },
    Enum(EnumId),
    Tuple(Vec<Type>),
    /// A channel carrying these values (empty: a pure synchronisation).
    Chan(Vec<Type>),
}

#[derive(Clone, Debug, PartialEq, Eq)]
pub struct EnumDef {
    pub name: String,
    pub ctors: Vec<CtorDef>,
}

#[derive(Clone, Debug, PartialEq, Eq)]
pub struct CtorDef {
    pub name: String,
    pub fields: Vec<Type>,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum UnOp {
    Neg,
    Not,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum BinOp {
    Add,
    Sub,
    Mul,
    Div,
    Rem,
    Eq,
    Ne,
    Lt,
    Le,
    Gt,
    Ge,
    And,
    Or,
}

/// A typed expression. Range checks happen in `semantics` against the declared types.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub enum Expr {
    Int(i64),
    Bool(bool),
    Var(Slot),
    /// A channel declared with `chan`.
    Chan(ChanId),
    Ctor(EnumId, u32, Vec<Expr>),
    Tuple(Vec<Expr>),
    Unary(UnOp, Box<Expr>),
    Binary(BinOp, Box<Expr>, Box<Expr>),
    /// An element of a channel array chosen at run time.
    ChanIndex(Box<ChanIndex>),
}

/// `c[e, ...]` with indices known only at run time: the element is channel
/// `base + Σ position(eᵢ) · strideᵢ` (row-major), a range fault when an index is outside.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct ChanIndex {
    pub base: ChanId,
    pub dims: Vec<IndexDim>,
    pub index: Vec<Expr>,
}

/// One dimension of a channel array: the position of an index value is its integer (a
/// boolean counts 0 and 1, a constructor its number) minus `lo`, below `size`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct IndexDim {
    pub lo: i64,
    pub size: u32,
}

/// An input or `match` pattern.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub enum Pattern {
    /// Binds the matched value to a cell; the type is the binder's declared or inferred type,
    /// and a value outside an integer range does not match.
    Bind(Slot, Type),
    Wild,
    /// `=e` or a literal: matches only this value.
    Eq(Expr),
    Ctor(EnumId, u32, Vec<Pattern>),
    Tuple(Vec<Pattern>),
}

#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub enum Prefix {
    /// `c!e` / `c!(e, ...)` / `c!`.
    Output {
        chan: Expr,
        args: Vec<Expr>,
    },
    /// `c?p` / `c?(p, ...)` / `c?`.
    Input {
        chan: Expr,
        pats: Vec<Pattern>,
    },
    Tau,
    Event {
        event: EventId,
        args: Vec<Expr>,
    },
    Assert(Expr),
}

/// A fresh channel made by `new`.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct NewName {
    pub slot: Slot,
    /// The name written after `new`: how the channel prints in labels, wherever it travels.
    pub name: String,
    pub ty: Type,
    /// `new c: chan T buffer N`: each channel made here is asynchronous.
    pub buffer: Option<BufferSpec>,
}

#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub enum Term {
    Nil,
    Prefix(Prefix, TermId),
    /// `P + Q + ...`, flattened.
    Choice(Vec<TermId>),
    /// `P | Q | ...`, flattened.
    Par(Vec<TermId>),
    Seq(TermId, TermId),
    New(Vec<NewName>, TermId),
    Repl(TermId),
    If(Expr, TermId, TermId),
    Match(Expr, Vec<(Pattern, TermId)>),
    Call(DefId, Vec<Expr>),
}

/// Facts about one term, computed by lowering.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct TermInfo {
    pub span: Span,
    /// The slots of the binders the term reads, sorted and without duplicates.
    pub free: Vec<Slot>,
    /// The frame cell of each of `free`, in the same order (also increasing): a closure of
    /// the term keeps these cells' values.
    pub cells: Vec<Slot>,
    /// The definition the term belongs to (`None` for a system body).
    pub owner: Option<DefId>,
}

#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Def {
    pub name: String,
    pub params: Vec<(Slot, Type)>,
    pub body: TermId,
    /// `daemon proc`: waiting at the start of the body is a valid end.
    pub daemon: bool,
    /// Number of cells in the frame.
    pub frame: u32,
    /// The name of each slot (parameters first), for showing states.
    pub slot_names: Vec<String>,
    pub span: Span,
}

#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ChanDecl {
    /// The name; an element of an array prints as `c[2]`.
    pub name: String,
    /// What the channel carries.
    pub carries: Vec<Type>,
    /// `buffer N`: an asynchronous FIFO channel; `None` is the synchronous handshake.
    pub buffer: Option<BufferSpec>,
    pub span: Span,
}

/// An asynchronous channel's queue: up to `capacity` messages; a lossy one may lose any
/// message it is sent (and loses what is sent while it is full).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct BufferSpec {
    pub capacity: u32,
    pub lossy: bool,
}

#[derive(Clone, Debug, PartialEq, Eq)]
pub struct EventDecl {
    pub name: String,
    pub args: Vec<Type>,
    pub span: Span,
}

#[derive(Clone, Debug, PartialEq, Eq)]
pub struct SystemDef {
    pub name: String,
    pub body: TermId,
    /// Number of cells in the frame.
    pub frame: u32,
    /// The name of each slot, for showing states.
    pub slot_names: Vec<String>,
    pub span: Span,
}

/// The head of a label pattern in a property.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub enum LabelHead {
    Tau,
    /// A channel by the name it was given where it was created (`chan` or `new`).
    Chan(String),
    /// Any element of the channel array of this name (`c[_]`, or `c` for an array).
    Family(String),
    Event(EventId),
    /// A variable bound on the left of `leads to`, used as the channel on the right.
    Var(String),
}

/// A pattern over label arguments. Variables are named, not slotted: they live in the
/// property, not in a process.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub enum ArgPattern {
    Wild,
    Var(String),
    /// A closed expression (literal, constant, constructor of literals).
    Value(Expr),
    Ctor(EnumId, u32, Vec<ArgPattern>),
    Tuple(Vec<ArgPattern>),
}

/// `c(p, ...)`, `ev(p, ...)`, `tau`. `args: None` matches any arguments.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct LabelPattern {
    pub head: LabelHead,
    /// On a buffered channel: sends (`c!`), receives (`c?`) or both (`c`).
    pub dir: LabelDir,
    pub args: Option<Vec<ArgPattern>>,
    pub span: Span,
}

/// Which steps of a channel a label pattern matches.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub enum LabelDir {
    /// A handshake, or a send or a receive of a buffered channel.
    #[default]
    Any,
    Send,
    Receive,
}

#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Property {
    DeadlockFree,
    Never(LabelPattern),
    Reachable(LabelPattern),
    Eventually(LabelPattern),
    AlwaysEventually(LabelPattern),
    LeadsTo(LabelPattern, LabelPattern),
    /// `ltl FORMULA`.
    Ltl(ltl::Ltl),
    /// `never PRED`, `reachable PRED`, `always PRED` over states.
    State(StateCheck, StatePred),
    /// `refines Spec`, `equivalent Other`, `deterministic`: decided on the state spaces as
    /// `agentpi compare` decides them, not by `agentpi_check::check_system`.
    Relation(Relation),
}

/// A relation of the check's system with another system (`None`: itself, `deterministic`).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Relation {
    pub kind: agentpi_syntax::ast::RelationKind,
    pub other: Option<usize>,
}

#[derive(Clone, Debug, PartialEq, Eq)]
pub struct CheckDef {
    pub system: usize,
    pub property: Property,
    /// Weak fairness of components (`fair ...`); set by `strong fair` too.
    pub fair: bool,
    /// Strong fairness of instances and channels (`strong fair ...`).
    pub strong: bool,
    /// `strong fair(...)`: the channels and instances held to strong fairness, the others
    /// to weak fairness; empty for all of them.
    pub strong_on: Vec<StrongOn>,
    /// The property as written, for reports.
    pub text: String,
    pub span: Span,
}

/// What `strong fair(...)` names.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum StrongOn {
    /// Channels: one, or every element of an array.
    Chans(Vec<ChanId>),
    /// The instances started by a call of `def` in the system's body (with these argument
    /// values, or any).
    Instances { def: DefId, args: Option<Vec<Expr>> },
}

/// The kinds of outcome a call of a real tool has (`agentpi run` classifies each result).
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum OutcomeKind {
    /// A result that is not an error.
    Ok,
    /// A result with `isError`, or a JSON-RPC error.
    Err,
    /// No answer within the deadline (`within`): the call is cancelled.
    Timeout,
    /// The server died (or closed its output) before answering.
    Crash,
}

impl OutcomeKind {
    pub const ALL: [OutcomeKind; 4] = [
        OutcomeKind::Ok,
        OutcomeKind::Err,
        OutcomeKind::Timeout,
        OutcomeKind::Crash,
    ];

    /// How the kind is written (`ok`, `err`, `timeout`, `crash`).
    pub fn name(self) -> &'static str {
        match self {
            OutcomeKind::Ok => "ok",
            OutcomeKind::Err => "err",
            OutcomeKind::Timeout => "timeout",
            OutcomeKind::Crash => "crash",
        }
    }

    pub fn from_name(name: &str) -> Option<OutcomeKind> {
        OutcomeKind::ALL.into_iter().find(|k| k.name() == name)
    }
}

/// What an extern tool answers for one kind of outcome.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ExternOutcome {
    pub kind: OutcomeKind,
    /// The value as written in the declaration's arms; `None`: the constructor named like
    /// the kind.
    pub written: Option<Span>,
}

/// A channel declared `extern`: a call of a real tool. The caller sends the request values and
/// a reply channel last; the tool model answers each call with one of `outcomes`.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Extern {
    pub chan: ChanId,
    pub name: String,
    /// The request values' types (the channel's values before the reply channel).
    pub args: Vec<Type>,
    /// What the reply channel carries.
    pub reply: Type,
    /// `within N`: the deadline of a call, in milliseconds.
    pub within_ms: Option<u64>,
    /// `parallel`: calls may overlap other writing calls to the same tool.
    pub parallel: bool,
    /// In the order of [`OutcomeKind::ALL`]; `timeout` only with a deadline.
    pub outcomes: Vec<ExternOutcome>,
    /// The channel's name in the `extern` declaration.
    pub span: Span,
    /// Where the reply channel's type is written, in the `chan` declaration.
    pub reply_type: Span,
}

/// A whole lowered model: what `semantics` and `check` need, and nothing from the syntax.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Program {
    pub terms: Vec<Term>,
    pub info: Vec<TermInfo>,
    pub defs: Vec<Def>,
    pub enums: Vec<EnumDef>,
    pub chans: Vec<ChanDecl>,
    pub events: Vec<EventDecl>,
    pub systems: Vec<SystemDef>,
    pub checks: Vec<CheckDef>,
    /// Terms marked `end:`: a component waiting at one (through parallel composition, `new`,
    /// `if` and `match` at its start) is at a valid end, as at the start of a `daemon proc`.
    pub end_points: Vec<TermId>,
    /// Named points `l: P`, where `at Proc.l` looks.
    pub points: Vec<Point>,
    /// The channels declared `extern`, in declaration order.
    pub externs: Vec<Extern>,
}

impl Program {
    pub fn term(&self, id: TermId) -> &Term {
        &self.terms[id.0 as usize]
    }

    pub fn info(&self, id: TermId) -> &TermInfo {
        &self.info[id.0 as usize]
    }

    pub fn def(&self, id: DefId) -> &Def {
        &self.defs[id.0 as usize]
    }

    pub fn system(&self, name: &str) -> Option<usize> {
        self.systems.iter().position(|s| s.name == name)
    }

    /// Appends a term with its facts; used by lowering and by tests that build programs by hand.
    pub fn push(&mut self, term: Term, info: TermInfo) -> TermId {
        self.terms.push(term);
        self.info.push(info);
        TermId(self.terms.len() as u32 - 1)
    }
}
