//! The grid part of the "How often?" panel (issue 19): the rows where a person picks up to two
//! parameters and their values, and the result of a grid sweep: a heatmap per cell of the
//! fraction of seeds where the expectations (or one of them) held, or of a metric's mean or
//! quantile over the cell's seeds (issue 41), for two parameters; bars for one; each cell (a
//! button) shows that cell's expectations, histograms and failing seeds below. A legend names
//! what the colours show (a metric's unit and description from the model's catalogue) and the
//! scale's ends.
//!
//! Test hooks: `#sweep-grid-key-0/1` and `#sweep-grid-values-0/1`; `#sweep-measure` (a select:
//! `all`, an expectation's index, or `m:METRIC`); `#sweep-stat` (mean, p50, p95, max; with a
//! metric); `#sweep-legend` (data-measure, data-metric, data-stat, data-unit, data-lo, data-hi);
//! `#sweep-grid[data-axes]` (1 or 2); `.sweep-cell` (data-cell, data-label, data-count,
//! data-runs, data-selected, and data-value: the number shown, a fraction 0 to 1 or the metric's
//! statistic).

use crate::sweep::{quantile, Sweep};
use clusterscope_core::catalogue::ParamRow;
use clusterscope_core::registry::ModelEntry;
use clusterscope_core::sweep::{show, CellSummary, Fraction, Summary};
use yew::prelude::*;

/// What the grid asks of its panel (`ui::sweep`): a parameter row's key or values typed, a
/// cell picked, a measure chosen.
pub enum GridMsg {
    Key(usize, String),
    Values(usize, String),
    Cell(usize),
    Measure(Measure),
}

/// A metric's statistic over a cell's seeds.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Stat {
    Mean,
    P50,
    P95,
    Max,
}

impl Stat {
    pub const ALL: [Stat; 4] = [Stat::Mean, Stat::P50, Stat::P95, Stat::Max];

    pub fn as_str(self) -> &'static str {
        match self {
            Stat::Mean => "mean",
            Stat::P50 => "p50",
            Stat::P95 => "p95",
            Stat::Max => "max",
        }
    }

    fn describe(self) -> &'static str {
        match self {
            Stat::Mean => "the mean over the cell's seeds",
            Stat::P50 => "the median (p50) over the cell's seeds",
            Stat::P95 => "the 95th percentile over the cell's seeds",
            Stat::Max => "the largest value over the cell's seeds",
        }
    }

    pub fn parse(v: &str) -> Stat {
        Stat::ALL
            .into_iter()
            .find(|s| s.as_str() == v)
            .unwrap_or(Stat::Mean)
    }
}

/// What a cell's colour and number show.
#[derive(Clone, Debug, PartialEq)]
pub enum Measure {
    /// Every expectation held.
    All,
    /// Expectation `i` (in the scenario's order) held.
    Exp(usize),
    /// A metric's statistic over the cell's seeds that completed.
    Metric(String, Stat),
}

impl Measure {
    /// The `#sweep-measure` option's value; a metric keeps the statistic `stat` shown before.
    pub fn parse(v: &str, stat: Stat) -> Measure {
        if v == "all" {
            Measure::All
        } else if let Some(m) = v.strip_prefix("m:") {
            Measure::Metric(m.to_string(), stat)
        } else {
            v.parse().map_or(Measure::All, Measure::Exp)
        }
    }

    fn value(&self) -> String {
        match self {
            Measure::All => "all".into(),
            Measure::Exp(i) => i.to_string(),
            Measure::Metric(m, _) => format!("m:{m}"),
        }
    }

    fn of<'a>(&self, c: &'a CellSummary) -> Option<&'a Fraction> {
        match self {
            Measure::All => Some(&c.all_passed),
            Measure::Exp(i) => c.expectations.get(*i).map(|e| &e.held),
            Measure::Metric(..) => None,
        }
    }
}

