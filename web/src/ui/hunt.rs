//! "Find a run where this fails" (issue 43, in the app): a button beside "How often?" (and one
//! on each expectation of the Expectations list, [`request`]) opening a card that hunts the open
//! scenario and variant for a run where the chosen expectation fails (or a safety invariant
//! breaks): core's hunt in the sweep's Web Workers (`crate::hunt`), with progress (runs done of
//! the budget, runs/s) and Cancel (the workers are terminated; the open session is untouched).
//! The shrunk run opens as a link would: the found seed with two branches, the run without
//! faults ("original") and the hunt's faults as recorded actions (on the timeline), shown at
//! the failure, each fault and the failure bookmarked (pennants on the timeline, named).
//!
//! Test hooks: `#hunt-open`; `#hunt-panel[data-state]` (idle, searching, shrinking, found,
//! not-found, cancelled, error) with data-done, -budget, -workers, -index (the found candidate),
//! -seed, -actions (the shrunk schedule's actions); `#hunt-target`, `#hunt-faults`,
//! `#hunt-budget`, `#hunt-seed`, `#hunt-start`, `#hunt-cancel`, `#hunt-close`,
//! `#hunt-progress`, `#hunt-result`, `#hunt-reopen`; `.check-hunt[data-name]` on the
//! Expectations rows; `.part-note[data-part]` (loading, error) beside `#hunt-open` while the card's
//! part of the split build loads or after it failed ([`HuntPanel`]).

use crate::hunt::{self, Decided, Search, Shrunk, BATCH, DEFAULT_RUNS, MAX_RUNS};
use crate::kit::{part_note, use_part, Handle, PartLoad};
use crate::model::Msg;
use crate::platform;
use crate::sweep::worker_count;
use crate::sweep::workers::{cores, Pool, Reply};
use clusterscope_core::hunt::{Kind, Plan, Target};
use clusterscope_core::scenario::ExpectSpec;
use clusterscope_core::session::{Bookmark, BranchRef, ScenarioRef, Session, PERMALINK_VERSION};
use clusterscope_core::time::fmt_duration;
use std::cell::RefCell;
use std::rc::Rc;
use yew::prelude::*;

/// The target select's value for "a safety invariant breaks".
const INVARIANTS: &str = "\u{1}invariants";

thread_local! {
    /// The open panel's inbox, for [`request`].
    static INBOX: RefCell<Option<Callback<HMsg>>> = const { RefCell::new(None) };
}

thread_local! {
    /// The card's face while the card itself is not loaded ([`HuntPanel`]), for [`request`].
    static OPENER: RefCell<Option<Callback<Option<String>>>> = const { RefCell::new(None) };
}

/// Open the hunt card with `target` (an expectation's name) chosen: the Expectations list's
/// "Find a failing run".
pub fn request(target: String) {
    let card = INBOX.with(|i| i.borrow().clone());
    if let Some(cb) = card {
        cb.emit(HMsg::OpenWith(target));
    } else if let Some(open) = OPENER.with(|o| o.borrow().clone()) {
        open.emit(Some(target));
    }
}

#[derive(Properties, Clone)]
pub struct HuntProps {
    pub s: Handle,
    /// The session's revision: the targets offered are the open session's.
    pub session: u64,
    /// The card opens at once when it is created, with this target (empty: the first) chosen:
    /// it is created by the first opening ([`HuntPanel`]).
    #[prop_or_default]
    pub open_with: Option<String>,
}

