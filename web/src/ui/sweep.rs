//! The "How often?" panel (issue 19): a button opening a card that sweeps the open scenario and
//! variant over N seeds in Web Workers (`crate::sweep`), with a progress bar (seeds done, seeds/s,
//! time left), cancel (partial results stay), per expectation the fraction with its 95% Wilson
//! interval and, where it failed, what its view answered instead (core's `ExpectStat::observed`:
//! "saw DOWN in 28 seeds, no value in 2"), per metric a histogram (their captions in rows of one
//! height, so that the histograms of a row align), and the failing seeds, each opening in the
//! replay (its title names what each expectation saw in that seed).
//!
//! Test hooks (tests/e2e/README.md): `#sweep-open`; `#sweep-panel[data-state]` (idle, loading:
//! the scenario reader's part, running, done, cancelled, error) with data-done/-total/-workers; `#sweep-seeds`, `#sweep-start`,
//! `#sweep-cancel`, `#sweep-close`; `#sweep-scope[data-actions]`; `#sweep-progress`
//! (data-done/-total); `.sweep-exp` (data-name, -count, -runs, and -observed: `DOWN:28|no value:2`,
//! the values where it failed and their seed counts); `#sweep-all` (data-count, -runs);
//! `.sweep-hist` (data-metric, data-bins: counts, data-min, data-max); `.sweep-seed` (data-seed,
//! data-observed: `NAME=VALUE` per failed expectation, `|`-separated); `.part-note[data-part]`
//! (loading, error) beside `#sweep-open` while the card's part of the split build loads or after
//! it failed ([`SweepPanel`]).

use super::sweep_grid::{self, GridMsg, Measure};
use crate::draw::palette;
use crate::kit::{part_note, use_part, Handle, PartLoad};
use crate::model::Msg;
use crate::platform;
use crate::sweep::workers::{cores, Job, Pool, Reply};
use crate::sweep::{
    batch_size, grid_of, histogram, scenario_of, with_actions_as_faults, worker_count, Progress,
    Sweep, DEFAULT_SEEDS, MAX_SEEDS,
};
use clusterscope_core::catalogue::{params_for, ParamRow};
use clusterscope_core::scenario::Scenario;
use clusterscope_core::session::{ScenarioRef, Session, PERMALINK_VERSION};
use clusterscope_core::sweep::ExpectStat;
use clusterscope_core::sweep::{cell_scenario, expectation_names, Plan, Summary};
use plotters::prelude::*;
use plotters_canvas::CanvasBackend;
use std::collections::BTreeMap;
use std::rc::Rc;
use yew::prelude::*;

#[derive(Properties, Clone)]
pub struct SweepProps {
    pub s: Handle,
    pub dark: bool,
    /// The session's revision: what is swept (scenario, variant, recorded actions) is shown anew
    /// when it changes.
    pub session: u64,
    /// The card opens at once when it is created: it is created by the first opening
    /// ([`SweepPanel`]).
    #[prop_or_default]
    pub open: bool,
}

/// "How often?": the button, and at its first press the card ([`SweepCard`]) once its code is
/// loaded: in the split release build the card and all only it reaches (the plan, the progress,
/// the results, the grid) are the part `sweep` of the wasm (`crate::in_part!`, issue 44; the
/// workers' batches are the part `sweep_runs`, `crate::sweep::run_batch`),
/// "Loading…" meanwhile, and if the fetch fails a note naming the part (pressing again retries).
#[function_component(SweepPanel)]
pub fn sweep_panel(p: &SweepProps) -> Html {
    let (load, open) = use_part("sweep");
    if let PartLoad::Loaded(_) = &*load {
        let props = SweepProps {
            open: true,
            ..p.clone()
        };
        let card = crate::in_part!(sweep, card, SweepProps => Html, props, |p: SweepProps| {
            html! { <SweepCard ..p /> }
        });
        if let Some(card) = card {
            return card;
        }
    }
    html! {
        <>
            <button id="sweep-open" class="sweep-fab"
                title="How often does this happen? Run this scenario and variant over many seeds"
                aria-expanded="false"
                onclick={open.reform(|_| None)}>{ "How often?" }</button>
            { part_note(&load, "the sweep's code") }
        </>
    }
}

