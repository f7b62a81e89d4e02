//! A listening bridge's legacy client sessions, bounded (the trust rules of a listening
//! proxy): at most `max` at once, and each ended once idle for `idle`. Without a bound a
//! client that never sends its DELETE (the TypeScript SDK 1.x closes without one) leaves its
//! session, and its process, for ever, and anyone who can reach the port makes the bridge grow
//! with `initialize`s. A session is idle when none of its streams is open (no request of it in
//! flight on the wire, no GET stream) since its last request or the end of its last stream;
//! it is ended at the next request the bridge gets after that, before the request is served
//! (its id is then unknown: 404, as the spec has it), so no timer is needed and an idle
//! session counts against `max` only until someone asks for a new one.

use std::time::{Duration, Instant};

/// `--max-sessions`, `--session-idle`.
#[derive(Clone, Copy, Debug)]
pub struct SessionLimits {
    /// Legacy sessions open at once; one more `initialize` is answered 503.
    pub max: usize,
    /// How long a session may stay idle before it is ended.
    pub idle: Duration,
}

/// The default of `--max-sessions`: a desktop host opens one session per server, a few
/// agents a handful; a hundred is more than any honest use of one bridge.
pub const MAX_SESSIONS: usize = 100;

/// The default of `--session-idle`: a client with no stream open and no request for an hour
/// has gone (a host keeps its GET stream open while it waits for notifications).
pub const SESSION_IDLE: Duration = Duration::from_secs(3600);

impl Default for SessionLimits {
    fn default() -> SessionLimits {
        SessionLimits {
            max: MAX_SESSIONS,
            idle: SESSION_IDLE,
        }
    }
}

/// The live sessions, oldest first, each with when it was last busy.
pub struct Sessions {
    limits: SessionLimits,
    live: Vec<(String, Instant)>,
}

impl Sessions {
    pub fn new(limits: SessionLimits) -> Sessions {
        Sessions {
            limits,
            live: Vec::new(),
        }
    }

    pub fn limits(&self) -> SessionLimits {
        self.limits
    }

    /// Opens `session`, or `false` when `max` are open.
    pub fn open(&mut self, session: String, now: Instant) -> bool {
        if self.live.len() >= self.limits.max {
            return false;
        }
        self.live.push((session, now));
        true
    }

    pub fn contains(&self, session: &str) -> bool {
        self.live.iter().any(|(s, _)| s == session)
    }

    /// `session` was busy at `now` (a request of it, the end of one of its streams).
    pub fn touch(&mut self, session: &str, now: Instant) {
        if let Some((_, last)) = self.live.iter_mut().find(|(s, _)| s == session) {
            *last = now;
        }
    }

    /// Ends `session`; false when it is not live.
    pub fn end(&mut self, session: &str) -> bool {
        let before = self.live.len();
        self.live.retain(|(s, _)| s != session);
        self.live.len() < before
    }

    /// Ends and returns the sessions idle for `idle` at `now`, oldest first; `busy` tells
    /// whether a session has a stream open (then it is not idle, however long ago it began).
    pub fn expire(&mut self, now: Instant, busy: impl Fn(&str) -> bool) -> Vec<String> {
        let idle = self.limits.idle;
        let over = |(s, last): &(String, Instant)| !busy(s) && now.duration_since(*last) >= idle;
        let (gone, kept): (Vec<_>, Vec<_>) =
            std::mem::take(&mut self.live).into_iter().partition(over);
        self.live = kept;
        gone.into_iter().map(|(s, _)| s).collect()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn limits(max: usize, idle_ms: u64) -> Sessions {
        Sessions::new(SessionLimits {
            max,
            idle: Duration::from_millis(idle_ms),
        })
    }

    #[test]
    fn over_the_cap_is_refused_until_one_ends() {
        let now = Instant::now();
        let mut sessions = limits(2, 1000);
        assert!(sessions.open("a".into(), now));
        assert!(sessions.open("b".into(), now));
        assert!(!sessions.open("c".into(), now));
        assert!(sessions.end("a"));
        assert!(!sessions.end("a"));
        assert!(sessions.open("c".into(), now));
    }

    #[test]
    fn an_idle_session_expires_unless_a_stream_is_open() {
        let start = Instant::now();
        let mut sessions = limits(10, 1000);
        for s in ["a", "b", "c"] {
            sessions.open(s.into(), start);
        }
        let later = start + Duration::from_millis(500);
        sessions.touch("b", later);
        let due = start + Duration::from_millis(1000);
        assert_eq!(sessions.expire(due, |s| s == "c"), ["a"]);
        assert!(sessions.contains("b") && sessions.contains("c"));
        let after = later + Duration::from_millis(1000);
        assert_eq!(sessions.expire(after, |_| false), ["b", "c"]);
    }
}
