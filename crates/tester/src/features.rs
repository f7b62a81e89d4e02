//! The optional features a client uses only when the server declared them: `logging/setLevel`
//! (`logging`, legacy), `completion/complete` of a prompt's argument (`completions`) and
//! `resources/subscribe` then `resources/unsubscribe` of a listed resource
//! (`resources.subscribe`, legacy). Their answers are held to the monitor's checks (the
//! result's schema, J13; log messages and resource updates only as declared and subscribed,
//! X2 and X6) and to J9 (every request answered).

use crate::know::Knowledge;
use crate::moves::Move;
use crate::walk::{Wait, Walk};
use serde_json::Value;

/// The levels a `logging/setLevel` sets (syslog's, from the chattiest on).
const LEVELS: [&str; 5] = ["debug", "info", "notice", "warning", "error"];

/// Each declared feature once.
pub fn features(walk: &mut Walk, know: &Knowledge) {
    let legacy = !walk.speech.modern;
    if legacy && walk.declared("logging") {
        let level = *walk.rng.pick(&LEVELS).unwrap_or(&"info");
        walk.go(Move::SetLevel { level }, Wait::Answer);
    }
    if walk.declared("completions")
        && let Some(mv) = completion(&know.prompts)
    {
        walk.go(mv, Wait::Answer);
    }
    let subscribable =
        walk.capabilities.pointer("/resources/subscribe") == Some(&Value::Bool(true));
    let uri = know.resources.iter().find_map(|r| r.get("uri")?.as_str());
    if let (true, true, Some(uri)) = (legacy, subscribable, uri) {
        for on in [true, false] {
            let uri = uri.into();
            walk.go(Move::Subscribe { uri, on }, Wait::Answer);
        }
    }
}

/// Completion of the first argument of the first prompt that has one.
fn completion(prompts: &[Value]) -> Option<Move> {
    prompts.iter().find_map(|p| {
        let name = p.get("name")?.as_str()?;
        let args = p.get("arguments")?.as_array()?;
        let argument = args.first()?.get("name")?.as_str()?;
        Some(Move::Complete {
            prompt: name.into(),
            argument: argument.into(),
        })
    })
}
