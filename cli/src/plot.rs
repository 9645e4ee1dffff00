//! `--plot out.svg|out.png` for sweeps (plotters): the fraction of seeds where every expectation
//! held, with 95% Wilson intervals — bars per expectation without a grid, bars per value for one
//! grid parameter, a heatmap for two.

use clusterscope_core::sweep::{CellSummary, Fraction, Summary};
use plotters::coord::Shift;
use plotters::prelude::*;

/// Fonts tried in order for the plot's text (`CLUSTERSCOPE_FONT` first): plotters draws text
/// with ab_glyph from a TrueType file, so no font library is needed.
const FONTS: &[&str] = &[
    "/usr/share/fonts/truetype/dejavu/DejaVuSans.ttf",
    "/usr/share/fonts/TTF/DejaVuSans.ttf",
    "/usr/share/fonts/dejavu/DejaVuSans.ttf",
    "/usr/share/fonts/truetype/liberation/LiberationSans-Regular.ttf",
    "/Library/Fonts/Arial.ttf",
    "/System/Library/Fonts/Supplemental/Arial.ttf",
    "C:\\Windows\\Fonts\\arial.ttf",
];

/// Registers the first font found, once per process (a sweep's plot is checked before it runs
/// and drawn after).
fn register_font() -> Result<(), String> {
    static DONE: std::sync::OnceLock<Result<(), String>> = std::sync::OnceLock::new();
    DONE.get_or_init(find_font).clone()
}

fn find_font() -> Result<(), String> {
    let env = std::env::var("CLUSTERSCOPE_FONT").ok();
    let tried: Vec<String> = env
        .iter()
        .cloned()
        .chain(FONTS.iter().map(|s| s.to_string()))
        .collect();
    for p in &tried {
        if let Ok(bytes) = std::fs::read(p) {
            // plotters keeps the font for the process's lifetime.
            let bytes: &'static [u8] = Box::leak(bytes.into_boxed_slice());
            if plotters::style::register_font("sans-serif", FontStyle::Normal, bytes).is_ok() {
                return Ok(());
            }
        }
    }
    Err(format!(
        "no TrueType font for the plot's text (tried {}); set CLUSTERSCOPE_FONT to a .ttf file",
        tried.join(", ")
    ))
}

/// What a plot shows per cell: the fraction of seeds where every expectation held, where one
/// expectation held, or where a metric was above zero.
pub enum Measure {
    All,
    Expectation(usize, String),
    Metric(String),
}

impl Measure {
    /// `all`, a metric's name, or (part of) one expectation's name.
    pub fn parse(s: &Summary, what: &str) -> Result<Measure, String> {
        let c = &s.cells[0];
        let names: Vec<&str> = c.expectations.iter().map(|e| e.name.as_str()).collect();
        let mut metrics: Vec<&str> = s
            .cells
            .iter()
            .flat_map(|c| c.metrics.keys().map(String::as_str))
            .collect();
        metrics.sort_unstable();
        metrics.dedup();
        Measure::pick(what, &names, &metrics)
    }

    /// [`Measure::parse`] from the names alone: what a sweep's expectations and metrics are
    /// called is known before it runs.
    pub fn pick(what: &str, expectations: &[&str], metrics: &[&str]) -> Result<Measure, String> {
        if what == "all" {
            return Ok(Measure::All);
        }
        if metrics.contains(&what) {
            return Ok(Measure::Metric(what.to_string()));
        }
        let hits: Vec<usize> = expectations
            .iter()
            .enumerate()
            .filter(|(_, e)| e.contains(what))
            .map(|(i, _)| i)
            .collect();
        match hits[..] {
            [i] => Ok(Measure::Expectation(i, expectations[i].to_string())),
            _ => Err(format!(
                "--plot-of \"{what}\": {}; use `all`, a metric ({}) or part of one \
                 expectation's name",
                if hits.is_empty() {
                    "matches no metric or expectation".to_string()
                } else {
                    format!("matches {} expectations", hits.len())
                },
                metrics.join(", ")
            )),
        }
    }

    fn of<'a>(&self, c: &'a CellSummary) -> &'a Fraction {
        match self {
            Measure::All => &c.all_passed,
            Measure::Expectation(i, _) => &c.expectations[*i].held,
            Measure::Metric(m) => c.metrics.get(m).map_or(&NONE, |m| &m.nonzero),
        }
    }

    fn label(&self) -> String {
        match self {
            Measure::All => "all expectations held".into(),
            Measure::Expectation(_, n) => format!("\"{n}\" held"),
            Measure::Metric(m) => format!("{m} > 0"),
        }
    }
}

static NONE: Fraction = Fraction {
    count: 0,
    runs: 0,
    fraction: 0.0,
    ci95_low: 0.0,
    ci95_high: 1.0,
};

