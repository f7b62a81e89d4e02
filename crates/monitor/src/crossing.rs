//! When a response that follows its request's cancellation is a crossing, which C3 allows,
//! rather than a response the receiver sent after it got the cancellation:
//!
//! - it reached the proxy within [`RACE_WINDOW`] of the cancellation (it may have been
//!   written before the cancellation was read: reference/mcp.md C3, "at a proxy use response
//!   sent > delta after cancel forwarded");
//! - over Streamable HTTP, the cancellation was sent before the request's own exchange had
//!   its HTTP status. Each POST is its own connection, so the server may have read the
//!   cancellation before the request, found no such request and ignored it (as the
//!   specification allows), and then served the request whole.

use std::collections::{HashMap, HashSet};

/// A response that reaches the proxy within this many seconds of the cancellation of its
/// request may have been written before the cancellation was read. A trace without times
/// is judged by order alone.
pub const RACE_WINDOW: f64 = 0.5;

/// How a request's cancellation crossed the proxy.
#[derive(Clone, Copy, Debug)]
enum Cancel {
    /// At this time (none in a trace without times).
    At(Option<f64>),
    /// Before the server had accepted the request (HTTP): its order at the server is unknown.
    Unordered,
}

/// The cancellations of a session, and what tells their order at the server.
#[derive(Debug, Default)]
pub struct Crossings {
    cancelled: HashMap<String, Cancel>,
    /// The HTTP exchanges whose status line has crossed the proxy.
    headed: HashSet<u64>,
    /// The exchange each request of the client came in, over HTTP, and the other way round
    /// (the request a client's close of an exchange cancels).
    exchange_of: HashMap<String, u64>,
    request_in: HashMap<u64, String>,
    /// The requests whose stream the client closed (modern HTTP).
    closed: HashSet<String>,
}

impl Crossings {
    /// The status line of HTTP exchange `k` crossed the proxy.
    pub fn headed(&mut self, k: u64) {
        self.headed.insert(k);
    }

    /// Request `key` came in HTTP exchange `k`.
    pub fn request(&mut self, key: &str, k: u64) {
        self.exchange_of.insert(key.to_string(), k);
        self.request_in.insert(k, key.to_string());
    }

    /// The HTTP exchange request `key` came in.
    pub fn exchange_of(&self, key: &str) -> Option<u64> {
        self.exchange_of.get(key).copied()
    }

    /// When request `key` was cancelled (its client closed its stream), if it was and the
    /// trace has times.
    pub fn cancelled_at(&self, key: &str) -> Option<f64> {
        match self.cancelled.get(key) {
            Some(Cancel::At(t)) => *t,
            _ => None,
        }
    }

    /// The request HTTP exchange `k` carried.
    pub fn request_in(&self, k: u64) -> Option<&str> {
        self.request_in.get(&k).map(String::as_str)
    }

    /// Request `key` was cancelled at time `t` (the first cancellation counts).
    pub fn cancel(&mut self, key: String, t: Option<f64>) {
        let accepted = match self.exchange_of.get(&key) {
            Some(k) => self.headed.contains(k),
            None => true,
        };
        let how = if accepted {
            Cancel::At(t)
        } else {
            Cancel::Unordered
        };
        self.cancelled.entry(key).or_insert(how);
    }

    /// The client closed request `key`'s own stream at time `t` (modern HTTP): ordered after
    /// the request, which came on the same connection.
    pub fn close(&mut self, key: String, t: Option<f64>) {
        self.closed.insert(key.clone());
        self.cancelled.entry(key).or_insert(Cancel::At(t));
    }

    /// Whether the client closed request `key`'s stream: nothing more can come for it, so
    /// the request is no longer in flight and its id is free (J4).
    pub fn was_closed(&self, key: &str) -> bool {
        self.closed.contains(key)
    }

    /// A new request reuses the id of `key`, whose stream was closed: what was known of the
    /// old one's cancellation no longer applies.
    pub fn reuse(&mut self, key: &str) {
        self.closed.remove(key);
        self.cancelled.remove(key);
    }

    pub fn is_cancelled(&self, key: &str) -> bool {
        self.cancelled.contains_key(key)
    }

    /// Whether a response to `key` at time `t` crossed its cancellation.
    pub fn crossed(&self, key: &str, t: Option<f64>) -> bool {
        match (self.cancelled.get(key), t) {
            (Some(Cancel::Unordered), _) => true,
            (Some(Cancel::At(Some(at))), Some(t)) => t - at <= RACE_WINDOW,
            _ => false,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_cancel_before_the_request_was_accepted_is_unordered() {
        let mut c = Crossings::default();
        c.request("c2s:3", 3);
        c.cancel("c2s:3".into(), Some(0.1));
        assert!(c.crossed("c2s:3", Some(5.0)));
        c.request("c2s:4", 5);
        c.headed(5);
        c.cancel("c2s:4".into(), Some(0.1));
        assert!(c.crossed("c2s:4", Some(0.5)));
        assert!(!c.crossed("c2s:4", Some(0.7)));
    }

    #[test]
    fn stdio_cancels_are_judged_by_time() {
        let mut c = Crossings::default();
        c.cancel("c2s:1".into(), Some(1.0));
        c.cancel("c2s:2".into(), None);
        assert!(!c.crossed("c2s:1", Some(2.0)));
        assert!(!c.crossed("c2s:2", Some(1.0)));
        assert!(!c.crossed("c2s:9", Some(1.0)));
    }
}
