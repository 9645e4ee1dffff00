//! Cassandra mutation tracking's own panels (protocol "mutation-tracking", CASSANDRA-21181):
//! the reads (the packed counter's three components with their history, the `requested` set,
//! the summaries received, the augment trace) and the selected node's IncomingMutations
//! listeners, witnessed offsets, journal and deliveries.
//!
//! Built from the model's `views_json` (an array, one object per node). This module is the pure
//! part (JSON to rows, the sparkline's geometry), checked by `web/tests/models.rs` with hand-made
//! JSON; [`panel`] draws it. Missing fields show as "—" and never panic.

pub mod panel;

use serde_json::Value;

/// Most reads drawn (the selected node's first, then the newest).
pub const MAX_READS: usize = 12;
/// Most deliveries drawn (the newest).
pub const MAX_DELIVERIES: usize = 24;

fn num(v: &Value, k: &str) -> Option<u64> {
    v.get(k).and_then(Value::as_u64)
}

fn int(v: &Value, k: &str) -> Option<i64> {
    v.get(k).and_then(Value::as_i64)
}

fn string(v: &Value, k: &str) -> Option<String> {
    match v.get(k)? {
        Value::Null => None,
        Value::String(s) => Some(s.clone()),
        x => Some(x.to_string()),
    }
}

fn strings(v: &Value, k: &str) -> Vec<String> {
    v.get(k)
        .and_then(Value::as_array)
        .map(|a| {
            a.iter()
                .map(|x| match x {
                    Value::String(s) => s.clone(),
                    x => x.to_string(),
                })
                .collect()
        })
        .unwrap_or_default()
}

/// A field as display text: "—" when missing or null.
pub fn text(v: &Value, k: &str) -> String {
    string(v, k)
        .filter(|s| !s.is_empty())
        .unwrap_or_else(|| "—".into())
}

/// One summary a read received: per log, what the sender has reconciled and not.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct SummaryView {
    pub from: String,
    pub local: bool,
    /// (log, reconciled offsets, unreconciled offsets), e.g. ("node2", "{}", "{0}").
    pub logs: Vec<(String, String, String)>,
}

/// One read reconciliation (`ReadReconciliations.Coordinator`) on one node.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ReadView {
    /// The node holding it (the coordinator of this part of the read).
    pub node: String,
    pub id: String,
    /// "pending", "completed", "timeout", "missing-mutation" (or "—").
    pub outcome: String,
    /// The mutation id of a "Missing mutation" outcome.
    pub missing: Option<String>,
    /// "data" or "summary".
    pub role: String,
    pub data_node: String,
    pub summary_nodes: Vec<String>,
    /// The packed counter's components: remaining mutations, summaries, sync acks.
    pub mutations: Option<i64>,
    pub summaries: Option<i64>,
    pub sync_acks: Option<i64>,
    pub requested: Vec<String>,
    pub summaries_received: Vec<SummaryView>,
    /// (time, mutations, summaries, sync acks) after each change.
    pub history: Vec<(u64, i64, i64, i64)>,
    /// (mutation id, found in the journal).
    pub augment: Vec<(String, bool)>,
    pub rows: String,
    pub created_at: Option<u64>,
    pub expires_at: Option<u64>,
    pub finished_at: Option<u64>,
}

impl ReadView {
    /// The mutation the read reports missing: the outcome's, else the first augment miss.
    pub fn missing_mutation(&self) -> Option<String> {
        self.missing.clone().or_else(|| {
            (self.outcome == "missing-mutation")
                .then(|| self.augment.iter().find(|a| !a.1).map(|a| a.0.clone()))
                .flatten()
        })
    }
}

/// The CSS class of an outcome pill.
pub fn outcome_class(outcome: &str) -> &'static str {
    match outcome {
        "completed" => "ok",
        "pending" => "pending",
        "timeout" => "warn",
        "missing-mutation" => "bad",
        _ => "muted",
    }
}

