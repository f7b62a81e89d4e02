//! One HTTP exchange through the proxy: the request goes upstream with its method, path,
//! headers (header case kept) and body unchanged, only `Host` naming the upstream; the
//! response comes back the same way, its body relayed frame by frame as it arrives. Both bodies
//! pass through a [`Tap`] that reports their messages.

use crate::event::{Dir, EventKind, Events, HttpExchange};
use crate::tap::{Framing, Tap};
use bytes::Bytes;
use http_body_util::{Either, Full};
use hyper::body::Incoming;
use hyper::header::{CONTENT_ENCODING, CONTENT_TYPE, HOST, HeaderMap, HeaderValue};
use hyper::{Request, Response, StatusCode, Uri};
use hyper_util::client::legacy::Client;
use hyper_util::client::legacy::connect::HttpConnector;
use std::sync::Arc;
use std::sync::atomic::{AtomicU64, Ordering};

/// What a response body is: the upstream's, tapped, or the proxy's own error text.
pub type ReplyBody = Either<Tap<Incoming>, Full<Bytes>>;

/// What every exchange shares.
pub struct Relay {
    pub client: Client<HttpConnector, Tap<Incoming>>,
    /// `scheme://authority` of the upstream.
    pub origin: Uri,
    pub host: HeaderValue,
    pub events: Events,
    pub next: AtomicU64,
}

impl Relay {
    /// Relays one request; never fails (an unreachable upstream is a 502 to the client).
    pub async fn exchange(
        self: Arc<Self>,
        request: Request<Incoming>,
    ) -> Result<Response<ReplyBody>, std::convert::Infallible> {
        let exchange = self.next.fetch_add(1, Ordering::Relaxed);
        let (mut parts, body) = request.into_parts();
        let method = parts.method.to_string();
        let path = parts
            .uri
            .path_and_query()
            .map_or_else(|| "/".to_string(), ToString::to_string);
        let request_headers = text_headers(&parts.headers);
        parts.uri = self.upstream_uri(&path);
        parts.headers.insert(HOST, self.host.clone());
        let framing = if encoded(&parts.headers) {
            Framing::Opaque
        } else {
            Framing::Whole(Vec::new())
        };
        let body = Tap::new(body, framing, Dir::C2s, exchange, self.events.clone());
        let mut http = HttpExchange {
            method,
            path,
            status: 0,
            request_headers,
            response_headers: Vec::new(),
            error: None,
        };
        let reply = match self.client.request(Request::from_parts(parts, body)).await {
            Ok(response) => self.tapped(response, exchange),
            Err(error) => {
                let reason = describe(&error);
                http.error = Some(reason.clone());
                bad_gateway(reason)
            }
        };
        http.status = reply.status().as_u16();
        http.response_headers = text_headers(reply.headers());
        self.events.send(exchange, EventKind::Http(http));
        Ok(reply)
    }

    fn upstream_uri(&self, path: &str) -> Uri {
        let origin = self.origin.to_string();
        let joined = format!("{}{path}", origin.trim_end_matches('/'));
        // The path came parsed from a request line, so it joins into a valid URI.
        joined.parse().unwrap_or_else(|_| self.origin.clone())
    }

    fn tapped(&self, response: Response<Incoming>, exchange: u64) -> Response<ReplyBody> {
        let content_type = response
            .headers()
            .get(CONTENT_TYPE)
            .and_then(|v| v.to_str().ok())
            .unwrap_or("");
        let framing = if encoded(response.headers()) {
            Framing::Opaque
        } else {
            Framing::for_content_type(content_type)
        };
        let events = self.events.clone();
        response.map(|body| Either::Left(Tap::new(body, framing, Dir::S2c, exchange, events)))
    }
}

/// The error and every cause, the last of which says what failed (refused, reset).
fn describe(error: &hyper_util::client::legacy::Error) -> String {
    let mut text = format!("the upstream could not be reached: {error}");
    let mut cause = std::error::Error::source(error);
    while let Some(inner) = cause {
        text.push_str(&format!(": {inner}"));
        cause = inner.source();
    }
    text
}

fn bad_gateway(reason: String) -> Response<ReplyBody> {
    let text = format!("agentpi http proxy: {reason}\n");
    let mut response = Response::new(Either::Right(Full::new(Bytes::from(text))));
    *response.status_mut() = StatusCode::BAD_GATEWAY;
    response.headers_mut().insert(
        CONTENT_TYPE,
        HeaderValue::from_static("text/plain; charset=utf-8"),
    );
    response
}

/// Whether a body is compressed (`Content-Encoding` other than `identity`): it is relayed as
/// it is, but its bytes are no message the observer could read, so it is not reported as one
/// (the `http` event still shows the encoding).
fn encoded(headers: &HeaderMap) -> bool {
    headers
        .get(CONTENT_ENCODING)
        .is_some_and(|v| !v.as_bytes().eq_ignore_ascii_case(b"identity"))
}

fn text_headers(headers: &HeaderMap) -> Vec<(String, String)> {
    headers
        .iter()
        .map(|(name, value)| {
            let value = String::from_utf8_lossy(value.as_bytes()).into_owned();
            (name.as_str().to_string(), value)
        })
        .collect()
}