/// "Find a failing run": the button, and at its first press (or an expectation's, [`request`])
/// the card ([`HuntCard`]) once its code is loaded: in the split release build the card and all
/// only it reaches (the hunt's plan, search and results) are the part `hunt` of the wasm
/// (`crate::in_part!`, issue 44), "Loading…" meanwhile, and if the fetch fails a note naming
/// the part (nothing else changes; pressing again retries).
#[function_component(HuntPanel)]
pub fn hunt_panel(p: &HuntProps) -> Html {
    let (load, open) = use_part("hunt");
    OPENER.with(|o| *o.borrow_mut() = Some(open.clone()));
    use_effect_with((), |_| || OPENER.with(|o| *o.borrow_mut() = None));
    if let PartLoad::Loaded(target) = &*load {
        let props = HuntProps {
            open_with: Some(target.clone().unwrap_or_default()),
            ..p.clone()
        };
        let card = crate::in_part!(hunt, card, HuntProps => Html, props, |p: HuntProps| {
            html! { <HuntCard ..p /> }
        });
        if let Some(card) = card {
            return card;
        }
    }
    html! {
        <>
            <button id="hunt-open" class="sweep-fab hunt-fab"
                title="Find a run where an expectation fails: search seeds and fault schedules, then shrink what fails"
                aria-expanded="false"
                onclick={open.reform(|_| None)}>{ "Find a failing run" }</button>
            { part_note(&load, "the hunt's code") }
        </>
    }
}

impl PartialEq for HuntProps {
    fn eq(&self, o: &Self) -> bool {
        self.session == o.session
    }
}

enum Phase {
    Searching,
    Shrinking(u64),
    Found(Rc<Shrunk>),
    NotFound,
    Cancelled,
    Error(String),
}

impl Phase {
    fn as_str(&self) -> &'static str {
        match self {
            Phase::Searching => "searching",
            Phase::Shrinking(_) => "shrinking",
            Phase::Found(_) => "found",
            Phase::NotFound => "not-found",
            Phase::Cancelled => "cancelled",
            Phase::Error(_) => "error",
        }
    }
}

/// One hunt started from the card.
struct Active {
    plan: Plan,
    plan_json: String,
    faults: String,
    builtin: String,
    text: String,
    search: Search,
    phase: Phase,
    pool: Option<Pool>,
    workers: usize,
    started_ms: f64,
    elapsed_ms: f64,
    /// What was open when the hunt started: the result opens on it.
    scenario_ref: ScenarioRef,
    expects: Vec<ExpectSpec>,
    selected: Option<String>,
    /// The shrink's progress as its worker reports it: re-runs so far, actions of the smallest
    /// failing schedule so far.
    shrink_progress: Option<(u32, usize)>,
}

pub enum HMsg {
    Toggle,
    OpenWith(String),
    Target(String),
    Faults(String),
    Budget(String),
    HuntSeed(String),
    Start,
    Cancel,
    Reply(Reply),
    /// A shrinking worker's `{ progress }`: "RERUNS ACTIONS".
    ShrinkProgress(String),
    OpenResult,
}

pub struct HuntCard {
    open: bool,
    target: String,
    faults: String,
    budget: String,
    hunt_seed: String,
    run: Option<Active>,
    note: Option<String>,
}

impl HuntCard {
    fn start(&mut self, ctx: &Context<Self>) -> Result<(), String> {
        let runs: u64 = self
            .budget
            .trim()
            .replace([',', '_'], "")
            .parse()
            .ok()
            .filter(|n| (1..=MAX_RUNS).contains(n))
            .ok_or_else(|| format!("Budget: a whole number of runs from 1 to {MAX_RUNS}."))?;
        let hunt_seed: u64 = self
            .hunt_seed
            .trim()
            .parse()
            .map_err(|_| "Hunt seed: a whole number (0 to 2^64-1).".to_string())?;
        let m = ctx.props().s.model.borrow();
        // The scenario with the person's own expectations (`model::user_expects`).
        let (mine_ref, mine) = m.checked_scenario()?;
        let target = if self.target == INVARIANTS {
            Target::Invariants
        } else {
            Target::Expectation(self.target.clone())
        };
        let plan = hunt::plan(&mine, &m.run.variant, target, &self.faults, hunt_seed, runs)?;
        let (builtin, text) = crate::builtins::job(&mine_ref);
        let plan_json = serde_json::to_string(&plan).map_err(|e| e.to_string())?;
        let n = worker_count(cores(), runs.div_ceil(BATCH));
        // Drop (terminate) any earlier hunt's workers first.
        self.run = None;
        let link = ctx.link().clone();
        let pool = Pool::start(n, Rc::new(move |r| link.send_message(HMsg::Reply(r))))?;
        let mut a = Active {
            search: Search::new(plan.runs),
            plan,
            plan_json,
            faults: self.faults.clone(),
            builtin,
            text,
            phase: Phase::Searching,
            pool: Some(pool),
            workers: n,
            started_ms: platform::now_ms(),
            elapsed_ms: 0.0,
            scenario_ref: m.scenario_ref.clone(),
            expects: m.user_expects.clone(),
            selected: m.session().selected,
            shrink_progress: None,
        };
        drop(m);
        for i in 0..n {
            feed(&mut a, i)?;
        }
        self.run = Some(a);
        Ok(())
    }

