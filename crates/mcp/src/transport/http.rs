//! Streamable HTTP over plain `http://` (no TLS: meant for loopback servers in CI). Each
//! message is one POST with `Accept: application/json, text/event-stream`; the reply is JSON or
//! an SSE stream read until the matching response. `Mcp-Session-Id` from the server is echoed,
//! and `MCP-Protocol-Version` is sent once negotiated. HTTP/1.1 is written by hand over
//! `TcpStream` to keep an async runtime out of the build.

use super::{ClientError, Transport};
use crate::jsonrpc::{self, Incoming};
use serde_json::Value;
use std::io::{BufRead, BufReader, Read, Write};
use std::net::{TcpStream, ToSocketAddrs};
use std::time::{Duration, Instant};

pub struct Http {
    host: String,
    port: u16,
    path: String,
    session: Option<String>,
    version: Option<String>,
}

/// A parsed response head.
struct Head {
    status: u16,
    headers: Vec<(String, String)>,
}

impl Head {
    fn header(&self, name: &str) -> Option<&str> {
        self.headers
            .iter()
            .find(|(k, _)| k.eq_ignore_ascii_case(name))
            .map(|(_, v)| v.as_str())
    }
}

impl Http {
    /// Parses `http://host[:port][/path]`.
    pub fn new(url: &str) -> Result<Http, ClientError> {
        let rest = url.strip_prefix("http://").ok_or_else(|| ClientError::Io {
            reason: format!("unsupported URL {url:?}: only plain http:// (loopback) is supported"),
        })?;
        let (authority, path) = rest
            .split_once('/')
            .map_or((rest, "/".to_string()), |(a, p)| (a, format!("/{p}")));
        let (host, port) = split_authority(authority).ok_or_else(|| ClientError::Io {
            reason: format!("bad host or port in {url:?}"),
        })?;
        Ok(Http {
            host: host.into(),
            port,
            path,
            session: None,
            version: None,
        })
    }

    /// The `Host` header value: a v6 address goes in brackets.
    fn authority(&self) -> String {
        if self.host.contains(':') {
            format!("[{}]:{}", self.host, self.port)
        } else {
            format!("{}:{}", self.host, self.port)
        }
    }

    fn post(
        &mut self,
        message: &Value,
        method: &str,
        timeout: Duration,
    ) -> Result<(Head, BufReader<Body>), ClientError> {
        let io = |e: std::io::Error| ClientError::Io {
            reason: format!("HTTP {}: {e}", self.authority()),
        };
        let address = (self.host.as_str(), self.port)
            .to_socket_addrs()
            .map_err(io)?
            .next();
        let address = address.ok_or_else(|| ClientError::Io {
            reason: format!("cannot resolve {}", self.host),
        })?;
        let mut stream = TcpStream::connect_timeout(&address, timeout).map_err(io)?;
        stream.set_read_timeout(Some(timeout)).map_err(io)?;
        let body = message.to_string();
        let mut request = format!(
            "POST {} HTTP/1.1\r\nHost: {}\r\nContent-Type: application/json\r\nAccept: application/json, text/event-stream\r\nContent-Length: {}\r\nConnection: close\r\nMcp-Method: {method}\r\n",
            self.path,
            self.authority(),
            body.len()
        );
        if let Some(session) = &self.session {
            request.push_str(&format!("Mcp-Session-Id: {session}\r\n"));
        }
        // Modern requests carry their version in `_meta`; the header must repeat it.
        let in_meta = message.pointer("/params/_meta/io.modelcontextprotocol~1protocolVersion");
        let version = in_meta.and_then(Value::as_str).or(self.version.as_deref());
        if let Some(version) = version {
            request.push_str(&format!("MCP-Protocol-Version: {version}\r\n"));
        }
        request.push_str("\r\n");
        request.push_str(&body);
        stream.write_all(request.as_bytes()).map_err(io)?;
        let mut reader = BufReader::new(stream);
        let head = read_head(&mut reader).map_err(io)?;
        // Only a successful reply opens a session; a refused probe must not leak its id.
        if let Some(session) = head.header("mcp-session-id").filter(|_| head.status < 300) {
            self.session = Some(session.to_string());
        }
        let body = Body::new(&head, reader);
        Ok((head, BufReader::new(body)))
    }
}