/// What can be checked before a sweep runs, so that a long sweep does not end in a refused
/// plot: the file's type and folder, the number of grid parameters, a font for the text, and
/// what `--plot-of` names (the sweep's expectations and metrics).
pub fn precheck(
    path: &str,
    axes: usize,
    what: &str,
    expectations: &[&str],
    metrics: &[&str],
) -> Result<(), String> {
    check(path, axes)?;
    register_font()?;
    Measure::pick(what, expectations, metrics).map(|_| ())
}

/// The file's type and folder, and the number of grid parameters.
fn check(path: &str, axes: usize) -> Result<(), String> {
    let lower = path.to_ascii_lowercase();
    if !(lower.ends_with(".svg") || lower.ends_with(".png")) {
        return Err(format!("--plot {path}: the file must end in .svg or .png"));
    }
    crate::check_folder("--plot", path)?;
    if axes > 2 {
        return Err(format!(
            "--plot: a sweep over {axes} parameters has no plot; plots show one parameter (bars) \
             or two (a heatmap)"
        ));
    }
    Ok(())
}

/// The plot of `s` as the bytes of an .svg or .png file (by `path`'s extension), drawn in
/// memory: the caller writes the file and reports its every error (plotters' own file output
/// drops the error of its last write: a full disk gave a cut picture and exit 0).
pub fn render(s: &Summary, path: &str, what: &Measure) -> Result<Vec<u8>, String> {
    check(path, s.grid.len())?;
    let lower = path.to_ascii_lowercase();
    register_font()?;
    let size = if s.grid.len() == 2 {
        (
            (160 + 120 * s.grid[1].values.len() as u32).clamp(960, 2400),
            (140 + 60 * s.grid[0].values.len() as u32).clamp(400, 1800),
        )
    } else {
        (1000, 600)
    };
    let failed = |e: Box<dyn std::error::Error>| format!("--plot {path}: {e}");
    if lower.ends_with(".svg") {
        let mut text = String::new();
        draw(
            SVGBackend::with_string(&mut text, size).into_drawing_area(),
            s,
            what,
        )
        .map_err(failed)?;
        Ok(text.into_bytes())
    } else {
        use image::ImageEncoder;
        let (w, h) = size;
        let mut pixels = vec![0u8; w as usize * h as usize * 3];
        draw(
            BitMapBackend::with_buffer(&mut pixels, size).into_drawing_area(),
            s,
            what,
        )
        .map_err(failed)?;
        let mut png = Vec::new();
        image::codecs::png::PngEncoder::new(&mut png)
            .write_image(&pixels, w, h, image::ColorType::Rgb8)
            .map_err(|e| format!("--plot {path}: {e}"))?;
        Ok(png)
    }
}

type Res = Result<(), Box<dyn std::error::Error>>;

fn draw<DB: DrawingBackend>(root: DrawingArea<DB, Shift>, s: &Summary, what: &Measure) -> Res
where
    DB::ErrorType: 'static,
{
    root.fill(&WHITE)?;
    let title = format!(
        "{} [{}], seeds {}..{}",
        s.scenario,
        s.variant,
        s.first_seed,
        s.first_seed + s.seeds - 1
    );
    match s.grid.len() {
        2 => heatmap(&root, s, &title, what)?,
        1 => {
            let bars: Vec<(String, &Fraction)> = s
                .cells
                .iter()
                .map(|c| (c.values[0].1.clone(), what.of(c)))
                .collect();
            let x = format!("{} ({}, 95% interval)", s.grid[0].key, what.label());
            bar_chart(&root, &title, &x, &bars)?
        }
        _ => {
            let c = &s.cells[0];
            let mut bars = vec![("all".to_string(), &c.all_passed)];
            bars.extend(
                c.expectations
                    .iter()
                    .enumerate()
                    .map(|(i, e)| (format!("#{}", i + 1), &e.held)),
            );
            bar_chart(
                &root,
                &title,
                "expectation (#n: the n-th in the scenario), 95% interval",
                &bars,
            )?
        }
    }
    root.present()?;
    Ok(())
}