/// Metric `name`'s statistic in cell `c`: the summary's mean and max (what `clusterscope sweep`
/// prints), the quantiles over the cell's per-seed values; `None` before a seed completed.
pub fn metric_stat(
    sweep: &Sweep,
    summary: &Summary,
    c: usize,
    name: &str,
    stat: Stat,
) -> Option<f64> {
    let cell = summary.cells.get(c)?;
    if cell.all_passed.runs == 0 {
        return None;
    }
    // A metric no run of the cell reported is 0 in every run (as `summarize` counts it).
    let st = cell.metrics.get(name);
    match stat {
        Stat::Mean => Some(st.map_or(0.0, |s| s.mean)),
        Stat::Max => Some(st.map_or(0.0, |s| s.max)),
        Stat::P50 => quantile(&sweep.metric_values(name, c), 0.5),
        Stat::P95 => quantile(&sweep.metric_values(name, c), 0.95),
    }
}

/// The parameter rows above the Run button: a key (suggested from the model's catalogue,
/// `core::catalogue`) and its values; under a key, its value now, unit, range and meaning; and
/// the whole catalogue, folded, each name a button that fills a free row (issue 41).
pub fn rows(
    rows: &[(String, String); 2],
    keys: &[ParamRow],
    running: bool,
    on: &Callback<GridMsg>,
) -> Html {
    let row = |i: usize| {
        let (key, values) = &rows[i];
        let onkey = on.reform(move |e: Event| {
            GridMsg::Key(
                i,
                e.target_unchecked_into::<web_sys::HtmlInputElement>()
                    .value(),
            )
        });
        let onvalues = on.reform(move |e: InputEvent| {
            GridMsg::Values(
                i,
                e.target_unchecked_into::<web_sys::HtmlInputElement>()
                    .value(),
            )
        });
        let k = key.trim();
        let about = (!k.is_empty()).then(|| match keys.iter().find(|r| r.name == k) {
            Some(r) => html! {
                <p id={format!("sweep-grid-about-{i}")} class="sweep-grid-about" data-value={r.value.clone()}>
                    <b>{ format!("now {}", shown(r)) }</b>
                    { format!(" ({}) · {} · {}: {}", r.source, unit(r), r.range, r.about) }
                </p>
            },
            None => html! {
                <p id={format!("sweep-grid-about-{i}")} class="sweep-grid-about bad">
                    { format!("{k} is not a parameter of this model; see the list below") }
                </p>
            },
        });
        html! {
            <>
            <div class="sweep-grid-row">
                <label>{ if i == 0 { "Vary " } else { "and " } }
                    <input id={format!("sweep-grid-key-{i}")} class="sweep-grid-key" list="sweep-grid-keys"
                        placeholder="parameter (optional)" value={key.clone()} onchange={onkey}
                        disabled={running} aria-label={format!("parameter {}", i + 1)} />
                </label>
                <label>{ " = " }
                    <input id={format!("sweep-grid-values-{i}")} class="sweep-grid-values"
                        placeholder="v1, v2, ..." value={values.clone()} oninput={onvalues}
                        disabled={running || key.trim().is_empty()}
                        aria-label={format!("values of parameter {}", i + 1)} />
                </label>
            </div>
            <>{ for about }</>
            </>
        }
    };
    // A catalogue name fills the first free row (or the first).
    let free = rows.iter().position(|r| r.0.trim().is_empty()).unwrap_or(0);
    let item = |r: &ParamRow| {
        let name = r.name.to_string();
        html! {
            <li class="sweep-param" data-name={r.name} data-value={r.value.clone()} title={r.about}>
                <button class="link" disabled={running}
                    onclick={on.reform(move |_| GridMsg::Key(free, name.clone()))}>{ r.name }</button>
                { " = " }<b>{ shown(r) }</b>
                <span class="sweep-param-range">{ format!(" {} · {}", unit(r), r.range) }</span>
                <span class="sweep-param-about">{ r.about }</span>
            </li>
        }
    };
    html! {
        <div class="sweep-grid-rows">
            <datalist id="sweep-grid-keys">
                <>{ for keys.iter().map(|r| html! { <option value={r.name}>{ format!("now {} · {}", shown(r), r.range) }</option> }) }</>
            </datalist>
            { row(0) }
            if !rows[0].0.trim().is_empty() || !rows[1].0.trim().is_empty() { { row(1) } }
            if !keys.is_empty() {
                <details id="sweep-params" class="sweep-params">
                    <summary>{ format!("Parameters of this model ({}): value now, unit, range", keys.len()) }</summary>
                    <ul>{ for keys.iter().map(item) }</ul>
                </details>
            }
        </div>
    }
}

