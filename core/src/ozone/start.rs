//! Start states for Ozone: a datanode's containers as its disk holds them when the process
//! starts (`[[ozone.start]]`: each container's state and BCSID, as `KeyValueContainerData`
//! persists them in the container's `.container` file: `state`, and the block commit sequence
//! id in its metadata DB), and SCM's record of a container (`[[ozone.scm_container]]`: the
//! `ContainerInfo` SCM persists: life cycle state and `sequenceId`). SCM's replica table starts
//! as the datanodes' first full container reports would fill it: each replica with its
//! preloaded state and BCSID. Everything here is on disk, so a restart keeps it.
//!
//! The pipeline's Raft log starts empty (Ozone has no preloaded log), so an OPEN or CLOSING
//! replica, which the pipeline still writes, has BCSID 0: a BCSID above the log's applied
//! index would be a PutBlock the log never held. A QUASI_CLOSED, CLOSED or UNHEALTHY replica
//! may carry any BCSID: its blocks came before this log (as after a Ratis snapshot purged the
//! log), and no write applies to it again. See docs/model/ozone.md, "Start states".

use super::CState;
use crate::engine::{NodeId, Topology};
use crate::scenario_file::start::{self, text, uint, StartTable};
use std::collections::BTreeMap;

/// The preloaded state of the pipeline and SCM (empty: none given).
#[derive(Clone, Debug, Default, PartialEq)]
pub struct OzStart {
    /// Per datanode: container -> (state, BCSID).
    pub dns: Vec<Option<BTreeMap<u32, (CState, u64)>>>,
    /// SCM: container -> (life cycle state, sequence id).
    pub scm: BTreeMap<u32, (CState, u64)>,
}

const KEYS: &[&str] = &["node", "containers"];
const CONTAINER_KEYS: &[&str] = &["id", "state", "bcsid"];
const SCM_KEYS: &[&str] = &["container", "state", "sequence_id"];

fn state(v: &toml::Value, what: &str, scm: bool) -> Result<CState, String> {
    let s = text(v, what)?;
    let all = [
        CState::Open,
        CState::Closing,
        CState::QuasiClosed,
        CState::Closed,
        CState::Unhealthy,
    ];
    let st = all.into_iter().find(|c| c.as_str() == s).ok_or_else(|| {
        format!(
            "{what}: \"{}\" is not a container state; use OPEN, CLOSING, QUASI_CLOSED, CLOSED{}",
            crate::text::clip(s, 30),
            if scm { "" } else { " or UNHEALTHY" }
        )
    })?;
    if scm && st == CState::Unhealthy {
        return Err(format!(
            "{what}: SCM's life cycle states have no UNHEALTHY (a replica is unhealthy, not the \
             container); set UNHEALTHY on a datanode's replica in [[ozone.start]]"
        ));
    }
    Ok(st)
}

fn container(v: &toml::Value, what: &str, containers: u32) -> Result<u32, String> {
    let c = uint(v, what)?;
    if c == 0 || c > containers as u64 {
        return Err(format!(
            "{what}: container {c} is not one of the pipeline's (params.containers = \
             {containers}: containers 1 to {containers}); raise params.containers or pick one \
             of them"
        ));
    }
    Ok(c as u32)
}

