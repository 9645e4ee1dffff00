//! Clusterscope core: a deterministic discrete-event simulator of distributed-systems incidents.
//!
//! **Architecture invariant:** no I/O, no clock, no threads, no wasm or UI dependency. Time is a
//! number the engine advances; randomness comes from seeded ChaCha8 streams; iteration order never
//! depends on hashing. The same scenario, seed and user actions give the same trace everywhere.

pub mod catalogue;
pub mod diff;
pub mod engine;
pub mod explain;
#[cfg(feature = "gossip")]
pub mod gossip;
pub mod hunt;
pub mod lazy;
pub mod limits;
pub mod meaning;
pub mod model;
pub mod moments;
#[cfg(feature = "mutation-tracking")]
pub mod mutation;
#[cfg(feature = "ozone")]
pub mod ozone;
#[cfg(feature = "pingpong")]
pub mod pingpong;
pub mod query;
#[cfg(feature = "raft")]
pub mod raft;
pub mod registry;
pub mod rng;
pub mod runner;
pub mod scenario;
pub mod scenario_file;
pub mod session;
pub mod small_sort;
pub mod sweep;
pub mod text;

pub mod time;
pub mod typed;
pub mod user_expect;

pub use engine::{Engine, NodeId, NodeStatus, Protocol, Sim, SimError, Topology};
pub use runner::{Report, Run};
pub use scenario::Scenario;
