//! Time-series plots (plotters on a canvas) of the model's series (gossip: DOWN views,
//! GossipStage queues, phi per peer). The cursor is a vertical line; series come from the model's bounded samples.

use super::{axis, Palette};
use crate::model::Model;
use clusterscope_core::engine::NodeId;
use clusterscope_core::small_sort::sort_by;
use plotters::prelude::*;
use plotters_canvas::CanvasBackend;

/// A plot: one of the model's named series (`Model::series`), or its per-pair series for the
/// selected observer (`Model::pair_series`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Plot {
    Series(usize),
    Pair,
    /// Two per-node series for the selected node on one chart (`Model::series_overlays`:
    /// Raft's commitIndex and lastApplied), by index there.
    Overlay(usize),
}

impl Plot {
    /// The plots a model offers, at most `max`: its series in order, then the pair series.
    pub fn all(m: &Model, max: usize) -> Vec<Plot> {
        // The overlays first: they put side by side what the separate charts show apart.
        let n = m.samples.specs.len();
        let mut v: Vec<Plot> = (0..m.run.engine.series_overlays().len())
            .filter(|&i| {
                let (_, a, b) = m.run.engine.series_overlays()[i];
                a < n && b < n
            })
            .map(Plot::Overlay)
            .collect();
        v.extend((0..n).map(Plot::Series));
        if m.samples.pairs {
            v.push(Plot::Pair);
        }
        v.truncate(max);
        v
    }

    pub fn title(self, m: &Model) -> String {
        match self {
            Plot::Series(i) => m.samples.specs[i].title.to_string(),
            Plot::Pair => m
                .run
                .engine
                .pair_series()
                .map_or(String::new(), |p| p.title.to_string()),
            Plot::Overlay(i) => m.run.engine.series_overlays()[i].0.to_string(),
        }
    }

    /// A stable name for tests (`data-plot`).
    pub fn key(self, m: &Model) -> String {
        match self {
            Plot::Series(i) => m.samples.specs[i].name.to_string(),
            Plot::Pair => "pair".into(),
            Plot::Overlay(i) => {
                let (_, a, b) = m.run.engine.series_overlays()[i];
                format!("{}+{}", m.samples.specs[a].name, m.samples.specs[b].name)
            }
        }
    }

    /// A single series across the cluster (drawn in the alarm colour when it is a count of
    /// problems, e.g. DOWN views).
    fn single(self, m: &Model) -> bool {
        matches!(self, Plot::Series(i) if !m.samples.specs[i].per_node)
    }
}

/// Series colours, cycling.
const SERIES: &[(u8, u8, u8)] = &[
    (59, 130, 246),
    (225, 29, 143),
    (20, 184, 166),
    (245, 158, 11),
    (139, 63, 217),
    (100, 116, 139),
    (220, 38, 38),
    (34, 197, 94),
];

fn rgb(hex: &str) -> RGBColor {
    let h = hex.trim_start_matches('#');
    let v = u32::from_str_radix(h, 16).unwrap_or(0x808080);
    RGBColor((v >> 16) as u8, (v >> 8) as u8, v as u8)
}

pub struct Series {
    pub name: String,
    pub points: Vec<(f64, f64)>,
}