/// `host[:port]` or `[v6-address][:port]` (RFC 3986), port 80 when absent.
fn split_authority(authority: &str) -> Option<(&str, u16)> {
    let (host, port) = match authority.strip_prefix('[') {
        Some(rest) => {
            let (host, after) = rest.split_once(']')?;
            (host, after.strip_prefix(':'))
        }
        None => match authority.rsplit_once(':') {
            Some((host, port)) => (host, Some(port)),
            None => (authority, None),
        },
    };
    let port = port.map_or(Some(80), |p| p.parse().ok())?;
    (!host.is_empty()).then_some((host, port))
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
        let (head, mut body) = self
            .post(&jsonrpc::request(id, method, params), method, timeout)
            .map_err(|e| timed(e, method, id, timeout))?;
        let content_type = head
            .header("content-type")
            .unwrap_or("")
            .to_ascii_lowercase();
        let reply = if content_type.starts_with("text/event-stream") {
            read_events(&mut body, id)
        } else {
            let mut text = String::new();
            body.read_to_string(&mut text)
                .map(|_| serde_json::from_str::<Value>(&text).ok())
        };
        let reply = reply.map_err(|e| {
            timed(
                ClientError::Io {
                    reason: e.to_string(),
                },
                method,
                id,
                timeout.saturating_sub(started.elapsed()),
            )
        })?;
        match reply {
            Some(message) if jsonrpc::classify(&message) != Incoming::Other => Ok(message),
            _ if head.status >= 400 => Err(ClientError::Rejected {
                method: method.into(),
                code: i64::from(head.status),
                message: format!("HTTP status {}", head.status),
            }),
            _ => Err(ClientError::BadReply {
                method: method.into(),
                reason: format!("HTTP {} without a JSON-RPC response", head.status),
            }),
        }
    }

    fn notify(&mut self, method: &str, params: Value) -> Result<(), ClientError> {
        let (head, _) = self.post(
            &jsonrpc::notification(method, params),
            method,
            Duration::from_secs(10),
        )?;
        match head.status {
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

/// Turns a socket read timeout into a [`ClientError::Timeout`] naming the request.
fn timed(error: ClientError, method: &str, id: u64, timeout: Duration) -> ClientError {
    match &error {
        ClientError::Io { reason }
            if reason.contains("timed out") || reason.contains("temporarily unavailable") =>
        {
            ClientError::Timeout {
                method: method.into(),
                id,
                timeout,
                stderr: Vec::new(),
                unanswered: Vec::new(),
            }
        }
        _ => error,
    }
}

fn read_head(reader: &mut impl BufRead) -> std::io::Result<Head> {
    let mut line = String::new();
    reader.read_line(&mut line)?;
    let status = line
        .split_whitespace()
        .nth(1)
        .and_then(|s| s.parse().ok())
        .ok_or_else(|| std::io::Error::other(format!("not an HTTP response: {:?}", line.trim())))?;
    let mut headers = Vec::new();
    loop {
        line.clear();
        if reader.read_line(&mut line)? == 0 || line.trim().is_empty() {
            break;
        }
        if let Some((name, value)) = line.split_once(':') {
            headers.push((name.trim().to_string(), value.trim().to_string()));
        }
    }
    Ok(Head { status, headers })
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

/// A response body: by Content-Length, chunked, or until the connection closes.
enum Framing {
    Length(u64),
    Chunked { left: u64, done: bool },
    Close,
}

pub struct Body {
    framing: Framing,
    inner: BufReader<TcpStream>,
}

impl Body {
    fn new(head: &Head, inner: BufReader<TcpStream>) -> Body {
        let chunked = head
            .header("transfer-encoding")
            .is_some_and(|v| v.eq_ignore_ascii_case("chunked"));
        let framing = match (
            chunked,
            head.header("content-length").and_then(|v| v.parse().ok()),
        ) {
            (true, _) => Framing::Chunked {
                left: 0,
                done: false,
            },
            (false, Some(length)) => Framing::Length(length),
            (false, None) => Framing::Close,
        };
        Body { framing, inner }
    }

    /// Reads the next chunk-size line; returns 0 at the last chunk.
    fn chunk_size(&mut self) -> std::io::Result<u64> {
        let mut line = String::new();
        while line.trim().is_empty() {
            line.clear();
            if self.inner.read_line(&mut line)? == 0 {
                return Ok(0);
            }
        }
        let size = line.trim().split(';').next().unwrap_or("");
        u64::from_str_radix(size, 16)
            .map_err(|_| std::io::Error::other(format!("bad chunk size {size:?}")))
    }
}

impl Read for Body {
    fn read(&mut self, buf: &mut [u8]) -> std::io::Result<usize> {
        match &mut self.framing {
            Framing::Close => self.inner.read(buf),
            Framing::Length(left) => {
                let want = buf.len().min(usize::try_from(*left).unwrap_or(usize::MAX));
                let n = self.inner.read(&mut buf[..want])?;
                *left -= n as u64;
                Ok(n)
            }
            Framing::Chunked { done: true, .. } => Ok(0),
            Framing::Chunked { left, .. } if *left > 0 => {
                let want = buf.len().min(usize::try_from(*left).unwrap_or(usize::MAX));
                let n = self.inner.read(&mut buf[..want])?;
                *left -= n as u64;
                Ok(n)
            }
            Framing::Chunked { .. } => {
                let size = self.chunk_size()?;
                self.framing = Framing::Chunked {
                    left: size,
                    done: size == 0,
                };
                if size == 0 { Ok(0) } else { self.read(buf) }
            }
        }
    }
}
