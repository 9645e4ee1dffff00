//! A small ordered set of node ids backed by a sorted `Vec`: iteration in id order like a
//! `BTreeSet`, but a gossip round can pick a random member by index without copying the set.

use crate::engine::NodeId;
use serde::Serialize;

#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize)]
#[serde(transparent)]
pub struct NodeSet(Vec<NodeId>);

impl NodeSet {
    pub fn new() -> Self {
        NodeSet(Vec::new())
    }

    /// Insert `id`; false when it was already present.
    pub fn insert(&mut self, id: NodeId) -> bool {
        match self.0.binary_search(&id) {
            Ok(_) => false,
            Err(i) => {
                self.0.insert(i, id);
                true
            }
        }
    }

    /// Remove `id`; false when it was absent.
    pub fn remove(&mut self, id: &NodeId) -> bool {
        match self.0.binary_search(id) {
            Ok(i) => {
                self.0.remove(i);
                true
            }
            Err(_) => false,
        }
    }

    pub fn contains(&self, id: &NodeId) -> bool {
        self.0.binary_search(id).is_ok()
    }

    pub fn clear(&mut self) {
        self.0.clear();
    }

    pub fn len(&self) -> usize {
        self.0.len()
    }

    pub fn is_empty(&self) -> bool {
        self.0.is_empty()
    }

    /// The members in increasing id order.
    pub fn as_slice(&self) -> &[NodeId] {
        &self.0
    }

    pub fn iter(&self) -> std::iter::Copied<std::slice::Iter<'_, NodeId>> {
        self.0.iter().copied()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::collections::BTreeSet;

    /// Behaves like a `BTreeSet` under any sequence of inserts and removes.
    #[test]
    fn matches_btreeset() {
        let mut a = NodeSet::new();
        let mut b = BTreeSet::new();
        let mut x: u32 = 12345;
        for _ in 0..5000 {
            x = x.wrapping_mul(1_103_515_245).wrapping_add(12_345);
            let id = (x >> 16) % 40;
            if x & 1 == 0 {
                assert_eq!(a.insert(id), b.insert(id));
            } else {
                assert_eq!(a.remove(&id), b.remove(&id));
            }
            assert_eq!(a.len(), b.len());
            assert_eq!(a.contains(&id), b.contains(&id));
        }
        assert!(a.iter().eq(b.iter().copied()));
        assert_eq!(a.is_empty(), b.is_empty());
    }
}
