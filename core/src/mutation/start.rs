//! Start states (`[[mutation-tracking.start]]`): a replica's durable mutation-tracking state
//! preloaded before the run, as if its disk held it when the process started. What Cassandra
//! keeps across a restart: the `MutationJournal` (every mutation the node witnessed, which
//! also fills its table) and each `CoordinatorLog`'s `witnessedOffsets` (one `Offsets` per
//! participant) and `reconciledOffsets`. The model's `on_exit` keeps the same (the journal,
//! the logs, the table; pending writes and listeners are volatile), so a restart keeps what is
//! preloaded here; see docs/model/mutation.md, "Start states".
//!
//! Validated when the run is built: every error names the node, the log and the field, and
//! the fix.

use super::node::{LogState, MtNode};
use super::offsets::{MutId, Offsets};
use super::Mutation;
use crate::engine::{NodeId, Topology};
use crate::scenario_file::start::{self, text, StartTable};

/// At most this many preloaded offsets per node (each is a journal entry and a row).
pub const MAX_START_OFFSETS: u64 = 10_000;

const KEYS: &[&str] = &["node", "logs"];
const LOG_KEYS: &[&str] = &["log", "witnessed", "witnessed_by", "reconciled"];

/// One coordinator log of a preloaded replica.
#[derive(Clone, Debug, PartialEq)]
pub struct LogStart {
    pub log: NodeId,
    /// Offsets this replica witnessed (journaled and applied).
    pub witnessed: Offsets,
    /// What it knows other participants witnessed: (participant, offsets).
    pub witnessed_by: Vec<(NodeId, Offsets)>,
    /// `reconciledOffsets` beyond what every participant's witnessed offsets give.
    pub reconciled: Offsets,
}

/// One replica's preloaded state.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct MtStart {
    pub logs: Vec<LogStart>,
}

/// Parse "0-4,7" (inclusive ranges and single offsets, increasing, not overlapping).
pub fn parse_offsets(v: &toml::Value, at: &str) -> Result<Offsets, String> {
    let s = v.as_str().ok_or_else(|| {
        format!(
            "{at} must be a string of offsets like \"0-4,7\", not {}",
            v.type_str()
        )
    })?;
    let mut out = Offsets::new();
    let mut prev: Option<u32> = None;
    for part in s.split(',').map(str::trim).filter(|p| !p.is_empty()) {
        let num = |x: &str| {
            x.trim().parse::<u32>().map_err(|_| {
                format!(
                    "{at}: \"{}\" is not an offset or a range; write offsets like \"0-4,7\" \
                     (whole numbers >= 0, a range lo-hi inclusive)",
                    crate::text::clip(part, 30)
                )
            })
        };
        let (lo, hi) = match part.split_once('-') {
            Some((a, b)) => (num(a)?, num(b)?),
            None => {
                let o = num(part)?;
                (o, o)
            }
        };
        if lo > hi {
            return Err(format!(
                "{at}: the range {lo}-{hi} ends before it starts; write it {hi}-{lo}"
            ));
        }
        if prev.is_some_and(|p| lo <= p) {
            return Err(format!(
                "{at}: \"{part}\" overlaps or comes before the range ahead of it; list offsets \
                 in increasing order without overlaps"
            ));
        }
        prev = Some(hi);
        out.add_range(lo, hi);
    }
    Ok(out)
}

fn is_subset(a: &Offsets, of: &Offsets) -> Option<Offsets> {
    let mut rest = a.clone();
    rest.subtract(of);
    (!rest.is_empty()).then_some(rest)
}