/// A parameter's value as a person types it (no TOML quotes); "unset" when it has none.
fn shown(r: &ParamRow) -> String {
    match r.value.trim_matches('"') {
        "" => "unset".into(),
        v => v.into(),
    }
}

fn unit(r: &ParamRow) -> &'static str {
    if r.unit.is_empty() {
        "switch"
    } else {
        r.unit
    }
}

fn pct(f: f64) -> String {
    format!("{:.0}%", f * 100.0)
}

pub(super) fn frac_bar(f: &Fraction) -> Html {
    let style_fill = format!("width:{:.2}%", f.fraction * 100.0);
    let style_ci = format!(
        "left:{:.2}%;width:{:.2}%",
        f.ci95_low * 100.0,
        (f.ci95_high - f.ci95_low) * 100.0
    );
    html! {
        <div class="sweep-frac" title={format!("{} of {} runs; 95% Wilson interval {} to {}",
            f.count, f.runs, pct(f.ci95_low), pct(f.ci95_high))}>
            <div class="sweep-frac-fill" style={style_fill}></div>
            <div class="sweep-frac-ci" style={style_ci}></div>
        </div>
    }
}

/// A cell's fill: from the panel's background (0) to the accent (1), with text that stays
/// legible on it.
fn colour(f: f64, dark: bool) -> (String, &'static str) {
    let f = if f.is_finite() {
        f.clamp(0.0, 1.0)
    } else {
        0.0
    };
    let (l0, l1) = if dark { (22.0, 62.0) } else { (96.0, 38.0) };
    let l = l0 + (l1 - l0) * f;
    let text = if (dark && l > 50.0) || (!dark && l < 60.0) {
        if dark {
            "#0b1220"
        } else {
            "#ffffff"
        }
    } else if dark {
        "#e6edf3"
    } else {
        "#1f2937"
    };
    (format!("hsl(212, 72%, {l:.0}%)"), text)
}

/// A metric's value as a cell shows it: whole numbers as such, else three significant digits.
pub fn num(v: f64) -> String {
    if (v.fract() == 0.0 && v.abs() < 1e15) || v.abs() >= 100.0 {
        format!("{v:.0}")
    } else if v.abs() >= 10.0 {
        format!("{v:.1}")
    } else {
        format!("{v:.2}")
    }
}

