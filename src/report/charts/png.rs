//! `--plot FILE.png`: the SVG chart rasterized by resvg, with the embedded font, at 2×
//! (crisp on high-density screens and in slides).

use super::font;
use crate::error::Result;

/// Rasterize a standalone chart as PNG bytes.
pub fn render(svg: &str) -> Result<Vec<u8>> {
    let mut opt = resvg::usvg::Options::default();
    opt.fontdb_mut().load_font_data(font::TTF.to_vec());
    // The embedded subset's own family name; the chart asks for it through its stack.
    opt.font_family = "DejaVu Sans".into();
    let tree = resvg::usvg::Tree::from_str(svg, &opt).map_err(|e| failed!("cannot rasterize the chart: {e}"))?;
    let size = tree.size().to_int_size().scale_by(2.0).ok_or_else(|| failed!("the chart is too large for PNG"))?;
    let mut pixmap = resvg::tiny_skia::Pixmap::new(size.width(), size.height())
        .ok_or_else(|| failed!("the chart is too large for PNG"))?;
    pixmap.fill(resvg::tiny_skia::Color::WHITE);
    resvg::render(&tree, resvg::tiny_skia::Transform::from_scale(2.0, 2.0), &mut pixmap.as_mut());
    pixmap.encode_png().map_err(|e| failed!("cannot encode the PNG: {e}"))
}
