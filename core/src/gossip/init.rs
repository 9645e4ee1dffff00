//! Building the model: initial endpoint state maps from a scenario (`[gossip] endpoint`, the
//! study notes' pictures) or a warm start where everyone knows everyone.

use super::*;

/// Initial endpoint state maps, for scenarios that start from a given picture (the study notes).
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct GossipInit {
    /// When set, each listed observer's map holds exactly these entries (no warm start).
    #[serde(default)]
    pub endpoint: Vec<InitEntry>,
}

#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct InitEntry {
    pub observer: String,
    pub peer: String,
    pub generation: u32,
    pub heartbeat: u32,
    #[serde(default)]
    pub states: Vec<InitState>,
}

#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct InitState {
    pub key: String,
    pub value: String,
    pub version: u32,
}

/// serde's reading of a `[gossip]` section: its derive, the words of every refusal.
fn serde_init(t: toml::Table) -> Result<GossipInit, String> {
    toml::Value::Table(t)
        .try_into()
        .map_err(|e: toml::de::Error| format!("[gossip]: {}", e.message()))
}

/// serde's reading called directly: every build but the web app's split release build.
#[cfg(not(cs_split))]
pub(super) mod by_serde {
    pub fn init(t: toml::Table) -> Result<super::GossipInit, String> {
        super::serde_init(t)
    }
}

/// serde's reading behind a split point of the scenario reader's part (`reader`), as the
/// parameters' (`params::by_serde`): a section comes only from a text that part read. Polled as a
/// model's is (`crate::lazy`); while the part is not loaded, an error and the reader wanted.
#[cfg(cs_split)]
pub(super) mod by_serde {
    use super::GossipInit;

    crate::lazy::reader_fn!(pub fn init -> GossipInit = super::serde_init, via gossip_init_serde,
        else format!("[gossip]: {}", crate::lazy::READER_NOT_LOADED));
}

impl Gossip {
    /// Build the model, resolving initial maps against the topology.
    pub fn new(p: GossipParams, init: &GossipInit, topo: &Topology) -> Result<Self, String> {
        p.validate()?;
        let mut maps: BTreeMap<NodeId, Vec<(NodeId, EndpointState)>> = BTreeMap::new();
        for (i, e) in init.endpoint.iter().enumerate() {
            let where_ = format!("gossip.endpoint[{i}]");
            let o = topo
                .resolve(&e.observer)
                .map_err(|m| format!("{where_}.observer: {m}"))?;
            let peer = topo
                .resolve(&e.peer)
                .map_err(|m| format!("{where_}.peer: {m}"))?;
            let list = maps.entry(o).or_default();
            if list.iter().any(|(p, _)| *p == peer) {
                return Err(format!(
                    "{where_}: {} already has an entry for {}",
                    e.observer, e.peer
                ));
            }
            let states = e
                .states
                .iter()
                .map(|s| AppState {
                    key: s.key.as_str().into(),
                    value: s.value.as_str().into(),
                    version: s.version,
                })
                .collect();
            list.push((
                peer,
                EndpointState::new(
                    0,
                    HeartBeat {
                        generation: e.generation,
                        version: e.heartbeat,
                    },
                    states,
                    true,
                ),
            ));
        }
        for (o, list) in &maps {
            if !list.iter().any(|(p, _)| p == o) {
                return Err(format!(
                    "gossip.endpoint: observer {} has entries but none for itself; add one with peer = \"{}\"",
                    topo.name(*o),
                    topo.name(*o)
                ));
            }
        }
        let coordinator = if p.client_rate > 0.0 {
            if p.client_coordinator.is_empty() {
                Some(0)
            } else {
                Some(
                    topo.resolve(&p.client_coordinator)
                        .map_err(|m| format!("client_coordinator: {m}"))?,
                )
            }
        } else {
            None
        };
        let mut g = Gossip {
            p,
            init: Arc::new(maps),
            warm: Arc::new(Vec::new()),
            coordinator,
            pool: Default::default(),
        };
        g.warm = Arc::new((0..topo.len()).map(|ep| g.warm_state(ep, topo)).collect());
        Ok(g)
    }

    pub(super) fn echo_timeout(&self, node: &GNode) -> Micros {
        node.echo_timeout.unwrap_or(self.p.request_timeout.0)
    }

    pub(super) fn warm_state(&self, ep: NodeId, topo: &Topology) -> EndpointState {
        let s = |k: &str, v: String, n: u32| AppState {
            key: k.into(),
            value: v.into(),
            version: n,
        };
        EndpointState::new(
            0,
            HeartBeat {
                generation: self.p.generation_base,
                version: 10,
            },
            vec![
                s("DC", topo.dcs[ep as usize].clone(), 1),
                s("RACK", topo.racks[ep as usize].clone(), 2),
                s(
                    "HOST_ID",
                    format!("{:08x}-0000-4000-8000-{:012x}", 0x5eed_0000u32 + ep, ep),
                    3,
                ),
                s("TOKENS", format!("<{} tokens>", self.p.num_tokens), 4),
                s("STATUS", "NORMAL".into(), 5),
                s("LOAD", format!("{}.0", 100 + ep % 50), 6),
            ],
            true,
        )
    }
}
