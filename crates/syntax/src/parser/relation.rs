//! Relations between state spaces after `check S:`, as FDR users write them: `refines Spec
//! [traces|failures|fd]`, `equivalent Other [strong|branching|dpbranching|weak|traces|failures|
//! fd]` and `deterministic [failures|fd]`. The words are recognised by position only.

use super::{PResult, Parser};
use crate::ast::{Bisimulation, CspModel, Property, Relation, RelationKind};
use crate::token::Tok;

impl Parser<'_> {
    /// Whether a relation starts here: `refines` or `equivalent` before a system's name, or
    /// `deterministic` not used as a label (`deterministic leads to ...`).
    pub(super) fn at_relation(&self) -> bool {
        let system_next = matches!(self.nth(1), Tok::Ident(w) if w.starts_with(char::is_uppercase));
        match self.tok() {
            Tok::Ident(w) if w == "refines" || w == "equivalent" => system_next,
            Tok::Ident(w) if w == "deterministic" => {
                !matches!(
                    self.nth(1),
                    Tok::LParen | Tok::LBracket | Tok::Bang | Tok::Question
                ) && !self.word_at(1, "leads")
            }
            _ => false,
        }
    }

    pub(super) fn relation(&mut self) -> PResult<Property> {
        let word = match self.tok() {
            Tok::Ident(w) => w.clone(),
            _ => String::new(),
        };
        self.bump();
        let (kind, other) = match word.as_str() {
            "deterministic" => (RelationKind::Deterministic(self.determinism_model()?), None),
            "refines" => {
                let spec = self.ident("the name of the specification's system")?;
                (RelationKind::Refines(self.csp_model()?), Some(spec))
            }
            _ => {
                let other = self.ident("the name of a system")?;
                (self.equivalence()?, Some(other))
            }
        };
        Ok(Property::Relation(Relation { kind, other }))
    }

    /// The optional word after a relation, if it is one of `words` (an identifier that is
    /// not one of them is an error saying which are).
    fn mode_word(&mut self, words: &[&str]) -> PResult<Option<String>> {
        let Tok::Ident(w) = self.tok().clone() else {
            return Ok(None);
        };
        if words.contains(&w.as_str()) {
            self.bump();
            return Ok(Some(w));
        }
        let listed: Vec<String> = words.iter().map(|w| format!("`{w}`")).collect();
        Err(self.unexpected(&format!("one of {}", listed.join(", "))))
    }

    /// `traces`, `failures` (the default) or `fd`.
    fn csp_model(&mut self) -> PResult<CspModel> {
        Ok(
            match self.mode_word(&["traces", "failures", "fd"])?.as_deref() {
                Some("traces") => CspModel::Traces,
                Some("fd") => CspModel::FailuresDivergences,
                _ => CspModel::Failures,
            },
        )
    }

    /// `failures` or `fd` (the default, as FDR's `:[deterministic]`).
    fn determinism_model(&mut self) -> PResult<CspModel> {
        Ok(match self.mode_word(&["failures", "fd"])?.as_deref() {
            Some("failures") => CspModel::Failures,
            _ => CspModel::FailuresDivergences,
        })
    }

    /// A bisimulation (`strong` by default, as `agentpi compare`) or a CSP model.
    fn equivalence(&mut self) -> PResult<RelationKind> {
        let words = [
            "strong",
            "branching",
            "dpbranching",
            "weak",
            "traces",
            "failures",
            "fd",
        ];
        Ok(match self.mode_word(&words)?.as_deref() {
            Some("branching") => RelationKind::Bisimilar(Bisimulation::Branching),
            Some("dpbranching") => RelationKind::Bisimilar(Bisimulation::DivBranching),
            Some("weak") => RelationKind::Bisimilar(Bisimulation::Weak),
            Some("traces") => RelationKind::EquivalentIn(CspModel::Traces),
            Some("failures") => RelationKind::EquivalentIn(CspModel::Failures),
            Some("fd") => RelationKind::EquivalentIn(CspModel::FailuresDivergences),
            _ => RelationKind::Bisimilar(Bisimulation::Strong),
        })
    }
}
