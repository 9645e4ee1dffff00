//! A node's endpoint state map as copy-on-write chunks (issue 20): a checkpoint (a clone of the
//! world) copies a pointer per chunk instead of the 64-byte entry of every peer, and a chunk is
//! copied only when an entry in it changes afterwards. The map changes rarely next to heartbeats
//! (those go to the summary column, see `GNode::summaries`), so consecutive checkpoints share
//! most of it: at 251 nodes the maps are ~4 MB of a ~11 MB checkpoint.

use super::state::EndpointState;
use std::ops::{Index, IndexMut};
use std::sync::Arc;

/// Entries per chunk: 16 x 64 B = 1 KiB copied when one of them changes.
pub const CHUNK: usize = 16;

type Entry = Option<EndpointState>;

#[derive(Clone, Debug, Default, PartialEq)]
pub struct CowMap {
    chunks: Vec<Arc<[Entry]>>,
    len: usize,
}

impl CowMap {
    pub fn from_vec(v: Vec<Entry>) -> Self {
        let len = v.len();
        let chunks = v.chunks(CHUNK).map(Arc::from).collect();
        CowMap { chunks, len }
    }

    pub fn len(&self) -> usize {
        self.len
    }

    pub fn is_empty(&self) -> bool {
        self.len == 0
    }

    pub fn get(&self, i: usize) -> Option<&Entry> {
        (i < self.len).then(|| &self.chunks[i / CHUNK][i % CHUNK])
    }

    pub fn iter(&self) -> impl Iterator<Item = &Entry> {
        self.chunks.iter().flat_map(|c| c.iter())
    }

    /// Heap bytes, each chunk counted as its share among the maps holding it (a chunk shared by
    /// a node's state and three checkpoints counts a quarter in each).
    pub fn approx_bytes(&self) -> usize {
        self.chunks.len() * std::mem::size_of::<Arc<[Entry]>>()
            + self
                .chunks
                .iter()
                .map(|c| std::mem::size_of_val::<[Entry]>(c) / Arc::strong_count(c))
                .sum::<usize>()
    }

    /// Whether entry `i`'s chunk is the same allocation in both maps (tests).
    pub fn shares_chunk_with(&self, o: &CowMap, i: usize) -> bool {
        Arc::ptr_eq(&self.chunks[i / CHUNK], &o.chunks[i / CHUNK])
    }
}

impl Index<usize> for CowMap {
    type Output = Entry;
    #[inline]
    fn index(&self, i: usize) -> &Entry {
        debug_assert!(i < self.len);
        &self.chunks[i / CHUNK][i % CHUNK]
    }
}

/// Writing an entry copies its chunk first when another map (a checkpoint) shares it.
impl IndexMut<usize> for CowMap {
    #[inline]
    fn index_mut(&mut self, i: usize) -> &mut Entry {
        debug_assert!(i < self.len);
        &mut Arc::make_mut(&mut self.chunks[i / CHUNK])[i % CHUNK]
    }
}