impl PartialEq for SweepProps {
    fn eq(&self, o: &Self) -> bool {
        self.dark == o.dark && self.session == o.session
    }
}

#[derive(Clone, Copy, PartialEq, Eq)]
enum State {
    Running,
    Done,
    Cancelled,
    Error,
}

impl State {
    fn as_str(self) -> &'static str {
        match self {
            State::Running => "running",
            State::Done => "done",
            State::Cancelled => "cancelled",
            State::Error => "error",
        }
    }
}

/// One sweep started from the panel.
struct Active {
    sweep: Sweep,
    state: State,
    pool: Option<Pool>,
    /// The scenario open when the sweep started, and the one swept (the same, or it with the
    /// recorded actions as faults): a failing seed opens the latter.
    scenario_ref: ScenarioRef,
    swept_ref: ScenarioRef,
    /// The scenario swept, parsed: a grid cell's failing seed opens it with the cell's parameters.
    swept: Rc<Scenario>,
    /// The grid cell whose expectations, histograms and seeds are shown (0 without a grid).
    cell: usize,
    measure: Measure,
    builtin: String,
    text: String,
    plan_json: String,
    workers: usize,
    started_ms: f64,
    elapsed_ms: f64,
    error: Option<String>,
    /// The results shown: refreshed at most every [`RESULTS_MS`] while running (a summary of
    /// thousands of outcomes per answer would load the page), at once when the sweep stops.
    shown: Option<Rc<Shown>>,
    shown_at: f64,
}

/// The summary of the completed seeds and each metric's per-seed values.
struct Shown {
    summary: Summary,
    values: BTreeMap<String, Rc<Vec<f64>>>,
}

const RESULTS_MS: f64 = 300.0;

impl Active {
    fn refresh(&mut self, force: bool) {
        let now = platform::now_ms();
        if self.sweep.done() == 0 || (!force && now - self.shown_at < RESULTS_MS) {
            return;
        }
        let summary = self.sweep.summary();
        let values = summary
            .cells
            .get(self.cell)
            .map(|c| {
                clusterscope_core::small_sort::map(
                    c.metrics
                        .keys()
                        .map(|k| (k.clone(), Rc::new(self.sweep.metric_values(k, self.cell)))),
                )
            })
            .unwrap_or_default();
        self.shown = Some(Rc::new(Shown { summary, values }));
        self.shown_at = now;
    }
}

pub enum SMsg {
    Toggle,
    Seeds(String),
    WithActions(bool),
    Start,
    /// The scenario reader's part did not load (`crate::reader`).
    ReaderFailed,
    Cancel,
    Reply(Reply),
    Open(u64),
    /// The grid's rows and cells (`sweep_grid`).
    Grid(GridMsg),
}

pub struct SweepCard {
    open: bool,
    seeds: String,
    with_actions: bool,
    run: Option<Active>,
    note: Option<String>,
    /// Up to two parameters to vary (key, values as typed); an empty key is unused.
    grid: [(String, String); 2],
    /// Scenario files opened from grid cells of the current sweep: opening another of its seeds
    /// from one of them is still "the scenario swept".
    opened_cells: Vec<String>,
    /// The scenario reader is being loaded to start a sweep (`crate::reader`: the split release
    /// build's part, needed for grid values and the session's actions as faults).
    loading: bool,
}

