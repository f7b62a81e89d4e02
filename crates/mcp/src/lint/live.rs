//! Turns a live server's [`Listing`] into a [`ToolSet`], with the findings made while listing:
//! stdout noise (S201) and a repeated pagination cursor (G301).

use super::finding::Finding;
use super::toolset::ToolSet;
use crate::client::Listing;

/// The document name findings on a live listing point into, unless it was saved to a file.
pub const DOCUMENT: &str = "tools/list";

/// The listing as the JSON document `--save-listing` writes: `{"tools": [...]}`, so that the
/// pointers of findings (`/tools/N/...`) resolve in the saved file.
pub fn document(listing: &Listing) -> String {
    let value = serde_json::json!({ "tools": listing.tools });
    serde_json::to_string_pretty(&value).unwrap_or_default() + "\n"
}

/// The tool set of a live listing; findings point into `document` ([`DOCUMENT`], or the file
/// the listing was saved to).
pub fn from_listing(origin: &str, document: &str, listing: &Listing, noise: &[String]) -> ToolSet {
    let mut set = ToolSet::from_values(origin, document, "/tools", &listing.tools);
    set.era = Some(listing.era);
    set.protocol_version = Some(listing.protocol_version.clone());
    if let Some(first) = noise.first() {
        let shown: String = first.chars().take(80).collect();
        let message = format!(
            "the server wrote {} line(s) on stdout that are not JSON-RPC messages, first: {shown:?}",
            noise.len()
        );
        set.findings
            .push(located(document, Finding::new("S201", None, message)));
    }
    if let Some(cursor) = &listing.repeated_cursor {
        let message = format!(
            "tools/list returned cursor {cursor:?} twice; listing stopped after {} pages",
            listing.pages
        );
        set.findings
            .push(located(document, Finding::new("G301", None, message)));
    }
    set
}

fn located(document: &str, mut finding: Finding) -> Finding {
    finding.diagnostic = finding.diagnostic.at_pointer(document, "");
    finding
}
