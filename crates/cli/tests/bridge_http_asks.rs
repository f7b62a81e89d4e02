//! `--to legacy --upstream`: which call a legacy server's request (its elicitation) is for.
//! Over Streamable HTTP the server sends it on the SSE stream of the call it belongs to, so
//! the bridge gives it to that call, not to the first call held open (as it must on stdio,
//! where nothing names the call). A Python SDK 1.x server, a scripted modern client; the call
//! that stays open (`hold`) ends only when the client releases it: no timing.

use crate::bridge_http::{Step, Wait, bridge_to, drive, report};
use crate::bridge_lost::{answer, call, discover, legacy_http, retry};
use crate::monitor::scratch;
use serde_json::json;

/// A call that stays open (`hold`) and then one that asks the user (`ask`): the server's
/// elicitation, on `ask`'s stream, goes to `ask` (its client gets the `input_required`
/// result and its retry is answered), and `hold` is answered once released. Before the
/// routing by stream, `hold`, the first call held, took the elicitation of `ask`.
#[test]
fn a_legacy_servers_request_goes_to_the_call_on_whose_stream_it_came() {
    let dir = scratch("bridge-http-asks-by-stream");
    let (_server, _, url) = legacy_http(0);
    let discover = discover();
    let steps = [
        Step::Send(discover, Wait::Id(1)),
        Step::Send(call(2, "hold", r#"{"key":"a"}"#), Wait::None),
        Step::Send(call(3, "ask", r#"{"question":"which?"}"#), Wait::Id(3)),
        Step::Send(retry(4, 1, "ask", "which?"), Wait::Id(4)),
        Step::Send(call(5, "release", r#"{"key":"a"}"#), Wait::Id(2)),
    ];
    let (seen, status, stderr) = drive(&bridge_to("legacy", &url, &dir), &steps, || {});
    assert_eq!(status, Some(0), "{stderr}");
    let asked = &answer(&seen, 3)["result"];
    assert_eq!(asked["resultType"], json!("input_required"), "{seen:?}");
    let text = |id: i64| answer(&seen, id)["result"]["content"][0]["text"].clone();
    assert_eq!(text(4), json!("accept: yes"), "{seen:?}");
    assert_eq!(text(2), json!("released a"), "{seen:?}");
    let report = report(&dir);
    assert_eq!(report["bridge"]["notes"], json!([]), "{report}");
    assert_eq!(report["transport"]["notes"], json!([]), "{report}");
    assert_eq!(report["modern"]["violations"], json!([]), "{report}");
    assert_eq!(report["legacy"]["violations"], json!([]), "{report}");
}