impl SweepCard {
    fn start(&mut self, ctx: &Context<Self>) -> Result<(), String> {
        let seeds: u64 = self
            .seeds
            .trim()
            .parse()
            .ok()
            .filter(|n| (1..=MAX_SEEDS).contains(n))
            .ok_or_else(|| format!("Seeds: a whole number from 1 to {MAX_SEEDS}."))?;
        let (plan, names, scenario_ref, swept_ref, swept) = {
            let m = ctx.props().s.model.borrow();
            let actions = m.run.engine.user_actions();
            // The scenario with the person's own expectations (`model::user_expects`).
            let (mine_ref, mine) = m.checked_scenario()?;
            let with = (self.with_actions && !actions.is_empty())
                .then(|| with_actions_as_faults(&mine, actions))
                .transpose()?
                .map(|(text, _)| text);
            let parsed = with.as_ref().map(|t| scenario_of("", t)).transpose()?;
            let sc = parsed.as_ref().unwrap_or(&mine);
            let grid = grid_of(sc, &m.run.variant, seeds, &self.grid)?;
            let plan = Plan::new(
                sc,
                &m.run.variant,
                1,
                seeds,
                &toml::Table::new(),
                grid,
                None,
            )?;
            let names = expectation_names(sc, &m.run.variant)?;
            let parsed = Rc::new(parsed.unwrap_or_else(|| mine.clone()));
            let swept = with.map_or(mine_ref, ScenarioRef::Custom);
            (plan, names, m.scenario_ref.clone(), swept, parsed)
        };
        let (builtin, text) = crate::builtins::job(&swept_ref);
        let plan_json = serde_json::to_string(&plan).map_err(|e| e.to_string())?;
        let n = worker_count(cores(), plan.jobs());
        // Drop (terminate) any earlier pool before starting the next.
        self.run = None;
        self.opened_cells.clear();
        let link = ctx.link().clone();
        let pool = Pool::start(n, Rc::new(move |r| link.send_message(SMsg::Reply(r))))?;
        let mut a = Active {
            sweep: Sweep::new(plan, names),
            state: State::Running,
            pool: Some(pool),
            scenario_ref,
            swept_ref,
            swept,
            cell: 0,
            measure: Measure::All,
            builtin,
            text,
            plan_json,
            workers: n,
            started_ms: platform::now_ms(),
            elapsed_ms: 0.0,
            error: None,
            shown: None,
            shown_at: f64::NEG_INFINITY,
        };
        for i in 0..n {
            feed(&mut a, i)?;
        }
        self.run = Some(a);
        Ok(())
    }
}

/// Hand worker `i` its next batch, if any jobs are left.
fn feed(a: &mut Active, i: usize) -> Result<(), String> {
    let remaining = a.sweep.total() - a.sweep.next;
    let Some(jobs) = a.sweep.take(batch_size(remaining, a.workers)) else {
        return Ok(());
    };
    if let Some(p) = &a.pool {
        p.send(
            i,
            &Job {
                builtin: &a.builtin,
                text: &a.text,
                plan_json: &a.plan_json,
                jobs: &jobs,
            },
        )?;
    }
    Ok(())
}

impl Component for SweepCard {
    type Message = SMsg;
    type Properties = SweepProps;

    fn create(ctx: &Context<Self>) -> Self {
        SweepCard {
            open: ctx.props().open,
            seeds: DEFAULT_SEEDS.to_string(),
            with_actions: false,
            run: None,
            note: None,
            grid: Default::default(),
            opened_cells: Vec::new(),
            loading: false,
        }
    }

