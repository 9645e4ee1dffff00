//! A run of one scenario variant: builds the engine, evaluates expectations at their times, and
//! reports the outcome with the observable views.

use crate::engine::trace::Trace;
use crate::engine::{Engine, NodeId, NodeStatus, Sim, SimError};
use crate::limits::Limits;
pub use crate::model::QValue;
use crate::model::{Driver, Model};
use crate::registry::{self, BuildArgs};
use crate::scenario::noderef::NodeRef;
use crate::scenario::{merge_params, ExpectSpec, Scenario, TimeRef};
use crate::time::{fmt_time, Micros, US_PER_S};
use serde::{Deserialize, Serialize};

mod expect;
mod views;

#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct ExpectResult {
    pub name: String,
    pub passed: bool,
    pub detail: String,
    /// When it is checked: `[from, to]` of its `during` window, or its `at` time twice.
    pub window_us: [Micros; 2],
    /// The virtual time of the first sample that did not hold (or could not be taken), if any.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub failed_at_us: Option<Micros>,
    /// Declared to hold on only some seeds (`chance`): when it did not hold on this one, that is
    /// "did not happen this time", not a failure of the run.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub chance: Option<crate::scenario::Chance>,
    /// A caption's check (`[[captions.holds]]`): the caption's index in the file.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub caption: Option<u32>,
    /// What the view answered at the sample that did not hold (`failed_at_us`), as written in
    /// `detail`: `DOWN`, `3`; for `increases`, its start and end (`12 -> 12`). `None` when it held,
    /// when the view could not be queried then, or when its time was not reached.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub observed: Option<String>,
    /// `within`: the length of its window (`window_us` runs from `at` to `at` + this, or to the
    /// run's end), so a reader can tell it from a `during` window.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub within_us: Option<Micros>,
    /// `within`: the moment its check first held (`None` when it never did, or for other kinds).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub met_at_us: Option<Micros>,
}

impl ExpectResult {
    /// Whether this result makes the run fail: it did not hold and it claims to hold always.
    pub fn fails_run(&self) -> bool {
        !self.passed && self.chance.is_none()
    }

    /// One line for people: what held, failed, or did not happen this time.
    pub fn verdict(&self) -> String {
        match (self.passed, &self.chance) {
            (true, _) => "held".into(),
            (false, None) => "FAILED".into(),
            (false, Some(c)) => format!(
                "did not happen this time (expected in {} of seeds)",
                c.short()
            ),
        }
    }
}

#[derive(Clone, Debug, Serialize)]
pub struct Report {
    pub scenario: String,
    pub variant: String,
    pub seed: u64,
    pub end_time_us: Micros,
    pub events: u64,
    pub trace_hash: String,
    pub passed: bool,
    pub expectations: Vec<ExpectResult>,
    pub metrics: std::collections::BTreeMap<String, f64>,
    /// Scheduled faults that could not apply at their time (a command the node refused then):
    /// each makes the run fail, like an expectation that did not hold.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub skipped: Vec<String>,
    /// Every node's views at the end (the model's `views_json`); `null` until filled by
    /// [`Run::views_json`]. Not built by `run`: at 251 nodes they are ~56 MB of JSON and cost more
    /// than a tenth of the run, and sweeps and benchmarks never look at them.
    #[serde(skip_serializing_if = "serde_json::Value::is_null")]
    pub views: serde_json::Value,
}

/// How a run keeps its history.
#[derive(Clone, Debug)]
pub struct RunOptions {
    pub checkpointing: bool,
    pub body_budget: usize,
    pub limits: Limits,
}

impl Default for RunOptions {
    fn default() -> Self {
        RunOptions {
            checkpointing: false,
            body_budget: 4 << 20,
            limits: Limits::default(),
        }
    }
}