/// The series a plot shows (pure: also used for the plot's text summary).
pub fn series(m: &Model, plot: Plot) -> Vec<Series> {
    let s = &m.samples;
    let secs = |i: usize| s.times[i] as f64 / 1e6;
    let topo = &m.run.scenario.topo;
    match plot {
        Plot::Series(k) if !s.specs[k].per_node => vec![Series {
            name: s.specs[k].title.to_string(),
            points: (0..s.len())
                .map(|i| (secs(i), s.value(i, k, 0) as f64))
                .collect(),
        }],
        Plot::Series(k) => {
            // The selected and sequence nodes, then the busiest others, at most 6 lines.
            let mut nodes: Vec<NodeId> = m.selected.into_iter().collect();
            for x in &m.seq_nodes {
                if !nodes.contains(x) {
                    nodes.push(*x);
                }
            }
            if s.n > nodes.len() {
                let mut busiest: Vec<(f32, NodeId)> = (0..s.n as NodeId)
                    .filter(|i| !nodes.contains(i))
                    .map(|i| {
                        let mx = (0..s.len())
                            .map(|j| s.value(j, k, i))
                            .fold(0.0f32, f32::max);
                        (mx, i)
                    })
                    .filter(|(mx, _)| *mx > 0.0)
                    .collect();
                sort_by(&mut busiest, |a, b| b.0.total_cmp(&a.0).then(b.1.cmp(&a.1)));
                nodes.extend(busiest.into_iter().map(|(_, i)| i));
            }
            nodes.truncate(6);
            nodes
                .into_iter()
                .map(|id| Series {
                    name: topo.name(id).to_string(),
                    points: (0..s.len())
                        .map(|i| (secs(i), s.value(i, k, id) as f64))
                        .collect(),
                })
                .collect()
        }
        Plot::Overlay(j) => {
            let (_, a, b) = m.run.engine.series_overlays()[j];
            let id = m.selected.unwrap_or(0);
            [a, b]
                .into_iter()
                .map(|k| Series {
                    name: format!("{} ({})", s.specs[k].title, topo.name(id)),
                    points: (0..s.len())
                        .map(|i| (secs(i), s.value(i, k, id) as f64))
                        .collect(),
                })
                .collect()
        }
        Plot::Pair => {
            let Some(o) = m.selected else { return vec![] };
            let mut peers: Vec<(f32, NodeId)> = (0..s.n as NodeId)
                .filter(|p| *p != o)
                .map(|p| {
                    let mx = (0..s.len())
                        .filter_map(|i| s.pair_at(i, o, p))
                        .fold(0.0f32, f32::max);
                    (mx, p)
                })
                .collect();
            sort_by(&mut peers, |a, b| b.0.total_cmp(&a.0).then(a.1.cmp(&b.1)));
            peers.truncate(8);
            sort_by(&mut peers, |a, b| a.1.cmp(&b.1));
            // Large clusters keep one observer's row per sample: a node selected after the
            // replay computed a stretch has no history there, and its legend must not list
            // peers without a line (nor those with no value at all: Raft's matchIndex row of a
            // node that never led).
            peers
                .into_iter()
                .map(|(_, p)| Series {
                    name: topo.name(p).to_string(),
                    points: (0..s.len())
                        .filter_map(|i| s.pair_at(i, o, p).map(|v| (secs(i), v as f64)))
                        .collect(),
                })
                .filter(|sr| sr.points.iter().any(|p| p.1.is_finite()))
                .collect()
        }
    }
}

/// The stretches of `points` up to `x1` with a value: a NaN (no value, e.g. a stopped node's
/// commitIndex) ends one, so the line leaves a gap instead of dropping to 0 or to the top.
fn runs(points: &[(f64, f64)], x1: f64) -> Vec<&[(f64, f64)]> {
    let end = points.partition_point(|p| p.0 <= x1);
    points[..end]
        .split(|p| !p.1.is_finite())
        .filter(|r| !r.is_empty())
        .collect()
}

/// What a drawn plot shows, for tests and the card's notes.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Drawn {
    /// The x tick labels.
    pub ticks: Vec<String>,
    /// Values above the y axis were clipped at its top.
    pub clipped: bool,
    pub ymax: f64,
}

/// A plot's axes at the cursor, for a canvas `w` CSS pixels wide: the time window (seconds), the
/// y range, and the x ticks.
pub struct Axes {
    pub x0: f64,
    pub x1: f64,
    pub ymax: f64,
    /// Values above the y axis are clipped at its top.
    pub clipped: bool,
    pub threshold: Option<f64>,
    pub ticks: Vec<(f64, String)>,
}

impl Axes {
    pub fn of(m: &Model, plot: Plot, series: &[Series], w: u32) -> Axes {
        let (x0, x1) = axis::time_window(m.now() as f64 / 1e6, m.end() as f64 / 1e6);
        let threshold = match plot {
            Plot::Pair => m.run.engine.pair_series().and_then(|p| p.threshold),
            Plot::Series(_) | Plot::Overlay(_) => None,
        };
        let peak = series
            .iter()
            .flat_map(|s| s.points.iter().filter(|p| p.0 <= x1).map(|p| p.1))
            .fold(0.0f64, f64::max);
        let (ymax, clipped) = axis::y_max(peak, threshold);
        let ticks = axis::time_ticks(x0, x1, ((w as f64 / 90.0) as usize).clamp(3, 8));
        Axes {
            x0,
            x1,
            ymax,
            clipped,
            threshold,
            ticks,
        }
    }

    /// What the drawn plot shows (the same without drawing it).
    pub fn drawn(&self) -> Drawn {
        Drawn {
            ticks: self.ticks.iter().map(|t| t.1.clone()).collect(),
            clipped: self.clipped,
            ymax: self.ymax,
        }
    }
}

