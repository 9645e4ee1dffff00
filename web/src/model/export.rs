//! The trace as JSON lines (one record per line), for download.

use clusterscope_core::engine::trace::{rec_json, Trace};
use clusterscope_core::engine::Topology;

/// Most records one export writes (a larger trace is cut, and the last line says so).
pub const MAX_EXPORT_RECS: usize = 2_000_000;

/// Records before `end_rec` as JSON lines.
pub fn trace_jsonl(trace: &Trace, topo: &Topology, end_rec: usize) -> String {
    let end = end_rec.min(trace.recs.len());
    let cut = end.min(MAX_EXPORT_RECS);
    let mut out = String::with_capacity(cut * 96);
    for r in trace.recs.range(..cut) {
        let v = rec_json(trace, topo, &r);
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