pub struct Run {
    pub scenario: Scenario,
    pub variant: String,
    pub seed: u64,
    pub overrides: toml::Table,
    /// The running engine of the scenario's model (`registry`).
    pub engine: Box<dyn Driver>,
    /// Expectation queries evaluated by the last [`Run::run`]: its cost beyond the engine's.
    /// Each expectation is sampled only at its own times and equal queries at one time are
    /// evaluated once, so this never grows with the run's steps (issue 13, item 8).
    pub queries_evaluated: u64,
}

impl Run {
    pub fn new(
        scenario: Scenario,
        variant: &str,
        seed: Option<u64>,
        overrides: &toml::Table,
        opts: &RunOptions,
    ) -> Result<Run, String> {
        let (vi, v) = scenario.variant(variant)?;
        let seed = seed.unwrap_or(scenario.raw.seed);
        let params = merge_params(&[&scenario.raw.params, &v.params, overrides]);
        let model = registry::find(&scenario.raw.protocol).ok_or_else(|| {
            format!(
                "{}: protocol \"{}\" is not modelled",
                scenario.file, scenario.raw.protocol
            )
        })?;
        // A message expectation with `contains` reads message bodies: keep them (up to the
        // default budget) even in a run that would keep none (`run` without `--trace`, sweeps).
        let reads_bodies = scenario.expectations(variant)?.iter().any(|e| {
            e.contains.is_some() && crate::scenario::MESSAGE_VIEWS.contains(&e.view.as_str())
        });
        let body_budget = if reads_bodies {
            opts.body_budget.max(RunOptions::default().body_budget)
        } else {
            opts.body_budget
        };
        let mut engine = model
            .build(BuildArgs {
                scenario: &scenario,
                variant: vi,
                params,
                seed,
                limits: opts.limits.clone(),
                checkpointing: opts.checkpointing,
                body_budget,
            })
            .map_err(|m| match m.strip_prefix("params: ") {
                Some(rest) => format!("params (variant {variant}): {rest}"),
                None => format!("{}: {m}", scenario.file),
            })?;
        // Checkpoints spread evenly over the scenario's duration: the one at the start, one per
        // span, and room for one at the very end without thinning (jumps replay at most about
        // 1/(max - 2) of the run, 1/62 when the memory budget holds 64); a run continued beyond
        // the duration thins them out as usual.
        engine.set_checkpoint_span(registry::checkpoint_span(
            scenario.duration(),
            engine.max_checkpoints(),
        ));
        if let Some((rate, why)) = engine.records_per_sec() {
            let dur = scenario.duration();
            let need = rate * dur as f64 / US_PER_S as f64;
            let max = opts.limits.max_trace_records as f64;
            if need > max {
                let fits = (max / rate * US_PER_S as f64) as Micros;
                return Err(format!(
                    "{}: this run would record about {:.1} million trace events in {} ({why}: \
                     about {} per second of virtual time); the limit is {:.1} million, so about \
                     {} fits: shorten `duration` to that, or use fewer nodes or a longer \
                     interval",
                    scenario.file,
                    need / 1e6,
                    crate::time::fmt_duration(dur),
                    rate.round(),
                    max / 1e6,
                    crate::time::fmt_span_floor(fits),
                ));
            }
        }
        let variant = variant.to_string();
        let mut run = Run {
            scenario,
            variant,
            seed,
            overrides: overrides.clone(),
            queries_evaluated: 0,
            engine,
        };
        for (t, a) in run.engine.schedule() {
            run.engine.check_action(a).map_err(|m| {
                format!(
                    "{}: the fault at {} ({}): {m}",
                    run.scenario.file,
                    crate::time::fmt_duration(*t),
                    crate::text::clip(&a.describe(), 80)
                )
            })?;
        }
        // The model's views on the nodes the expectations name, now that the parameters are
        // known (a Raft server's view on Ozone's SCM); the generic views read any node.
        // Only the fields a view reads are asked about: SCM's views (`pipeline`,
        // `scm_container_state`) read no node, and a `node = "scm"` beside them is ignored.
        let needs = registry::find(&run.scenario.raw.protocol).map(|m| m.view_needs);
        for e in run.expectations() {
            // A message view's kind is one the model sends.
            let kinds = run.engine.msg_kinds();
            if let (true, Some(k)) = (
                crate::scenario::MESSAGE_VIEWS.contains(&e.view.as_str()) && !kinds.is_empty(),
                &e.key,
            ) {
                if !kinds.iter().any(|m| m.label == k) {
                    let known: Vec<&str> = kinds.iter().map(|m| m.label).collect();
                    return Err(format!(
                        "{}: expectation \"{}\": view `{}`: the {} model sends no message of \
                         kind \"{}\"; kinds: {}",
                        run.scenario.file,
                        crate::text::clip(&e.name, 60),
                        e.view,
                        run.engine.model(),
                        crate::text::clip(k, 40),
                        known.join(", ")
                    ));
                }
            }
            if crate::scenario::GENERIC_VIEWS.contains(&e.view.as_str()) {
                continue;
            }
            let Some(needs) = needs.map(|f| f(&e.view)) else {
                continue;
            };
            for (field, name, read) in [
                ("node", &e.observer, needs.node),
                ("peer", &e.peer, needs.peer),
            ] {
                // A set's every node; "leader" is known only when evaluated.
                let ids = match name
                    .as_deref()
                    .map(|n| NodeRef::parse(n, &run.scenario.topo))
                {
                    Some(Ok(NodeRef::One(id))) => vec![id],
                    Some(Ok(NodeRef::Set(ids))) => ids,
                    _ => continue,
                };
                if !read {
                    continue;
                }
                for id in ids {
                    run.engine.check_view_node(&e.view, id).map_err(|m| {
                        format!(
                            "{}: expectation \"{}\", {field}: {m}",
                            run.scenario.file,
                            crate::text::clip(&e.name, 60)
                        )
                    })?;
                }
            }
        }
        let recorded = run.scenario.raw.recorded.clone();
        run.check_actions(&recorded, "recorded", &opts.limits)
            .map_err(|m| format!("{}: {m}", run.scenario.file))?;
        run.engine.set_user_actions(recorded);
        Ok(run)
    }