/// A read's JSON (an element of a node's `reads`) as a [`ReadView`].
pub fn read_view(node: &str, r: &Value) -> ReadView {
    let history = r
        .get("history")
        .and_then(Value::as_array)
        .map(|h| {
            h.iter()
                .filter_map(|x| {
                    let a = x.as_array()?;
                    let g = |i: usize| a.get(i).and_then(Value::as_i64);
                    Some((
                        a.first().and_then(Value::as_u64).unwrap_or(0),
                        g(1).unwrap_or(0),
                        g(2).unwrap_or(0),
                        g(3).unwrap_or(0),
                    ))
                })
                .collect()
        })
        .unwrap_or_default();
    let summaries_received = r
        .get("summaries_received")
        .and_then(Value::as_array)
        .map(|a| {
            a.iter()
                .map(|s| SummaryView {
                    from: text(s, "from"),
                    local: s.get("local").and_then(Value::as_bool).unwrap_or(false),
                    logs: s
                        .get("logs")
                        .and_then(Value::as_array)
                        .map(|ls| {
                            ls.iter()
                                .map(|l| {
                                    (
                                        text(l, "log"),
                                        text(l, "reconciled"),
                                        text(l, "unreconciled"),
                                    )
                                })
                                .collect()
                        })
                        .unwrap_or_default(),
                })
                .collect()
        })
        .unwrap_or_default();
    let augment = r
        .get("augment")
        .and_then(Value::as_array)
        .map(|a| {
            a.iter()
                .map(|x| {
                    (
                        text(x, "id"),
                        x.get("hit").and_then(Value::as_bool).unwrap_or(false),
                    )
                })
                .collect()
        })
        .unwrap_or_default();
    ReadView {
        node: node.to_string(),
        id: text(r, "id"),
        outcome: text(r, "outcome"),
        missing: string(r, "missing"),
        role: text(r, "role"),
        data_node: text(r, "data_node"),
        summary_nodes: strings(r, "summary_nodes"),
        mutations: int(r, "mutations"),
        summaries: int(r, "summaries"),
        sync_acks: int(r, "sync_acks"),
        requested: strings(r, "requested"),
        summaries_received,
        history,
        augment,
        rows: match r.get("rows") {
            None | Some(Value::Null) => "—".into(),
            Some(Value::Array(a)) => a.len().to_string(),
            Some(x) => x.to_string(),
        },
        created_at: num(r, "created_at"),
        expires_at: num(r, "expires_at"),
        finished_at: num(r, "finished_at"),
    }
}

/// The nodes of the views, as (name, JSON): an array of node objects (each with `name`), or an
/// object `nodes` / top level keyed by name.
pub fn nodes(views: &Value) -> Vec<(String, &Value)> {
    let arr = views
        .as_array()
        .or_else(|| views.get("nodes").and_then(Value::as_array));
    if let Some(a) = arr {
        return a
            .iter()
            .enumerate()
            .map(|(i, n)| (string(n, "name").unwrap_or_else(|| format!("#{i}")), n))
            .collect();
    }
    let obj = views
        .get("nodes")
        .and_then(Value::as_object)
        .or_else(|| views.as_object());
    obj.map(|o| o.iter().map(|(k, v)| (k.clone(), v)).collect())
        .unwrap_or_default()
}

/// Every read in the cluster: the selected node's first (in its order), then the others by
/// node; at most [`MAX_READS`], keeping the selected node's and the newest others.
pub fn reads(views: &Value, selected: &str) -> (Vec<ReadView>, usize) {
    let mut mine = Vec::new();
    let mut others = Vec::new();
    for (name, n) in nodes(views) {
        for r in n
            .get("reads")
            .and_then(Value::as_array)
            .map(|a| a.as_slice())
            .unwrap_or(&[])
        {
            let v = read_view(&name, r);
            if name == selected {
                mine.push(v);
            } else {
                others.push(v);
            }
        }
    }
    let total = mine.len() + others.len();
    clusterscope_core::small_sort::sort_by_key(&mut others, |r| {
        std::cmp::Reverse(r.created_at.unwrap_or(0))
    });
    mine.extend(others);
    mine.truncate(MAX_READS);
    let shown = mine.len();
    (mine, total - shown)
}

/// The sparkline of a read's counter history: three polylines (mutations, summaries, sync acks)
/// in a `w` x `h` box, steps over time (a value holds until the next change), on a shared scale
/// from min(0, lowest) to max(1, highest); and the y of zero.
pub fn sparkline(history: &[(u64, i64, i64, i64)], w: f64, h: f64) -> ([String; 3], f64) {
    let mut out: [String; 3] = Default::default();
    if history.is_empty() {
        return (out, h);
    }
    let lo = history
        .iter()
        .flat_map(|x| [x.1, x.2, x.3])
        .min()
        .unwrap_or(0)
        .min(0);
    let hi = history
        .iter()
        .flat_map(|x| [x.1, x.2, x.3])
        .max()
        .unwrap_or(1)
        .max(1);
    let (t0, t1) = (history[0].0, history.last().map(|x| x.0).unwrap_or(0));
    let span = (t1.saturating_sub(t0)).max(1) as f64;
    // Equal spacing when times coincide (the counter moves several times in one instant).
    let uniform = t1 == t0;
    let n = history.len();
    let x = |i: usize, t: u64| -> f64 {
        let f = if uniform {
            if n > 1 {
                i as f64 / (n - 1) as f64
            } else {
                0.0
            }
        } else {
            (t - t0) as f64 / span
        };
        1.0 + f * (w - 2.0)
    };
    let y = |v: i64| -> f64 { 1.0 + (hi - v) as f64 / (hi - lo) as f64 * (h - 2.0) };
    for (k, line) in out.iter_mut().enumerate() {
        let val = |p: &(u64, i64, i64, i64)| [p.1, p.2, p.3][k];
        let mut pts = Vec::new();
        for (i, p) in history.iter().enumerate() {
            let xi = x(i, p.0);
            if i > 0 {
                pts.push(format!("{xi:.1},{:.1}", y(val(&history[i - 1]))));
            }
            pts.push(format!("{xi:.1},{:.1}", y(val(p))));
        }
        if n == 1 {
            pts.push(format!("{:.1},{:.1}", w - 1.0, y(val(&history[0]))));
        }
        *line = pts.join(" ");
    }
    (out, y(0))
}

