//! The embedded font: its bytes for `@font-face`, and its advance widths, so labels are laid
//! out for the glyphs the browser will draw (no system font, no guessing per machine).

use base64::Engine as _;
use std::collections::HashMap;
use std::sync::OnceLock;

/// DejaVu Sans cut to Latin-1 and a few symbols (see assets/fonts/README.md).
pub(crate) const TTF: &[u8] = include_bytes!("../../../assets/fonts/DejaVuSans-subset.ttf");

/// The family name the report's CSS and the charts' text use.
pub const FAMILY: &str = "dbrace-sans";

/// `font-family` value for chart text: the embedded face first.
pub const STACK: &str = "dbrace-sans, 'DejaVu Sans', sans-serif";

/// A CSS `@font-face` rule carrying the font itself, for pages and standalone SVG files.
pub fn face_css() -> String {
    let data = base64::engine::general_purpose::STANDARD.encode(TTF);
    format!("@font-face{{font-family:{FAMILY};src:url(data:font/ttf;base64,{data}) format('truetype');}}")
}

/// Advance widths in em, per character the font maps.
struct Metrics {
    widths: HashMap<char, f64>,
    fallback: f64,
}

fn metrics() -> &'static Metrics {
    static M: OnceLock<Metrics> = OnceLock::new();
    M.get_or_init(|| {
        let widths = parse(TTF).unwrap_or_default();
        let fallback = widths.get(&'0').copied().unwrap_or(0.6);
        Metrics { widths, fallback }
    })
}

/// Width of `s` drawn at `size` px in the embedded font (no kerning: the subset has none).
pub fn text_width(s: &str, size: f64) -> f64 {
    let m = metrics();
    s.chars().map(|c| m.widths.get(&c).copied().unwrap_or(m.fallback)).sum::<f64>() * size
}

fn u16_at(b: &[u8], at: usize) -> Option<u16> {
    Some(u16::from_be_bytes(b.get(at..at + 2)?.try_into().ok()?))
}

fn u32_at(b: &[u8], at: usize) -> Option<u32> {
    Some(u32::from_be_bytes(b.get(at..at + 4)?.try_into().ok()?))
}

/// Read the tables a width needs: head (units per em), hhea + hmtx (advances), cmap
/// format 4 (characters to glyphs). Returns `None` on anything unexpected.
fn parse(b: &[u8]) -> Option<HashMap<char, f64>> {
    let tables = u16_at(b, 4)? as usize;
    let table = |tag: &[u8; 4]| -> Option<usize> {
        (0..tables)
            .map(|i| 12 + 16 * i)
            .find(|&r| b.get(r..r + 4) == Some(tag))
            .and_then(|r| u32_at(b, r + 8))
            .map(|o| o as usize)
    };
    let units = f64::from(u16_at(b, table(b"head")? + 18)?);
    let metrics_count = u16_at(b, table(b"hhea")? + 34)? as usize;
    let hmtx = table(b"hmtx")?;
    let advance = |glyph: usize| u16_at(b, hmtx + 4 * glyph.min(metrics_count.checked_sub(1)?));
    let cmap = table(b"cmap")?;
    let sub = (0..u16_at(b, cmap + 2)? as usize)
        .map(|i| cmap + 4 + 8 * i)
        .filter(|&r| matches!((u16_at(b, r), u16_at(b, r + 2)), (Some(3), Some(1)) | (Some(0), Some(3))))
        .filter_map(|r| Some(cmap + u32_at(b, r + 4)? as usize))
        .find(|&s| u16_at(b, s) == Some(4))?;
    let segments = u16_at(b, sub + 6)? as usize / 2;
    let (ends, starts) = (sub + 14, sub + 16 + 2 * segments);
    let (deltas, offsets) = (starts + 2 * segments, starts + 4 * segments);
    let mut widths = HashMap::new();
    for i in 0..segments {
        let (start, end) = (u16_at(b, starts + 2 * i)?, u16_at(b, ends + 2 * i)?);
        let delta = u16_at(b, deltas + 2 * i)?;
        let range_offset = u16_at(b, offsets + 2 * i)? as usize;
        for c in start..=end.min(0xfffe) {
            let glyph = if range_offset == 0 {
                c.wrapping_add(delta)
            } else {
                match u16_at(b, offsets + 2 * i + range_offset + 2 * usize::from(c - start))? {
                    0 => 0,
                    g => g.wrapping_add(delta),
                }
            };
            if let (Some(ch), true) = (char::from_u32(u32::from(c)), glyph != 0) {
                widths.insert(ch, f64::from(advance(usize::from(glyph))?) / units);
            }
        }
    }
    Some(widths)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_embedded_font_maps_latin_1_and_its_widths_are_dejavu_sans() {
        let m = metrics();
        assert!(m.widths.len() > 190, "{}", m.widths.len());
        // DejaVu Sans: 2048 units per em, digits 1303 units, 'i' 569, 'W' 2025, space 651.
        let em = |c: char| (m.widths[&c] * 2048.0).round();
        assert_eq!((em('0'), em('7'), em('i'), em('W'), em(' ')), (1303.0, 1303.0, 569.0, 2025.0, 651.0));
        assert!(m.widths.contains_key(&'×') && m.widths.contains_key(&'–') && m.widths.contains_key(&'µ'));
        assert!((text_width("10", 10.0) - 2.0 * 1303.0 / 2048.0 * 10.0).abs() < 1e-9);
        assert!(face_css().starts_with("@font-face{font-family:dbrace-sans;src:url(data:font/ttf;base64,AAEAAA"));
    }
}