    /// The targets the open session offers: its expectations' names, and the invariants when
    /// its model checks some.
    fn targets(&self, ctx: &Context<Self>) -> Vec<(String, String)> {
        let m = ctx.props().s.model.borrow();
        let mine = m.scenario_with_mine();
        let mut v: Vec<(String, String)> =
            clusterscope_core::sweep::expectation_names(&mine, &m.run.variant)
                .unwrap_or_default()
                .into_iter()
                .map(|n| (n.clone(), format!("\"{n}\" fails")))
                .collect();
        if m.run.engine.checks_invariants() {
            v.push((INVARIANTS.into(), "a safety invariant breaks".into()));
        }
        v
    }
}

/// Hand worker `i` its next batch of candidates, if any is worth running.
fn feed(a: &mut Active, i: usize) -> Result<(), String> {
    let Some((first, count)) = a.search.take(BATCH) else {
        return Ok(());
    };
    if let Some(p) = &a.pool {
        p.send_hunt(
            i,
            &a.builtin,
            &a.text,
            &a.plan_json,
            "hunt",
            &[("first", first), ("count", count)],
        )?;
    }
    Ok(())
}

/// The session that shows a found run: the found seed, the original run and the hunt's faults as
/// a branch of recorded actions (shown, at the failure), each fault and the failure bookmarked.
/// When the faults did not replay as actions, the counterexample's scenario file (its faults
/// scheduled) instead.
fn found_session(a: &Active, sh: &Shrunk) -> Session {
    let f = &sh.found;
    let target = match &a.plan.target {
        Target::Expectation(n) => n.clone(),
        Target::Invariants => "a safety invariant".into(),
    };
    let mut session = Session {
        v: PERMALINK_VERSION,
        scenario: a.scenario_ref.clone(),
        variant: a.plan.variant.clone(),
        seed: f.seed,
        actions: Vec::new(),
        cursor: 0,
        selected: a.selected.clone(),
        compare: None,
        branches: Vec::new(),
        branch: 0,
        at_us: None,
        bookmarks: Vec::new(),
        expects: a.expects.clone(),
    };
    let mut marks: Vec<Bookmark> = f
        .shrunk
        .iter()
        .enumerate()
        .flat_map(|(k, fault)| {
            fault.actions().into_iter().map(move |(t, act)| Bookmark {
                at_us: t,
                name: format!("hunt fault {}: {}", k + 1, act.describe()),
                note: String::new(),
            })
        })
        .collect();
    if sh.replay.is_err() {
        // The faults stay scheduled in the counterexample's file.
        session.scenario = ScenarioRef::Custom(sh.file.clone());
        session.expects = Vec::new();
        session.bookmarks = marks;
        return session;
    }
    if let Some(t) = sh.failed_at_us {
        marks.push(Bookmark {
            at_us: t,
            name: format!("✗ {target}"),
            note: sh.replay.clone().unwrap_or_default(),
        });
    }
    clusterscope_core::small_sort::sort_by_key(&mut marks, |b| b.at_us);
    let first_at = sh.actions.first().map_or(0, |x| x.at.0);
    session.branches = vec![
        BranchRef {
            parent: None,
            what: "original".into(),
            at_us: 0,
            actions: Vec::new(),
        },
        BranchRef {
            parent: Some(0),
            what: format!(
                "hunt: {}",
                f.shrunk
                    .iter()
                    .map(|x| x.describe())
                    .collect::<Vec<_>>()
                    .join("; ")
            ),
            at_us: first_at,
            actions: sh.actions.clone(),
        },
    ];
    session.branch = 1;
    session.actions = sh.actions.clone();
    session.cursor = sh.at_step.unwrap_or(0);
    session.at_us = sh.failed_at_us.filter(|_| sh.at_step.is_some());
    session.bookmarks = marks;
    session
}