/// One IncomingMutations listener.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ListenerRow {
    pub id: String,
    pub callbacks: Vec<String>,
    pub created_at: Option<u64>,
    pub orphaned: bool,
}

pub fn listeners(node: &Value) -> Vec<ListenerRow> {
    node.get("listeners")
        .and_then(Value::as_array)
        .map(|a| {
            a.iter()
                .map(|l| ListenerRow {
                    id: text(l, "id"),
                    callbacks: strings(l, "callbacks"),
                    created_at: num(l, "created_at"),
                    orphaned: l.get("orphaned").and_then(Value::as_bool).unwrap_or(false),
                })
                .collect()
        })
        .unwrap_or_default()
}

/// One coordinator log as this node knows it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct LogRow {
    pub log: String,
    /// (participant, offsets it has witnessed), in the JSON's order.
    pub witnessed: Vec<(String, String)>,
    pub reconciled: String,
    pub unreconciled: String,
    pub pending: String,
    pub snapshot_reconciled: String,
}

pub fn logs(node: &Value) -> Vec<LogRow> {
    node.get("logs")
        .and_then(Value::as_array)
        .map(|a| {
            a.iter()
                .map(|l| LogRow {
                    log: text(l, "log"),
                    witnessed: l
                        .get("witnessed")
                        .and_then(Value::as_object)
                        .map(|o| {
                            o.iter()
                                .map(|(p, v)| {
                                    (
                                        p.clone(),
                                        v.as_str().map(str::to_string).unwrap_or_else(|| {
                                            if v.is_null() {
                                                "—".into()
                                            } else {
                                                v.to_string()
                                            }
                                        }),
                                    )
                                })
                                .collect()
                        })
                        .unwrap_or_default(),
                    reconciled: text(l, "reconciled"),
                    unreconciled: text(l, "unreconciled"),
                    pending: text(l, "pending"),
                    snapshot_reconciled: text(l, "snapshot_reconciled"),
                })
                .collect()
        })
        .unwrap_or_default()
}

/// One arrival of a mutation at this node: new (startWriting true) or a duplicate, and how many
/// listener callbacks it fired.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct DeliveryRow {
    pub at: Option<u64>,
    pub id: String,
    pub via: String,
    pub new: bool,
    pub fired: u64,
}

/// The newest [`MAX_DELIVERIES`] deliveries, newest first, and how many were left out.
pub fn deliveries(node: &Value) -> (Vec<DeliveryRow>, usize) {
    let all: Vec<DeliveryRow> = node
        .get("deliveries")
        .and_then(Value::as_array)
        .map(|a| {
            a.iter()
                .map(|d| DeliveryRow {
                    at: num(d, "at"),
                    id: text(d, "id"),
                    via: text(d, "via"),
                    new: d.get("new").and_then(Value::as_bool).unwrap_or(false),
                    fired: match d.get("fired") {
                        Some(Value::Bool(b)) => *b as u64,
                        Some(x) => x.as_u64().unwrap_or(0),
                        None => 0,
                    },
                })
                .collect()
        })
        .unwrap_or_default();
    let total = all.len();
    let out: Vec<DeliveryRow> = all.into_iter().rev().take(MAX_DELIVERIES).collect();
    let left = total - out.len();
    (out, left)
}

/// The journal as (mutation id, row).
pub fn journal(node: &Value) -> Vec<(String, String)> {
    node.get("journal")
        .and_then(Value::as_array)
        .map(|a| a.iter().map(|j| (text(j, "id"), text(j, "row"))).collect())
        .unwrap_or_default()
}
