//! Names of the generated `.pi` models: SGD names made into identifiers of the right case
//! that are not keywords (`TransferMoney` becomes `transfer_money`, the slot `type` becomes
//! `type_`).

/// Words of the language that cannot be names.
const KEYWORDS: [&str; 23] = [
    "type", "const", "chan", "event", "proc", "daemon", "system", "check", "import", "new", "if",
    "then", "else", "match", "true", "false", "tau", "assert", "not", "and", "or", "par", "_",
];

/// A lower-case identifier for `name`: CamelCase split at capitals, anything not a letter or
/// digit an underscore, a leading digit prefixed, a keyword suffixed with `_`.
pub fn lower(name: &str) -> String {
    let mut out = String::new();
    let mut prev_lower = false;
    for c in name.chars() {
        if c.is_ascii_uppercase() {
            if prev_lower {
                out.push('_');
            }
            out.push(c.to_ascii_lowercase());
            prev_lower = false;
        } else if c.is_ascii_alphanumeric() {
            out.push(c);
            prev_lower = true;
        } else {
            out.push('_');
            prev_lower = false;
        }
    }
    if out.is_empty() || out.starts_with(|c: char| c.is_ascii_digit()) {
        out.insert(0, 'x');
    }
    if KEYWORDS.contains(&out.as_str()) {
        out.push('_');
    }
    out
}

/// An upper-case identifier for `name`: `transfer_money` and `TransferMoney` both become
/// `TransferMoney`.
pub fn upper(name: &str) -> String {
    let mut out = String::new();
    for part in lower(name).split('_').filter(|p| !p.is_empty()) {
        let mut chars = part.chars();
        if let Some(first) = chars.next() {
            out.push(first.to_ascii_uppercase());
            out.extend(chars);
        }
    }
    if out.is_empty() || out.starts_with(|c: char| c.is_ascii_digit()) {
        out.insert(0, 'X');
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_become_identifiers() {
        assert_eq!(lower("TransferMoney"), "transfer_money");
        assert_eq!(lower("type"), "type_");
        assert_eq!(lower("number_of_seats"), "number_of_seats");
        assert_eq!(lower("2nd-slot"), "x2nd_slot");
        // `_` alone is the wildcard pattern.
        assert_eq!(lower("_"), "__");
        assert_eq!(upper("transfer_money"), "TransferMoney");
        assert_eq!(upper("TransferMoney"), "TransferMoney");
    }
}
