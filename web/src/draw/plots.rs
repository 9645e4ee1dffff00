//! Time-series plots (plotters on a canvas): DOWN views, GossipStage queues, phi per peer. The
//! cursor is a vertical line; series come from the model's bounded samples.

use super::Palette;
use crate::model::Model;
use clusterscope_core::engine::NodeId;
use clusterscope_core::gossip::fd::PHI_FACTOR;
use plotters::prelude::*;
use plotters_canvas::CanvasBackend;

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Plot {
    DownPairs,
    StageQueue,
    Phi,
}

impl Plot {
    pub fn title(self) -> &'static str {
        match self {
            Plot::DownPairs => "DOWN views (observer → peer)",
            Plot::StageQueue => "GossipStage queue length",
            Plot::Phi => "φ of the selected node, per peer (as Cassandra reports it)",
        }
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
        Plot::DownPairs => vec![Series {
            name: "DOWN views".into(),
            points: (0..s.len())
                .map(|i| (secs(i), s.down_pairs[i] as f64))
                .collect(),
        }],
        Plot::StageQueue => {
            // The selected and sequence nodes, then the busiest others, at most 6 lines.
            let mut nodes: Vec<NodeId> = m.selected.into_iter().collect();
            for x in &m.seq_nodes {
                if !nodes.contains(x) {
                    nodes.push(*x);
                }
            }
            if s.n > nodes.len() {
                let mut busiest: Vec<(u32, NodeId)> = (0..s.n as NodeId)
                    .filter(|i| !nodes.contains(i))
                    .map(|i| ((0..s.len()).map(|k| s.pending(k, i)).max().unwrap_or(0), i))
                    .filter(|(mx, _)| *mx > 0)
                    .collect();
                busiest.sort_by(|a, b| b.cmp(a));
                nodes.extend(busiest.into_iter().map(|(_, i)| i));
            }
            nodes.truncate(6);
            nodes
                .into_iter()
                .map(|id| Series {
                    name: topo.name(id).to_string(),
                    points: (0..s.len())
                        .map(|i| (secs(i), s.pending(i, id) as f64))
                        .collect(),
                })
                .collect()
        }
        Plot::Phi => {
            let Some(o) = m.selected else { return vec![] };
            let mut peers: Vec<(f32, NodeId)> = (0..s.n as NodeId)
                .filter(|p| *p != o)
                .map(|p| {
                    let mx = (0..s.len())
                        .filter_map(|i| s.phi_at(i, o, p))
                        .fold(0.0f32, f32::max);
                    (mx, p)
                })
                .collect();
            peers.sort_by(|a, b| b.0.total_cmp(&a.0).then(a.1.cmp(&b.1)));
            peers.truncate(8);
            peers.sort_by_key(|p| p.1);
            peers
                .into_iter()
                .map(|(_, p)| Series {
                    name: topo.name(p).to_string(),
                    points: (0..s.len())
                        .filter_map(|i| s.phi_at(i, o, p).map(|v| (secs(i), v as f64 * PHI_FACTOR)))
                        .collect(),
                })
                .collect()
        }
    }
}

pub fn draw(
    canvas: web_sys::HtmlCanvasElement,
    m: &Model,
    plot: Plot,
    series: &[Series],
    pal: &Palette,
) -> Option<()> {
    let backend = CanvasBackend::with_canvas_object(canvas)?;
    let root = backend.into_drawing_area();
    let bg = rgb(pal.bg);
    let fg = rgb(pal.fg);
    let muted = rgb(pal.muted);
    let grid = rgb(pal.grid);
    root.fill(&bg).ok()?;
    let end_s = m.end() as f64 / 1e6;
    let threshold = m.run.engine.sim.proto.p.phi_convict_threshold;
    let mut ymax = series
        .iter()
        .flat_map(|s| s.points.iter().map(|p| p.1))
        .fold(0.0f64, f64::max);
    if plot == Plot::Phi {
        ymax = ymax.max(threshold * 1.15);
    }
    let ymax = if ymax <= 0.0 { 1.0 } else { ymax * 1.08 };
    let mut chart = ChartBuilder::on(&root)
        .margin_top(6)
        .margin_right(12)
        .margin_left(4)
        .x_label_area_size(20)
        .y_label_area_size(38)
        .build_cartesian_2d(0f64..end_s.max(0.001), 0f64..ymax)
        .ok()?;
    let font = ("system-ui, sans-serif", 11).into_font().color(&muted);
    chart
        .configure_mesh()
        .x_labels(6)
        .y_labels(4)
        .x_label_formatter(&|x| {
            if end_s >= 120.0 {
                format!("{:.0}m", x / 60.0)
            } else {
                format!("{x:.0}s")
            }
        })
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
    if plot == Plot::Phi {
        chart
            .draw_series(std::iter::once(PathElement::new(
                vec![(0.0, threshold), (end_s, threshold)],
                rgb(pal.down).mix(0.6).stroke_width(1),
            )))
            .ok()?;
    }
    for (i, s) in series.iter().enumerate() {
        let (r, g, b) = SERIES[i % SERIES.len()];
        let color = if plot == Plot::DownPairs {
            rgb(pal.down)
        } else {
            RGBColor(r, g, b)
        };
        chart
            .draw_series(LineSeries::new(
                s.points.iter().copied(),
                color.stroke_width(2),
            ))
            .ok()?;
    }
    let x = m.now() as f64 / 1e6;
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
pub fn series_css(plot: Plot, i: usize, pal: &Palette) -> String {
    if plot == Plot::DownPairs {
        return pal.down.to_string();
    }
    let (r, g, b) = SERIES[i % SERIES.len()];
    format!("rgb({r},{g},{b})")
}
