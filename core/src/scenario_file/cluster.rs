//! The cluster a scenario describes (`[cluster]`: listed nodes or generated ones) as a
//! `Topology`, checked against the limits.

use super::*;

pub(super) fn build_topology(c: &ClusterSpec, limits: &Limits) -> Result<Topology, String> {
    let mut names = Vec::new();
    let mut dcs = Vec::new();
    let mut racks = Vec::new();
    match (&c.generate, c.nodes.is_empty()) {
        (Some(_), false) => return Err("use either `nodes` or `generate`, not both".into()),
        (None, true) => {
            return Err(
                "no nodes; list [[cluster.nodes]] or set cluster.generate = { count = N }".into(),
            )
        }
        (Some(g), true) => {
            if g.count == 0 || g.count > limits.max_nodes {
                return Err(format!(
                    "generate.count {} is out of range; use 1 to {}",
                    g.count, limits.max_nodes
                ));
            }
            crate::text::check_name("generate.prefix", &g.prefix, 32)?;
            if g.dcs == 0 || g.dcs > g.count || g.racks == 0 {
                return Err(format!(
                    "generate.dcs {} must be between 1 and count, racks at least 1",
                    g.dcs
                ));
            }
            for i in 0..g.count {
                names.push(format!("{}{}", g.prefix, i + 1));
                let dc = (i as u64 * g.dcs as u64 / g.count as u64) as u32;
                dcs.push(format!("dc{}", dc + 1));
                racks.push(format!("rack{}", i % g.racks + 1));
            }
        }
        (None, false) => {
            if c.nodes.len() > limits.max_nodes as usize {
                return Err(format!(
                    "{} nodes; the limit is {}",
                    c.nodes.len(),
                    limits.max_nodes
                ));
            }
            let mut seen = std::collections::BTreeSet::new();
            for n in &c.nodes {
                crate::text::check_name("node name", &n.name, 64)?;
                if let Some(dc) = &n.dc {
                    crate::text::check_name(&format!("node {}: dc", n.name), dc, 64)?;
                }
                if let Some(rack) = &n.rack {
                    crate::text::check_name(&format!("node {}: rack", n.name), rack, 64)?;
                }
                if !seen.insert(n.name.as_str()) {
                    return Err(format!("node \"{}\" is listed twice", n.name));
                }
                names.push(n.name.clone());
                dcs.push(n.dc.clone().unwrap_or_else(|| "dc1".into()));
                racks.push(n.rack.clone().unwrap_or_else(|| "rack1".into()));
            }
        }
    }
    let mut topo = Topology {
        names,
        dcs,
        racks,
        seeds: Vec::new(),
    };
    if c.seeds.is_empty() {
        let mut seen = std::collections::BTreeSet::new();
        for i in 0..topo.len() {
            if seen.insert(topo.dcs[i as usize].clone()) {
                topo.seeds.push(i);
            }
        }
    } else {
        for s in &c.seeds {
            let id = topo.resolve(s).map_err(|m| format!("seeds: {m}"))?;
            topo.seeds.push(id);
        }
    }
    Ok(topo)
}