impl Component for HuntCard {
    type Message = HMsg;
    type Properties = HuntProps;

    fn create(ctx: &Context<Self>) -> Self {
        let cb = ctx.link().callback(|m| m);
        INBOX.with(|i| *i.borrow_mut() = Some(cb));
        let open_with = ctx.props().open_with.clone();
        HuntCard {
            open: open_with.is_some(),
            target: open_with.unwrap_or_default(),
            faults: "all".into(),
            budget: DEFAULT_RUNS.to_string(),
            hunt_seed: "1".into(),
            run: None,
            note: None,
        }
    }

    fn destroy(&mut self, _: &Context<Self>) {
        INBOX.with(|i| *i.borrow_mut() = None);
    }

    fn update(&mut self, ctx: &Context<Self>, msg: HMsg) -> bool {
        match msg {
            HMsg::Toggle => self.open = !self.open,
            HMsg::OpenWith(t) => {
                self.open = true;
                self.target = t;
                self.note = None;
            }
            HMsg::Target(t) => self.target = t,
            HMsg::Faults(f) => self.faults = f,
            HMsg::Budget(b) => self.budget = b,
            HMsg::HuntSeed(s) => self.hunt_seed = s,
            HMsg::Start => {
                self.note = None;
                if self.target.is_empty() {
                    self.target = self
                        .targets(ctx)
                        .first()
                        .map(|t| t.0.clone())
                        .unwrap_or_default();
                }
                if let Err(e) = self.start(ctx) {
                    self.note = Some(e);
                }
            }
            HMsg::Cancel => {
                if let Some(a) = self
                    .run
                    .as_mut()
                    .filter(|a| matches!(a.phase, Phase::Searching | Phase::Shrinking(_)))
                {
                    a.pool = None;
                    a.phase = Phase::Cancelled;
                    a.elapsed_ms = platform::now_ms() - a.started_ms;
                }
            }
            HMsg::ShrinkProgress(p) => {
                let Some(a) = self.run.as_mut() else {
                    return false;
                };
                if a.pool.is_none() || !matches!(a.phase, Phase::Shrinking(_)) {
                    return false; // late, from a cancelled or finished shrink
                }
                let mut w = p.split_whitespace().map(str::parse::<u64>);
                match (w.next(), w.next()) {
                    (Some(Ok(r)), Some(Ok(n))) => {
                        a.shrink_progress = Some((r as u32, n as usize));
                    }
                    _ => return false,
                }
            }
            HMsg::Reply((i, res)) => {
                let Some(a) = self.run.as_mut() else {
                    return false;
                };
                if a.pool.is_none() {
                    return false; // a late answer from terminated workers
                }
                a.elapsed_ms = platform::now_ms() - a.started_ms;
                match a.phase {
                    Phase::Searching => {
                        let r = res
                            .and_then(|out| a.search.accept(&out))
                            .and_then(|_| feed(a, i));
                        if let Err(e) = r {
                            a.pool = None;
                            a.phase = Phase::Error(e);
                            return true;
                        }
                        match a.search.decided() {
                            Some(Decided::Found(index)) => {
                                // The other workers' batches are past it: stop them, shrink in
                                // one fresh worker.
                                a.pool = None;
                                let link = ctx.link().clone();
                                let heard = ctx.link().clone();
                                let started = Pool::start_with(
                                    1,
                                    Rc::new(move |r| link.send_message(HMsg::Reply(r))),
                                    Rc::new(move |p| heard.send_message(HMsg::ShrinkProgress(p))),
                                )
                                .and_then(|p| {
                                    p.send_hunt(
                                        0,
                                        &a.builtin,
                                        &a.text,
                                        &a.plan_json,
                                        "shrink",
                                        &[("index", index)],
                                    )?;
                                    Ok(p)
                                });
                                match started {
                                    Ok(p) => {
                                        a.pool = Some(p);
                                        a.phase = Phase::Shrinking(index);
                                    }
                                    Err(e) => a.phase = Phase::Error(e),
                                }
                            }
                            Some(Decided::NotFound) => {
                                a.pool = None;
                                a.phase = Phase::NotFound;
                            }
                            None => {}
                        }
                    }
                    Phase::Shrinking(_) => {
                        a.pool = None;
                        match res.and_then(|out| {
                            serde_json::from_slice::<Shrunk>(out.as_bytes())
                                .map_err(|e| format!("the shrink's answer: {e}"))
                        }) {
                            Ok(sh) => {
                                let sh = Rc::new(sh);
                                a.phase = Phase::Found(sh);
                                ctx.link().send_message(HMsg::OpenResult);
                            }
                            Err(e) => a.phase = Phase::Error(e),
                        }
                    }
                    _ => return false,
                }
            }
            HMsg::OpenResult => {
                let Some(a) = &self.run else { return false };
                let Phase::Found(sh) = &a.phase else {
                    return false;
                };
                let session = found_session(a, sh);
                ctx.props().s.dispatch(Msg::OpenPermalink(session.encode()));
            }
        }
        true
    }

