//! A Raft server at a glance (`Model::glance`, issue 40, after RaftScope): its term inside the
//! node, the node coloured by role, the leader in a bold ring. Shared by Raft and Ozone's
//! datanodes (Ozone adds its state machine's health and SCM).

use super::node::Role;
use crate::model::{Glance, GlanceLegend};

/// Role fills, dark enough to carry white text at WCAG's 4.5:1 (checked by a test).
pub const LEADER: &str = "#1b7a3e";
pub const CANDIDATE: &str = "#b45309";
pub const FOLLOWER: &str = "#1d5fbf";
/// The leader's ring: the theme's text colour, the strongest contrast on the panel.
pub const LEADER_RING: &str = "@fg";

pub const FILLS: &[(&str, &str)] = &[
    (LEADER, "leader"),
    (CANDIDATE, "candidate (pre-vote or election)"),
    (FOLLOWER, "follower"),
];
pub const RINGS: &[(&str, &str)] = &[(LEADER_RING, "the leader (a bold ring)")];

pub const LEGEND: GlanceLegend = GlanceLegend {
    fills: FILLS,
    rings: RINGS,
    text: "the term",
};

/// A running server of role `role` in term `term`. A stopped one keeps its last term inside,
/// on its status' fill (grey), as RaftScope draws a stopped server: the term it comes back
/// with (Ratis persists it, `raft-meta`), and how far behind it fell while down.
pub fn of(up: bool, role: Role, term: u64) -> Glance {
    if !up {
        return Glance {
            fill: None,
            text: term.to_string(),
            ring: None,
        };
    }
    let (fill, ring) = match role {
        Role::Leader => (LEADER, Some(LEADER_RING)),
        Role::Candidate { .. } => (CANDIDATE, None),
        Role::Follower => (FOLLOWER, None),
    };
    Glance {
        fill: Some(fill),
        text: term.to_string(),
        ring,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_leader_is_ringed_and_every_running_server_shows_its_term() {
        let g = of(true, Role::Leader, 3);
        assert_eq!(
            (g.fill, g.text.as_str(), g.ring),
            (Some(LEADER), "3", Some(LEADER_RING))
        );
        let g = of(true, Role::Candidate { pre: true }, 2);
        assert_eq!((g.fill, g.ring), (Some(CANDIDATE), None));
        assert_eq!(of(true, Role::Follower, 7).text, "7");
        // Down: no role fill nor ring (grey, by its status), its last term still inside.
        let g = of(false, Role::Leader, 3);
        assert_eq!((g.fill, g.text.as_str(), g.ring), (None, "3", None));
    }
}
