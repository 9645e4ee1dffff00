//! The network between nodes: one `Link` per ordered pair (from, to), so every fault can be one-way.

use crate::time::Micros;
use serde::{Deserialize, Serialize};

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
    links: Vec<Link>,
    default_link: Link,
}

/// `Clone` by hand: `clone_from` (restoring a checkpoint) reuses the n x n link table.
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
        self.links.clone_from(links);
        self.default_link.clone_from(default_link);
    }
}

impl Network {
    pub fn new(n: u32, default_link: Link) -> Self {
        Network {
            n,
            links: vec![default_link.clone(); (n as usize) * (n as usize)],
            default_link,
        }
    }

    pub fn link(&self, from: u32, to: u32) -> &Link {
        &self.links[(from * self.n + to) as usize]
    }

    pub fn link_mut(&mut self, from: u32, to: u32) -> &mut Link {
        &mut self.links[(from * self.n + to) as usize]
    }

    pub fn default_link(&self) -> &Link {
        &self.default_link
    }

    pub fn heal_all(&mut self) {
        for l in &mut self.links {
            *l = self.default_link.clone();
        }
    }

    /// True when every link is as the scenario's defaults made it.
    pub fn is_healthy(&self) -> bool {
        self.links.iter().all(|l| *l == self.default_link)
    }
}
