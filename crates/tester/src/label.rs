//! The client labels the protocol model offers (`Session::allowed`), read back into what a
//! client may do: a request of a kind, the cancellation of a request in flight, a late
//! cancellation, a notification of a kind.

/// One label the model would take from the client without a violation.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Offer {
    /// `req(new r, KIND, new t)`: a new request of the model's kind.
    Request(String),
    /// `cancel(c2s:ID)`: the cancellation of request ID (JSON text), in flight.
    Cancel(String),
    /// `late_cancel`: the cancellation of a request already answered (a crossing).
    LateCancel,
    /// `note(KIND)`: a notification of the model's kind.
    Note(String),
    /// Anything else (answers to server requests, `again`, ...): not chosen by the walk.
    Other,
}

/// Reads one label `c2s(...)`.
pub fn offer(label: &str) -> Offer {
    let Some(inner) = label.strip_prefix("c2s(").and_then(|l| l.strip_suffix(')')) else {
        return Offer::Other;
    };
    if inner == "late_cancel" {
        return Offer::LateCancel;
    }
    if let Some(key) = call(inner, "cancel").and_then(|k| k.strip_prefix("c2s:")) {
        return Offer::Cancel(key.to_string());
    }
    if let Some(kind) = call(inner, "note") {
        return Offer::Note(kind.to_string());
    }
    if let Some(args) = call(inner, "req") {
        let parts: Vec<&str> = args.split(", ").collect();
        if let [_, kind, _] = parts.as_slice() {
            return Offer::Request((*kind).to_string());
        }
    }
    Offer::Other
}

/// `name(ARGS)` -> `ARGS`.
fn call<'a>(text: &'a str, name: &str) -> Option<&'a str> {
    text.strip_prefix(name)?
        .strip_prefix('(')?
        .strip_suffix(')')
}

/// Every offer of `labels`.
pub fn offers(labels: &[String]) -> Vec<Offer> {
    labels.iter().map(|l| offer(l)).collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn labels_read_back() {
        assert_eq!(
            offer("c2s(req(new r, tools, new t))"),
            Offer::Request("tools".into())
        );
        assert_eq!(offer("c2s(cancel(c2s:12))"), Offer::Cancel("12".into()));
        assert_eq!(offer("c2s(late_cancel)"), Offer::LateCancel);
        assert_eq!(
            offer("c2s(note(initialized))"),
            Offer::Note("initialized".into())
        );
        assert_eq!(offer("c2s(again)"), Offer::Other);
        assert_eq!(offer("s2c(late_cancel)"), Offer::Other);
    }
}