    fn update(&mut self, ctx: &Context<Self>, msg: SMsg) -> bool {
        match msg {
            SMsg::Toggle => self.open = !self.open,
            SMsg::Seeds(v) => self.seeds = v,
            SMsg::WithActions(on) => self.with_actions = on,
            SMsg::Start => {
                self.note = None;
                self.loading = false;
                if let Err(e) = self.start(ctx) {
                    self.note = Some(e);
                    // The session's actions as faults are read as a scenario file: the split
                    // release build loads the scenario reader (`crate::reader`), then starts.
                    if crate::reader::take_wanted() {
                        self.note = Some("Loading the scenario reader…".into());
                        self.loading = true;
                        let link = ctx.link().clone();
                        wasm_bindgen_futures::spawn_local(async move {
                            let loaded = platform::load_part(crate::reader::PART).await;
                            link.send_message(match loaded {
                                Ok(()) => SMsg::Start,
                                Err(()) => SMsg::ReaderFailed,
                            });
                        });
                    }
                }
            }
            SMsg::ReaderFailed => {
                self.loading = false;
                self.note = Some(
                    "Could not start the sweep: the scenario reader's code did not load (a part \
                     of the app, split/reader; check the connection). Press Run sweep again to \
                     retry."
                        .into(),
                );
            }
            SMsg::Cancel => {
                if let Some(a) = self.run.as_mut().filter(|a| a.state == State::Running) {
                    a.pool = None;
                    a.state = State::Cancelled;
                    a.elapsed_ms = platform::now_ms() - a.started_ms;
                    a.refresh(true);
                }
            }
            SMsg::Reply((i, res)) => {
                let Some(a) = self.run.as_mut().filter(|a| a.state == State::Running) else {
                    return false;
                };
                let res = res.and_then(|out| a.sweep.accept(&out));
                a.elapsed_ms = platform::now_ms() - a.started_ms;
                match res.and_then(|_| feed(a, i)) {
                    Ok(()) if a.sweep.done() == a.sweep.total() => {
                        a.pool = None;
                        a.state = State::Done;
                    }
                    Ok(()) => {}
                    Err(e) => {
                        a.pool = None;
                        a.state = State::Error;
                        a.error = Some(e);
                    }
                }
                let stopped = a.state != State::Running;
                a.refresh(stopped);
            }
            SMsg::Grid(GridMsg::Key(i, key)) => {
                let key = key.trim().to_string();
                if key != self.grid[i].0 {
                    // Start from the value the parameter has now.
                    // (the catalogue's: a preset's value too, issue 41).
                    let m = ctx.props().s.model.borrow();
                    self.grid[i].1 =
                        params_for(&m.run.scenario, &m.run.variant, &toml::Table::new())
                            .ok()
                            .and_then(|ps| ps.into_iter().find(|r| r.name == key))
                            .map(|r| r.value.trim_matches('"').to_string())
                            .unwrap_or_default();
                }
                self.grid[i].0 = key;
            }
            SMsg::Grid(GridMsg::Values(i, v)) => self.grid[i].1 = v,
            SMsg::Grid(GridMsg::Cell(c)) => {
                if let Some(a) = self.run.as_mut().filter(|a| c < a.sweep.plan.cells()) {
                    a.cell = c;
                    a.refresh(true);
                }
            }
            SMsg::Grid(GridMsg::Measure(m)) => {
                if let Some(a) = self.run.as_mut() {
                    a.measure = m;
                    a.refresh(true);
                }
            }
            SMsg::Open(seed) => {
                let Some(a) = &self.run else { return false };
                let s = &ctx.props().s;
                let open = s.model.borrow().scenario_ref.clone();
                let from_cell =
                    matches!(&open, ScenarioRef::Custom(t) if self.opened_cells.contains(t));
                if open != a.scenario_ref && open != a.swept_ref && !from_cell {
                    self.note = Some(
                        "The open scenario is not the one swept: open it again, or sweep this one."
                            .into(),
                    );
                    return true;
                }
                // A grid cell opens as the swept scenario with the cell's parameters.
                let scenario = if a.sweep.plan.grid.is_empty() {
                    a.swept_ref.clone()
                } else {
                    match cell_scenario(&a.swept, &a.sweep.plan, a.cell) {
                        Ok(text) => {
                            self.opened_cells.push(text.clone());
                            ScenarioRef::Custom(text)
                        }
                        Err(e) => {
                            self.note = Some(e);
                            return true;
                        }
                    }
                };
                let session = Session {
                    v: PERMALINK_VERSION,
                    scenario,
                    variant: a.sweep.plan.variant.clone(),
                    seed,
                    actions: Vec::new(),
                    cursor: 0,
                    // The node the person is looking at stays selected in the seed opened.
                    selected: s.model.borrow().session().selected,
                    compare: None,
                    branches: Vec::new(),
                    branch: 0,
                    at_us: None,
                    bookmarks: Vec::new(),
                    expects: s.model.borrow().user_expects.clone(),
                };
                s.dispatch(Msg::OpenPermalink(session.encode()));
            }
        }
        true
    }

