//! How wide a text is drawn, counted conservatively so that labels never overlap: the charts
//! use a monospace font of 12 px, whose advance is about 7.2 px; 8 px a character is counted,
//! and 16 px for a character outside ASCII (wide CJK, emoji).

/// The font size of chart text, in px.
pub const FONT: u32 = 12;
/// What one ASCII character is counted, in px.
pub const CHAR: u32 = 8;

/// The width `text` is counted at, in px.
pub fn of(text: &str) -> u32 {
    text.chars()
        .map(|c| if c.is_ascii() { CHAR } else { 2 * CHAR })
        .sum()
}