    fn view(&self, ctx: &Context<Self>) -> Html {
        let link = ctx.link();
        let button = html! {
            <button id="hunt-open" class={classes!("sweep-fab", "hunt-fab", self.open.then_some("on"))}
                title="Find a run where an expectation fails: search seeds and fault schedules, then shrink what fails"
                aria-expanded={if self.open { "true" } else { "false" }}
                onclick={link.callback(|_| HMsg::Toggle)}>{ "Find a failing run" }</button>
        };
        if !self.open {
            return button;
        }
        let targets = self.targets(ctx);
        let chosen = if self.target.is_empty() {
            targets.first().map(|t| t.0.clone()).unwrap_or_default()
        } else {
            self.target.clone()
        };
        let (scenario, variant) = {
            let m = ctx.props().s.model.borrow();
            (m.run.scenario.name().to_string(), m.run.variant.clone())
        };
        let busy = self
            .run
            .as_ref()
            .is_some_and(|a| matches!(a.phase, Phase::Searching | Phase::Shrinking(_)));
        let state = self.run.as_ref().map_or("idle", |a| a.phase.as_str());
        let sel = |f: fn(String) -> HMsg| {
            link.callback(move |e: Event| {
                f(e.target_unchecked_into::<web_sys::HtmlSelectElement>()
                    .value())
            })
        };
        let inp = |f: fn(String) -> HMsg| {
            link.callback(move |e: InputEvent| {
                f(e.target_unchecked_into::<web_sys::HtmlInputElement>()
                    .value())
            })
        };
        // (value, the kinds it names, for the title).
        let presets = Kind::PRESETS
            .iter()
            .map(|(n, ks)| {
                (
                    n.to_string(),
                    ks.iter().map(|k| k.name()).collect::<Vec<_>>().join(", "),
                )
            })
            .chain(
                Kind::ALL
                    .iter()
                    .map(|k| (k.name().to_string(), k.name().to_string())),
            );
        let (found_index, found_seed, found_actions) = match self.run.as_ref().map(|a| &a.phase) {
            Some(Phase::Found(sh)) => (
                sh.found.index.to_string(),
                sh.found.seed.to_string(),
                sh.actions.len().to_string(),
            ),
            _ => Default::default(),
        };
        html! {
            <>
            { button }
            <section id="hunt-panel" class="card sweep-panel hunt-panel" aria-label="Find a failing run"
                data-state={state}
                data-done={self.run.as_ref().map_or(0, |a| a.search.done).to_string()}
                data-budget={self.run.as_ref().map_or(0, |a| a.plan.runs).to_string()}
                data-workers={self.run.as_ref().map_or(0, |a| a.workers).to_string()}
                data-index={found_index} data-seed={found_seed} data-actions={found_actions}>
                <header class="sweep-head">
                    <h2>{ "Find a run where this fails" }</h2>
                    <button id="hunt-close" class="icon" title="Close (a running hunt goes on)"
                        aria-label="Close" onclick={link.callback(|_| HMsg::Toggle)}>{ "×" }</button>
                </header>
                <p class="sweep-scope">
                    { "Tries runs of " }<b>{ scenario }</b>{ ", variant " }<b>{ variant.clone() }</b>
                    { ", each with another seed and a random schedule of faults, until one fails; then shrinks its faults and opens it as a branch. Your recorded actions are not included." }
                </p>
                <div class="sweep-controls hunt-controls">
                    <label class="hunt-target">{ "Target " }
                        <select id="hunt-target" onchange={sel(HMsg::Target)} disabled={busy}>
                            { for targets.iter().map(|(v, label)| html! {
                                <option value={v.clone()} selected={*v == chosen}>{ label.clone() }</option>
                            }) }
                        </select>
                    </label>
                    <label>{ "Faults " }
                        <select id="hunt-faults" onchange={sel(HMsg::Faults)} disabled={busy}>
                            { for presets.map(|(v, kinds)| html! {
                                <option value={v.clone()} title={kinds} selected={v == self.faults}>{ v.clone() }</option>
                            }) }
                        </select>
                    </label>
                    <label>{ "Budget " }
                        <input id="hunt-budget" type="number" min="1" max={MAX_RUNS.to_string()}
                            value={self.budget.clone()} oninput={inp(HMsg::Budget)} disabled={busy} />
                        { " runs" }
                    </label>
                    <label>{ "Hunt seed " }
                        <input id="hunt-seed" type="number" min="0" value={self.hunt_seed.clone()}
                            oninput={inp(HMsg::HuntSeed)} disabled={busy} />
                    </label>
                    if busy {
                        <button id="hunt-cancel" onclick={link.callback(|_| HMsg::Cancel)}>{ "Cancel" }</button>
                    } else {
                        <button id="hunt-start" class="primary" onclick={link.callback(|_| HMsg::Start)}>{ "Find" }</button>
                    }
                </div>
                if let Some(n) = &self.note {
                    <p class="sweep-note" role="alert">{ n.clone() }</p>
                }
                if let Some(a) = &self.run {
                    { progress(a) }
                    { result(a, link) }
                }
            </section>
            </>
        }
    }
}

