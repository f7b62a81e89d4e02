//! Documents' URIs to the display names the loader gives files, and back. Files on disk are
//! `file:` URIs of absolute paths; a bundled model (display name `<bundled>/NAME.pi`) is
//! `agentpi-bundled:/NAME.pi`, whose text the custom request `agentpi/bundled` returns.

use lsp_types::Url;

/// The display-name prefix of bundled models (the binary's loader's).
pub const BUNDLED: &str = "<bundled>/";
pub const BUNDLED_SCHEME: &str = "agentpi-bundled";

/// The loader's name of the document at `uri`, if it is a file or a bundled model.
pub fn to_name(uri: &Url) -> Option<String> {
    match uri.scheme() {
        "file" => Some(uri.to_file_path().ok()?.display().to_string()),
        BUNDLED_SCHEME => Some(format!("{BUNDLED}{}", uri.path().trim_start_matches('/'))),
        _ => None,
    }
}

/// The URI of a file the loader named `name` (none for generated text, such as `-D` values).
pub fn from_name(name: &str) -> Option<Url> {
    if let Some(model) = name.strip_prefix(BUNDLED) {
        return Url::parse(&format!("{BUNDLED_SCHEME}:/{model}")).ok();
    }
    let path = std::path::Path::new(name);
    path.is_absolute()
        .then(|| Url::from_file_path(path).ok())
        .flatten()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_and_uris_round_trip() {
        for name in ["/tmp/a b/ring.pi", "<bundled>/mcp/legacy.pi"] {
            let uri = from_name(name).unwrap();
            assert_eq!(to_name(&uri).as_deref(), Some(name), "{uri}");
        }
        assert_eq!(from_name("(-D on the command line)"), None);
    }
}