/// Parse `[[ozone.start]]` and `[[ozone.scm_container]]`. Datanodes are nodes 0..`dns`, SCM is
/// node `dns`.
pub fn parse(
    start: Option<&toml::Value>,
    scm_containers: Option<&toml::Value>,
    topo: &Topology,
    dns: u32,
    containers: u32,
) -> Result<OzStart, String> {
    let mut out = OzStart {
        dns: vec![None; dns as usize],
        scm: BTreeMap::new(),
    };
    if let Some(v) = start {
        let fields = "node, containers";
        for st in start::tables(v, "ozone", "datanode", fields, KEYS, topo)? {
            let StartTable {
                id,
                name,
                table: t,
                here,
            } = st;
            if id >= dns {
                return Err(format!(
                    "{here}: {name} is SCM (the last node), not a datanode; preload SCM's view \
                     of a container with [[ozone.scm_container]]"
                ));
            }
            let mut map = BTreeMap::new();
            if let Some(v) = t.get("containers") {
                let toml::Value::Array(a) = v else {
                    return Err(format!(
                        "{here}.containers must be an array of tables, e.g. containers = \
                         [{{ id = 1, state = \"CLOSED\", bcsid = 7 }}]"
                    ));
                };
                for (k, c) in a.iter().enumerate() {
                    let at = format!("{here}.containers #{}", k + 1);
                    let shape = "{ id, state, bcsid }";
                    let ct = start::table(c, &at, shape, "a container", CONTAINER_KEYS)?;
                    let Some(cid) = ct.get("id") else {
                        return Err(format!("{at}: `id` is missing: name the container"));
                    };
                    let cid = container(cid, &format!("{at}.id"), containers)?;
                    let at = format!("{here}, container {cid}");
                    if map.contains_key(&cid) {
                        return Err(format!("{at}: listed twice; keep one entry per container"));
                    }
                    let st = match ct.get("state") {
                        Some(v) => state(v, &format!("{at}.state"), false)?,
                        None => CState::Open,
                    };
                    let bcsid = match ct.get("bcsid") {
                        Some(v) => uint(v, &format!("{at}.bcsid"))?,
                        None => 0,
                    };
                    if bcsid > 0 && matches!(st, CState::Open | CState::Closing) {
                        return Err(format!(
                            "{at}.bcsid: {bcsid} on an {} replica is past the pipeline's Raft \
                             log, which starts empty (applied index 0): a container the \
                             pipeline still writes has BCSID 0 here; use bcsid = 0, or a \
                             QUASI_CLOSED or CLOSED state for a container written before this \
                             log",
                            st.as_str()
                        ));
                    }
                    map.insert(cid, (st, bcsid));
                }
            }
            out.dns[id as usize] = Some(map);
        }
    }
    if let Some(v) = scm_containers {
        let toml::Value::Array(items) = v else {
            return Err(
                "ozone.scm_container must be an array of tables: write each container \
                        as [[ozone.scm_container]]"
                    .into(),
            );
        };
        for (i, item) in items.iter().enumerate() {
            let here = format!("[[ozone.scm_container]] #{}", i + 1);
            let shape = "(container, state, sequence_id)";
            let t = start::table(item, &here, shape, "SCM's record of a container", SCM_KEYS)?;
            let Some(cid) = t.get("container") else {
                return Err(format!(
                    "{here}: `container` is missing: name the container"
                ));
            };
            let cid = container(cid, &format!("{here}.container"), containers)?;
            let here = format!("[[ozone.scm_container]] of container {cid}");
            if out.scm.contains_key(&cid) {
                return Err(format!(
                    "{here}: container {cid} has two SCM records; merge them into one"
                ));
            }
            let st = match t.get("state") {
                Some(v) => state(v, &format!("{here}.state"), true)?,
                None => CState::Open,
            };
            // `ContainerInfo.sequenceId` follows the highest BCSID a healthy replica reports
            // (`AbstractContainerReportHandler.updateContainerStats`).
            let healthy_max = out
                .dns
                .iter()
                .enumerate()
                .filter_map(|(d, m)| m.as_ref().map(|m| (d, m)))
                .filter_map(|(d, m)| match m.get(&cid) {
                    Some(&(s, b)) if s != CState::Unhealthy => Some((b, d)),
                    _ => None,
                })
                .max();
            let seq = match t.get("sequence_id") {
                Some(v) => uint(v, &format!("{here}.sequence_id"))?,
                None => healthy_max.map_or(0, |m| m.0),
            };
            if let Some((b, d)) = healthy_max.filter(|m| m.0 > seq) {
                return Err(format!(
                    "{here}.sequence_id: {seq} is below the BCSID {b} that {}'s replica holds; \
                     SCM raises a container's sequence id to the highest BCSID a healthy \
                     replica reports: use sequence_id >= {b} (or leave it out)",
                    topo.name(d as NodeId)
                ));
            }
            out.scm.insert(cid, (st, seq));
        }
    }
    Ok(out)
}

impl OzStart {
    pub fn is_empty(&self) -> bool {
        self.dns.iter().all(Option::is_none) && self.scm.is_empty()
    }
}