/// Parse and check `[[<section>.start]]`. `participants`: the replicas (nodes 0..participants).
/// Returns one slot per node of the cluster.
pub fn parse(
    section: &str,
    value: &toml::Value,
    topo: &Topology,
    participants: u32,
) -> Result<Vec<Option<MtStart>>, String> {
    let mut out: Vec<Option<MtStart>> = vec![None; topo.len() as usize];
    for st in start::tables(value, section, "replica", "node, logs", KEYS, topo)? {
        let StartTable {
            id,
            name,
            table: t,
            here,
        } = st;
        if id >= participants {
            return Err(format!(
                "{here}: {name} is not a replica (params.rf = {participants}: the first \
                 {participants} nodes); only a replica journals mutations"
            ));
        }
        let mut logs: Vec<LogStart> = Vec::new();
        let mut total = 0u64;
        if let Some(v) = t.get("logs") {
            let toml::Value::Array(a) = v else {
                return Err(format!(
                    "{here}.logs must be an array of tables, e.g. logs = [{{ log = \"node1\", \
                     witnessed = \"0-4\" }}]"
                ));
            };
            for (k, l) in a.iter().enumerate() {
                let at = format!("{here}.logs #{}", k + 1);
                let shape = "{ log, witnessed, witnessed_by, reconciled }";
                let lt = start::table(l, &at, shape, "a log", LOG_KEYS)?;
                let Some(lname) = lt.get("log") else {
                    return Err(format!(
                        "{at}: `log` is missing: name the node whose coordinator log this is"
                    ));
                };
                let lname = text(lname, &format!("{at}.log"))?;
                let log = topo.resolve(lname).map_err(|e| {
                    format!("{at}.log: {e} (a coordinator log is named by its node)")
                })?;
                let at = format!("{here}, log {lname}");
                if logs.iter().any(|x| x.log == log) {
                    return Err(format!(
                        "{at}: listed twice; merge the two into one entry of `logs`"
                    ));
                }
                let witnessed = match lt.get("witnessed") {
                    Some(v) => parse_offsets(v, &format!("{at}: witnessed"))?,
                    None => Offsets::new(),
                };
                total += witnessed.len();
                if total > MAX_START_OFFSETS {
                    return Err(format!(
                        "{at}: witnessed: more than {MAX_START_OFFSETS} offsets preloaded on \
                         {name}; preload fewer"
                    ));
                }
                let mut witnessed_by = Vec::new();
                if let Some(v) = lt.get("witnessed_by") {
                    let toml::Value::Table(wb) = v else {
                        return Err(format!(
                            "{at}: witnessed_by must be a table of replica = offsets, e.g. \
                             witnessed_by = {{ node3 = \"0-2\" }}"
                        ));
                    };
                    for (p, o) in wb {
                        let pid = topo
                            .resolve(p)
                            .map_err(|e| format!("{at}: witnessed_by.{p}: {e}"))?;
                        if pid >= participants {
                            return Err(format!(
                                "{at}: witnessed_by.{p}: {p} is not a replica (params.rf = \
                                 {participants}); only replicas witness mutations"
                            ));
                        }
                        if pid == id {
                            return Err(format!(
                                "{at}: witnessed_by.{p}: that is {name} itself; put its own \
                                 offsets in `witnessed`"
                            ));
                        }
                        let o = parse_offsets(o, &format!("{at}: witnessed_by.{p}"))?;
                        witnessed_by.push((pid, o));
                    }
                }
                let reconciled = match lt.get("reconciled") {
                    Some(v) => parse_offsets(v, &format!("{at}: reconciled"))?,
                    None => Offsets::new(),
                };
                if let Some(rest) = is_subset(&reconciled, &witnessed) {
                    return Err(format!(
                        "{at}: reconciled offsets {rest} are not witnessed by {name}; a \
                         replica records an offset reconciled only once it witnessed it: add \
                         them to `witnessed` or drop them from `reconciled`"
                    ));
                }
                logs.push(LogStart {
                    log,
                    witnessed,
                    witnessed_by,
                    reconciled,
                });
            }
        }
        out[id as usize] = Some(MtStart { logs });
    }
    check_across(section, &out, topo)?;
    Ok(out)
}

/// What one replica knows another witnessed, the other must have witnessed (a replica learns
/// it from that replica's MUTATION_RSP or BROADCAST_LOG_OFFSETS).
fn check_across(section: &str, starts: &[Option<MtStart>], topo: &Topology) -> Result<(), String> {
    let own = |node: NodeId, log: NodeId| -> Offsets {
        starts
            .get(node as usize)
            .and_then(|s| s.as_ref())
            .and_then(|s| s.logs.iter().find(|l| l.log == log))
            .map(|l| l.witnessed.clone())
            .unwrap_or_default()
    };
    for (i, s) in starts.iter().enumerate() {
        let Some(s) = s else { continue };
        for l in &s.logs {
            for (p, o) in &l.witnessed_by {
                if let Some(rest) = is_subset(o, &own(*p, l.log)) {
                    let (me, pn, ln) = (topo.name(i as NodeId), topo.name(*p), topo.name(l.log));
                    return Err(format!(
                        "[[{section}.start]] of {me}, log {ln}: witnessed_by.{pn} names offsets \
                         {rest} that {pn}'s own start state does not witness; {me} can only \
                         know what {pn} witnessed: add them to {pn}'s `witnessed` for log {ln} \
                         or drop them here"
                    ));
                }
            }
        }
    }
    Ok(())
}

/// The row a preloaded mutation writes (what a generated write of that offset writes).
pub fn row(topo: &Topology, id: MutId) -> String {
    format!("{}:{}", topo.name(id.log), id.offset)
}

/// Load a preloaded state into a fresh node: the journal and the table for what it witnessed,
/// each log's witnessed offsets per participant and its reconciled offsets; and the node's own
/// log continues after the highest offset any start state names (`next_offsets`).
pub fn preload(node: &mut MtNode, s: Option<&MtStart>, next_offset: u32, topo: &Topology) {
    node.next_offset = next_offset;
    let Some(s) = s else { return };
    let n = node.participants as usize;
    for l in &s.logs {
        let st = node.logs.entry(l.log).or_insert_with(|| LogState::new(n));
        st.witnessed[node.me as usize] = l.witnessed.clone();
        for (p, o) in &l.witnessed_by {
            st.witnessed[*p as usize] = o.clone();
        }
        st.snapshot_reconciled = l.reconciled.clone();
        for &(lo, hi) in l.witnessed.ranges() {
            for off in lo..=hi {
                let id = MutId::new(l.log, off);
                let r = row(topo, id);
                node.data.insert(id, r.clone());
                node.journal.insert(id, Mutation { id, row: r });
            }
        }
    }
}

/// Per node: one past the highest offset of its own log named in any start state (0: none).
pub fn next_offsets(starts: &[Option<MtStart>]) -> Vec<u32> {
    let mut next = vec![0u32; starts.len()];
    for s in starts.iter().flatten() {
        for l in &s.logs {
            let top = [&l.witnessed, &l.reconciled]
                .into_iter()
                .chain(l.witnessed_by.iter().map(|(_, o)| o))
                .filter_map(|o| o.ranges().last().map(|r| r.1.saturating_add(1)))
                .max()
                .unwrap_or(0);
            if let Some(x) = next.get_mut(l.log as usize) {
                *x = (*x).max(top);
            }
        }
    }
    next
}
