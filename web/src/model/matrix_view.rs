//! Which rows and columns of the model's N x N matrix the card shows, in which order: grouped by
//! DC (with separators), or the rows and columns with the most notable cells first (gossip: DOWN
//! views), only those with notable cells, and a zoomed region. Generic over models: it reads the
//! topology and the model's notable cells only. Also the notable cells as CSV, for an incident
//! review. And the model's matrix summary of the state shown, memoised
//! ([`Model::matrix_summary`]).

use super::Model;
use clusterscope_core::engine::{NodeId, Topology};
use clusterscope_core::model::MatrixSummary;
use clusterscope_core::small_sort::sort_by_key;
use clusterscope_core::time::Micros;
use std::ops::Range;
use std::rc::Rc;

/// What identifies a memoised matrix summary ([`Model::matrix_summary`]).
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub(super) struct SummaryKey {
    run: usize,
    session: u64,
    step: u64,
    frontier: u64,
    now: Micros,
    limit: usize,
}

impl SummaryKey {
    fn same_state(&self, o: &SummaryKey) -> bool {
        SummaryKey { limit: 0, ..*self } == SummaryKey { limit: 0, ..*o }
    }
}

impl Model {
    /// The model's matrix summary of the state shown (`Driver::matrix_summary`), memoised: the
    /// matrix card (its list, its sentence and its aria text) and the topology each ask on every
    /// render, and at 251 nodes each answer is a pass over 63,001 cells (~0.7 ms in wasm). Keyed
    /// by everything that identifies the state: the run, the session, the step and the time.
    pub fn matrix_summary(&self, limit: usize) -> Rc<MatrixSummary> {
        /// Summaries kept: the card's three limits.
        const KEPT: usize = 4;
        let key = SummaryKey {
            run: &*self.run.engine as *const dyn clusterscope_core::model::Driver as *const ()
                as usize,
            session: self.session_rev,
            step: self.cursor(),
            frontier: self.frontier(),
            now: self.now(),
            limit,
        };
        let mut memo = self.summary_memo.borrow_mut();
        if let Some((_, v)) = memo.iter().find(|(k, _)| *k == key) {
            return v.clone();
        }
        let v = Rc::new(self.run.engine.matrix_summary(limit));
        memo.retain(|(k, _)| k.same_state(&key));
        if memo.len() >= KEPT {
            memo.remove(0);
        }
        memo.push((key, v.clone()));
        v
    }
}

#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct ViewOpts {
    /// Rows and columns with the most notable cells first.
    pub sort_notable: bool,
    /// Only rows and columns that have a notable cell.
    pub only_notable: bool,
    /// A region of the ordered rows and columns (positions, not node ids).
    pub zoom: Option<(Range<usize>, Range<usize>)>,
}

#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct MatrixView {
    /// Observers, top to bottom.
    pub rows: Vec<NodeId>,
    /// Peers, left to right.
    pub cols: Vec<NodeId>,
}

/// Each node's DC as a rank (the order DCs first appear in the topology).
pub fn dc_ranks(topo: &Topology) -> Vec<usize> {
    let mut seen: Vec<&str> = Vec::new();
    topo.dcs
        .iter()
        .map(|d| match seen.iter().position(|x| x == d) {
            Some(i) => i,
            None => {
                seen.push(d);
                seen.len() - 1
            }
        })
        .collect()
}

