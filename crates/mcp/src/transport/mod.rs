//! Transports that carry JSON-RPC between this client and an MCP server: [`stdio`] (a child
//! process, one message per line) and [`http`] (Streamable HTTP, `http://` or `https://`).

pub mod http;
pub mod stdio;

use serde_json::Value;
use std::fmt;
use std::time::Duration;

/// A connection that sends requests and waits for the matching response.
pub trait Transport {
    /// Sends request `id` and returns the server's response message (result or error),
    /// skipping notifications and answering server requests with "method not found".
    fn request(
        &mut self,
        id: u64,
        method: &str,
        params: Value,
        timeout: Duration,
    ) -> Result<Value, ClientError>;
    fn notify(&mut self, method: &str, params: Value) -> Result<(), ClientError>;
    /// Records the negotiated version, for transports that send it as a header.
    fn negotiated(&mut self, _version: &str) {}
    /// Lines of output that were not JSON-RPC (stdio banners and logs), in order.
    fn noise(&self) -> &[String] {
        &[]
    }
}

/// Why a live server could not be linted.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum ClientError {
    /// The server process could not be started.
    Spawn { command: String, reason: String },
    /// No response to `method` within the timeout.
    Timeout {
        method: String,
        id: u64,
        timeout: Duration,
        stderr: Vec<String>,
        /// Earlier requests that went unanswered too (the era probe).
        unanswered: Vec<String>,
    },
    /// The server closed its output or exited before answering `method`.
    Exited {
        method: String,
        status: String,
        stderr: Vec<String>,
    },
    /// The server answered `method` with a JSON-RPC error.
    Rejected {
        method: String,
        code: i64,
        message: String,
    },
    /// The reply to `method` does not have the expected shape.
    BadReply { method: String, reason: String },
    /// Transport failure (connection refused, HTTP status, broken pipe).
    Io { reason: String },
}

impl fmt::Display for ClientError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            ClientError::Spawn { command, reason } => {
                write!(f, "cannot start `{command}`: {reason}")
            }
            ClientError::Timeout {
                method,
                id,
                timeout,
                unanswered,
                ..
            } => {
                let seconds = timeout.as_secs_f64();
                write!(
                    f,
                    "the server did not answer `{method}` (id {id}) within {seconds} s"
                )?;
                for earlier in unanswered {
                    write!(f, ", nor `{earlier}` before it")?;
                }
                Ok(())
            }
            ClientError::Exited { method, status, .. } => {
                write!(
                    f,
                    "the server exited ({status}) before answering `{method}`"
                )
            }
            ClientError::Rejected {
                method,
                code,
                message,
            } => {
                write!(
                    f,
                    "the server answered `{method}` with error {code}: {message}"
                )
            }
            ClientError::BadReply { method, reason } => {
                write!(f, "bad reply to `{method}`: {reason}")
            }
            ClientError::Io { reason } => write!(f, "{reason}"),
        }
    }
}

impl ClientError {
    /// The server's last stderr lines, when they help explain the failure.
    pub fn stderr(&self) -> &[String] {
        match self {
            ClientError::Timeout { stderr, .. } | ClientError::Exited { stderr, .. } => stderr,
            _ => &[],
        }
    }
}