/// Draw on `canvas` (sized for the device pixel ratio: `prepare_canvas` set its backing store
/// and the context's scale; plotters draws in CSS pixels inside a `w` x `h` area) with `axes`
/// (`Axes::of` for this width).
pub fn draw(
    canvas: web_sys::HtmlCanvasElement,
    (w, h): (u32, u32),
    m: &Model,
    plot: Plot,
    series: &[Series],
    axes: &Axes,
    pal: &Palette,
) -> Option<()> {
    let backend = CanvasBackend::with_canvas_object(canvas)?;
    let root = backend.into_drawing_area().shrink((0, 0), (w, h));
    let bg = rgb(pal.bg);
    let fg = rgb(pal.fg);
    let muted = rgb(pal.muted);
    let grid = rgb(pal.grid);
    root.fill(&bg).ok()?;
    let Axes {
        x0,
        x1,
        ymax,
        threshold,
        ref ticks,
        ..
    } = *axes;
    let mut chart = ChartBuilder::on(&root)
        .margin_top(6)
        .margin_right(12)
        .margin_left(4)
        .x_label_area_size(20)
        .y_label_area_size(38)
        .build_cartesian_2d(x0..x1, 0f64..ymax)
        .ok()?;
    // A named family: plotters' `From<&str>` lowercases the name, which brings std's Unicode
    // case tables into the first download (~11 KB gzipped, issue 44).
    let font = (FontFamily::Name("system-ui, sans-serif"), 11)
        .into_font()
        .color(&muted);
    chart
        .configure_mesh()
        .disable_x_mesh()
        .x_labels(0)
        .y_labels(4)
        .y_label_formatter(&|y| {
            if ymax >= 10.0 {
                format!("{y:.0}")
            } else {
                format!("{y:.1}")
            }
        })
        .label_style(font.clone())
        .axis_style(grid)
        .bold_line_style(grid.mix(0.6))
        .light_line_style(TRANSPARENT)
        .draw()
        .ok()?;
    // Regular time ticks (plotters would pick round numbers of seconds: "0m 3m 7m 10m").
    for (x, _) in ticks {
        chart
            .draw_series(std::iter::once(PathElement::new(
                vec![(*x, 0.0), (*x, ymax)],
                grid.mix(0.6).stroke_width(1),
            )))
            .ok()?;
    }
    let plot_area = chart.plotting_area().clone();
    let (px, py) = plot_area.get_pixel_range();
    let x_to_px =
        |x: f64| px.start as f64 + (x - x0) / (x1 - x0).max(1e-9) * (px.end - px.start) as f64;
    for (x, label) in ticks {
        let style = font.clone().pos(plotters::style::text_anchor::Pos::new(
            plotters::style::text_anchor::HPos::Center,
            plotters::style::text_anchor::VPos::Top,
        ));
        root.draw_text(label, &style, (x_to_px(*x) as i32, py.end + 4))
            .ok()?;
    }
    if let Some(threshold) = threshold {
        chart
            .draw_series(std::iter::once(PathElement::new(
                vec![(x0, threshold), (x1, threshold)],
                rgb(pal.down).mix(0.6).stroke_width(1),
            )))
            .ok()?;
    }
    for (i, s) in series.iter().enumerate() {
        let (r, g, b) = SERIES[i % SERIES.len()];
        let color = if plot.single(m) {
            rgb(pal.down)
        } else {
            RGBColor(r, g, b)
        };
        for run in runs(&s.points, x1) {
            chart
                .draw_series(LineSeries::new(
                    run.iter().map(|p| (p.0, p.1.min(ymax))),
                    color.stroke_width(2),
                ))
                .ok()?;
        }
    }
    let x = (m.now() as f64 / 1e6).min(x1);
    chart
        .draw_series(std::iter::once(PathElement::new(
            vec![(x, 0.0), (x, ymax)],
            fg.stroke_width(1),
        )))
        .ok()?;
    root.present().ok()?;
    Some(())
}

/// Colour of series `i` as CSS, for the HTML legend.
pub fn series_css(m: &Model, plot: Plot, i: usize, pal: &Palette) -> String {
    if plot.single(m) {
        return pal.down.to_string();
    }
    let (r, g, b) = SERIES[i % SERIES.len()];
    format!("rgb({r},{g},{b})")
}

#[cfg(test)]
mod tests {
    use super::runs;

    #[test]
    fn lines_leave_a_gap_where_there_is_no_value() {
        let nan = f64::NAN;
        let pts = [
            (0.0, 1.0),
            (1.0, 2.0),
            (2.0, nan),
            (3.0, nan),
            (4.0, 5.0),
            (5.0, 6.0),
            (6.0, 7.0),
        ];
        let r = runs(&pts, 5.0);
        assert_eq!(r, vec![&pts[0..2], &pts[4..6]]);
        // Nothing with a value: nothing drawn; a lone value is a run of one.
        assert!(runs(&[(0.0, nan)], 9.0).is_empty());
        assert_eq!(
            runs(&[(0.0, nan), (1.0, 3.0)], 9.0),
            vec![&[(1.0, 3.0)][..]]
        );
    }
}
