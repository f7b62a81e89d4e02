//! The syntax tree: what the parser produces, with a span on every node.
//!
//! Names are not resolved here: a lower-case name in an expression may be a variable, a
//! channel, a constant or an enum constructor; `ir` decides. Erroneous input becomes `Error`
//! nodes, so a tree always exists.

use agentpi_diagnostics::Span;

/// A name as written, with its place.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Ident {
    pub name: String,
    pub span: Span,
}

/// A whole `.pi` file.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct File {
    pub items: Vec<Item>,
}

#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Item {
    Import(Import),
    Type(TypeDecl),
    Const(ConstDecl),
    Chan(ChanDecl),
    Event(EventDecl),
    Proc(ProcDecl),
    System(SystemDecl),
    Check(CheckDecl),
    Extern(ExternDecl),
}

/// `import "file.pi"` or `import "name"` (a bundled model).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Import {
    pub path: String,
    pub span: Span,
}

/// `type Name = ...`.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct TypeDecl {
    pub name: Ident,
    pub def: TypeDef,
    pub span: Span,
}

#[derive(Clone, Debug, PartialEq, Eq)]
pub enum TypeDef {
    /// `a | b(T, ...) | ...`.
    Enum(Vec<Variant>),
    /// Any other type expression: a range, tuple, channel type or another name.
    Alias(TypeExpr),
}

/// One enum constructor and its payload types.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Variant {
    pub name: Ident,
    pub fields: Vec<TypeExpr>,
}

#[derive(Clone, Debug, PartialEq, Eq)]
pub enum TypeExpr {
    /// `Bool`, or a declared type name.
    Named(Ident),
    /// `lo..hi` with constant bounds, both inclusive.
    Range(Box<Expr>, Box<Expr>, Span),
    /// `(T, U, ...)`.
    Tuple(Vec<TypeExpr>, Span),
    /// `chan`, `chan T` or `chan (T, U)`: a channel carrying these values.
    Chan(Vec<TypeExpr>, Span),
    Error(Span),
}

impl TypeExpr {
    pub fn span(&self) -> Span {
        match self {
            TypeExpr::Named(ident) => ident.span,
            TypeExpr::Range(_, _, span)
            | TypeExpr::Tuple(_, span)
            | TypeExpr::Chan(_, span)
            | TypeExpr::Error(span) => *span,
        }
    }
}

/// `const N = e`.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ConstDecl {
    pub name: Ident,
    pub value: Expr,
    pub span: Span,
}

/// `chan c : T` or `chan c`; `chan c[T] : U` declares an array of channels, one per value of
/// the finite type `T` (`chan c[N]` with a constant `N`: one per `0..N-1`); `buffer N` or
/// `lossy buffer N` after it makes each an asynchronous FIFO of capacity `N`.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ChanDecl {
    pub name: Ident,
    pub dims: Vec<TypeExpr>,
    pub carries: Vec<TypeExpr>,
    pub buffer: Option<Buffer>,
    pub span: Span,
}

/// `buffer N` or `lossy buffer N`: an asynchronous channel holding up to `N` messages.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Buffer {
    pub capacity: Expr,
    pub lossy: bool,
    pub span: Span,
}

/// `event ev(T, ...)` or `event ev`.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct EventDecl {
    pub name: Ident,
    pub args: Vec<TypeExpr>,
    pub span: Span,
}

/// `[daemon] proc Name(x: T, ...) = P`.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ProcDecl {
    pub name: Ident,
    pub daemon: bool,
    pub params: Vec<Param>,
    pub body: Proc,
    pub span: Span,
}

#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Param {
    pub name: Ident,
    pub ty: TypeExpr,
}

/// `system Name = P`.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct SystemDecl {
    pub name: Ident,
    pub body: Proc,
    pub span: Span,
}

/// `extern c, d [within N] [parallel] [{ ok => e, err | crash => f }]`: channels whose other end
/// is a real tool, called by sending the request values and a reply channel last
/// (`agentpi run` binds them; every system gets a model of each such tool).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ExternDecl {
    pub chans: Vec<Ident>,
    /// `within N`: the call's deadline in milliseconds; the call may then time out.
    pub within: Option<Expr>,
    /// `parallel`: calls may overlap other writing calls to the same tool.
    pub parallel: bool,
    /// The value answered for each kind of outcome; kinds left out answer the constructor of
    /// their own name.
    pub outcomes: Vec<OutcomeArm>,
    pub span: Span,
}

/// `ok => e` or `err | timeout | crash => e` in an `extern` declaration.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct OutcomeArm {
    /// `ok`, `err`, `timeout` or `crash` (checked by `ir`).
    pub kinds: Vec<Ident>,
    pub value: Expr,
}

