//! The generic views a run answers itself (`status`, `log`, `violations`, the threads' `exec_*`,
//! the network's `link` and `link_loss`, the message counts), the rest asked of the model, and
//! the check that an answer is what the view declares.

use super::Run;
use crate::engine::NodeId;
use crate::model::{Driver, QValue, Query};
use crate::registry;
use crate::time::Micros;

impl Run {
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
