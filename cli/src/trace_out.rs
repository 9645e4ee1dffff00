//! `--trace FILE.jsonl`: one JSON object per trace record (`engine::trace::rec_json`).

use clusterscope_core::engine::trace::rec_json;
use clusterscope_core::runner::Run;
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
    let topo = run.engine.topo();
    t.recs.iter().map(move |r| rec_json(t, topo, &r))
}