/// The rows and columns shown for `opts`, given the notable (observer, peer) cells.
pub fn view(topo: &Topology, notable: &[(NodeId, NodeId)], opts: &ViewOpts) -> MatrixView {
    let n = topo.names.len();
    let dc = dc_ranks(topo);
    let (mut by_row, mut by_col) = (vec![0u32; n], vec![0u32; n]);
    for &(o, q) in notable {
        by_row[o as usize] += 1;
        by_col[q as usize] += 1;
    }
    let order = |count: &[u32]| -> Vec<NodeId> {
        let mut ids: Vec<NodeId> = (0..n as NodeId)
            .filter(|i| !opts.only_notable || count[*i as usize] > 0)
            .collect();
        if opts.sort_notable {
            sort_by_key(&mut ids, |i| {
                (std::cmp::Reverse(count[*i as usize]), dc[*i as usize], *i)
            });
        } else {
            sort_by_key(&mut ids, |i| (dc[*i as usize], *i));
        }
        ids
    };
    let (mut rows, mut cols) = (order(&by_row), order(&by_col));
    if let Some((r, c)) = &opts.zoom {
        let clip = |v: &mut Vec<NodeId>, r: &Range<usize>| {
            let (a, b) = (r.start.min(v.len()), r.end.min(v.len()));
            if a < b {
                *v = v[a..b].to_vec();
            }
        };
        clip(&mut rows, r);
        clip(&mut cols, c);
    }
    MatrixView { rows, cols }
}

fn csv_field(s: &str) -> String {
    if s.contains([',', '"', '\n']) {
        format!("\"{}\"", s.replace('"', "\"\""))
    } else {
        s.to_string()
    }
}

/// Every notable cell of the model's matrix at the cursor as CSV: observer, its DC, peer, its
/// DC, the cell's meaning (the model's legend) and its text.
pub fn notable_csv(m: &Model) -> String {
    let e = &*m.run.engine;
    let topo = &m.run.scenario.topo;
    let legend = e.matrix().map(|s| s.legend).unwrap_or(&[]);
    let mut out = String::from("observer,observer_dc,peer,peer_dc,state,text\n");
    for &(o, q) in &m.matrix_summary(0).notable {
        let c = e.matrix_cell(o, q);
        let state = legend.get(c.class as usize).map_or("", |l| l.1);
        let row = [
            topo.name(o),
            &topo.dcs[o as usize],
            topo.name(q),
            &topo.dcs[q as usize],
            state,
            &c.text,
        ];
        let fields: Vec<String> = row.iter().map(|f| csv_field(f)).collect();
        out.push_str(&fields.join(","));
        out.push('\n');
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    fn topo(dcs: &[&str]) -> Topology {
        Topology {
            names: (0..dcs.len()).map(|i| format!("n{i}")).collect(),
            dcs: dcs.iter().map(|d| d.to_string()).collect(),
            racks: dcs.iter().map(|_| "r1".to_string()).collect(),
            seeds: vec![0],
        }
    }

    #[test]
    fn rows_group_by_dc_then_sort_and_filter_by_notable_cells() {
        let t = topo(&["dc1", "dc2", "dc1", "dc2", "dc1"]);
        let notable = [(3, 0), (3, 2), (1, 2), (4, 2)];
        let v = view(&t, &notable, &ViewOpts::default());
        assert_eq!(v.rows, [0, 2, 4, 1, 3]);
        assert_eq!(v.cols, [0, 2, 4, 1, 3]);
        let sorted = ViewOpts {
            sort_notable: true,
            ..Default::default()
        };
        let v = view(&t, &notable, &sorted);
        assert_eq!(v.rows, [3, 4, 1, 0, 2]);
        assert_eq!(v.cols, [2, 0, 4, 1, 3]);
        let only = ViewOpts {
            sort_notable: true,
            only_notable: true,
            zoom: None,
        };
        let v = view(&t, &notable, &only);
        assert_eq!(v.rows, [3, 4, 1]);
        assert_eq!(v.cols, [2, 0]);
        let zoomed = ViewOpts {
            zoom: Some((1..3, 0..1)),
            ..only
        };
        let v = view(&t, &notable, &zoomed);
        assert_eq!(v.rows, [4, 1]);
        assert_eq!(v.cols, [2]);
    }

    #[test]
    fn csv_fields_are_quoted_when_needed() {
        assert_eq!(csv_field("a,b"), "\"a,b\"");
        assert_eq!(csv_field("say \"x\""), "\"say \"\"x\"\"\"");
        assert_eq!(csv_field("10.0.0.1"), "10.0.0.1");
    }
}
