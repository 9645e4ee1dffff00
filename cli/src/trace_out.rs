//! `--trace FILE.jsonl`: one JSON object per trace record (`engine::trace::rec_json`).

use crate::out_file::Target;
use clusterscope_core::engine::trace::rec_json;
use clusterscope_core::runner::Run;
use std::io::Write;

/// Write the trace to `to`; every error (a write, the last flush) names the file.
pub fn write(run: &Run, to: &Target) -> Result<(), String> {
    let mut w = to.create()?;
    for line in lines(run) {
        writeln!(w, "{line}").map_err(|e| w.error(e))?;
    }
    w.finish()
}

/// The JSON objects, in trace order.
pub fn lines(run: &Run) -> impl Iterator<Item = serde_json::Value> + '_ {
    let t = run.trace();
    let topo = run.engine.topo();
    t.recs.iter().map(move |r| rec_json(t, topo, &r))
}
