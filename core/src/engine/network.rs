//! The network between nodes: one `Link` per ordered pair (from, to), so every fault can be one-way.

use crate::time::Micros;
use serde::{Deserialize, Serialize};
use std::sync::Arc;

#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Link {
    pub up: bool,
    /// Probability in [0, 1] that a message on this link is lost.
    pub loss: f64,
    pub latency_min_us: Micros,
    pub latency_max_us: Micros,
}

impl Link {
    pub fn healthy(latency_min_us: Micros, latency_max_us: Micros) -> Self {
        Link {
            up: true,
            loss: 0.0,
            latency_min_us,
            latency_max_us,
        }
    }

    /// What the topology view draws: `down`, `lossy` or `up`.
    pub fn condition(&self) -> &'static str {
        // Relative to a perfect link; the topology view compares with the scenario default too.
        if !self.up {
            "down"
        } else if self.loss > 0.0 {
            "lossy"
        } else {
            "up"
        }
    }
}

#[derive(Debug)]
pub struct Network {
    n: u32,
    /// Row-major n x n, shared copy-on-write: faults change links rarely, so checkpoints (clones
    /// of the whole state) share one table instead of copying n^2 links each (2 MB at 251 nodes).
    links: Arc<Vec<Link>>,
    default_link: Link,
}

/// `Clone` by hand, field by field (see `Sim`).
impl Clone for Network {
    fn clone(&self) -> Self {
        let Network {
            n,
            links,
            default_link,
        } = self;
        Network {
            n: *n,
            links: links.clone(),
            default_link: default_link.clone(),
        }
    }

    fn clone_from(&mut self, src: &Self) {
        let Network {
            n,
            links,
            default_link,
        } = src;
        self.n = *n;
        self.links = Arc::clone(links);
        self.default_link.clone_from(default_link);
    }
}

impl Network {
    pub fn new(n: u32, default_link: Link) -> Self {
        Network {
            n,
            links: Arc::new(vec![default_link.clone(); (n as usize) * (n as usize)]),
            default_link,
        }
    }

    pub fn link(&self, from: u32, to: u32) -> &Link {
        &self.links[(from * self.n + to) as usize]
    }

    /// Copies the table first when a checkpoint shares it.
    pub fn link_mut(&mut self, from: u32, to: u32) -> &mut Link {
        &mut Arc::make_mut(&mut self.links)[(from * self.n + to) as usize]
    }

    pub fn default_link(&self) -> &Link {
        &self.default_link
    }

    pub fn heal_all(&mut self) {
        for l in Arc::make_mut(&mut self.links) {
            *l = self.default_link.clone();
        }
    }

    /// True when every link is as the scenario's defaults made it.
    pub fn is_healthy(&self) -> bool {
        self.links.iter().all(|l| *l == self.default_link)
    }
}