    fn view(&self, ctx: &Context<Self>) -> Html {
        let link = ctx.link();
        let button = html! {
            <button id="sweep-open" class={classes!("sweep-fab", self.open.then_some("on"))}
                title="How often does this happen? Run this scenario and variant over many seeds"
                aria-expanded={if self.open { "true" } else { "false" }}
                onclick={link.callback(|_| SMsg::Toggle)}>{ "How often?" }</button>
        };
        if !self.open {
            return button;
        }
        let m = ctx.props().s.model.borrow();
        let actions = m.run.engine.user_actions().len();
        let scope = html! {
            <p id="sweep-scope" class="sweep-scope" data-actions={actions.to_string()}>
                { "Sweeps " }<b>{ m.run.scenario.name().to_string() }</b>
                { ", variant " }<b>{ m.run.variant.clone() }</b>
                { ", with the scenario's parameters and faults, over seeds 1 to N (as " }
                <code>{ format!("clusterscope sweep {} --variant {} --seeds N{}", m.run.scenario.name(), m.run.variant,
                    self.grid.iter().filter(|(k, _)| !k.trim().is_empty())
                        .map(|(k, v)| format!(" --grid {}={}", k.trim(), v.split(',').map(str::trim).collect::<Vec<_>>().join(",")))
                        .collect::<String>()) }</code>
                { ")." }
                if actions > 0 && !self.with_actions {
                    { format!(" Your {actions} recorded action{} and forks are not included: they are \
                        tied to engine steps of seed {}, which differ per seed.",
                        if actions == 1 { "" } else { "s" }, m.run.seed) }
                }
                if actions > 0 && self.with_actions {
                    { format!(" With your {actions} recorded action{} as faults at their virtual times \
                        (forks, which name one message of seed {}, left out); a failing seed opens \
                        that scenario.", if actions == 1 { "" } else { "s" }, m.run.seed) }
                }
            </p>
        };
        let with_box = (actions > 0).then(|| {
            let onchange = link.callback(|e: Event| {
                SMsg::WithActions(e.target_unchecked_into::<web_sys::HtmlInputElement>().checked())
            });
            html! {
                <label class="sweep-with" title="Recorded actions replay at engine steps, which differ per seed; as faults they apply at their virtual times in every seed">
                    <input id="sweep-with-actions" type="checkbox" checked={self.with_actions} onchange={onchange} />
                    { " include my recorded actions as timed faults" }
                </label>
            }
        });
        let keys: Vec<ParamRow> =
            params_for(&m.run.scenario, &m.run.variant, &toml::Table::new()).unwrap_or_default();
        drop(m);
        let state = if self.loading {
            "loading"
        } else {
            self.run.as_ref().map_or("idle", |a| a.state.as_str())
        };
        let running = state == "running" || self.loading;
        let (done, total) = self
            .run
            .as_ref()
            .map_or((0, 0), |a| (a.sweep.done(), a.sweep.total()));
        let oninput = link.callback(|e: InputEvent| {
            SMsg::Seeds(
                e.target_unchecked_into::<web_sys::HtmlInputElement>()
                    .value(),
            )
        });
        html! {
            <>
            { button }
            <section id="sweep-panel" class="card sweep-panel" aria-label="How often?"
                data-state={state} data-done={done.to_string()} data-total={total.to_string()}
                data-workers={self.run.as_ref().map_or(0, |a| a.workers).to_string()}
                data-elapsed-ms={self.run.as_ref().map_or(0, |a| a.elapsed_ms as u64).to_string()}>
                <header class="sweep-head">
                    <h2>{ "How often?" }</h2>
                    <button id="sweep-close" class="icon" title="Close (a running sweep goes on)"
                        aria-label="Close" onclick={link.callback(|_| SMsg::Toggle)}>{ "×" }</button>
                </header>
                { scope }
                <div class="sweep-controls">
                    <label>{ "Seeds " }
                        <input id="sweep-seeds" type="number" min="1" max={MAX_SEEDS.to_string()}
                            value={self.seeds.clone()} oninput={oninput} disabled={running} />
                    </label>
                    if running {
                        <button id="sweep-cancel" onclick={link.callback(|_| SMsg::Cancel)}>{ "Cancel" }</button>
                    } else {
                        <button id="sweep-start" class="primary" onclick={link.callback(|_| SMsg::Start)}>{ "Run sweep" }</button>
                    }
                    <>{ for with_box }</>
                </div>
                { sweep_grid::rows(&self.grid, &keys, running, &link.callback(SMsg::Grid)) }
                if let Some(n) = &self.note {
                    <p class="sweep-note" role="alert">{ n.clone() }</p>
                }
                if let Some(a) = &self.run {
                    { progress(a) }
                    { results(a, link, ctx.props().dark) }
                }
            </section>
            </>
        }
    }
}

