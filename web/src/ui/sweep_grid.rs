//! The grid part of the "How often?" panel (issue 19): the rows where a person picks up to two
//! parameters and their values, and the result of a grid sweep: a heatmap of the fraction per cell
//! for two parameters, bars with their intervals for one; each cell (a button) shows that cell's
//! expectations, histograms and failing seeds below.
//!
//! Test hooks: `#sweep-grid-key-0/1` and `#sweep-grid-values-0/1`; `#sweep-measure` (a select:
//! `all` or an expectation's index); `#sweep-grid[data-axes]` (1 or 2); `.sweep-cell` (data-cell,
//! data-label, data-count, data-runs, data-selected).

use super::sweep::SMsg;
use clusterscope_core::catalogue::ParamRow;
use clusterscope_core::sweep::{show, CellSummary, Fraction, Plan, Summary};
use yew::prelude::*;

/// What a cell's colour and number show.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Measure {
    /// Every expectation held.
    All,
    /// Expectation `i` (in the scenario's order) held.
    Exp(usize),
}

impl Measure {
    pub fn parse(v: &str) -> Measure {
        v.parse().map_or(Measure::All, Measure::Exp)
    }

    fn of(self, c: &CellSummary) -> Option<&Fraction> {
        match self {
            Measure::All => Some(&c.all_passed),
            Measure::Exp(i) => c.expectations.get(i).map(|e| &e.held),
        }
    }
}

/// The parameter rows above the Run button: a key (suggested from the model's catalogue,
/// `core::catalogue`) and its values; under a key, its value now, unit, range and meaning; and
/// the whole catalogue, folded, each name a button that fills a free row (issue 41).
pub fn rows(
    rows: &[(String, String); 2],
    keys: &[ParamRow],
    running: bool,
    link: &html::Scope<super::sweep::SweepPanel>,
) -> Html {
    let row = |i: usize| {
        let (key, values) = &rows[i];
        let onkey = link.callback(move |e: Event| {
            SMsg::GridKey(
                i,
                e.target_unchecked_into::<web_sys::HtmlInputElement>()
                    .value(),
            )
        });
        let onvalues = link.callback(move |e: InputEvent| {
            SMsg::GridValues(
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
                    onclick={link.callback(move |_| SMsg::GridKey(free, name.clone()))}>{ r.name }</button>
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

/// The grid's result: the measure picker and the cells.
pub fn view(
    plan: &Plan,
    summary: &Summary,
    expectations: &[String],
    measure: Measure,
    selected: usize,
    dark: bool,
    link: &html::Scope<super::sweep::SweepPanel>,
) -> Html {
    let onmeasure = link.callback(|e: Event| {
        SMsg::Measure(Measure::parse(
            &e.target_unchecked_into::<web_sys::HtmlSelectElement>()
                .value(),
        ))
    });
    let picker = html! {
        <label class="sweep-measure">{ "Show: fraction of seeds where " }
            <select id="sweep-measure" onchange={onmeasure}>
                <option value="all" selected={measure == Measure::All}>{ "every expectation held" }</option>
                <>{ for expectations.iter().enumerate().map(|(i, n)| html! {
                    <option value={i.to_string()} selected={measure == Measure::Exp(i)}>{ format!("held: {n}") }</option>
                }) }</>
            </select>
        </label>
    };
    let cell = |c: usize| -> Html {
        let label = plan.cell_label(c);
        let Some(s) = summary.cells.get(c) else {
            return html! { <td class="sweep-cell-empty">{ "–" }</td> };
        };
        let Some(f) = measure.of(s) else {
            return html! { <td class="sweep-cell-empty">{ "–" }</td> };
        };
        let (bg, fg) = colour(if f.runs == 0 { 0.0 } else { f.fraction }, dark);
        let title = format!(
            "{label}: {} of {} seeds, {} (95% interval {} to {}). Click for this cell's seeds.",
            f.count,
            f.runs,
            pct(f.fraction),
            pct(f.ci95_low),
            pct(f.ci95_high)
        );
        html! {
            <td>
                <button class={classes!("sweep-cell", (c == selected).then_some("on"))}
                    style={format!("background:{bg};color:{fg}")} title={title}
                    data-cell={c.to_string()} data-label={label} data-count={f.count.to_string()}
                    data-runs={f.runs.to_string()} data-selected={(c == selected).to_string()}
                    onclick={link.callback(move |_| SMsg::Cell(c))}>
                    if f.runs == 0 {
                        <span class="sweep-cell-pct">{ "…" }</span>
                    } else {
                        <span class="sweep-cell-pct">{ pct(f.fraction) }</span>
                        <span class="sweep-cell-ci">{ format!("{}–{}", pct(f.ci95_low), pct(f.ci95_high)) }</span>
                    }
                </button>
            </td>
        }
    };
    let body = match plan.grid.as_slice() {
        [a] => html! {
            <table id="sweep-grid" class="sweep-grid axes-1" data-axes="1">
                <thead><tr><th>{ a.key.clone() }</th><th></th><th class="sweep-grid-bar">{ "fraction, 95% interval" }</th></tr></thead>
                <tbody>
                    <>{ for a.values.iter().enumerate().map(|(i, v)| html! {
                        <tr><th scope="row">{ show(v) }</th>{ cell(i) }
                            <td class="sweep-grid-bar">{ for summary.cells.get(i).and_then(|c| measure.of(c)).map(super::sweep::frac_bar) }</td></tr>
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
            <p class="sweep-hint">{ "Each cell: the fraction of its seeds and its 95% Wilson interval. Click a cell for its expectations, histograms and failing seeds." }</p>
        </div>
    }
}

/// The heatmap's corner: the columns' parameter over the rows', on two lines that may also break
/// after an underscore (a zero-width space), so that a phone keeps its width for the columns.
fn corner(rows: &str, cols: &str) -> String {
    format!("{cols}\u{a0}\u{2192}\n{rows}\u{a0}\u{2193}").replace('_', "_\u{200b}")
}