fn bar_chart<DB: DrawingBackend>(
    root: &DrawingArea<DB, Shift>,
    title: &str,
    x_desc: &str,
    bars: &[(String, &Fraction)],
) -> Res
where
    DB::ErrorType: 'static,
{
    let n = bars.len();
    let mut chart = ChartBuilder::on(root)
        .caption(title, ("sans-serif", 22))
        .margin(16)
        .x_label_area_size(48)
        .y_label_area_size(64)
        .build_cartesian_2d(-0.5f64..n as f64 - 0.5, 0f64..100f64)?;
    chart
        .configure_mesh()
        .disable_x_mesh()
        .x_labels(n.max(2))
        .x_label_formatter(&|x| {
            let i = x.round();
            if (x - i).abs() < 1e-6 && i >= 0.0 && (i as usize) < n {
                bars[i as usize].0.clone()
            } else {
                String::new()
            }
        })
        .y_labels(11)
        .max_light_lines(1)
        .y_label_formatter(&|y| format!("{y:.0}%"))
        .y_desc("seeds")
        .x_desc(x_desc)
        .label_style(("sans-serif", 15))
        .axis_desc_style(("sans-serif", 16))
        .draw()?;
    let fill = RGBColor(70, 110, 190);
    chart.draw_series(bars.iter().enumerate().map(|(i, (_, f))| {
        let x = i as f64;
        Rectangle::new(
            [(x - 0.3, 0.0), (x + 0.3, f.fraction * 100.0)],
            fill.mix(0.75).filled(),
        )
    }))?;
    for (i, (_, f)) in bars.iter().enumerate() {
        let x = i as f64;
        let (lo, hi) = (f.ci95_low * 100.0, f.ci95_high * 100.0);
        let black = BLACK.stroke_width(2);
        chart.draw_series([
            PathElement::new(vec![(x, lo), (x, hi)], black),
            PathElement::new(vec![(x - 0.08, lo), (x + 0.08, lo)], black),
            PathElement::new(vec![(x - 0.08, hi), (x + 0.08, hi)], black),
        ])?;
        // At the bar's foot, clear of the interval.
        let ink = if f.fraction > 0.06 { WHITE } else { BLACK };
        chart.draw_series([Text::new(
            format!("{:.1}% ({}/{})", f.fraction * 100.0, f.count, f.runs),
            (x - 0.27, 5.0),
            ("sans-serif", 15).into_font().color(&ink),
        )])?;
    }
    Ok(())
}

fn heatmap<DB: DrawingBackend>(
    root: &DrawingArea<DB, Shift>,
    s: &Summary,
    title: &str,
    what: &Measure,
) -> Res
where
    DB::ErrorType: 'static,
{
    let (rows, cols) = (s.grid[0].values.len(), s.grid[1].values.len());
    let show = |v: &toml::Value| clusterscope_core::sweep::show(v);
    let xs: Vec<String> = s.grid[1].values.iter().map(show).collect();
    let ys: Vec<String> = s.grid[0].values.iter().rev().map(show).collect();
    let mut chart = ChartBuilder::on(root)
        .caption(format!("{title}: {}", what.label()), ("sans-serif", 20))
        .margin(16)
        .x_label_area_size(48)
        .y_label_area_size(90)
        .build_cartesian_2d(0f64..cols as f64, 0f64..rows as f64)?;
    chart
        .configure_mesh()
        .disable_mesh()
        .x_labels(cols * 2 + 1)
        .y_labels(rows * 2 + 1)
        .x_label_formatter(&|x| label_at(&xs, *x))
        .y_label_formatter(&|y| label_at(&ys, *y))
        .x_desc(s.grid[1].key.as_str())
        .y_desc(s.grid[0].key.as_str())
        .label_style(("sans-serif", 15))
        .axis_desc_style(("sans-serif", 16))
        .draw()?;
    for (c, cell) in s.cells.iter().enumerate() {
        // The first value of the first parameter on the top row.
        let (r, k) = ((rows - 1 - c / cols) as f64, (c % cols) as f64);
        let f = what.of(cell);
        // White (0%) to a deep blue (100%).
        let t = f.fraction;
        let colour = RGBColor(
            (255.0 - t * 205.0) as u8,
            (255.0 - t * 165.0) as u8,
            (255.0 - t * 75.0) as u8,
        );
        chart.draw_series([Rectangle::new(
            [(k, r), (k + 1.0, r + 1.0)],
            colour.filled(),
        )])?;
        chart.draw_series([Rectangle::new(
            [(k, r), (k + 1.0, r + 1.0)],
            WHITE.stroke_width(2),
        )])?;
        let ink = if t > 0.55 { WHITE } else { BLACK };
        chart.draw_series([
            Text::new(
                format!("{:.0}%", t * 100.0),
                (k + 0.08, r + 0.62),
                ("sans-serif", 18).into_font().color(&ink),
            ),
            Text::new(
                format!(
                    "[{:.0}, {:.0}] n={}",
                    f.ci95_low * 100.0,
                    f.ci95_high * 100.0,
                    f.runs
                ),
                (k + 0.08, r + 0.32),
                ("sans-serif", 13).into_font().color(&ink),
            ),
        ])?;
    }
    Ok(())
}

/// The label of the band whose middle is at `x` (labels are asked at half steps).
fn label_at(names: &[String], x: f64) -> String {
    let i = x - 0.5;
    if (i - i.round()).abs() < 1e-6 && i >= 0.0 && (i.round() as usize) < names.len() {
        names[i.round() as usize].clone()
    } else {
        String::new()
    }
}
