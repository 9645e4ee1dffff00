//! The trace as JSON lines (one record per line), for download. The app writes it in chunks
//! ([`trace_jsonl_chunk`], see `ui::export`), yielding to the browser between them, so exporting
//! a 251-node run (over 200 MB) shows progress instead of freezing the tab.

use clusterscope_core::engine::trace::{rec_json, Trace};
use clusterscope_core::engine::Topology;

/// Most records one export writes (a larger trace is cut, and the last line says so).
pub const MAX_EXPORT_RECS: usize = 2_000_000;

/// How many records an export covers when it stops at `end_rec`: (written, total).
pub fn export_span(trace: &Trace, end_rec: usize) -> (usize, usize) {
    let end = end_rec.min(trace.recs.len());
    (end.min(MAX_EXPORT_RECS), end)
}

/// Records `from..to` as JSON lines appended to `out`.
pub fn trace_jsonl_chunk(trace: &Trace, topo: &Topology, from: usize, to: usize, out: &mut String) {
    for r in trace.recs.range(from..to) {
        let v = rec_json(trace, topo, &r);
        out.push_str(&v.to_string());
        out.push('\n');
    }
}

/// The closing line of a cut export, if it was cut.
pub fn truncation_line(written: usize, total: usize) -> Option<String> {
    (written < total).then(|| {
        format!("{{\"truncated\":true,\"records_written\":{written},\"records_total\":{total}}}\n")
    })
}

/// Records before `end_rec` as JSON lines, in one piece.
pub fn trace_jsonl(trace: &Trace, topo: &Topology, end_rec: usize) -> String {
    let (cut, end) = export_span(trace, end_rec);
    let mut out = String::with_capacity(cut * 96);
    trace_jsonl_chunk(trace, topo, 0, cut, &mut out);
    if let Some(l) = truncation_line(cut, end) {
        out.push_str(&l);
    }
    out
}
