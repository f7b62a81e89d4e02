//! Top-level declarations: `import`, `type`, `const`, `chan`, `event`, `proc`, `system`, `check`
//! (and `extern`, in `externs.rs`).

use super::{Abandon, PResult, Parser, is_upper};
use crate::ast::*;
use crate::token::Tok;
use agentpi_diagnostics::Diagnostic;

const DECLARATION: &str =
    "a declaration (`type`, `const`, `chan`, `event`, `proc`, `system`, `check` or `import`)";

impl Parser<'_> {
    pub(crate) fn file(mut self) -> File {
        let mut items = Vec::new();
        while !self.at_eof() {
            if !self.starts_item() {
                self.unexpected(DECLARATION);
                self.skip_to_item();
                continue;
            }
            self.depth = 0;
            match self.item() {
                Ok(item) => items.push(item),
                Err(Abandon) => self.skip_to_item(),
            }
        }
        File { items }
    }

    /// Skips to the next top-level keyword (or the end of the file).
    pub(super) fn skip_to_item(&mut self) {
        self.bump();
        while !self.at_eof() && !self.at_item() {
            self.bump();
        }
    }

    fn item(&mut self) -> PResult<Item> {
        let start = self.span();
        let errors_before = self.diags.len();
        let item = match self.tok() {
            Tok::Import => Item::Import(self.import()?),
            Tok::Type => Item::Type(self.type_decl()?),
            Tok::Const => Item::Const(self.const_decl()?),
            Tok::Chan => Item::Chan(self.chan_decl()?),
            Tok::Event => Item::Event(self.event_decl()?),
            Tok::Proc | Tok::Daemon => Item::Proc(self.proc_decl()?),
            Tok::System => Item::System(self.system_decl()?),
            Tok::Check => Item::Check(self.check_decl()?),
            _ => Item::Extern(self.extern_decl()?),
        };
        if !self.at_eof() && !self.starts_item() {
            if self.diags.len() > errors_before {
                // The item already has an error; what follows is part of that mistake.
                self.skip_to_item();
                return Ok(item);
            }
            let diag = Diagnostic::error(
                "E0110",
                format!("expected {DECLARATION}, found {}", self.tok().describe()),
            )
            .at(self.span())
            .with_label("the declaration before this one ends here")
            .with_help(format!(
                "check the declaration that starts at `{}`",
                self.text_of(start)
            ));
            self.report(diag);
            self.skip_to_item();
        }
        Ok(item)
    }

    fn import(&mut self) -> PResult<Import> {
        let start = self.bump();
        match self.tok().clone() {
            Tok::Str(path) => {
                let end = self.bump();
                Ok(Import {
                    path,
                    span: start.to(end),
                })
            }
            _ => Err(self.unexpected("a quoted file or model name, as in `import \"mcp.pi\"`")),
        }
    }

    /// A declared name, with a case check: `upper` names types, processes, systems, constants.
    fn decl_name(&mut self, what: &str, upper: bool) -> PResult<Ident> {
        let name = self.ident(&format!("the name of the {what}"))?;
        if is_upper(&name.name) != upper {
            let case = if upper {
                "an upper-case"
            } else {
                "a lower-case"
            };
            let diag = Diagnostic::error(
                "E0112",
                format!("the name of a {what} starts with {case} letter"),
            )
            .at(name.span)
            .with_label("wrong case")
            .with_help(format!(
                "rename it, for example to `{}`",
                recase(&name.name, upper)
            ));
            self.report(diag);
        }
        Ok(name)
    }

    fn type_decl(&mut self) -> PResult<TypeDecl> {
        let start = self.bump();
        let name = self.decl_name("type", true)?;
        self.expect(&Tok::Assign, "`=`")?;
        let is_enum = match self.tok() {
            Tok::Bar => true,
            Tok::Ident(word) => !is_upper(word),
            _ => false,
        };
        let def = if is_enum {
            TypeDef::Enum(self.variants()?)
        } else {
            TypeDef::Alias(self.type_expr()?)
        };
        Ok(TypeDecl {
            name,
            def,
            span: start.to(self.prev_span()),
        })
    }

    fn variants(&mut self) -> PResult<Vec<Variant>> {
        self.eat(&Tok::Bar);
        let mut variants = Vec::new();
        loop {
            let name = self.decl_name("constructor", false)?;
            let fields = if self.eat(&Tok::LParen) {
                self.list(&Tok::RParen, |p| p.type_expr())?
            } else {
                Vec::new()
            };
            variants.push(Variant { name, fields });
            if !self.eat(&Tok::Bar) {
                return Ok(variants);
            }
        }
    }

    fn const_decl(&mut self) -> PResult<ConstDecl> {
        let start = self.bump();
        let name = self.decl_name("constant", true)?;
        self.expect(&Tok::Assign, "`=`")?;
        let value = self.expr()?;
        Ok(ConstDecl {
            name,
            value,
            span: start.to(self.prev_span()),
        })
    }

    fn chan_decl(&mut self) -> PResult<ChanDecl> {
        let start = self.bump();
        let name = self.decl_name("channel", false)?;
        let mut dims = Vec::new();
        while self.eat(&Tok::LBracket) {
            dims.push(self.type_expr()?);
            self.expect(&Tok::RBracket, "`]` after the index type")?;
        }
        let carries = if self.eat(&Tok::Colon) && !self.at_buffer() {
            self.carried()?
        } else {
            Vec::new()
        };
        let buffer = self.buffer()?;
        Ok(ChanDecl {
            name,
            dims,
            carries,
            buffer,
            span: start.to(self.prev_span()),
        })
    }

    fn at_buffer(&self) -> bool {
        matches!(self.tok(), Tok::Ident(w) if w == "buffer" || w == "lossy")
    }

    /// An optional `buffer N` or `lossy buffer N`.
    pub(super) fn buffer(&mut self) -> PResult<Option<Buffer>> {
        if !self.at_buffer() {
            return Ok(None);
        }
        let start = self.span();
        let lossy = matches!(self.tok(), Tok::Ident(w) if w == "lossy");
        if lossy {
            self.bump();
        }
        if !matches!(self.tok(), Tok::Ident(w) if w == "buffer") {
            return Err(self.unexpected("`buffer` and its capacity, as in `lossy buffer 2`"));
        }
        self.bump();
        let capacity = self.simple_expr()?;
        Ok(Some(Buffer {
            capacity,
            lossy,
            span: start.to(self.prev_span()),
        }))
    }

    fn event_decl(&mut self) -> PResult<EventDecl> {
        let start = self.bump();
        let name = self.decl_name("event", false)?;
        let args = if self.eat(&Tok::LParen) {
            self.list(&Tok::RParen, |p| p.type_expr())?
        } else {
            Vec::new()
        };
        Ok(EventDecl {
            name,
            args,
            span: start.to(self.prev_span()),
        })
    }

    fn proc_decl(&mut self) -> PResult<ProcDecl> {
        let start = self.span();
        let daemon = self.eat(&Tok::Daemon);
        self.expect(&Tok::Proc, "`proc` after `daemon`")?;
        let name = self.decl_name("process", true)?;
        let params = if self.eat(&Tok::LParen) {
            self.list(&Tok::RParen, |p| p.param())?
        } else {
            Vec::new()
        };
        self.expect(&Tok::Assign, "`=` before the process body")?;
        let body = self.body();
        Ok(ProcDecl {
            name,
            daemon,
            params,
            body,
            span: start.to(self.prev_span()),
        })
    }

    fn param(&mut self) -> PResult<Param> {
        let name = self.decl_name("parameter", false)?;
        self.expect(&Tok::Colon, "`:` and the parameter's type")?;
        let ty = self.type_expr()?;
        Ok(Param { name, ty })
    }

    fn system_decl(&mut self) -> PResult<SystemDecl> {
        let start = self.bump();
        let name = self.decl_name("system", true)?;
        self.expect(&Tok::Assign, "`=` before the system's process")?;
        let body = self.body();
        Ok(SystemDecl {
            name,
            body,
            span: start.to(self.prev_span()),
        })
    }

    fn check_decl(&mut self) -> PResult<CheckDecl> {
        let start = self.bump();
        let system = self.ident("the name of a system")?;
        self.expect(&Tok::Colon, "`:` and a property")?;
        let from = self.span();
        let (fair, strong) = self.fairness();
        let strong_on = match strong && self.eat(&Tok::LParen) {
            true => self.list(&Tok::RParen, |p| p.expr())?,
            false => Vec::new(),
        };
        let property = self.property()?;
        let written = self.text_of(from.to(self.prev_span()));
        let text = written.split_whitespace().collect::<Vec<_>>().join(" ");
        Ok(CheckDecl {
            system,
            fair,
            strong,
            strong_on,
            property,
            text,
            span: start.to(self.prev_span()),
        })
    }
}

impl Parser<'_> {
    /// `fair` (weak fairness) or `strong fair` before a property: (fair, strong).
    fn fairness(&mut self) -> (bool, bool) {
        if self.word_at(0, "strong") && self.word_at(1, "fair") {
            self.bump();
            self.bump();
            return (true, true);
        }
        let fair = self.word_at(0, "fair");
        if fair {
            self.bump();
        }
        (fair, false)
    }
}

fn recase(name: &str, upper: bool) -> String {
    let mut chars = name.chars();
    let first = chars.next().map(|c| {
        if upper {
            c.to_ascii_uppercase()
        } else {
            c.to_ascii_lowercase()
        }
    });
    first.into_iter().chain(chars).collect()
}
