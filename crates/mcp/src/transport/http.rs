//! Streamable HTTP over `http://` and `https://`, on reqwest's blocking client with rustls (the
//! `ring` provider: no C toolchain beyond what `ring` needs). Each message is one POST with
//! `Accept: application/json, text/event-stream`; the reply is JSON or an SSE stream read until
//! the matching response. `Mcp-Session-Id` from the server is echoed, and `MCP-Protocol-Version`
//! is sent once negotiated. Every request carries the time left, so the caller's one deadline
//! bounds connecting, TLS, the head and the whole body. A client that must see every byte and
//! every header (`agentpi test`) sends raw bodies with headers of its choosing
//! ([`Http::post_raw`]) and reads SSE events one at a time ([`next_event`]).

use super::{ClientError, Transport};
use crate::jsonrpc::{self, Incoming};
use reqwest::blocking::{Client, RequestBuilder};
use reqwest::header::CONTENT_TYPE;
use serde_json::Value;
use std::io::{BufRead, BufReader, Read};
use std::time::{Duration, Instant};

/// Which server certificates an `https://` connection accepts.
#[derive(Clone, Debug, Default)]
pub enum Trust {
    /// The system's root certificates.
    #[default]
    System,
    /// The system's roots and the certificates of this PEM bundle (a private CA, or a
    /// self-signed server certificate).
    Extra(Vec<u8>),
    /// Any certificate and any host name: for testing against a throwaway server only.
    Insecure,
}

#[derive(Clone)]
pub struct Http {
    url: reqwest::Url,
    client: Client,
    session: Option<String>,
    version: Option<String>,
}

impl Http {
    /// Connects to `http://` or `https://` URLs, trusting the system's roots.
    pub fn new(url: &str) -> Result<Http, ClientError> {
        Http::with_trust(url, &Trust::System)
    }

    /// Connects to `url`, accepting the server certificates `trust` says.
    pub fn with_trust(url: &str, trust: &Trust) -> Result<Http, ClientError> {
        let parsed = reqwest::Url::parse(url).map_err(|e| ClientError::Io {
            reason: format!("bad URL {url:?}: {e}"),
        })?;
        if !matches!(parsed.scheme(), "http" | "https") || parsed.host_str().is_none() {
            return Err(ClientError::Io {
                reason: format!(
                    "unsupported URL {url:?}: give http://HOST[:PORT]/PATH or https://..."
                ),
            });
        }
        Ok(Http {
            url: parsed,
            client: client(trust)?,
            session: None,
            version: None,
        })
    }

    /// `host:port` as shown in errors.
    fn authority(&self) -> String {
        let host = self.url.host_str().unwrap_or("");
        match self.url.port_or_known_default() {
            Some(port) => format!("{host}:{port}"),
            None => host.to_string(),
        }
    }

    fn post(&self, message: &Value, method: &str, timeout: Duration) -> RequestBuilder {
        let mut request = self
            .client
            .post(self.url.clone())
            .timeout(timeout)
            .header(CONTENT_TYPE, "application/json")
            .header("Accept", "application/json, text/event-stream")
            .header("Mcp-Method", method)
            .body(message.to_string());
        if let Some(session) = &self.session {
            request = request.header("Mcp-Session-Id", session);
        }
        // Modern requests carry their version in `_meta`; the header must repeat it.
        let in_meta = message.pointer("/params/_meta/io.modelcontextprotocol~1protocolVersion");
        let version = in_meta.and_then(Value::as_str).or(self.version.as_deref());
        if let Some(version) = version {
            request = request.header("MCP-Protocol-Version", version);
        }
        request
    }

    /// Sends `message` and returns the status, the content type and the body as a reader.
    fn exchange(
        &mut self,
        message: &Value,
        method: &str,
        timeout: Duration,
    ) -> Result<(u16, String, BufReader<reqwest::blocking::Response>), ClientError> {
        let response = self
            .post(message, method, timeout)
            .send()
            .map_err(|e| self.io(&e))?;
        let status = response.status().as_u16();
        // Only a successful reply opens a session; a refused probe must not leak its id.
        let session = response.headers().get("mcp-session-id");
        if let Some(session) = session
            .and_then(|v| v.to_str().ok())
            .filter(|_| status < 300)
        {
            self.session = Some(session.to_string());
        }
        let content_type = response
            .headers()
            .get(CONTENT_TYPE)
            .and_then(|v| v.to_str().ok())
            .unwrap_or("")
            .to_ascii_lowercase();
        Ok((status, content_type, BufReader::new(response)))
    }

