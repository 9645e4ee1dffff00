//! What the app downloads: the session as a scenario file ([`Model::export_scenario`], its
//! marker lines read back on import) and the trace as JSON lines (one record per line). The app
//! writes the trace in chunks ([`trace_jsonl_chunk`], see `ui::export`), yielding to the browser
//! between them, so exporting a 251-node run (over 200 MB) shows progress instead of freezing
//! the tab.

use super::Model;
use clusterscope_core::engine::trace::{rec_json, Trace};
use clusterscope_core::engine::Topology;
use clusterscope_core::session;
use clusterscope_core::time::{fmt_time, Micros};

/// A line in exported scenario files naming the variant the recorded actions belong to.
pub const VARIANT_MARKER: &str = "# clusterscope: variant = ";
/// A line in exported scenario files naming the virtual time (µs) the cursor was at (an import
/// opens there).
pub const CURSOR_MARKER: &str = "# clusterscope: cursor at us = ";

/// The cursor time named in an exported file's marker line, if any.
pub fn marked_cursor(text: &str) -> Option<Micros> {
    text.lines()
        .find_map(|l| l.strip_prefix(CURSOR_MARKER).map(|v| v.trim().parse().ok()))
        .flatten()
}

/// The variant named in an exported file's marker line, if any.
pub fn marked_variant(text: &str) -> Option<&str> {
    text.lines().find_map(|l| {
        l.strip_prefix(VARIANT_MARKER)
            .map(|v| v.trim().trim_matches('"'))
    })
}

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

impl Model {
    /// The session as a scenario file whose recorded actions replay exactly.
    pub fn export_scenario(&self) -> Result<String, String> {
        let body = session::export_scenario(
            &self.scenario_with_mine(),
            self.run.seed,
            self.run.engine.user_actions(),
        )?;
        // The session line carries everything a permalink does (branches, bookmarks, the exact
        // cursor time, selection, compare); the two markers before it say the same for a reader
        // (and for files exported before the session line).
        Ok(format!(
            "# Exported from Clusterscope at {} (step {}).\n{VARIANT_MARKER}\"{}\"\n{CURSOR_MARKER}{}\n{}{body}",
            fmt_time(self.now()),
            self.cursor(),
            self.run.variant,
            self.now(),
            session::session_line(&self.session(), self.run.scenario.name())
                .ok_or_else(|| "the session writer is not loaded yet (split/session_write)".to_string())?,
        ))
    }

    /// The trace up to the cursor as JSON lines.
    pub fn export_trace(&self) -> String {
        let t = self.run.engine.trace();
        trace_jsonl(
            t,
            &self.run.scenario.topo,
            t.rec_index_at_step(self.cursor()),
        )
    }

    /// Suggested file name stem for downloads.
    pub fn file_stem(&self) -> String {
        format!(
            "{}-{}-seed{}",
            self.run.scenario.name(),
            self.run.variant,
            self.run.seed
        )
    }
}