/// The grid's result: the measure picker (and a metric's statistic), the cells and the legend.
#[allow(clippy::too_many_arguments)]
pub fn view(
    sweep: &Sweep,
    summary: &Summary,
    model: Option<&'static ModelEntry>,
    measure: &Measure,
    selected: usize,
    dark: bool,
    on: &Callback<GridMsg>,
) -> Html {
    let plan = &sweep.plan;
    let stat_now = match measure {
        Measure::Metric(_, s) => *s,
        _ => Stat::Mean,
    };
    let onmeasure = on.reform(move |e: Event| {
        GridMsg::Measure(Measure::parse(
            &e.target_unchecked_into::<web_sys::HtmlSelectElement>()
                .value(),
            stat_now,
        ))
    });
    // Every metric a completed run reported, in any cell.
    let metrics =
        clusterscope_core::small_sort::set(summary.cells.iter().flat_map(|c| c.metrics.keys()));
    let stat_pick = match measure {
        Measure::Metric(name, stat) => {
            let name = name.clone();
            let onstat = on.reform(move |e: Event| {
                GridMsg::Measure(Measure::Metric(
                    name.clone(),
                    Stat::parse(
                        &e.target_unchecked_into::<web_sys::HtmlSelectElement>()
                            .value(),
                    ),
                ))
            });
            html! {
                <label>{ " as " }
                    <select id="sweep-stat" onchange={onstat} aria-label="statistic over the cell's seeds">
                        <>{ for Stat::ALL.iter().map(|s| html! {
                            <option value={s.as_str()} selected={s == stat}>{ s.as_str() }</option>
                        }) }</>
                    </select>
                </label>
            }
        }
        _ => html! {},
    };
    let mv = measure.value();
    let picker = html! {
        <div class="sweep-measure">
            <label>{ "Show " }
                <select id="sweep-measure" onchange={onmeasure}>
                    <optgroup label="fraction of seeds where">
                        <option value="all" selected={mv == "all"}>{ "every expectation held" }</option>
                        <>{ for sweep.expectations.iter().enumerate().map(|(i, n)| html! {
                            <option value={i.to_string()} selected={mv == i.to_string()}>{ format!("held: {n}") }</option>
                        }) }</>
                    </optgroup>
                    if !metrics.is_empty() {
                        <optgroup label="a metric over the seeds">
                            <>{ for metrics.iter().map(|m| html! {
                                <option value={format!("m:{m}")} selected={mv == format!("m:{m}")}>{ format!("metric: {m}") }</option>
                            }) }</>
                        </optgroup>
                    }
                </select>
            </label>
            { stat_pick }
        </div>
    };
    // Each cell's number: a fraction, or the metric's statistic; the colour scale's ends.
    let values: Vec<Option<f64>> = (0..plan.cells())
        .map(|c| match measure {
            Measure::Metric(m, st) => metric_stat(sweep, summary, c, m, *st),
            _ => summary
                .cells
                .get(c)
                .and_then(|s| measure.of(s))
                .filter(|f| f.runs > 0)
                .map(|f| f.fraction),
        })
        .collect();
    let (lo, hi) = match measure {
        Measure::Metric(..) => values
            .iter()
            .flatten()
            .fold(None, |acc: Option<(f64, f64)>, v| {
                Some(acc.map_or((*v, *v), |(a, b)| (a.min(*v), b.max(*v))))
            }),
        _ => Some((0.0, 1.0)),
    }
    .unwrap_or((0.0, 1.0));
    let scale = |v: f64| if hi > lo { (v - lo) / (hi - lo) } else { 0.5 };
    let cell = |c: usize| -> Html {
        let label = plan.cell_label(c);
        let Some(s) = summary.cells.get(c) else {
            return html! { <td class="sweep-cell-empty">{ "–" }</td> };
        };
        let value = values.get(c).copied().flatten();
        let (bg, fg) = colour(value.map_or(0.0, scale), dark);
        let (count, runs, title, main, sub) = match (measure, measure.of(s)) {
            (Measure::Metric(m, st), _) => (
                String::new(),
                s.all_passed.runs.to_string(),
                format!(
                    "{label}: {m} {} {} over {} seeds. Click for this cell's seeds.",
                    st.as_str(),
                    value.map_or("…".into(), num),
                    s.all_passed.runs
                ),
                value.map_or("…".into(), num),
                String::new(),
            ),
            (_, Some(f)) => (
                f.count.to_string(),
                f.runs.to_string(),
                format!(
                    "{label}: {} of {} seeds, {} (95% interval {} to {}). Click for this cell's seeds.",
                    f.count,
                    f.runs,
                    pct(f.fraction),
                    pct(f.ci95_low),
                    pct(f.ci95_high)
                ),
                if f.runs == 0 { "…".into() } else { pct(f.fraction) },
                if f.runs == 0 {
                    String::new()
                } else {
                    format!("{}–{}", pct(f.ci95_low), pct(f.ci95_high))
                },
            ),
            (_, None) => return html! { <td class="sweep-cell-empty">{ "–" }</td> },
        };
        html! {
            <td>
                <button class={classes!("sweep-cell", (c == selected).then_some("on"))}
                    style={format!("background:{bg};color:{fg}")} title={title}
                    data-cell={c.to_string()} data-label={label} data-count={count}
                    data-runs={runs} data-selected={(c == selected).to_string()}
                    data-value={value.map(|v| v.to_string()).unwrap_or_default()}
                    onclick={on.reform(move |_| GridMsg::Cell(c))}>
                    <span class="sweep-cell-pct">{ main }</span>
                    if !sub.is_empty() {
                        <span class="sweep-cell-ci">{ sub }</span>
                    }
                </button>
            </td>
        }
    };
    let bar = |i: usize| -> Html {
        match (measure, summary.cells.get(i)) {
            (Measure::Metric(..), _) => {
                let w = values.get(i).copied().flatten().map_or(0.0, scale);
                html! { <div class="sweep-frac"><div class="sweep-frac-fill" style={format!("width:{:.2}%", w * 100.0)}></div></div> }
            }
            (_, Some(c)) => measure.of(c).map(frac_bar).unwrap_or_default(),
            _ => html! {},
        }
    };
    let bar_head = match measure {
        Measure::Metric(m, st) => format!("{m} {}, scaled {} to {}", st.as_str(), num(lo), num(hi)),
        _ => "fraction, 95% interval".into(),
    };
    let body = match plan.grid.as_slice() {
        [a] => html! {
            <table id="sweep-grid" class="sweep-grid axes-1" data-axes="1">
                <thead><tr><th>{ a.key.clone() }</th><th></th><th class="sweep-grid-bar">{ bar_head }</th></tr></thead>
                <tbody>
                    <>{ for a.values.iter().enumerate().map(|(i, v)| html! {
                        <tr><th scope="row">{ show(v) }</th>{ cell(i) }
                            <td class="sweep-grid-bar">{ bar(i) }</td></tr>
                    }) }</>
                </tbody>
            </table>
        },
        [a, b] => html! {
            <table id="sweep-grid" class="sweep-grid axes-2" data-axes="2">
                <thead>
                    <tr><th class="sweep-grid-corner">{ corner(&a.key, &b.key) }</th>
                        <>{ for b.values.iter().map(|v| html! { <th scope="col">{ show(v) }</th> }) }</></tr>
                </thead>
                <tbody>
                    <>{ for a.values.iter().enumerate().map(|(i, v)| html! {
                        <tr><th scope="row">{ show(v) }</th>
                            { for (0..b.values.len()).map(|k| cell(i * b.values.len() + k)) }</tr>
                    }) }</>
                </tbody>
            </table>
        },
        _ => return html! {},
    };
    html! {
        <div class="sweep-grid-wrap">
            { picker }
            <div class="sweep-grid-scroll">{ body }</div>
            { legend(measure, &sweep.expectations, model, lo, hi, dark) }
            <p class="sweep-hint">{ "Click a cell for its expectations, histograms and failing seeds." }</p>
        </div>
    }
}