/// `check S: [[strong] fair [(on, ...)]] property`.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct CheckDecl {
    pub system: Ident,
    /// Some fairness (`fair`, or `strong fair`).
    pub fair: bool,
    /// `strong fair`: strong fairness of instances and channels (implies `fair`).
    pub strong: bool,
    /// `strong fair(link, Receiver, Node(1))`: the channels and instances held to strong
    /// fairness, the others to weak fairness; empty for all of them.
    pub strong_on: Vec<Expr>,
    pub property: Property,
    /// The property as written (after the colon), whitespace normalised.
    pub text: String,
    pub span: Span,
}

#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Property {
    DeadlockFree,
    Never(LabelPat),
    Reachable(LabelPat),
    Eventually(LabelPat),
    AlwaysEventually(LabelPat),
    LeadsTo(LabelPat, LabelPat),
    /// `ltl FORMULA`: action-based LTL over labels.
    Ltl(Ltl),
    /// `forall i in T, ...: property`: the property once per value of its index variables.
    Forall(Vec<ForallBinder>, Box<Property>),
    /// `never PRED`, `reachable PRED`, `always PRED` over states (see [`StatePred`]).
    State(StateCheck, StatePred),
    /// `refines Spec`, `equivalent Other`, `deterministic`: a relation between state spaces.
    Relation(Relation),
    Error,
}

/// `refines Spec [traces|failures|fd]`, `equivalent Other [strong|branching|dpbranching|weak|
/// traces|failures|fd]`, `deterministic [failures|fd]`: the check's system compared with
/// another system's state space (or with itself).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Relation {
    pub kind: RelationKind,
    /// The other system (`None` for `deterministic`).
    pub other: Option<Ident>,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum RelationKind {
    /// The check's system refines the other (FDR's `Other [X= System`).
    Refines(CspModel),
    /// Both ways in a CSP model.
    EquivalentIn(CspModel),
    Bisimilar(Bisimulation),
    Deterministic(CspModel),
}

/// A semantic model of CSP.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum CspModel {
    Traces,
    Failures,
    FailuresDivergences,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Bisimulation {
    Strong,
    Branching,
    /// Divergence-preserving branching bisimulation.
    DivBranching,
    Weak,
}

/// `i in T` after `forall`: an index variable and its finite type.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ForallBinder {
    pub name: Ident,
    pub ty: TypeExpr,
}

/// A formula of `ltl`, with where it was written.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Ltl {
    pub kind: LtlKind,
    pub span: Span,
}

#[derive(Clone, Debug, PartialEq, Eq)]
pub enum LtlKind {
    True,
    False,
    /// A label pattern: holds at a step whose label it matches.
    Atom(LabelPat),
    /// A state predicate: holds at a step whose source state satisfies it.
    State(StatePred),
    Not(Box<Ltl>),
    And(Box<Ltl>, Box<Ltl>),
    Or(Box<Ltl>, Box<Ltl>),
    Implies(Box<Ltl>, Box<Ltl>),
    /// `[]`, `always`.
    Always(Box<Ltl>),
    /// `<>`, `eventually`.
    Eventually(Box<Ltl>),
    /// `X`, `next`.
    Next(Box<Ltl>),
    /// `U`, `until`.
    Until(Box<Ltl>, Box<Ltl>),
    /// `R`, `release`.
    Release(Box<Ltl>, Box<Ltl>),
    /// `W`, `unless`: weak until.
    WeakUntil(Box<Ltl>, Box<Ltl>),
}

/// Which states a state property speaks of.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum StateCheck {
    /// No reachable state satisfies the predicate.
    Never,
    /// Some reachable state does.
    Reachable,
    /// Every reachable state does.
    Always,
}

/// A predicate over a state: where instances are, what buffered channels hold.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct StatePred {
    pub kind: StatePredKind,
    pub span: Span,
}

#[derive(Clone, Debug, PartialEq, Eq)]
pub enum StatePredKind {
    /// `at P.l` or `at P(e, ...).l`: a component (of the instance `P(e, ...)`) waits at the
    /// point `l:` of `proc P`.
    At {
        proc: Ident,
        args: Option<Vec<Expr>>,
        point: Ident,
    },
    /// `len(c) OP e`: the number of messages a buffered channel holds, compared.
    Len {
        chan: Ident,
        index: Vec<Expr>,
        op: BinOp,
        value: Expr,
    },
    /// `c contains p` or `c contains (p, ...)`: some message in the buffer matches.
    Contains {
        chan: Ident,
        index: Vec<Expr>,
        args: Vec<Pattern>,
    },
    Not(Box<StatePred>),
    And(Box<StatePred>, Box<StatePred>),
    Or(Box<StatePred>, Box<StatePred>),
}

