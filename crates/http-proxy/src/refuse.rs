//! The proxy's own answers to requests it does not relay (403 for a forbidden `Host` or
//! `Origin`, 413, 408, 503), with a JSON-RPC error body whose id is null as the MCP SDKs
//! answer, and the event that tells the observer about each.

use bytes::Bytes;
use http_body_util::Full;
use hyper::header::{CONNECTION, CONTENT_TYPE, HeaderValue, RETRY_AFTER};
use hyper::{Response, StatusCode};
use std::net::SocketAddr;

/// A request or connection the proxy turned away instead of relaying.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Refusal {
    /// The status the client was answered with; `None` when the connection was closed
    /// without an answer (a head that did not arrive in time, a failed TLS handshake).
    pub status: Option<u16>,
    pub reason: String,
    /// The client's address.
    pub peer: SocketAddr,
    /// The request's method and path, when a request head was read.
    pub method: String,
    pub path: String,
    /// The request's headers as the client sent them (empty when no head was read).
    pub request_headers: Vec<(String, String)>,
}

/// The JSON-RPC error code of the proxy's answers: the SDKs' for a refused transport request.
const CODE: i64 = -32000;

/// An answer with `status` and a JSON-RPC error naming `reason`; the connection is closed
/// after it (what is left of the request is not read).
pub fn answer(status: StatusCode, reason: &str) -> Response<Full<Bytes>> {
    let body = serde_json::json!({
        "jsonrpc": "2.0",
        "id": null,
        "error": {"code": CODE, "message": format!("agentpi http proxy: {reason}")},
    });
    let mut response = Response::new(Full::new(Bytes::from(body.to_string())));
    *response.status_mut() = status;
    let headers = response.headers_mut();
    headers.insert(CONTENT_TYPE, HeaderValue::from_static("application/json"));
    headers.insert(CONNECTION, HeaderValue::from_static("close"));
    if status == StatusCode::SERVICE_UNAVAILABLE {
        headers.insert(RETRY_AFTER, HeaderValue::from_static("1"));
    }
    response
}
