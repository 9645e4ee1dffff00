//! The large matrix draws each cell's class alone, a block of cells at a time
//! (`Driver::matrix_classes`, every cell every frame; gossip answers from its `not_up` bits); the
//! tooltip and the small matrix use the whole cell (`matrix_cell`). The two must agree on every
//! cell, for every model, whatever the cluster's state, for the whole square and for any rows
//! and columns in any order (the matrix's DC order, a filter); and gossip's class must say what
//! the liveness view says (UP exactly where the observer sees the peer UP).

use clusterscope_core::runner::{Run, RunOptions};
use clusterscope_core::scenario::builtin;

fn agree(name: &str, times_us: &[u64]) -> usize {
    let s = builtin::get(name).unwrap();
    let v = Run::default_variant(&s);
    let mut run = Run::new(s, &v, None, &toml::Table::new(), &RunOptions::default()).unwrap();
    let mut not_all_same = 0;
    let mut checked = 0;
    for &t in times_us {
        run.engine.run_until(t, u64::MAX).unwrap();
        let n = run.scenario.topo.len() as u32;
        // The liveness view (small clusters only: at 251 nodes it is tens of MB of JSON).
        let views = (n <= 10 && run.scenario.raw.protocol == "gossip").then(|| run.views_json());
        let all: Vec<u32> = (0..n).collect();
        let mut block = Vec::new();
        run.engine.matrix_classes(&all, &all, &mut block);
        assert_eq!(block.len(), (n * n) as usize);
        // Some rows and columns, reordered (every third node, backwards, and the first).
        let some: Vec<u32> = (0..n).rev().step_by(3).chain([0]).collect();
        let mut part = vec![7u8];
        run.engine.matrix_classes(&some, &some, &mut part);
        assert_eq!(part.len(), 1 + some.len() * some.len(), "appended to `out`");
        for (i, &o) in some.iter().enumerate() {
            for (j, &q) in some.iter().enumerate() {
                assert_eq!(
                    part[1 + i * some.len() + j],
                    block[(o * n + q) as usize],
                    "{name} at {t} us: cell ({o}, {q}) of a reordered block"
                );
            }
        }
        let mut classes = std::collections::BTreeSet::new();
        for o in 0..n {
            for q in 0..n {
                let (c, k) = (
                    run.engine.matrix_cell(o, q).class,
                    block[(o * n + q) as usize],
                );
                assert_eq!(c, k, "{name} at {t} us: cell ({o}, {q})");
                classes.insert(k);
                let on = run.scenario.topo.name(o).to_string();
                let qn = run.scenario.topo.name(q).to_string();
                if let Some(seen) = views
                    .as_ref()
                    .and_then(|v| v["liveness"][&on][&qn].as_str())
                {
                    checked += 1;
                    let up = k == clusterscope_core::gossip::model::CELL_UP;
                    assert_eq!(
                        up,
                        seen == "UP",
                        "{name} at {t} us: {on} sees {qn} {seen}, class {k}"
                    );
                }
            }
        }
        not_all_same = not_all_same.max(classes.len());
    }
    if run.scenario.topo.len() <= 10 && run.scenario.raw.protocol == "gossip" {
        assert!(checked > 0, "{name}: no liveness view to compare with");
    }
    not_all_same
}

#[test]
fn the_class_alone_is_the_cells_class() {
    // Gossip: DOWN both ways and one-sided, stopped peers, UP (packet loss and the rolling
    // upgrade at 251 nodes, during its restarts).
    assert!(agree("cassandra-21636-packet-loss", &[0, 58_000_000, 200_000_000]) >= 3);
    assert!(
        agree(
            "cassandra-21636-restart",
            &[0, 35_000_000, 60_000_000, 200_000_000]
        ) >= 3
    );
    assert!(
        agree(
            "cassandra-21636-rolling-upgrade",
            &[150_000_000, 240_000_000]
        ) >= 3
    );
    // The other models through the default (the whole cell's class).
    for name in [
        "raft-partition",
        "mutation-tracking-basics",
        "ozone-write-pipeline",
        "pingpong",
    ] {
        agree(name, &[5_000_000]);
    }
}