    /// A transport error naming the server and every cause (the last one says what failed:
    /// refused, certificate, reset), or a timeout marker that [`timed`] turns into a timeout.
    fn io(&self, error: &(dyn std::error::Error + 'static)) -> ClientError {
        if is_timeout(error) {
            return ClientError::Io {
                reason: TIMED_OUT.into(),
            };
        }
        let mut reason = format!("HTTP {}: {error}", self.authority());
        let mut cause = error.source();
        while let Some(inner) = cause {
            reason.push_str(&format!(": {inner}"));
            cause = inner.source();
        }
        ClientError::Io { reason }
    }
}

/// One exchange made raw: the response's status and headers, the request's headers as sent,
/// and the body to read.
pub struct RawReply {
    pub status: u16,
    pub headers: Vec<(String, String)>,
    pub request_headers: Vec<(String, String)>,
    pub body: BufReader<reqwest::blocking::Response>,
}

impl Http {
    /// The URL's path (what a trace records of an exchange).
    pub fn path(&self) -> String {
        self.url.path().to_string()
    }

    /// Sends `method` (POST, DELETE, ...) with `body` and exactly `headers`, and returns the
    /// response head with its body unread; `timeout` bounds the whole exchange.
    pub fn raw(
        &self,
        method: &str,
        body: &[u8],
        headers: &[(String, String)],
        timeout: Duration,
    ) -> Result<RawReply, ClientError> {
        let verb = reqwest::Method::from_bytes(method.as_bytes()).map_err(|e| ClientError::Io {
            reason: format!("bad HTTP method {method:?}: {e}"),
        })?;
        let mut request = self
            .client
            .request(verb, self.url.clone())
            .timeout(timeout)
            .body(body.to_vec());
        for (name, value) in headers {
            request = request.header(name, value);
        }
        let response = request.send().map_err(|e| self.io(&e))?;
        let status = response.status().as_u16();
        let got = response
            .headers()
            .iter()
            .map(|(k, v)| {
                (
                    k.to_string(),
                    String::from_utf8_lossy(v.as_bytes()).into_owned(),
                )
            })
            .collect();
        Ok(RawReply {
            status,
            headers: got,
            request_headers: headers.to_vec(),
            body: BufReader::new(response),
        })
    }
}

/// The next SSE event of `body`: its `id` and its data (data lines joined by a newline);
/// `None` at the end of the stream.
pub fn next_event(body: &mut impl BufRead) -> std::io::Result<Option<(Option<String>, String)>> {
    let mut data: Option<String> = None;
    let mut id = None;
    let mut line = String::new();
    loop {
        line.clear();
        if body.read_line(&mut line)? == 0 {
            return Ok(data.map(|d| (id, d)));
        }
        let text = line.trim_end_matches(['\r', '\n']);
        if text.is_empty() {
            if let Some(d) = data.take() {
                return Ok(Some((id, d)));
            }
            continue;
        }
        let (field, value) = text.split_once(':').unwrap_or((text, ""));
        let value = value.strip_prefix(' ').unwrap_or(value);
        match field {
            "data" => {
                let d = data.get_or_insert_with(String::new);
                if !d.is_empty() {
                    d.push('\n');
                }
                d.push_str(value);
            }
            "id" => id = Some(value.to_string()),
            _ => {}
        }
    }
}

/// The reason [`Http::io`] gives a timeout, so that [`timed`] recognises it.
const TIMED_OUT: &str = "timed out";

/// Builds the client once per transport: no proxy (the hand-written client used none, and a
/// loopback server must not be sent through one), rustls with the `ring` provider.
fn client(trust: &Trust) -> Result<Client, ClientError> {
    // The provider is process-wide; a second install fails harmlessly with the same one there.
    let _ = rustls::crypto::ring::default_provider().install_default();
    let builder = Client::builder().no_proxy().tls_backend_rustls();
    let builder = match trust {
        Trust::System => builder,
        Trust::Extra(pem) => {
            let certificates =
                reqwest::Certificate::from_pem_bundle(pem).map_err(|e| ClientError::Io {
                    reason: format!("bad CA certificate: {e}"),
                })?;
            if certificates.is_empty() {
                return Err(ClientError::Io {
                    reason: "the CA file holds no PEM certificate".into(),
                });
            }
            builder.tls_certs_merge(certificates)
        }
        Trust::Insecure => builder.tls_danger_accept_invalid_certs(true),
    };
    builder.build().map_err(|e| ClientError::Io {
        reason: format!("cannot set up the HTTP client: {e}"),
    })
}

/// Whether `error` or one of its causes is a timeout (reqwest's own, or an I/O one).
fn is_timeout(error: &(dyn std::error::Error + 'static)) -> bool {
    let mut cause = Some(error);
    while let Some(error) = cause {
        if let Some(e) = error.downcast_ref::<reqwest::Error>()
            && e.is_timeout()
        {
            return true;
        }
        // An I/O error's `source` skips the error it wraps (reqwest's, on a body read).
        let io = error.downcast_ref::<std::io::Error>();
        if io.is_some_and(|e| e.kind() == std::io::ErrorKind::TimedOut) {
            return true;
        }
        let wrapped = io.and_then(|e| e.get_ref());
        cause = match wrapped {
            Some(inner) => Some(inner as &(dyn std::error::Error + 'static)),
            None => error.source(),
        };
    }
    false
}

impl Transport for Http {
    fn request(
        &mut self,
        id: u64,
        method: &str,
        params: Value,
        timeout: Duration,
    ) -> Result<Value, ClientError> {
        let started = Instant::now();
        let (status, content_type, mut body) = self
            .exchange(&jsonrpc::request(id, method, params), method, timeout)
            .map_err(|e| timed(e, method, id, timeout))?;
        let reply = if content_type.starts_with("text/event-stream") {
            read_events(&mut body, id)
        } else {
            let mut text = String::new();
            body.read_to_string(&mut text)
                .map(|_| serde_json::from_str::<Value>(&text).ok())
        };
        let reply = reply.map_err(|e| {
            let left = timeout.saturating_sub(started.elapsed());
            timed(self.io(&e), method, id, left)
        })?;
        match reply {
            Some(message) if jsonrpc::classify(&message) != Incoming::Other => Ok(message),
            _ if status >= 400 => Err(ClientError::Rejected {
                method: method.into(),
                code: i64::from(status),
                message: format!("HTTP status {status}"),
            }),
            _ => Err(ClientError::BadReply {
                method: method.into(),
                reason: format!("HTTP {status} without a JSON-RPC response"),
            }),
        }
    }

    fn notify(&mut self, method: &str, params: Value) -> Result<(), ClientError> {
        let message = jsonrpc::notification(method, params);
        let (status, _, _) = self.exchange(&message, method, Duration::from_secs(10))?;
        match status {
            200..=299 => Ok(()),
            status => Err(ClientError::Io {
                reason: format!("notification `{method}` got HTTP status {status}"),
            }),
        }
    }

    fn negotiated(&mut self, version: &str) {
        self.version = Some(version.into());
    }
}

/// Turns a transport timeout into a [`ClientError::Timeout`] naming the request.
fn timed(error: ClientError, method: &str, id: u64, timeout: Duration) -> ClientError {
    match &error {
        ClientError::Io { reason } if reason == TIMED_OUT => ClientError::Timeout {
            method: method.into(),
            id,
            timeout,
            stderr: Vec::new(),
            unanswered: Vec::new(),
        },
        _ => error,
    }
}

/// Reads SSE events until the response to `id` (other messages are notifications or requests
/// this client does not serve).
fn read_events(body: &mut impl BufRead, id: u64) -> std::io::Result<Option<Value>> {
    let mut data = String::new();
    let mut line = String::new();
    loop {
        line.clear();
        if body.read_line(&mut line)? == 0 {
            return Ok(None);
        }
        let text = line.trim_end_matches(['\r', '\n']);
        if let Some(chunk) = text.strip_prefix("data:") {
            // Data lines of one event join with a newline (the SSE specification).
            if !data.is_empty() {
                data.push('\n');
            }
            data.push_str(chunk.strip_prefix(' ').unwrap_or(chunk));
        } else if text.is_empty() && !data.is_empty() {
            let event = std::mem::take(&mut data);
            if let Ok(message) = serde_json::from_str::<Value>(&event)
                && matches!(jsonrpc::classify(&message), Incoming::Response(got) if jsonrpc::is_id(got, id))
            {
                return Ok(Some(message));
            }
        }
    }
}
