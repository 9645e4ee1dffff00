//! Running to the end while sampling the expectations at their times (`Run::run`): windows,
//! node sets and quantifiers, `within`, `chance`; how one check holds and what it says.

use super::{ExpectResult, Report, Run};
use crate::engine::{NodeId, SimError};
use crate::model::QValue;
use crate::scenario::noderef::{NodeRef, Quant};
use crate::scenario::ExpectSpec;
use crate::scenario_file::toml_text;
use crate::time::{fmt_time, Micros, US_PER_S};

impl Run {
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
                    // Stopped early (`until`) inside the window: the time so far, a lower bound.
                    None => stop.saturating_sub(p.from).min(w.0),
                };
                time_until.push((
                    crate::catalogue::time_until_metric(&p.spec.name),
                    took as f64 / US_PER_S as f64,
                ));
            }
        }
        let results: Vec<ExpectResult> = pend
            .into_iter()
            .map(|p| {
                let reached = stop >= p.to || p.met.is_some();
                let window_us = [p.from, p.to];
                let (within_us, met_at_us) = (p.spec.within.map(|w| w.0), p.met);
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
                        within_us,
                        met_at_us,
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
                        within_us,
                        met_at_us,
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
                        within_us,
                        met_at_us,
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
        return (!ok).then(|| format!("{} is {value}, expected {}", spec.view, toml_text(eq)));
    }
    if let Some(list) = &spec.one_of {
        let ok = list.iter().any(|v| same(v, value));
        return (!ok).then(|| {
            let shown: Vec<String> = list.iter().map(toml_text).collect();
            format!(
                "{} is {value}, expected one of {}",
                spec.view,
                shown.join(", ")
            )
        });
    }
    if let Some(ne) = &spec.not_equals {
        let ok = !same(ne, value);
        return (!ok).then(|| {
            format!(
                "{} is {value}, expected anything but {}",
                spec.view,
                toml_text(ne)
            )
        });
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
