//! The server's loop: open documents, analysis after every change (published as
//! diagnostics), and one handler per request.

use crate::analysis::Analysis;
use crate::checks::{Finished, Runs};
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
    runs: Runs,
    /// Whether the client takes `workspace/codeLens/refresh` (a lens's verdict changed).
    refresh: bool,
    requests: i32,
    /// Open documents' text and URI, by the loader's name of the file.
    open: FxHashMap<String, String>,
    uris: FxHashMap<String, Url>,
    analyses: FxHashMap<String, Analysis>,
}

/// A failed request: its code and message.
type Failure = (ErrorCode, String);

impl<'a> Server<'a> {
    /// A server for a client that said `init` in its `initialize`.
    pub fn new(
        connection: &'a Connection,
        loader: &'a dyn Loader,
        init: &lsp_types::InitializeParams,
    ) -> Server<'a> {
        let refresh = init.capabilities.workspace.as_ref();
        let refresh = refresh.and_then(|w| w.code_lens.as_ref()?.refresh_support);
        let options = init.initialization_options.as_ref();
        let budget = options.and_then(|o| o.get("maxStates")?.as_u64());
        Server {
            connection,
            loader,
            runs: Runs::new(budget.map_or(crate::checks::BUDGET, |b| b as usize)),
            refresh: refresh.unwrap_or(false),
            requests: 0,
            open: FxHashMap::default(),
            uris: FxHashMap::default(),
            analyses: FxHashMap::default(),
        }
    }

    /// Handles messages until `shutdown`; the client going away before it is an error.
    pub fn run(&mut self) -> Result<(), String> {
        loop {
            // Control flow stays out of `select!`, whose arms may sit in a loop of its own.
            let (message, finished) = crossbeam_channel::select! {
                recv(self.connection.receiver) -> message => (Some(message), None),
                recv(self.runs.receiver) -> finished => (None, finished.ok()),
            };
            if let Some(finished) = finished {
                self.finished(finished)?;
            }
            let message = match message {
                None => continue,
                Some(Ok(message)) => message,
                Some(Err(_)) => break,
            };
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
        Err("the client went away without `shutdown`".to_string())
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
        self.runs.forget(&name);
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
        self.analyses.insert(name.to_string(), analysis);
        self.republish(name)
    }

    /// Publishes the document's diagnostics: the model's, and its checks' violations.
    fn republish(&self, name: &str) -> Result<(), String> {
        let (Some(analysis), Some(uri)) = (self.analyses.get(name), self.uris.get(name)) else {
            return Ok(());
        };
        // A bundled model opened read-only is not the user's to fix.
        if name.starts_with(uri::BUNDLED) || !analysis.has_file(analysis.root) {
            return Ok(());
        }
        let mut diagnostics = crate::diagnostics::of(analysis);
        diagnostics.extend(crate::lens::diagnostics(analysis, name, &self.runs));
        self.publish(uri.clone(), diagnostics)
    }

    /// A check ran to its end: its verdict on its lens, a violation among the diagnostics.
    fn finished(&mut self, finished: Finished) -> Result<(), String> {
        let name = finished.key.0.clone();
        self.log_run(&finished)?;
        if self.runs.finish(finished) {
            self.republish(&name)?;
            self.refresh_lenses()?;
        }
        Ok(())
    }

    /// Logs how a run ended (`window/logMessage`), kept or not: a cancelled run says so.
    fn log_run(&self, finished: &Finished) -> Result<(), String> {
        let crate::checks::Verdict::Done { title, .. } = &finished.verdict else {
            return Ok(());
        };
        let (name, line) = &finished.key;
        let params = lsp_types::LogMessageParams {
            typ: lsp_types::MessageType::INFO,
            message: format!("agentpi check {name}:{}: {title}", line + 1),
        };
        let method = note::LogMessage::METHOD.to_string();
        self.send(Message::Notification(Notification::new(method, params)))
    }

    fn refresh_lenses(&mut self) -> Result<(), String> {
        if !self.refresh {
            return Ok(());
        }
        self.requests += 1;
        let id = lsp_server::RequestId::from(format!("agentpi-{}", self.requests));
        let method = req::CodeLensRefresh::METHOD.to_string();
        self.send(Message::Request(Request::new(id, method, ())))
    }

    /// `textDocument/codeLens`: a lens on each `check` line.
    fn lenses(&self, params: serde_json::Value) -> Result<serde_json::Value, Failure> {
        let params: lsp_types::CodeLensParams =
            parse(params).map_err(|e| (ErrorCode::InvalidParams, e))?;
        let uri = params.text_document.uri;
        let name = uri::to_name(&uri).unwrap_or_default();
        let lenses = match self.analyses.get(&name) {
            Some(analysis) if analysis.has_file(analysis.root) => {
                crate::lens::lenses(analysis, &name, &uri, &self.runs)
            }
            _ => Vec::new(),
        };
        Ok(serde_json::to_value(lenses).unwrap_or_default())
    }

    /// `workspace/executeCommand` of a lens: runs its check or cancels the run
    /// ([`crate::checks::RUN`]), or opens its violation's chart ([`crate::chart::OPEN`]).
    fn execute(&mut self, params: serde_json::Value) -> Result<serde_json::Value, Failure> {
        let params: lsp_types::ExecuteCommandParams =
            parse(params).map_err(|e| (ErrorCode::InvalidParams, e))?;
        let bad = |why: &str| (ErrorCode::InvalidParams, why.to_string());
        let [uri, line] = &params.arguments[..] else {
            return Err(bad("a lens's command takes a document's URI and a line"));
        };
        let uri: Url = serde_json::from_value(uri.clone()).map_err(|e| bad(&e.to_string()))?;
        let line = line
            .as_u64()
            .ok_or_else(|| bad("the line is not a number"))? as u32;
        let name = uri::to_name(&uri).ok_or_else(|| bad("not a file"))?;
        if !self.analyses.contains_key(&name) {
            return Err(bad("the document is not open"));
        }
        match params.command.as_str() {
            crate::checks::RUN => self.run_lens(name, line),
            crate::chart::OPEN => self.open_chart(name, line),
            _ => Err(bad("agentpi lsp has no such command")),
        }
    }

    /// Runs the checks of the lens on `line`, or cancels their run.
    fn run_lens(&mut self, name: String, line: u32) -> Result<serde_json::Value, Failure> {
        let analysis = &self.analyses[&name];
        let checks = crate::lens::checks_at(analysis, line);
        if checks.is_empty() {
            return Err((
                ErrorCode::InvalidParams,
                "there is no check to run on this line (or the model has errors)".into(),
            ));
        }
        let started = self
            .runs
            .toggle((name.clone(), line), &analysis.loaded.program, checks);
        self.republish(&name)
            .map_err(|e| (ErrorCode::InternalError, e))?;
        self.refresh_lenses()
            .map_err(|e| (ErrorCode::InternalError, e))?;
        Ok(serde_json::Value::Bool(started))
    }

    /// Writes the chart page of the violation found by the lens on `line` to a temporary
    /// file and asks the client to open it (`window/showDocument`); answers the file's URI.
    fn open_chart(&mut self, name: String, line: u32) -> Result<serde_json::Value, Failure> {
        let report = match self.runs.verdicts.get(&(name.clone(), line)) {
            Some(crate::checks::Verdict::Done {
                report: Some(report),
                ..
            }) => report.clone(),
            _ => {
                return Err((
                    ErrorCode::InvalidParams,
                    "no violation found on this line (run its check first)".into(),
                ));
            }
        };
        let sources = &self.analyses[&name].loaded.sources;
        let page = crate::chart::page(&name, &report, sources);
        let failed = |e: String| (ErrorCode::RequestFailed, e);
        let path = crate::chart::write(&name, line, &page).map_err(failed)?;
        let uri = Url::from_file_path(&path)
            .map_err(|_| failed(format!("{}: not an absolute path", path.display())))?;
        let show = lsp_types::ShowDocumentParams {
            uri: uri.clone(),
            external: Some(true),
            take_focus: None,
            selection: None,
        };
        self.requests += 1;
        let id = lsp_server::RequestId::from(format!("agentpi-{}", self.requests));
        let method = req::ShowDocument::METHOD.to_string();
        self.send(Message::Request(Request::new(id, method, show)))
            .map_err(|e| (ErrorCode::InternalError, e))?;
        Ok(serde_json::json!(uri))
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
            req::CodeLensRequest::METHOD => self.lenses(params),
            req::ExecuteCommand::METHOD => self.execute(params),
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
