//! What an expectation's `observer` (alias `node`) or `peer` names: one node, a set of nodes
//! (`"n4..n7"`, `"n1, n3"`, or a TOML list), or `"leader"`, the current leader when the
//! expectation is evaluated. A set comes with a quantifier, `nodes = "any" | "all" | "none"`.

use crate::engine::{NodeId, Topology};
use serde::{Deserialize, Deserializer};

/// A node reference, resolved against the topology (names were checked at load).
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum NodeRef {
    One(NodeId),
    /// The running leader of the highest term at the time of evaluation (`Driver::leader`).
    Leader,
    /// Several nodes, in the order written; the expectation's `nodes` says how many must hold.
    Set(Vec<NodeId>),
}

/// How many nodes of a set must satisfy the check.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Quant {
    Any,
    All,
    None,
}

impl Quant {
    pub fn parse(s: &str) -> Result<Quant, String> {
        match s {
            "any" => Ok(Quant::Any),
            "all" => Ok(Quant::All),
            "none" => Ok(Quant::None),
            other => Err(format!(
                "`nodes = \"{}\"`: write \"any\" (at least one node holds), \"all\" (every node \
                 holds) or \"none\" (no node holds)",
                crate::text::clip(other, 30)
            )),
        }
    }
}

/// The word that names the current leader.
pub const LEADER: &str = "leader";

/// The nodes of a set can be at most this many (an expectation is evaluated on each).
pub const MAX_SET: usize = 1024;

impl NodeRef {
    /// Parse `text` (as written, or a list joined by `", "`). A node actually named "leader"
    /// is that node.
    pub fn parse(text: &str, topo: &Topology) -> Result<NodeRef, String> {
        let t = text.trim();
        if let Some(id) = topo.id(t) {
            return Ok(NodeRef::One(id));
        }
        if t == LEADER {
            return Ok(NodeRef::Leader);
        }
        if !t.contains(',') && !t.contains("..") {
            return topo.resolve(t).map(NodeRef::One);
        }
        let mut out: Vec<NodeId> = Vec::new();
        for item in t.split(',').map(str::trim) {
            if item.is_empty() {
                return Err(format!(
                    "\"{}\": an empty name in the list; write names separated by commas, e.g. \
                     \"n1, n3\"",
                    crate::text::clip(t, 40)
                ));
            }
            if item == LEADER && topo.id(item).is_none() {
                return Err(
                    "\"leader\" cannot be part of a set; use `observer = \"leader\"` alone".into(),
                );
            }
            let ids = match item.split_once("..") {
                Some((a, b)) => range(a.trim(), b.trim(), topo)?,
                None => vec![topo.resolve(item)?],
            };
            for id in ids {
                if !out.contains(&id) {
                    out.push(id);
                }
                if out.len() > MAX_SET {
                    return Err(format!("a set of more than {MAX_SET} nodes; name fewer"));
                }
            }
        }
        Ok(NodeRef::Set(out))
    }

    /// The nodes named now, given the current leader: `Err` when it names the leader and
    /// there is none.
    pub fn nodes(&self, leader: Option<NodeId>) -> Result<Vec<NodeId>, String> {
        match self {
            NodeRef::One(id) => Ok(vec![*id]),
            NodeRef::Set(ids) => Ok(ids.clone()),
            NodeRef::Leader => leader
                .map(|l| vec![l])
                .ok_or_else(|| "there is no leader (no running node leads)".to_string()),
        }
    }

    pub fn is_set(&self) -> bool {
        matches!(self, NodeRef::Set(_))
    }
}

/// `"n4".."n7"`: every node named with the prefix and a number from 4 to 7.
fn range(a: &str, b: &str, topo: &Topology) -> Result<Vec<NodeId>, String> {
    let split = |s: &str| -> Option<(String, u64)> {
        let digits = s.len() - s.trim_end_matches(|c: char| c.is_ascii_digit()).len();
        let (p, n) = s.split_at(s.len() - digits);
        Some((p.to_string(), n.parse().ok()?))
    };
    let form = || {
        format!(
            "\"{a}..{b}\": a range is two node names that differ in their trailing number, \
             the low one first, e.g. \"n4..n7\""
        )
    };
    topo.resolve(a)?;
    topo.resolve(b)?;
    let ((pa, na), (pb, nb)) = (split(a).ok_or_else(form)?, split(b).ok_or_else(form)?);
    if pa != pb || na > nb {
        return Err(form());
    }
    if (nb - na) as usize >= MAX_SET {
        return Err(format!("a set of more than {MAX_SET} nodes; name fewer"));
    }
    (na..=nb)
        .map(|k| {
            let name = format!("{pa}{k}");
            topo.id(&name)
                .ok_or_else(|| format!("\"{a}..{b}\": there is no node \"{name}\" in the range"))
        })
        .collect()
}

/// `observer`/`peer` as a node name, a set's text, or a TOML list of names (joined by `", "`,
/// which parses as the same set).
pub fn de_names<'de, D: Deserializer<'de>>(d: D) -> Result<Option<String>, D::Error> {
    #[derive(Deserialize)]
    #[serde(untagged)]
    enum Names {
        One(String),
        List(Vec<String>),
        // `null`: what a serialized `None` reads back as (a session's JSON).
        Null(()),
    }
    Ok(match Names::deserialize(d)? {
        Names::Null(()) => None,
        Names::One(s) => Some(s),
        Names::List(v) if v.is_empty() => {
            return Err(serde::de::Error::custom(
                "an empty list of nodes; name at least one",
            ))
        }
        Names::List(v) => Some(v.join(", ")),
    })
}
