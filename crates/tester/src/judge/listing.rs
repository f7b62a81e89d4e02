//! M8: a modern server's listing is the same every time it is asked for, whatever the
//! connection and whatever other requests came between, and in the same order. Judged on
//! the first pages of each list a run read more than once: the tester is the server's only
//! client (a fresh process per run), so a page that changed with no notification that its
//! list changed in between changed per connection or as a side effect of the tester's own
//! requests.

use super::{Asked, Judgment, answer_of, parse, push};
use agentpi_monitor::{Dir, Event};
use serde_json::Value;

/// Each list method, the key of its items, and the notification that says it changed.
const LISTS: [(&str, &str, &str); 4] = [
    ("tools/list", "tools", "notifications/tools/list_changed"),
    (
        "prompts/list",
        "prompts",
        "notifications/prompts/list_changed",
    ),
    (
        "resources/list",
        "resources",
        "notifications/resources/list_changed",
    ),
    (
        "resources/templates/list",
        "resourceTemplates",
        "notifications/resources/list_changed",
    ),
];

/// Holds every first page of a list to the one read before it (M8).
pub(super) fn same_listings(j: &mut Judgment, events: &[Event], asked: &[Asked]) {
    for (method, key, changed) in LISTS {
        let pages = first_pages(events, asked, method, key);
        for pair in pages.windows(2) {
            let ((before, old), (at, new)) = (&pair[0], &pair[1]);
            if changed_between(events, *before, *at, changed) {
                continue;
            }
            j.exercised.insert("M8");
            if let Some(why) = difference(old, new) {
                let text = format!(
                    "the first page of {method} differs from the one answered at event {before}, with no {changed} between: {why}"
                );
                push(j, events, *at, "M8", text);
            }
        }
    }
}

/// The answered first pages (no cursor) of `method`: (index of the answer, its items).
fn first_pages(events: &[Event], asked: &[Asked], method: &str, key: &str) -> Vec<(usize, Value)> {
    asked
        .iter()
        .filter(|a| a.method == method)
        .filter(|a| a.params.as_ref().and_then(|p| p.get("cursor")).is_none())
        .filter_map(|a| {
            let (at, answer) = answer_of(events, a)?;
            Some((at, answer.pointer(&format!("/result/{key}"))?.clone()))
        })
        .collect()
}

/// Whether the server said between events `from` and `to` that the list changed.
fn changed_between(events: &[Event], from: usize, to: usize, changed: &str) -> bool {
    events[from..to].iter().any(|e| {
        e.dir == Dir::S2c
            && parse(e).is_some_and(|m| m.get("method").and_then(Value::as_str) == Some(changed))
    })
}

/// How page `new` differs from `old`, if it does: other items, or the same in another order.
fn difference(old: &Value, new: &Value) -> Option<String> {
    if old == new {
        return None;
    }
    let (Some(a), Some(b)) = (old.as_array(), new.as_array()) else {
        return Some("not a list of items".to_string());
    };
    let same_items = a.len() == b.len() && a.iter().all(|x| b.contains(x));
    Some(match same_items {
        true => "the same items in another order (the order should be deterministic)".to_string(),
        false => format!("{} items before, {} now, not the same", a.len(), b.len()),
    })
}

#[cfg(test)]
mod tests {
    use crate::judge::judge;
    use serde_json::json;

    /// A modern run's trace: discover, then `tools/list` answered with each of `pages` in
    /// turn (a `notifications/tools/list_changed` before the page where `changed` says so).
    fn trace(pages: &[(Vec<&str>, bool)]) -> Vec<agentpi_monitor::Event> {
        let meta = json!({"io.modelcontextprotocol/protocolVersion": "2026-07-28"});
        let mut rows = vec![
            json!({"t": 0.0, "dir": "c2s", "raw": json!({"jsonrpc": "2.0", "id": 1,
                "method": "server/discover", "params": {"_meta": meta}}).to_string()}),
            json!({"t": 0.1, "dir": "s2c", "raw": json!({"jsonrpc": "2.0", "id": 1,
                "result": {"supportedVersions": ["2026-07-28"], "capabilities": {"tools": {}}}}).to_string()}),
        ];
        for (k, (names, changed)) in pages.iter().enumerate() {
            let id = k + 2;
            let t = id as f64;
            let tools: Vec<_> = names.iter().map(|n| json!({"name": n})).collect();
            rows.push(
                json!({"t": t, "dir": "c2s", "raw": json!({"jsonrpc": "2.0", "id": id,
                "method": "tools/list", "params": {"_meta": meta}}).to_string()}),
            );
            if *changed {
                rows.push(json!({"t": t, "dir": "s2c", "raw": json!({"jsonrpc": "2.0",
                    "method": "notifications/tools/list_changed"}).to_string()}));
            }
            rows.push(
                json!({"t": t + 0.1, "dir": "s2c", "raw": json!({"jsonrpc": "2.0", "id": id,
                "result": {"tools": tools}}).to_string()}),
            );
        }
        let text: String = rows.iter().map(|r| r.to_string() + "\n").collect();
        agentpi_monitor::trace::parse(text.as_bytes()).unwrap()
    }

    /// (whether M8 had something to judge, its findings).
    fn m8(pages: &[(Vec<&str>, bool)]) -> (bool, Vec<String>) {
        let j = judge(&trace(pages));
        let found = j.violations.iter().filter(|v| v.rule == "M8");
        (
            j.exercised.contains("M8"),
            found.map(|v| v.message.clone()).collect(),
        )
    }

    #[test]
    fn a_listing_that_changes_unannounced_breaks_m8() {
        let same = (vec!["a", "b"], false);
        assert_eq!(m8(std::slice::from_ref(&same)), (false, vec![]));
        assert_eq!(m8(&[same.clone(), same.clone()]), (true, vec![]));
        let (exercised, found) = m8(&[same.clone(), (vec!["a"], false)]);
        assert!(exercised);
        assert_eq!(found.len(), 1);
        assert!(found[0].contains("2 items before, 1 now"), "{found:?}");
        let (_, found) = m8(&[same.clone(), (vec!["b", "a"], false)]);
        assert!(found[0].contains("another order"), "{found:?}");
        // Announced: the list may change.
        assert_eq!(m8(&[same, (vec!["a"], true)]), (false, vec![]));
    }
}
