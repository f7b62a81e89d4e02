//! Turns a live server's [`Listing`] into a [`ToolSet`], with the findings made while listing:
//! stdout noise (S201) and a repeated pagination cursor (G301).

use super::context::Finding;
use super::input::ToolSet;
use crate::client::Listing;

/// The document name findings on a live listing point into.
pub const DOCUMENT: &str = "tools/list";

pub fn from_listing(origin: &str, listing: &Listing, noise: &[String]) -> ToolSet {
    let mut set = ToolSet::from_values(origin, DOCUMENT, "/tools", &listing.tools);
    set.era = Some(listing.era);
    set.protocol_version = Some(listing.protocol_version.clone());
    if let Some(first) = noise.first() {
        let shown: String = first.chars().take(80).collect();
        let message = format!(
            "the server wrote {} line(s) on stdout that are not JSON-RPC messages, first: {shown:?}",
            noise.len()
        );
        set.findings
            .push(located(Finding::new("S201", None, message)));
    }
    if let Some(cursor) = &listing.repeated_cursor {
        let message = format!(
            "tools/list returned cursor {cursor:?} twice; listing stopped after {} pages",
            listing.pages
        );
        set.findings
            .push(located(Finding::new("G301", None, message)));
    }
    set
}

fn located(mut finding: Finding) -> Finding {
    finding.diagnostic = finding.diagnostic.at_pointer(DOCUMENT, "");
    finding
}