/// A label pattern in a property: `tau`, `c`, `c(p, ...)`, `c[i](p, ...)`; on a buffered
/// channel `c!(...)` matches sends and `c?(...)` receives.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct LabelPat {
    pub head: LabelHead,
    /// `c[e, ...]`: an element of a channel array (`_` matches any element).
    pub index: Vec<Pattern>,
    pub dir: LabelDir,
    /// `None` when no parentheses were written: any arguments match.
    pub args: Option<Vec<Pattern>>,
    pub span: Span,
}

/// Which steps of a channel a label pattern matches.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum LabelDir {
    /// A communication, or a send or a receive of a buffered channel.
    #[default]
    Any,
    /// `c!`: a send into a buffered channel.
    Send,
    /// `c?`: a receive from a buffered channel.
    Receive,
}

#[derive(Clone, Debug, PartialEq, Eq)]
pub enum LabelHead {
    Tau,
    Name(Ident),
}

/// A process term.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Proc {
    pub kind: ProcKind,
    pub span: Span,
}

#[derive(Clone, Debug, PartialEq, Eq)]
pub enum ProcKind {
    Nil,
    /// `p1 . p2 . ... . P`: a chain of prefixes (kept flat so long chains do not nest).
    Prefixed(Vec<Prefix>, Box<Proc>),
    Choice(Vec<Proc>),
    Seq(Vec<Proc>),
    Par(Vec<Proc>),
    New(Vec<NewBinder>, Box<Proc>),
    Repl(Box<Proc>),
    /// `par i in T . P`: one copy of `P` per value of the finite type `T`, side by side.
    ParFor(Ident, TypeExpr, Box<Proc>),
    /// `end: P`: a component waiting at the start of `P` is at a valid end.
    End(Box<Proc>),
    /// `l: P`: a named point, where state predicates (`at Proc.l`) look.
    Point(Ident, Box<Proc>),
    If(Expr, Box<Proc>, Box<Proc>),
    Match(Expr, Vec<Arm>),
    Call(Ident, Vec<Expr>),
    Error,
}

/// `x`, `x: T` or `x: chan T buffer N` after `new`.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct NewBinder {
    pub name: Ident,
    pub ty: Option<TypeExpr>,
    pub buffer: Option<Buffer>,
}

/// `pattern => P` in a `match`.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Arm {
    pub pat: Pattern,
    pub body: Proc,
}

#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Prefix {
    pub kind: PrefixKind,
    pub span: Span,
}

#[derive(Clone, Debug, PartialEq, Eq)]
pub enum PrefixKind {
    /// `c!...`, `c[i]!...`.
    Output {
        chan: Ident,
        index: Vec<Expr>,
        args: Vec<Expr>,
    },
    /// `c?...`, `c[i]?...`.
    Input {
        chan: Ident,
        index: Vec<Expr>,
        pats: Vec<Pattern>,
    },
    Tau,
    /// `ev` or `ev(e, ...)`; also what a bare lower-case name parses to.
    Event {
        name: Ident,
        args: Vec<Expr>,
    },
    Assert(Expr),
}

#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Expr {
    pub kind: ExprKind,
    pub span: Span,
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

#[derive(Clone, Debug, PartialEq, Eq)]
pub enum ExprKind {
    Int(i64),
    Bool(bool),
    /// A variable, channel, constant or constructor without payload.
    Name(Ident),
    /// A constructor with payload: `ok(e)`.
    Apply(Ident, Vec<Expr>),
    /// An element of a channel array: `c[e]`, `c[e][f]`.
    Index(Ident, Vec<Expr>),
    Tuple(Vec<Expr>),
    Unary(UnOp, Box<Expr>),
    Binary(BinOp, Box<Expr>, Box<Expr>),
    Error,
}

#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Pattern {
    pub kind: PatternKind,
    pub span: Span,
}

#[derive(Clone, Debug, PartialEq, Eq)]
pub enum PatternKind {
    /// A binder, or a constructor without payload, or (upper-case) a constant.
    Name(Ident),
    /// `x: T`: a binder with a declared type (a value outside it does not match).
    Typed(Ident, TypeExpr),
    Wild,
    /// `=e`, and literals: match only this value.
    Eq(Expr),
    Ctor(Ident, Vec<Pattern>),
    Tuple(Vec<Pattern>),
    Error,
}