fn progress(a: &Active) -> Html {
    let done = a.search.done;
    let total = a.plan.runs;
    let rate = if a.elapsed_ms > 0.0 {
        done as f64 / (a.elapsed_ms / 1000.0)
    } else {
        0.0
    };
    let status = match &a.phase {
        Phase::Searching => "searching…".to_string(),
        Phase::Shrinking(i) => match a.shrink_progress {
            Some((r, n)) => format!(
                "run {} fails: shrinking its faults, re-run {r} of at most {}; best so far {n} action{}…",
                i + 1,
                clusterscope_core::hunt::most_reruns(&a.plan),
                if n == 1 { "" } else { "s" }
            ),
            None => format!(
                "run {} fails: shrinking its faults (up to {} re-runs)…",
                i + 1,
                clusterscope_core::hunt::most_reruns(&a.plan)
            ),
        },
        Phase::Found(_) => format!("done in {:.1} s", a.elapsed_ms / 1000.0),
        Phase::NotFound => format!("done in {:.1} s", a.elapsed_ms / 1000.0),
        Phase::Cancelled => "cancelled: nothing was changed".into(),
        Phase::Error(_) => "stopped by an error".into(),
    };
    let frac = if matches!(
        a.phase,
        Phase::Searching | Phase::Cancelled | Phase::Error(_)
    ) {
        done as f64 / total.max(1) as f64
    } else {
        1.0
    };
    let invalid = (a.search.invalid > 0).then(|| {
        format!(
            " · {} with a schedule that could not apply",
            a.search.invalid
        )
    });
    html! {
        <div class="sweep-progress-row">
            <div id="hunt-progress" class="sweep-bar" role="progressbar"
                aria-valuemin="0" aria-valuemax={total.to_string()} aria-valuenow={done.to_string()}
                data-done={done.to_string()} data-total={total.to_string()}>
                <div class="sweep-bar-fill" style={format!("width:{:.1}%", frac.min(1.0) * 100.0)}></div>
            </div>
            <p class="sweep-stats">
                { format!("{done} of {total} runs · {rate:.1} runs/s · {} worker{}{} · {status}",
                    a.workers, if a.workers == 1 { "" } else { "s" }, invalid.unwrap_or_default()) }
            </p>
            if let Phase::Error(e) = &a.phase {
                <p class="sweep-note" role="alert">{ e.clone() }</p>
            }
        </div>
    }
}