    /// Check recorded user actions (a scenario's `[[recorded]]`, a permalink's actions) against
    /// this run's scenario and variant before they are used: names, values and limits, the
    /// model's static checks, step order, times within the run, and the process states they
    /// lead to together with the variant's schedule (starting a running node, killing a stopped
    /// one). `what` names them in errors (`recorded[3]: ...`).
    pub fn check_actions(
        &self,
        actions: &[crate::engine::action::RecordedAction],
        what: &str,
        limits: &Limits,
    ) -> Result<(), String> {
        use crate::scenario::{check_action, check_process_states, Timed};
        let topo = &self.scenario.topo;
        let dur = self.scenario.duration();
        for (i, r) in actions.iter().enumerate() {
            check_action(&r.action, topo, limits)
                .and_then(|()| self.engine.check_action(&r.action))
                .map_err(|m| format!("{what}[{i}]: {m}"))?;
            if r.at.0 > dur {
                return Err(format!(
                    "{what}[{i}].at: {} is after the end ({})",
                    crate::time::fmt_duration(r.at.0),
                    crate::time::fmt_duration(dur)
                ));
            }
            if i > 0 && (actions[i - 1].step >= r.step || actions[i - 1].at.0 > r.at.0) {
                return Err(format!(
                    "{what}[{i}]: actions must be in increasing `step` (and `at`) order; step {} \
                     at {} follows step {} at {}",
                    r.step,
                    crate::time::fmt_duration(r.at.0),
                    actions[i - 1].step,
                    crate::time::fmt_duration(actions[i - 1].at.0)
                ));
            }
        }
        let mut items: Vec<Timed> = self
            .engine
            .schedule()
            .iter()
            .map(|(t, a)| Timed {
                at: *t,
                place: format!("the fault at {}", crate::time::fmt_duration(*t)),
                action: a,
                strict: false,
            })
            .collect();
        items.extend(actions.iter().enumerate().map(|(i, r)| Timed {
            at: r.at.0,
            place: format!("{what}[{i}]"),
            action: &r.action,
            strict: true,
        }));
        // Stable: at equal times the schedule first, as its events were queued before.
        crate::small_sort::sort_by_key(&mut items, |x| x.at);
        check_process_states(topo, &items)
    }

