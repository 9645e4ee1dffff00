//! A run of one scenario variant: builds the engine, evaluates expectations at their times, and
//! reports the outcome with the observable views.

use crate::engine::trace::Trace;
use crate::engine::{Engine, NodeId, NodeStatus, Sim, SimError};
use crate::limits::Limits;
pub use crate::model::QValue;
use crate::model::{Driver, Model, Query};
use crate::registry::{self, BuildArgs};
use crate::scenario::noderef::{NodeRef, Quant};
use crate::scenario::{merge_params, ExpectSpec, Scenario, TimeRef};
use crate::time::{fmt_time, Micros, US_PER_S};
use serde::{Deserialize, Serialize};

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

    /// Evaluate one view query now: the generic views here, the rest by the model.
    pub fn query(
        &self,
        view_name: &str,
        node: Option<NodeId>,
        peer: Option<NodeId>,
        contains: Option<&str>,
        from: Micros,
    ) -> Result<QValue, String> {
        self.query_key(view_name, node, peer, contains, None, from)
    }

    pub fn query_key(
        &self,
        view_name: &str,
        node: Option<NodeId>,
        peer: Option<NodeId>,
        contains: Option<&str>,
        key: Option<&str>,
        from: Micros,
    ) -> Result<QValue, String> {
        let e = &*self.engine;
        let q = Query {
            view: view_name,
            node,
            peer,
            contains,
            from,
            key,
        };
        let value = match view_name {
            "status" => QValue::Text(e.status(q.need_node("node")?).as_str().into()),
            "violations" => QValue::Num(e.violations() as f64),
            "link" | "link_loss" => {
                let (from, to) = (q.need_node("node")?, q.need_peer()?);
                let l = e.net().link(from, to);
                if view_name == "link" {
                    QValue::Text(l.condition().into())
                } else {
                    // Percent, rounded to a hundredth so `equals = 90` holds for 0.9.
                    QValue::Num((l.loss * 10_000.0).round() / 100.0)
                }
            }
            "exec_pending" | "exec_expired" | "exec_done" => {
                let n = q.need_node("node")?;
                let names = e.executors();
                let i = match key {
                    None => 0,
                    Some(k) => names.iter().position(|x| *x == k).ok_or_else(|| {
                        format!(
                            "view `{view_name}`: no executor \"{k}\"; executors: {}",
                            names.join(", ")
                        )
                    })?,
                };
                let st = e
                    .exec_stats(n)
                    .get(i)
                    .ok_or_else(|| format!("view `{view_name}`: this model has no executors"))?;
                QValue::Num(match view_name {
                    "exec_pending" => st.pending as f64,
                    "exec_expired" => st.expired as f64,
                    _ => st.done as f64,
                })
            }
            "log" => {
                let text = contains.ok_or("view `log` needs `contains`")?;
                let trace = e.trace();
                let now = e.now();
                let n = trace
                    .logs
                    .iter()
                    .filter(|l| {
                        l.time >= from
                            && l.time <= now
                            && node.is_none_or(|n| l.node == n)
                            && trace.text(l).contains(text)
                    })
                    .count();
                QValue::Num(n as f64)
            }
            "sent" | "delivered" | "dropped" => {
                QValue::Num(count_messages(e, view_name, node, peer, key, contains, from)? as f64)
            }
            _ => match e.query(&q) {
                Some(r) => r?,
                None => {
                    return Err(format!(
                        "unknown view `{view_name}`; views: {}, {}",
                        crate::scenario::GENERIC_VIEWS.join(", "),
                        e.views().join(", ")
                    ))
                }
            },
        };
        self.check_declared(view_name, value)
    }

    /// An answer outside the view's declaration (`model::ViewNeeds::value`), which the load-time
    /// checks of expectations rely on, is a bug of the model: an error, not a silent mismatch.
    fn check_declared(&self, view: &str, value: QValue) -> Result<QValue, String> {
        let declared = if crate::scenario::GENERIC_VIEWS.contains(&view) {
            crate::scenario::generic_view_needs(view).value
        } else {
            registry::find(&self.scenario.raw.protocol)
                .map_or(crate::model::ViewValue::Undeclared, |m| {
                    (m.view_needs)(view).value
                })
        };
        if declared.allows(&value, &self.scenario.topo) {
            Ok(value)
        } else {
            Err(format!(
                "view `{view}` answered \"{value}\", but it is declared to answer {} (a bug of \
                 the model: its `view_needs`)",
                declared.describe()
            ))
        }
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

    /// What this run checks: the scenario's and the variant's expectations, then its
    /// captions' checks (`Scenario::expectations`).
    pub fn expectations(&self) -> Vec<ExpectSpec> {
        self.scenario
            .expectations(&self.variant)
            .expect("the variant was validated when the run was made")
    }

    /// Run to the end of the scenario (or `until`), checking every expectation when it is due.
    pub fn run(&mut self, until: Option<Micros>) -> Result<Report, SimError> {
        let end = self.scenario.duration();
        let stop = until.unwrap_or(end).min(end);
        let exps = self.expectations();
        self.queries_evaluated = 0;
        struct Pending {
            spec: ExpectSpec,
            from: Micros,
            to: Micros,
            start_value: Option<QValue>,
            failure: Option<(Micros, String)>,
            /// The value that did not hold (see `ExpectResult::observed`).
            observed: Option<String>,
            last: Option<QValue>,
            /// `within`: when the check first held.
            met: Option<Micros>,
        }
        let mut pend: Vec<Pending> = exps
            .into_iter()
            .map(|spec| {
                let (from, to) = match (&spec.at, &spec.during) {
                    (_, Some([a, b])) => (a.resolve(end), b.resolve(end)),
                    (Some(a), None) => {
                        let a = a.resolve(end);
                        (a, a.saturating_add(spec.within.map_or(0, |w| w.0)).min(end))
                    }
                    (None, None) => (end, end),
                };
                Pending {
                    spec,
                    from,
                    to,
                    start_value: None,
                    failure: None,
                    observed: None,
                    last: None,
                    met: None,
                }
            })
            .collect();
        // Where a windowed view counts from: the window's start; the message views with `at`
        // count from the start of the run.
        let query_from = |p: &Pending| {
            let msgs = crate::scenario::MESSAGE_VIEWS.contains(&p.spec.view.as_str());
            if msgs && p.spec.during.is_none() && p.spec.within.is_none() {
                0
            } else {
                p.from
            }
        };
        // Each expectation's own sample times: its start and end, and each second inside a
        // window. Only the expectations due at a time are looked at then (the plan is a map
        // from time to them), and equal queries at one time are evaluated once: the cost is
        // the samples taken, not expectations x times.
        let mut plan: std::collections::BTreeMap<Micros, Vec<usize>> = Default::default();
        for (i, p) in pend.iter().enumerate() {
            let mut add = |t: Micros| {
                if t <= stop {
                    plan.entry(t).or_default().push(i);
                }
            };
            add(p.from);
            if p.spec.during.is_some() && !counts(&p.spec) && p.spec.increases.is_none() {
                let mut t = p.from.saturating_add(US_PER_S);
                while t < p.to {
                    add(t);
                    t += US_PER_S;
                }
            }
            if p.to != p.from {
                add(p.to);
            }
        }
        plan.entry(stop).or_default();
        // Expectations asking the same query (of the same nodes) share an id.
        let qid: Vec<usize> = {
            let mut ids = std::collections::BTreeMap::new();
            pend.iter()
                .map(|p| {
                    let k = (&p.spec.view, &p.spec.contains, &p.spec.key, query_from(p));
                    let n = ids.len();
                    *ids.entry(k).or_insert(n)
                })
                .collect()
        };
        // Each expectation's nodes (`observer`/`peer`: one, a set, or the leader when
        // evaluated) and quantifier, validated at load.
        let refs: Vec<(Option<NodeRef>, Option<NodeRef>, Quant)> = pend
            .iter()
            .map(|p| {
                let r = |n: &Option<String>| {
                    n.as_deref()
                        .and_then(|n| NodeRef::parse(n, &self.scenario.topo).ok())
                };
                let q = p.spec.nodes.as_deref().map_or(Ok(Quant::All), Quant::parse);
                (
                    r(&p.spec.observer),
                    r(&p.spec.peer),
                    q.unwrap_or(Quant::All),
                )
            })
            .collect();
        // A sample's verdict: `why` it does not hold, or `None`. Without `within` the first
        // `why` fails the expectation; with it, the first `None` meets it and a `why` fails it
        // only at the window's end.
        fn settle(p: &mut Pending, t: Micros, why: Option<String>) {
            match (p.spec.within, why) {
                (None, Some(why)) => p.failure = Some((t, format!("at {}: {why}", fmt_time(t)))),
                (None, None) => {}
                (Some(_), None) => p.met = Some(t),
                (Some(w), Some(why)) if t >= p.to => {
                    p.failure = Some((
                        t,
                        format!(
                            "did not hold within {} of {}: at {}: {why}",
                            crate::time::fmt_duration(w.0),
                            fmt_time(p.from),
                            fmt_time(t)
                        ),
                    ))
                }
                (Some(_), Some(_)) => {}
            }
        }
        while let Some((mut t, mut due)) = plan.pop_first() {
            // A `within` expectation between its ends is checked after every event time.
            let now = self.engine.now();
            let active: Vec<usize> = (0..pend.len())
                .filter(|&i| {
                    let p = &pend[i];
                    p.spec.within.is_some()
                        && p.met.is_none()
                        && p.failure.is_none()
                        && p.from <= now
                        && now < p.to
                })
                .collect();
            if !active.is_empty() {
                if let Some(nt) = self.engine.next_time().filter(|&nt| nt < t && nt > now) {
                    plan.insert(t, due);
                    (t, due) = (nt, active);
                }
            }
            self.engine.run_until(t, u64::MAX)?;
            // Equal queries at one time are evaluated once.
            let mut seen: std::collections::BTreeMap<(usize, Pair), Answer> = Default::default();
            let leader = self.engine.leader();
            for i in due {
                if pend[i].failure.is_some() || pend[i].met.is_some() {
                    continue;
                }
                let (obs, peer, quant) = &refs[i];
                let nodes = |r: &Option<NodeRef>| -> Result<Vec<Option<NodeId>>, String> {
                    match r {
                        None => Ok(vec![None]),
                        Some(r) => Ok(r.nodes(leader)?.into_iter().map(Some).collect()),
                    }
                };
                let targets = nodes(obs).and_then(|o| {
                    let ps = nodes(peer)?;
                    Ok(o.iter()
                        .flat_map(|&a| ps.iter().map(move |&b| (a, b)))
                        .collect::<Vec<_>>())
                });
                let targets = match targets {
                    Ok(t) => t,
                    Err(e) => {
                        settle(&mut pend[i], t, Some(e));
                        continue;
                    }
                };
                let p = &pend[i];
                let set = obs.as_ref().is_some_and(NodeRef::is_set)
                    || peer.as_ref().is_some_and(NodeRef::is_set);
                let windowed = counts(&p.spec) || p.spec.increases.is_some();
                // Per node (pair): the value, or the query's error.
                let mut got: Vec<(Option<NodeId>, Option<NodeId>, Answer)> =
                    Vec::with_capacity(targets.len());
                for (a, b) in targets {
                    let k = (qid[i], (a, b));
                    let r = match seen.get(&k) {
                        Some(r) => r.clone(),
                        None => {
                            let r = self.query_key(
                                &p.spec.view,
                                a,
                                b,
                                p.spec.contains.as_deref(),
                                p.spec.key.as_deref(),
                                query_from(p),
                            );
                            seen.insert(k, r.clone());
                            self.queries_evaluated += 1;
                            r
                        }
                    };
                    got.push((a, b, r));
                }
                let p = &mut pend[i];
                if !set {
                    let (a, b, r) = got.pop().expect("one target");
                    let value = match r {
                        Ok(v) => v,
                        Err(e) => {
                            p.failure = Some((t, e));
                            continue;
                        }
                    };
                    if t == p.from && p.start_value.is_none() {
                        p.start_value = Some(value.clone());
                    }
                    if windowed && t != p.to && p.spec.within.is_none() {
                        continue;
                    }
                    let why = check(&p.spec, &value, p.start_value.as_ref()).map(|why| {
                        // Say which node "leader" was.
                        let who = match (obs, peer) {
                            (Some(NodeRef::Leader), _) | (_, Some(NodeRef::Leader)) => {
                                format!(" ({})", self.pair_name(a, b))
                            }
                            _ => String::new(),
                        };
                        format!("{why}{who}")
                    });
                    let failed_before = p.failure.is_some();
                    settle(p, t, why);
                    if !failed_before && p.failure.is_some() {
                        // Written only for the sample that failed (a `within` is checked after
                        // every event).
                        p.observed = Some(match (&p.spec.increases, &p.start_value) {
                            (Some(true), Some(s)) => format!("{s} -> {value}"),
                            _ => value.to_string(),
                        });
                    }
                    p.last = Some(match (obs, peer) {
                        (Some(NodeRef::Leader), _) | (_, Some(NodeRef::Leader)) => {
                            QValue::Text(format!("{value} (on {})", self.pair_name(a, b)))
                        }
                        _ => value,
                    });
                    continue;
                }
                if windowed && t != p.to && p.spec.within.is_none() {
                    continue;
                }
                let topo = &self.scenario.topo;
                let name = |a: Option<NodeId>, b: Option<NodeId>| match (a, b) {
                    (Some(a), Some(b)) => format!("{}->{}", topo.name(a), topo.name(b)),
                    (Some(a), None) | (None, Some(a)) => topo.name(a).to_string(),
                    (None, None) => String::new(),
                };
                let mut held = Vec::new();
                let mut failed = Vec::new();
                for (a, b, r) in &got {
                    match r {
                        Ok(v) => match check(&p.spec, v, None) {
                            None => held.push(format!("{} {v}", name(*a, *b))),
                            Some(why) => failed.push(format!("{}: {why}", name(*a, *b))),
                        },
                        Err(e) => failed.push(format!("{}: {e}", name(*a, *b))),
                    }
                }
                let n = got.len();
                let why = match quant {
                    Quant::All if !failed.is_empty() => Some(format!(
                        "{} of {n} nodes do not hold: {}",
                        failed.len(),
                        clip_list(&failed)
                    )),
                    Quant::Any if held.is_empty() => {
                        Some(format!("none of {n} nodes holds: {}", clip_list(&failed)))
                    }
                    Quant::None if !held.is_empty() => Some(format!(
                        "{} of {n} nodes hold, expected none: {}",
                        held.len(),
                        clip_list(&held)
                    )),
                    _ => None,
                };
                let failed_before = p.failure.is_some();
                settle(p, t, why);
                if !failed_before && p.failure.is_some() {
                    // What each node answered (as the set's detail lists them).
                    let each: Vec<String> = got
                        .iter()
                        .map(|(a, b, r)| match r {
                            Ok(v) => format!("{} {v}", name(*a, *b)),
                            Err(_) => format!("{} no value", name(*a, *b)),
                        })
                        .collect();
                    p.observed = Some(clip_list(&each));
                }
                let shown = match quant {
                    Quant::None => format!("held on none of {n} nodes"),
                    Quant::Any => format!("held on {} of {n}: {}", held.len(), clip_list(&held)),
                    Quant::All => format!("held on all {n} nodes"),
                };
                p.last = Some(QValue::Text(shown));
            }
        }
        if stop == end {
            let steps = self.engine.steps();
            if let Some((i, a)) = self
                .engine
                .user_actions()
                .iter()
                .enumerate()
                .find(|(_, a)| a.step >= steps)
            {
                return Err(SimError::Action(format!(
                    "{}: recorded[{i}]: step {} was never reached: the run ended after {steps} \
                     steps at {}; a recorded action is applied at its exact step (as exported \
                     from a session of this scenario, variant and seed)",
                    self.scenario.file,
                    a.step,
                    fmt_time(self.engine.now())
                )));
            }
            self.check_fates_applied()?;
        }
        // `within`: the time until the check first held (the whole `within` when it did not),
        // a metric a sweep summarises across seeds.
        let mut time_until = Vec::new();
        for p in &pend {
            if let Some(w) = p.spec.within {
                let took = match p.met {
                    Some(m) => m - p.from,
                    None if stop >= p.to => w.0,
                    None => continue,
                };
                time_until.push((
                    format!("time_until: {}", p.spec.name),
                    took as f64 / US_PER_S as f64,
                ));
            }
        }
        let results: Vec<ExpectResult> = pend
            .into_iter()
            .map(|p| {
                let reached = stop >= p.to || p.met.is_some();
                let window_us = [p.from, p.to];
                match (p.failure, reached) {
                    (Some((t, f)), _) => ExpectResult {
                        name: p.spec.name,
                        passed: false,
                        detail: f,
                        window_us,
                        failed_at_us: Some(t),
                        chance: p.spec.chance,
                        caption: p.spec.caption,
                        observed: p.observed,
                    },
                    (None, false) => ExpectResult {
                        name: p.spec.name,
                        passed: false,
                        detail: format!(
                            "not reached: due at {}, run stopped at {}",
                            fmt_time(p.to),
                            fmt_time(stop)
                        ),
                        window_us,
                        failed_at_us: None,
                        chance: p.spec.chance,
                        caption: p.spec.caption,
                        observed: None,
                    },
                    (None, true) => ExpectResult {
                        detail: match p.met {
                            Some(m) => format!(
                                "{} held {:.3}s after {} (at {}): {}",
                                p.spec.view,
                                (m - p.from) as f64 / US_PER_S as f64,
                                fmt_time(p.from),
                                fmt_time(m),
                                p.last.as_ref().map(|v| v.to_string()).unwrap_or_default()
                            ),
                            None => describe_ok(&p.spec, p.last.as_ref(), p.from, p.to),
                        },
                        name: p.spec.name,
                        passed: true,
                        window_us,
                        failed_at_us: None,
                        chance: p.spec.chance,
                        caption: p.spec.caption,
                        observed: None,
                    },
                }
            })
            .collect();
        let mut rep = self.report(results);
        rep.metrics.extend(time_until);
        rep.skipped = self.skipped_faults();
        rep.passed &= rep.skipped.is_empty();
        Ok(rep)
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
}

/// Messages of the trace from `from` to now (a `MESSAGE_VIEWS` view): sent, delivered or
/// dropped, of kind `kind`, from `sender` to `receiver`, whose body contains `contains`.
fn count_messages(
    e: &dyn Driver,
    view: &str,
    sender: Option<NodeId>,
    receiver: Option<NodeId>,
    kind: Option<&str>,
    contains: Option<&str>,
    from: Micros,
) -> Result<u64, String> {
    use crate::engine::trace::RecKind;
    if !e.tracing() {
        return Err(format!(
            "view `{view}` reads the trace, and this run is not traced"
        ));
    }
    let trace = e.trace();
    let start = trace.recs.partition_point(|r| r.time < from);
    let mut n = 0;
    for r in trace.recs.range(start..) {
        let (msg, a, b, label) = match (view, r.kind) {
            ("sent", RecKind::Send { msg, to, label, .. }) => (msg, r.node, to, label),
            (
                "delivered",
                RecKind::Deliver {
                    msg, from, label, ..
                },
            ) => (msg, from, r.node, label),
            (
                "dropped",
                RecKind::Drop {
                    msg,
                    from,
                    to,
                    label,
                    ..
                },
            ) => (msg, from, to, label),
            _ => continue,
        };
        if sender.is_some_and(|s| s != a)
            || receiver.is_some_and(|x| x != b)
            || kind.is_some_and(|k| k != label)
        {
            continue;
        }
        if let Some(text) = contains {
            match trace.body(msg) {
                Some(body) if body.contains(text) => {}
                Some(_) => continue,
                None => {
                    return Err(format!(
                        "view `{view}`: the body of message #{msg} was not recorded (the trace \
                         keeps bodies up to its budget), so `contains` cannot be checked; \
                         shorten the run or drop `contains`"
                    ))
                }
            }
        }
        n += 1;
    }
    Ok(n)
}

/// The node and peer a query reads (either may be absent).
type Pair = (Option<NodeId>, Option<NodeId>);
/// A query's answer, or why it could not be taken.
type Answer = Result<QValue, String>;

/// The first few items of a list, then how many more.
fn clip_list(items: &[String]) -> String {
    const SHOW: usize = 4;
    let mut s = items
        .iter()
        .take(SHOW)
        .map(|x| crate::text::clip(x, 100))
        .collect::<Vec<_>>()
        .join("; ");
    if items.len() > SHOW {
        s.push_str(&format!("; and {} more", items.len() - SHOW));
    }
    s
}

/// Whether the expectation's view counts over its window (`log`, the message views): checked
/// once, at the window's end.
fn counts(spec: &ExpectSpec) -> bool {
    spec.view == "log" || crate::scenario::MESSAGE_VIEWS.contains(&spec.view.as_str())
}

fn as_num(v: &QValue) -> Option<f64> {
    match v {
        QValue::Num(n) => Some(*n),
        QValue::Text(_) => None,
    }
}

/// Whether `value` is `v` (text to text, numbers to numbers).
fn same(v: &toml::Value, value: &QValue) -> bool {
    match (v, value) {
        (toml::Value::String(s), QValue::Text(t)) => s == t,
        (toml::Value::Integer(i), QValue::Num(n)) => (*i as f64 - n).abs() < 1e-9,
        (toml::Value::Float(f), QValue::Num(n)) => (f - n).abs() < 1e-9,
        _ => false,
    }
}

/// `None` when the expectation holds for `value`; otherwise why not.
fn check(spec: &ExpectSpec, value: &QValue, start: Option<&QValue>) -> Option<String> {
    if let Some(eq) = &spec.equals {
        let ok = same(eq, value);
        return (!ok).then(|| format!("{} is {value}, expected {eq}", spec.view));
    }
    if let Some(list) = &spec.one_of {
        let ok = list.iter().any(|v| same(v, value));
        return (!ok).then(|| {
            let shown: Vec<String> = list.iter().map(|v| v.to_string()).collect();
            format!(
                "{} is {value}, expected one of {}",
                spec.view,
                shown.join(", ")
            )
        });
    }
    if let Some(ne) = &spec.not_equals {
        let ok = !same(ne, value);
        return (!ok).then(|| format!("{} is {value}, expected anything but {ne}", spec.view));
    }
    if spec.increases == Some(true) {
        let (a, b) = (start.and_then(as_num), as_num(value));
        return match (a, b) {
            (Some(a), Some(b)) if b > a => None,
            _ => Some(format!(
                "{} did not increase: {} -> {value}",
                spec.view,
                start.map(|s| s.to_string()).unwrap_or_default()
            )),
        };
    }
    let Some(n) = as_num(value) else {
        return Some(format!("{} is {value}, not a number", spec.view));
    };
    if let Some(lo) = spec.at_least {
        if n < lo {
            return Some(format!("{} is {n}, expected at least {lo}", spec.view));
        }
    }
    if let Some(hi) = spec.at_most {
        if n > hi {
            return Some(format!("{} is {n}, expected at most {hi}", spec.view));
        }
    }
    None
}

fn describe_ok(spec: &ExpectSpec, last: Option<&QValue>, from: Micros, to: Micros) -> String {
    let v = last.map(|v| v.to_string()).unwrap_or_default();
    if spec.nodes.is_some() {
        // A set: `v` says on how many nodes it held.
        return if from == to {
            format!("{} {v} at {}", spec.view, fmt_time(to))
        } else if counts(spec) {
            format!(
                "{} {v}, counted from {} to {}",
                spec.view,
                fmt_time(from),
                fmt_time(to)
            )
        } else {
            format!(
                "{} {v} at every sample from {} to {}",
                spec.view,
                fmt_time(from),
                fmt_time(to)
            )
        };
    }
    if from == to {
        format!("{} = {v} at {}", spec.view, fmt_time(to))
    } else {
        format!(
            "{} held from {} to {} (last value {v})",
            spec.view,
            fmt_time(from),
            fmt_time(to)
        )
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