fn result(a: &Active, link: &html::Scope<HuntCard>) -> Html {
    let cli = hunt::cli_line(&a.plan, &a.faults);
    match &a.phase {
        Phase::NotFound => html! {
            <div id="hunt-result" class="hunt-result" data-found="0">
                <p><b>{ format!("No failing run in {} runs", a.search.done) }</b>
                    { format!("; {} held in every one. The fixed variant may be right, or the bug needs \
                        other faults, more runs or another hunt seed.", match &a.plan.target {
                        Target::Expectation(n) => format!("\"{n}\""),
                        Target::Invariants => "every invariant".into(),
                    }) }</p>
                <p class="sweep-hint">{ "The same hunt in the CLI: " }<code>{ cli }</code></p>
            </div>
        },
        Phase::Found(sh) => {
            let f = &sh.found;
            let rows = f
                .shrunk
                .iter()
                .map(|x| html! { <li><code>{ x.describe() }</code></li> });
            let how = match &sh.replay {
                Ok(d) => html! {
                    <p>{ "Opened as branch 2 of seed " }<b>{ f.seed.to_string() }</b>
                        { ": the faults are your actions there (marked on the timeline and bookmarked), the cursor at the failure" }
                        { sh.failed_at_us.map(|t| format!(" ({})", fmt_duration(t))).unwrap_or_default() }
                        { format!(". What failed: {d}") }</p>
                },
                Err(e) => html! {
                    <p>{ format!("Opened as a scenario with these faults scheduled, on seed {} (as recorded actions they did not fail the same way: {e}).", f.seed) }</p>
                },
            };
            html! {
                <div id="hunt-result" class="hunt-result" data-found="1">
                    <p><b>{ format!("Run {} of {} fails", f.index + 1, a.plan.runs) }</b>
                        { format!(": {}. Shrunk from {} to {} actions in {} re-runs:",
                            a.plan.target.describe(),
                            clusterscope_core::hunt::actions(&f.original).len(),
                            clusterscope_core::hunt::actions(&f.shrunk).len(), f.reruns) }</p>
                    <ul class="hunt-faults">{ for rows }</ul>
                    { how }
                    <p class="sweep-controls">
                        <button id="hunt-reopen" onclick={link.callback(|_| HMsg::OpenResult)}>{ "Open it again" }</button>
                    </p>
                    <p class="sweep-hint">{ "The same hunt in the CLI: " }<code>{ cli }</code></p>
                </div>
            }
        }
        // A model panic is a bug of the simulator, not a failing run of the scenario; the CLI
        // catches it (native code unwinds), reports the run and shrinks it.
        Phase::Error(e) if e.starts_with("the model panicked") => html! {
            <div id="hunt-result" class="hunt-result" data-found="panic">
                <p>{ "This is a bug in the simulator's model, not a failing run of the scenario: \
                    please report it. The same hunt in the CLI reports the run and shrinks it to a \
                    scenario file that reproduces the panic: " }<code>{ cli }</code></p>
            </div>
        },
        _ => html! {},
    }
}
