//! The trace as JSON lines (one record per line), for download.

use clusterscope_core::engine::trace::{RecKind, Trace};
use clusterscope_core::engine::Topology;
use serde_json::{json, Value};

/// Most records one export writes (a larger trace is cut, and the last line says so).
pub const MAX_EXPORT_RECS: usize = 2_000_000;

/// Records before `end_rec` as JSON lines.
pub fn trace_jsonl(trace: &Trace, topo: &Topology, end_rec: usize) -> String {
    let end = end_rec.min(trace.recs.len());
    let cut = end.min(MAX_EXPORT_RECS);
    let name = |id: u32| topo.names.get(id as usize).cloned().unwrap_or_default();
    let mut out = String::with_capacity(cut * 96);
    for r in &trace.recs[..cut] {
        let mut v = json!({ "step": r.step, "t_us": r.time, "node": name(r.node) });
        let o = v.as_object_mut().expect("object");
        let mut put = |k: &str, x: Value| {
            o.insert(k.into(), x);
        };
        match r.kind {
            RecKind::Send {
                msg,
                to,
                label,
                deliver_at,
            } => {
                put("kind", "send".into());
                put("msg", msg.into());
                put("to", name(to).into());
                put("label", label.into());
                put("deliver_at_us", deliver_at.into());
            }
            RecKind::Deliver {
                msg,
                from,
                label,
                sent_at,
            } => {
                put("kind", "deliver".into());
                put("msg", msg.into());
                put("from", name(from).into());
                put("label", label.into());
                put("sent_at_us", sent_at.into());
            }
            RecKind::Drop {
                msg,
                from,
                to,
                label,
                reason,
            } => {
                put("kind", "drop".into());
                put("msg", msg.into());
                put("from", name(from).into());
                put("to", name(to).into());
                put("label", label.into());
                put("reason", reason.as_str().into());
            }
            RecKind::Timer { label } => {
                put("kind", "timer".into());
                put("label", label.into());
            }
            RecKind::TaskStart {
                exec,
                label,
                waited_us,
            } => {
                put("kind", "task-start".into());
                put("exec", exec.into());
                put("label", label.into());
                put("waited_us", waited_us.into());
            }
            RecKind::TaskDone { exec, label } => {
                put("kind", "task-done".into());
                put("exec", exec.into());
                put("label", label.into());
            }
            RecKind::TaskExpired {
                exec,
                label,
                waited_us,
            } => {
                put("kind", "task-expired".into());
                put("exec", exec.into());
                put("label", label.into());
                put("waited_us", waited_us.into());
            }
            RecKind::State { label, peer } => {
                put("kind", "state".into());
                put("label", label.into());
                put("peer", name(peer).into());
            }
            RecKind::Log { line } => {
                put("kind", "log".into());
                if let Some(l) = trace.logs.get(line as usize) {
                    put("level", l.level.as_str().into());
                    put("text", l.text.clone().into());
                }
            }
            RecKind::Action { index } => {
                put("kind", "action".into());
                if let Some(a) = trace.actions.get(index as usize) {
                    put(
                        "source",
                        serde_json::to_value(a.source).unwrap_or(Value::Null),
                    );
                    put("text", a.action.describe().into());
                }
            }
            RecKind::NodeStatus { status } => {
                put("kind", "status".into());
                put("status", status.as_str().into());
            }
        }
        out.push_str(&v.to_string());
        out.push('\n');
    }
    if cut < end {
        out.push_str(&format!(
            "{{\"truncated\":true,\"records_written\":{cut},\"records_total\":{end}}}\n"
        ));
    }
    out
}