fn progress(a: &Active) -> Html {
    let p = Progress {
        done: a.sweep.done(),
        total: a.sweep.total(),
        elapsed_ms: a.elapsed_ms,
    };
    let pct = format!("{:.1}%", p.fraction() * 100.0);
    let status = match a.state {
        State::Running => match p.left_s() {
            Some(s) => format!("{:.0} s left", s.ceil()),
            None => "starting…".into(),
        },
        State::Done => format!("done in {:.1} s", a.elapsed_ms / 1000.0),
        State::Cancelled => "cancelled: results of the seeds done".into(),
        State::Error => "stopped by an error".into(),
    };
    html! {
        <div class="sweep-progress-row">
            <div id="sweep-progress" class="sweep-bar" role="progressbar"
                aria-valuemin="0" aria-valuemax={p.total.to_string()} aria-valuenow={p.done.to_string()}
                data-done={p.done.to_string()} data-total={p.total.to_string()}>
                <div class="sweep-bar-fill" style={format!("width:{pct}")}></div>
            </div>
            <p class="sweep-stats">
                { format!("{} of {} seeds · {:.2} seeds/s · {} worker{} · {status}", p.done, p.total, p.rate(), a.workers, if a.workers == 1 { "" } else { "s" }) }
            </p>
            if let Some(e) = &a.error {
                <p class="sweep-note" role="alert">{ e.clone() }</p>
            }
        </div>
    }
}

fn pct(f: f64) -> String {
    format!("{:.0}%", f * 100.0)
}

/// A metric's statistic: whole numbers as such, others to two decimals (a latency's min was
/// shown with all seventeen digits of its float).
fn stat(v: f64) -> String {
    if v.fract() == 0.0 && v.abs() < 1e15 {
        format!("{v:.0}")
    } else {
        format!("{v:.2}")
    }
}

/// Where an expectation failed, what its view answered instead, the most frequent first: "saw
/// DOWN in 28 seeds, no value in 2" (each value's seeds in its title); nothing when it held.
fn saw(e: &ExpectStat) -> Html {
    let failed = e.held.runs - e.held.count;
    if failed == 0 || e.observed.is_empty() {
        return html! {};
    }
    let grouped: u64 = e.observed.iter().map(|o| o.count).sum();
    let n = e.observed.len();
    let parts = e.observed.iter().enumerate().map(|(k, o)| {
        let seeds = o
            .seeds
            .iter()
            .map(u64::to_string)
            .collect::<Vec<_>>()
            .join(", ");
        let more = if o.count as usize > o.seeds.len() { ", …" } else { "" };
        html! {
            <>
            <span class="sweep-saw-value" title={format!("seeds {seeds}{more}")}>
                <b>{ o.value.clone() }</b>{ format!(" in {} seed{}", o.count, if o.count == 1 { "" } else { "s" }) }
            </span>
            { if k + 1 < n { ", " } else { "" } }
            </>
        }
    });
    html! {
        <span class="sweep-exp-saw">
            { "failed: saw " }{ for parts }
            if failed > grouped {
                { format!(", other values in {}", failed - grouped) }
            }
        </span>
    }
}

