//! Gossip's own panels: the inspector (endpoint state map, inflightEcho, phi, GossipStage,
//! connections). The matrix, plots and topology come from `gossip/model.rs` in core.

pub mod inspector;

use clusterscope_core::engine::NodeId;
use clusterscope_core::gossip::Gossip;
use clusterscope_core::runner::Run;
use std::any::Any;
use std::rc::Rc;

/// The node's endpoint state map, to highlight what the next move changes.
pub fn snapshot(run: &Run, id: NodeId) -> Option<Rc<dyn Any>> {
    let sim = run.sim_of::<Gossip>()?;
    Some(Rc::new(sim.nodes[id as usize].state.states()))
}