    /// The default variant: `buggy` if present, else the first.
    pub fn default_variant(s: &Scenario) -> String {
        if s.raw.variants.iter().any(|v| v.name == "buggy") {
            "buggy".into()
        } else {
            s.raw.variants[0].name.clone()
        }
    }

    /// The engine, when the scenario's model is `M` (a model's own panels and tests).
    pub fn engine_of<M: Model>(&self) -> Option<&Engine<M>> {
        self.engine.as_any().downcast_ref()
    }

    pub fn engine_of_mut<M: Model>(&mut self) -> Option<&mut Engine<M>> {
        self.engine.as_any_mut().downcast_mut()
    }

    /// The simulated world, when the scenario's model is `M`.
    pub fn sim_of<M: Model>(&self) -> Option<&Sim<M>> {
        self.engine_of::<M>().map(|e| &e.sim)
    }

    pub fn trace(&self) -> &Trace {
        self.engine.trace()
    }

    /// Free the run's trace and checkpoints, keeping its state now (`Engine::drop_history`):
    /// for a caller done with the run that reads only its final state (views, metrics). Nothing
    /// may step, jump or read the trace after.
    pub fn drop_history(&mut self) {
        self.engine.drop_history()
    }

    /// Whether this variant's expectations read the trace (the `log` view counts log lines):
    /// a run without them can go untraced (`Driver::set_tracing`) with the same outcome.
    pub fn needs_trace(&self) -> bool {
        self.expectations()
            .iter()
            .any(|e| e.view == "log" || crate::scenario::MESSAGE_VIEWS.contains(&e.view.as_str()))
    }

    /// For a run whose only product is its outcome (a sweep's seed, a worker's check of the
    /// expectations): no trace unless an expectation reads it. Before the first step.
    pub fn trace_only_if_needed(&mut self) {
        if !self.needs_trace() {
            self.engine.set_tracing(false);
        }
    }

    /// For a run whose trace nobody reads beyond its hash (the CLI's `run` without `--trace`):
    /// the records are hashed but not kept unless an expectation reads them. The same outcome,
    /// report and `trace_hash`. Before the first step.
    pub fn keep_records_only_if_needed(&mut self) {
        if !self.needs_trace() {
            self.engine.set_keep_records(false);
        }
    }

    /// What this run checks: the scenario's and the variant's expectations, then its
    /// captions' checks (`Scenario::expectations`).
    pub fn expectations(&self) -> Vec<ExpectSpec> {
        self.scenario
            .expectations(&self.variant)
            .expect("the variant was validated when the run was made")
    }

    /// The scheduled faults that could not apply so far, one line each (and how many more).
    pub fn skipped_faults(&self) -> Vec<String> {
        let s = self.engine.skipped();
        let mut out: Vec<String> = s
            .first
            .iter()
            .map(|(t, why)| format!("at {}: {why}", fmt_time(*t)))
            .collect();
        let more = s.total - s.first.len() as u64;
        if more > 0 {
            out.push(format!("... and {more} more skipped faults"));
        }
        out
    }

