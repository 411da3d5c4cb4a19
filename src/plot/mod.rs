//! Drawing in SVG: a small writer of the elements the pictures and plots use ([`Svg`]), a chart
//! over it with axes, grid and a legend ([`Chart`]), and where the axes' ticks go ([`nice_step`],
//! [`log_ticks`]). `draw`'s trees, `dist --svg`, `stress --svg` and `bench --svg` are all drawn
//! with it.

mod chart;
mod svg;
mod ticks;

pub(crate) use chart::{Axis, Chart, Corner, Legend, Mark, Rect};
pub(crate) use svg::{Anchor, Colour, Font, Paint, Stroke, Svg};
pub(crate) use ticks::{decade_label, log_label, log_ticks, nice_step, ticks};
