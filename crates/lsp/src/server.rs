//! The server's loop: open documents, analysis after every change (published as
//! diagnostics), and one handler per request.

use crate::analysis::Analysis;
use crate::overlay::Overlay;
use crate::requests::Document;
use crate::uri;
use agentpi_ir::Loader;
use lsp_server::{Connection, ErrorCode, Message, Notification, Request, Response};
use lsp_types::notification::{self as note, Notification as _};
use lsp_types::request::{self as req, Request as _};
use lsp_types::{PublishDiagnosticsParams, Url};
use rustc_hash::FxHashMap;
use serde::Serialize;
use serde::de::DeserializeOwned;

pub struct Server<'a> {
    connection: &'a Connection,
    loader: &'a dyn Loader,
    /// Open documents' text and URI, by the loader's name of the file.
    open: FxHashMap<String, String>,
    uris: FxHashMap<String, Url>,
    analyses: FxHashMap<String, Analysis>,
}

/// A failed request: its code and message.
type Failure = (ErrorCode, String);

impl<'a> Server<'a> {
    pub fn new(connection: &'a Connection, loader: &'a dyn Loader) -> Server<'a> {
        Server {
            connection,
            loader,
            open: FxHashMap::default(),
            uris: FxHashMap::default(),
            analyses: FxHashMap::default(),
        }
    }

    /// Handles messages until `shutdown` (or the client goes away).
    pub fn run(&mut self) -> Result<(), String> {
        for message in &self.connection.receiver {
            match message {
                Message::Request(request) => {
                    if self
                        .connection
                        .handle_shutdown(&request)
                        .map_err(|e| e.to_string())?
                    {
                        return Ok(());
                    }
                    let response = self.request(request);
                    self.send(Message::Response(response))?;
                }
                Message::Notification(notification) => self.notification(notification)?,
                Message::Response(_) => {}
            }
        }
        Ok(())
    }

    fn send(&self, message: Message) -> Result<(), String> {
        let sent = self.connection.sender.send(message);
        sent.map_err(|_| "the client's connection is closed".to_string())
    }

    fn notification(&mut self, notification: Notification) -> Result<(), String> {
        match notification.method.as_str() {
            note::DidOpenTextDocument::METHOD => {
                let params: lsp_types::DidOpenTextDocumentParams = parse(notification.params)?;
                let document = params.text_document;
                self.changed(document.uri, document.text)
            }
            note::DidChangeTextDocument::METHOD => {
                let params: lsp_types::DidChangeTextDocumentParams = parse(notification.params)?;
                // Full synchronisation: the last change is the whole text.
                match params.content_changes.into_iter().last() {
                    Some(change) => self.changed(params.text_document.uri, change.text),
                    None => Ok(()),
                }
            }
            note::DidCloseTextDocument::METHOD => {
                let params: lsp_types::DidCloseTextDocumentParams = parse(notification.params)?;
                let uri = params.text_document.uri;
                if let Some(name) = uri::to_name(&uri) {
                    self.open.remove(&name);
                    self.uris.remove(&name);
                    self.analyses.remove(&name);
                }
                self.publish(uri, Vec::new())
            }
            _ => Ok(()),
        }
    }

    /// A document's new text: analysed and published first, then every other open document
    /// that loads it.
    fn changed(&mut self, uri: Url, text: String) -> Result<(), String> {
        let Some(name) = uri::to_name(&uri) else {
            return Ok(());
        };
        self.open.insert(name.clone(), text);
        self.uris.insert(name.clone(), uri);
        self.analyse(&name)?;
        let importers: Vec<String> = self
            .analyses
            .iter()
            .filter(|(other, a)| **other != name && a.loaded.sources.find(&name).is_some())
            .map(|(other, _)| other.clone())
            .collect();
        importers.iter().try_for_each(|other| self.analyse(other))
    }

    fn analyse(&mut self, name: &str) -> Result<(), String> {
        let overlay = Overlay {
            base: self.loader,
            open: &self.open,
        };
        let analysis = Analysis::new(name, &overlay);
        let diagnostics = match analysis.has_file(analysis.root) {
            true => crate::diagnostics::of(&analysis),
            false => Vec::new(),
        };
        self.analyses.insert(name.to_string(), analysis);
        let uri = self.uris[name].clone();
        // A bundled model opened read-only is not the user's to fix.
        match name.starts_with(uri::BUNDLED) {
            true => Ok(()),
            false => self.publish(uri, diagnostics),
        }
    }

    fn publish(&self, uri: Url, diagnostics: Vec<lsp_types::Diagnostic>) -> Result<(), String> {
        let params = PublishDiagnosticsParams::new(uri, diagnostics, None);
        let notification = Notification::new(note::PublishDiagnostics::METHOD.into(), params);
        self.send(Message::Notification(notification))
    }

    fn request(&mut self, request: Request) -> Response {
        let id = request.id.clone();
        let result = self.dispatch(request);
        match result {
            Ok(value) => Response::new_ok(id, value),
            Err((code, message)) => Response::new_err(id, code as i32, message),
        }
    }

    fn dispatch(&mut self, request: Request) -> Result<serde_json::Value, Failure> {
        let params = request.params;
        match request.method.as_str() {
            req::HoverRequest::METHOD => {
                self.on::<req::HoverRequest>(params, crate::requests::hover)
            }
            req::GotoDefinition::METHOD => {
                self.on::<req::GotoDefinition>(params, crate::requests::definition)
            }
            req::References::METHOD => {
                self.on::<req::References>(params, crate::requests::references)
            }
            req::DocumentSymbolRequest::METHOD => {
                self.on::<req::DocumentSymbolRequest>(params, crate::requests::symbols)
            }
            req::Completion::METHOD => {
                self.on::<req::Completion>(params, crate::requests::completion)
            }
            req::PrepareRenameRequest::METHOD => {
                self.on::<req::PrepareRenameRequest>(params, crate::requests::prepare_rename)
            }
            req::Rename::METHOD => self.on::<req::Rename>(params, crate::requests::rename),
            req::SemanticTokensFullRequest::METHOD => {
                self.on::<req::SemanticTokensFullRequest>(params, crate::requests::semantic_tokens)
            }
            crate::requests::BUNDLED_TEXT => self.bundled(params),
            method => Err((
                ErrorCode::MethodNotFound,
                format!("agentpi lsp does not handle `{method}`"),
            )),
        }
    }

    /// Runs `handler` on the analysis of the request's document (`null` when it is not open).
    fn on<R>(
        &mut self,
        params: serde_json::Value,
        handler: fn(&Analysis, R::Params) -> Result<R::Result, String>,
    ) -> Result<serde_json::Value, Failure>
    where
        R: lsp_types::request::Request,
        R::Params: DeserializeOwned + Document,
        R::Result: Serialize,
    {
        let params: R::Params = parse(params).map_err(|e| (ErrorCode::InvalidParams, e))?;
        let name = uri::to_name(params.uri());
        let analysis = name.and_then(|n| self.analyses.get(&n));
        let Some(analysis) = analysis.filter(|a| a.has_file(a.root)) else {
            return Ok(serde_json::Value::Null);
        };
        let result = handler(analysis, params).map_err(|e| (ErrorCode::RequestFailed, e))?;
        serde_json::to_value(result).map_err(|e| (ErrorCode::InternalError, e.to_string()))
    }

    /// `agentpi/bundled`: the text of a bundled model, for editors to show its
    /// `agentpi-bundled:` URI.
    fn bundled(&self, params: serde_json::Value) -> Result<serde_json::Value, Failure> {
        let params: crate::requests::BundledParams =
            parse(params).map_err(|e| (ErrorCode::InvalidParams, e))?;
        let name = uri::to_name(&params.uri).filter(|n| n.starts_with(uri::BUNDLED));
        let name = name.ok_or((ErrorCode::InvalidParams, "not a bundled model".to_string()))?;
        let model = name[uri::BUNDLED.len()..].trim_end_matches(".pi");
        let (_, text) = self
            .loader
            .read(model, None)
            .map_err(|e| (ErrorCode::RequestFailed, e))?;
        Ok(serde_json::Value::String(text))
    }
}

fn parse<T: DeserializeOwned>(params: serde_json::Value) -> Result<T, String> {
    serde_json::from_value(params).map_err(|e| format!("malformed parameters: {e}"))
}
