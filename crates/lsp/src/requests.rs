//! Each request's parameters to the analysis and back: positions to offsets, results to the
//! protocol's types.

use crate::analysis::Analysis;
use lsp_types::*;

/// The custom request for a bundled model's text (`{"uri": "agentpi-bundled:/NAME.pi"}`).
pub const BUNDLED_TEXT: &str = "agentpi/bundled";

#[derive(serde::Deserialize)]
pub struct BundledParams {
    pub uri: Url,
}

/// Parameters that name a document.
pub trait Document {
    fn uri(&self) -> &Url;
}

macro_rules! document {
    ($($ty:ty => |$p:ident| $uri:expr),* $(,)?) => {
        $(impl Document for $ty {
            fn uri(&self) -> &Url {
                let $p = self;
                &$uri
            }
        })*
    };
}

document! {
    HoverParams => |p| p.text_document_position_params.text_document.uri,
    GotoDefinitionParams => |p| p.text_document_position_params.text_document.uri,
    ReferenceParams => |p| p.text_document_position.text_document.uri,
    DocumentSymbolParams => |p| p.text_document.uri,
    CompletionParams => |p| p.text_document_position.text_document.uri,
    TextDocumentPositionParams => |p| p.text_document.uri,
    RenameParams => |p| p.text_document_position.text_document.uri,
    SemanticTokensParams => |p| p.text_document.uri,
}

pub fn hover(analysis: &Analysis, params: HoverParams) -> Result<Option<Hover>, String> {
    let offset = analysis.offset(params.text_document_position_params.position);
    Ok(crate::hover::at(analysis, offset))
}

pub fn definition(
    analysis: &Analysis,
    params: GotoDefinitionParams,
) -> Result<Option<GotoDefinitionResponse>, String> {
    let offset = analysis.offset(params.text_document_position_params.position);
    let found = crate::navigate::definition(analysis, offset);
    Ok(found.map(GotoDefinitionResponse::Scalar))
}

pub fn references(
    analysis: &Analysis,
    params: ReferenceParams,
) -> Result<Option<Vec<Location>>, String> {
    let offset = analysis.offset(params.text_document_position.position);
    let declaration = params.context.include_declaration;
    Ok(Some(crate::navigate::references(
        analysis,
        offset,
        declaration,
    )))
}

pub fn symbols(
    analysis: &Analysis,
    _: DocumentSymbolParams,
) -> Result<Option<DocumentSymbolResponse>, String> {
    let outline = crate::symbols::outline(analysis);
    Ok(Some(DocumentSymbolResponse::Nested(outline)))
}

pub fn completion(
    analysis: &Analysis,
    params: CompletionParams,
) -> Result<Option<CompletionResponse>, String> {
    let offset = analysis.offset(params.text_document_position.position);
    Ok(Some(CompletionResponse::Array(crate::completion::at(
        analysis, offset,
    ))))
}

pub fn prepare_rename(
    analysis: &Analysis,
    params: TextDocumentPositionParams,
) -> Result<Option<PrepareRenameResponse>, String> {
    let offset = analysis.offset(params.position);
    Ok(crate::rename::prepare(analysis, offset).map(PrepareRenameResponse::Range))
}

pub fn rename(analysis: &Analysis, params: RenameParams) -> Result<Option<WorkspaceEdit>, String> {
    let offset = analysis.offset(params.text_document_position.position);
    crate::rename::rename(analysis, offset, &params.new_name).map(Some)
}

pub fn semantic_tokens(
    analysis: &Analysis,
    _: SemanticTokensParams,
) -> Result<Option<SemanticTokensResult>, String> {
    let data = crate::semantic::tokens(analysis);
    Ok(Some(SemanticTokensResult::Tokens(SemanticTokens {
        result_id: None,
        data,
    })))
}

/// What the server offers, for `initialize`'s answer.
pub fn capabilities() -> ServerCapabilities {
    ServerCapabilities {
        text_document_sync: Some(TextDocumentSyncCapability::Kind(TextDocumentSyncKind::FULL)),
        hover_provider: Some(HoverProviderCapability::Simple(true)),
        definition_provider: Some(OneOf::Left(true)),
        code_lens_provider: Some(CodeLensOptions {
            resolve_provider: Some(false),
        }),
        execute_command_provider: Some(ExecuteCommandOptions {
            commands: vec![
                crate::checks::RUN.to_string(),
                crate::chart::OPEN.to_string(),
            ],
            work_done_progress_options: Default::default(),
        }),
        references_provider: Some(OneOf::Left(true)),
        document_symbol_provider: Some(OneOf::Left(true)),
        completion_provider: Some(CompletionOptions::default()),
        rename_provider: Some(OneOf::Right(RenameOptions {
            prepare_provider: Some(true),
            work_done_progress_options: Default::default(),
        })),
        semantic_tokens_provider: Some(
            SemanticTokensOptions {
                legend: crate::semantic::legend(),
                full: Some(SemanticTokensFullOptions::Bool(true)),
                range: None,
                ..Default::default()
            }
            .into(),
        ),
        ..Default::default()
    }
}