/// What the colours show: the measure in words (a metric's unit and description from the
/// model's catalogue) and the scale from its lowest to its highest cell.
fn legend(
    measure: &Measure,
    expectations: &[String],
    model: Option<&'static ModelEntry>,
    lo: f64,
    hi: f64,
    dark: bool,
) -> Html {
    let ramp = format!(
        "background:linear-gradient(to right, {}, {})",
        colour(0.0, dark).0,
        colour(1.0, dark).0
    );
    let (what, about, unit, metric, stat, ends) = match measure {
        Measure::Metric(m, st) => {
            let info = model.and_then(|e| clusterscope_core::catalogue::metric(e, m));
            let unit = info.map_or("", |i| i.unit);
            (
                html! { <><b>{ m.clone() }</b>{ format!(" ({}), {}", if unit.is_empty() { "no unit given" } else { unit }, st.describe()) }</> },
                info.map_or("(no description)", |i| i.about).to_string(),
                unit.to_string(),
                m.clone(),
                st.as_str(),
                (num(lo), num(hi)),
            )
        }
        Measure::All => (
            html! { <><b>{ "every expectation held" }</b>{ ": the fraction of the cell's seeds" }</> },
            "Each cell also shows its 95% Wilson interval.".to_string(),
            "fraction".into(),
            String::new(),
            "",
            ("0%".into(), "100%".into()),
        ),
        Measure::Exp(i) => (
            html! { <><b>{ expectations.get(*i).cloned().unwrap_or_default() }</b>{ ": the fraction of the cell's seeds where it held" }</> },
            "Each cell also shows its 95% Wilson interval.".to_string(),
            "fraction".into(),
            String::new(),
            "",
            ("0%".into(), "100%".into()),
        ),
    };
    html! {
        <div id="sweep-legend" class="sweep-legend" data-measure={measure.value()} data-metric={metric}
            data-stat={stat} data-unit={unit} data-lo={lo.to_string()} data-hi={hi.to_string()}>
            <p class="sweep-legend-what">{ what }</p>
            <p class="sweep-legend-about">{ about }</p>
            <div class="sweep-legend-scale">
                <span>{ ends.0 }</span><span class="sweep-legend-ramp" style={ramp}></span><span>{ ends.1 }</span>
            </div>
        </div>
    }
}

/// The heatmap's corner: the columns' parameter over the rows', on two lines that may also break
/// after an underscore (a zero-width space), so that a phone keeps its width for the columns.
fn corner(rows: &str, cols: &str) -> String {
    format!("{cols}\u{a0}\u{2192}\n{rows}\u{a0}\u{2193}").replace('_', "_\u{200b}")
}