fn results(a: &Active, link: &html::Scope<SweepCard>, dark: bool) -> Html {
    let Some(shown) = a.shown.clone() else {
        return html! {};
    };
    let Some(cell) = shown.summary.cells.get(a.cell) else {
        return html! {};
    };
    let all = &cell.all_passed;
    let plan = &a.sweep.plan;
    let grid = (!plan.grid.is_empty()).then(|| {
        html! {
            <>
            { sweep_grid::view(&a.sweep, &shown.summary, clusterscope_core::registry::find(&a.swept.raw.protocol), &a.measure, a.cell, dark, &link.callback(SMsg::Grid)) }
            <h3 id="sweep-cell-title" data-cell={a.cell.to_string()}>{ format!("Cell {}", plan.cell_label(a.cell)) }</h3>
            </>
        }
    });
    let exps = cell.expectations.iter().map(|e| {
        let f = &e.held;
        let data_observed = e
            .observed
            .iter()
            .map(|o| format!("{}:{}", o.value, o.count))
            .collect::<Vec<_>>()
            .join("|");
        html! {
            <tr class="sweep-exp" data-name={e.name.clone()} data-count={f.count.to_string()} data-runs={f.runs.to_string()}
                data-observed={data_observed}>
                <td class="sweep-exp-name">{ e.name.clone() }{ saw(e) }</td>
                <td class="sweep-exp-bar">{ sweep_grid::frac_bar(f) }</td>
                <td class="sweep-exp-num">{ format!("{}/{} · {} [{}, {}]", f.count, f.runs, pct(f.fraction), pct(f.ci95_low), pct(f.ci95_high)) }</td>
            </tr>
        }
    });
    let model = clusterscope_core::registry::find(&a.swept.raw.protocol);
    let metrics = cell.metrics.iter().map(|(k, st)| {
        let vals = shown.values.get(k).cloned().unwrap_or_default();
        // What the metric means (issue 41): its sentence and unit, from the model.
        let about = model
            .and_then(|m| clusterscope_core::catalogue::metric(m, k))
            .map_or_else(
                || "(no description)".to_string(),
                |i| format!("{} ({})", i.about, i.unit),
            );
        html! {
            <figure class="sweep-metric">
                <figcaption><b title={about.clone()}>{ k.clone() }</b>{ format!(" mean {}, min {}, max {}; > 0 in {}", stat(st.mean), stat(st.min), stat(st.max), pct(st.nonzero.fraction)) }
                    <span class="sweep-metric-about">{ about }</span></figcaption>
                <Histogram metric={k.clone()} values={vals} dark={dark} min={st.min} max={st.max} />
            </figure>
        }
    });
    // What each failed expectation saw in a seed (the seed's outcome, of this cell).
    let outcome_of = |seed: u64| {
        a.sweep
            .outcomes
            .iter()
            .find(|o| o.seed == seed && plan.job(o.job).0 == a.cell)
    };
    let seeds = cell.failed_seeds.iter().map(|seed| {
        let seed = *seed;
        let o = outcome_of(seed);
        let seen = |i: usize| o.and_then(|o| o.observed.get(i).cloned().flatten());
        let failed: Vec<(String, Option<String>)> = cell
            .expectations
            .iter()
            .enumerate()
            .filter(|(i, _)| o.is_some_and(|o| o.held.get(*i) == Some(&false)))
            .map(|(i, e)| (e.name.clone(), seen(i)))
            .collect();
        let data_observed = failed
            .iter()
            .map(|(n, v)| format!("{n}={}", v.as_deref().unwrap_or("")))
            .collect::<Vec<_>>()
            .join("|");
        let failed: Vec<String> = failed
            .into_iter()
            .map(|(n, v)| match v {
                Some(v) => format!("{n} (saw {v})"),
                None => n,
            })
            .collect();
        html! {
            <button class="sweep-seed" data-seed={seed.to_string()} data-observed={data_observed}
                title={format!("Open seed {seed} in the replay (as swept{}). Failed: {}",
                    if plan.grid.is_empty() { String::new() } else { format!(", with {}", plan.cell_label(a.cell)) },
                    failed.join("; "))}
                onclick={link.callback(move |_| SMsg::Open(seed))}>{ seed }</button>
        }
    });
    let failing = all.runs - all.count;
    html! {
        <div id="sweep-results" class="sweep-results">
            <>{ for grid }</>
            <p id="sweep-all" class="sweep-all" data-count={all.count.to_string()} data-runs={all.runs.to_string()}>
                { format!("Every expectation held in {} of {} seeds: {} (95% CI {} to {}).",
                    all.count, all.runs, pct(all.fraction), pct(all.ci95_low), pct(all.ci95_high)) }
            </p>
            <table class="sweep-exps">
                <thead><tr><th>{ "Expectation" }</th><th>{ "held" }</th><th>{ "seeds · 95% interval" }</th></tr></thead>
                <tbody>{ for exps }</tbody>
            </table>
            if !cell.metrics.is_empty() {
                <h3>{ "Metrics per seed" }</h3>
                <div class="sweep-metrics">{ for metrics }</div>
            }
            if failing > 0 {
                <h3>{ format!("Seeds where an expectation failed ({failing}{})",
                    if failing as usize > cell.failed_seeds.len() { format!(", the first {}", cell.failed_seeds.len()) } else { String::new() }) }</h3>
                <p class="sweep-hint">{ "Click a seed to open it in the replay, as swept." }</p>
                <div id="sweep-failed" class="sweep-seeds">{ for seeds }</div>
            }
            if !cell.errors.is_empty() {
                <h3>{ "Runs that failed" }</h3>
                <ul class="sweep-errors">{ for cell.errors.iter().map(|e| html!{ <li>{ e.clone() }</li> }) }</ul>
            }
        </div>
    }
}