    /// At the end of a run: a fork's fate (`Action::Message`, recorded or scheduled) whose
    /// message was never sent was never applied; an error naming the action, instead of a fork
    /// that silently changed nothing.
    fn check_fates_applied(&self) -> Result<(), SimError> {
        use crate::engine::action::Action;
        let sent = self.engine.messages_sent();
        let unsent = |a: &Action| matches!(a, Action::Message { msg, .. } if *msg >= sent);
        let place = self
            .engine
            .user_actions()
            .iter()
            .enumerate()
            .find(|(_, r)| unsent(&r.action))
            .map(|(i, r)| (format!("recorded[{i}]"), &r.action))
            .or_else(|| {
                self.engine
                    .schedule()
                    .iter()
                    .find(|(_, a)| unsent(a))
                    .map(|(t, a)| (format!("the fault at {}", crate::time::fmt_duration(*t)), a))
            });
        let Some((place, action @ Action::Message { msg, .. })) = place else {
            return Ok(());
        };
        Err(SimError::Action(format!(
            "{}: {place} ({}): message #{msg} was never sent, so its fate was never applied: \
             the run ended at {} after {}; a fork names a message of this scenario, variant \
             and seed (as exported from a session)",
            self.scenario.file,
            action.describe(),
            fmt_time(self.engine.now()),
            match sent {
                0 => "sending no message".to_string(),
                n => format!("{n} messages (the last message sent was #{})", n - 1),
            }
        )))
    }

    /// "n2" or "n2->n3": the node (pair) a query read.
    fn pair_name(&self, a: Option<NodeId>, b: Option<NodeId>) -> String {
        let topo = &self.scenario.topo;
        match (a, b) {
            (Some(a), Some(b)) => format!("{}->{}", topo.name(a), topo.name(b)),
            (Some(a), None) | (None, Some(a)) => topo.name(a).to_string(),
            (None, None) => String::new(),
        }
    }

    /// Metrics of the state now: the generic ones and the model's.
    pub fn metrics(&self) -> std::collections::BTreeMap<String, f64> {
        let e = &*self.engine;
        let mut m = std::collections::BTreeMap::new();
        let n = e.topo().len();
        m.insert(
            "running_nodes".into(),
            (0..n)
                .filter(|&i| e.status(i) == NodeStatus::Running)
                .count() as f64,
        );
        // Always named by a model that checks invariants, so that a sweep reports the seeds
        // with none too (and a run names its metrics from the start).
        if e.checks_invariants() {
            m.insert("violations".into(), e.violations() as f64);
        }
        e.metrics(&mut m);
        // A `within` expectation's time until it held, named from the start (a sweep checks a
        // `--plot-of` name against a fresh run's); `Run::run` sets its value at the end.
        for x in self.expectations() {
            if x.within.is_some() {
                m.insert(crate::catalogue::time_until_metric(&x.name), 0.0);
            }
        }
        m
    }

    pub fn report(&self, expectations: Vec<ExpectResult>) -> Report {
        let e = &*self.engine;
        Report {
            scenario: self.scenario.raw.name.clone(),
            variant: self.variant.clone(),
            seed: self.seed,
            end_time_us: e.now(),
            events: e.steps(),
            trace_hash: if e.tracing() {
                format!("{:016x}", e.hash().0)
            } else {
                "not traced".into()
            },
            passed: expectations.iter().all(|e| !e.fails_run()),
            expectations,
            metrics: self.metrics(),
            skipped: Vec::new(),
            views: serde_json::Value::Null,
        }
    }

    /// Every node's views at the current state, as JSON (what `Report::views` holds once filled).
    pub fn views_json(&self) -> serde_json::Value {
        self.engine.views_json()
    }

    /// [`Run::views_json`]'s keys when it can be built one entry at a time
    /// (`Model::views_json_keys`), each value by [`Run::views_json_entry`].
    pub fn views_json_keys(&self) -> Option<Vec<String>> {
        self.engine.views_json_keys()
    }

    /// The value of `key` in [`Run::views_json`] (`Model::views_json_entry`).
    pub fn views_json_entry(&self, key: &str) -> serde_json::Value {
        self.engine.views_json_entry(key)
    }
}

/// Parse `--until`-style text into a time, allowing `end`.
pub fn parse_time_ref(s: &str) -> Result<TimeRef, String> {
    if s == "end" {
        Ok(TimeRef::End)
    } else {
        crate::time::parse_duration(s).map(TimeRef::At)
    }
}
