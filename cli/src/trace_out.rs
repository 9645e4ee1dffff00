//! `--trace FILE.jsonl`: one JSON object per trace record, with names, message bodies and log text.

use clusterscope_core::engine::trace::RecKind;
use clusterscope_core::runner::Run;
use serde_json::json;
use std::io::Write;

pub fn write(run: &Run, path: &str) -> std::io::Result<()> {
    let f = std::fs::File::create(path)?;
    let mut w = std::io::BufWriter::new(f);
    for line in lines(run) {
        writeln!(w, "{line}")?;
    }
    w.flush()
}

/// The JSON objects, in trace order.
pub fn lines(run: &Run) -> impl Iterator<Item = serde_json::Value> + '_ {
    let t = run.trace();
    let topo = &run.sim().topo;
    let name = move |id: u32| topo.name(id).to_string();
    t.recs.iter().map(move |r| {
        let mut o = json!({ "step": r.step, "time_us": r.time, "node": name(r.node) });
        let m = o.as_object_mut().expect("object");
        let mut put = |k: &str, v: serde_json::Value| {
            m.insert(k.to_string(), v);
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
                put("verb", label.into());
                put("deliver_at_us", deliver_at.into());
                if let Some(b) = t.body(msg) {
                    put("body", b.into());
                }
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
                put("verb", label.into());
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
                put("verb", label.into());
                put("reason", reason.as_str().into());
            }
            RecKind::Timer { label } => {
                put("kind", "timer".into());
                put("timer", label.into());
            }
            RecKind::TaskStart {
                label, waited_us, ..
            } => {
                put("kind", "task-start".into());
                put("task", label.into());
                put("waited_us", waited_us.into());
            }
            RecKind::TaskDone { label, .. } => {
                put("kind", "task-done".into());
                put("task", label.into());
            }
            RecKind::TaskExpired {
                label, waited_us, ..
            } => {
                put("kind", "task-expired".into());
                put("task", label.into());
                put("waited_us", waited_us.into());
            }
            RecKind::State { label, peer } => {
                put("kind", "state".into());
                put("change", label.into());
                put("peer", name(peer).into());
            }
            RecKind::Log { line } => {
                put("kind", "log".into());
                if let Some(l) = t.logs.get(line as usize) {
                    put("level", l.level.as_str().into());
                    put("text", l.text.clone().into());
                }
            }
            RecKind::Action { index } => {
                put("kind", "action".into());
                if let Some(a) = t.actions.get(index as usize) {
                    put("action", a.action.describe().into());
                    put("source", serde_json::to_value(a.source).expect("json"));
                }
            }
            RecKind::NodeStatus { status } => {
                put("kind", "status".into());
                put("status", status.as_str().into());
            }
        }
        o
    })
}