#[derive(Properties, PartialEq)]
struct HistProps {
    metric: String,
    values: Rc<Vec<f64>>,
    dark: bool,
    min: f64,
    max: f64,
}

const HIST_W: u32 = 200;
const HIST_H: u32 = 80;
const HIST_BINS: usize = 12;

/// A metric's per-seed values as a histogram (plotters on a small canvas).
#[function_component(Histogram)]
fn hist(p: &HistProps) -> Html {
    let canvas = use_node_ref();
    let bins = histogram(&p.values, HIST_BINS);
    {
        let canvas = canvas.clone();
        let bins = bins.clone();
        let dark = p.dark;
        use_effect_with((p.values.clone(), dark), move |_| {
            if let Some(c) = canvas.cast::<web_sys::HtmlCanvasElement>() {
                let dpr = platform::device_pixel_ratio();
                c.set_width((HIST_W as f64 * dpr) as u32);
                c.set_height((HIST_H as f64 * dpr) as u32);
                draw_hist(c, &bins, dark);
            }
        });
    }
    let counts = bins
        .iter()
        .map(|b| b.count.to_string())
        .collect::<Vec<_>>()
        .join(" ");
    html! {
        <canvas ref={canvas} class="sweep-hist" data-metric={p.metric.clone()} data-bins={counts}
            data-min={p.min.to_string()} data-max={p.max.to_string()}
            style={format!("width:{HIST_W}px;height:{HIST_H}px")}
            aria-label={format!("Histogram of {} over the seeds", p.metric)}></canvas>
    }
}

fn draw_hist(
    canvas: web_sys::HtmlCanvasElement,
    bins: &[crate::sweep::Bin],
    dark: bool,
) -> Option<()> {
    let pal = palette(dark);
    let css = |hex: &str| {
        let v = u32::from_str_radix(hex.trim_start_matches('#'), 16).unwrap_or(0x808080);
        RGBColor((v >> 16) as u8, (v >> 8) as u8, v as u8)
    };
    let dpr = platform::device_pixel_ratio();
    let root = CanvasBackend::with_canvas_object(canvas)?.into_drawing_area();
    let (lo, hi) = (bins.first()?.lo, bins.last()?.hi);
    let ymax = bins.iter().map(|b| b.count).max().unwrap_or(1).max(1);
    // One bin per integer: label the integers only.
    let integer_bins = bins
        .iter()
        .all(|b| b.hi - b.lo == 1.0 && b.lo.fract().abs() == 0.5);
    let font = (
        FontFamily::Name("system-ui, sans-serif"),
        (10.0 * dpr) as i32,
    )
        .into_font()
        .color(&css(pal.muted));
    let mut chart = ChartBuilder::on(&root)
        .margin((4.0 * dpr) as i32)
        // Room above the plot for the top y label, drawn centred on the top edge.
        .margin_top((8.0 * dpr) as i32)
        .x_label_area_size((14.0 * dpr) as i32)
        .y_label_area_size((22.0 * dpr) as i32)
        .build_cartesian_2d(lo..hi, 0u64..ymax)
        .ok()?;
    chart
        .configure_mesh()
        .disable_x_mesh()
        .disable_y_mesh()
        .x_labels(3)
        .y_labels(3)
        .x_label_formatter(&|x| {
            if integer_bins && x.fract() != 0.0 {
                String::new()
            } else if (hi - lo) >= 10.0 || x.fract() == 0.0 {
                format!("{x:.0}")
            } else {
                format!("{x:.1}")
            }
        })
        .label_style(font)
        .axis_style(css(pal.grid))
        .draw()
        .ok()?;
    let fill = css(pal.accent);
    chart
        .draw_series(bins.iter().map(|b| {
            let gap = (b.hi - b.lo) * 0.08;
            Rectangle::new([(b.lo + gap, 0), (b.hi - gap, b.count)], fill.filled())
        }))
        .ok()?;
    root.present().ok()?;
    Some(())
}
