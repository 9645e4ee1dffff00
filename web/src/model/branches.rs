//! The branch tree (issue 18): acting at a cursor before the computed future — a fork from a
//! message, or any action at an earlier time — starts a new branch and keeps the old future as
//! a branch of its own (its recorded actions: the replay computes it again). Branches are listed
//! under the timeline, switched in one click (the cursor keeps its time), each with its
//! expectations evaluated at the end of the scenario, and travel in the permalink
//! (`Session::branches`) and in an exported scenario's session line
//! (`clusterscope_core::session::SESSION_MARKER`), which an import restores.
//!
//! Branches belong to one scenario, variant and seed (actions are recorded by step): loading
//! another session starts a single branch again.

use super::*;
use clusterscope_core::runner::ExpectResult;
use clusterscope_core::session::BranchRef;

/// Up to this many nodes, a branch's expectations are evaluated as soon as it appears (a run
/// to the end of the scenario, in a Web Worker: [`Model::branch_jobs`]); above, on request
/// ([`Msg::EvaluateBranches`]).
pub const AUTO_EVAL_MAX_NODES: usize = 64;

/// A branch's expectations at the end of the scenario (`Err`: the replay stopped).
pub type Outcome = Result<Vec<ExpectResult>, String>;

/// One branch of the session.
#[derive(Clone, Debug, PartialEq)]
pub struct Branch {
    /// The branch it was forked from.
    pub parent: Option<usize>,
    /// What started it, for the list ("original" for the first).
    pub what: String,
    /// Virtual time it forked at.
    pub at: Micros,
    /// Its recorded actions (the shown branch's are the engine's: see [`Model::branch_actions`]).
    pub actions: Vec<RecordedAction>,
    /// Its expectations at the end of the scenario, with the actions they were evaluated for
    /// (stale when those differ); `Err`: the replay stopped.
    pub expectations: Option<(Vec<RecordedAction>, Outcome)>,
}

/// The branches and the one shown. Empty: the session has one branch.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Branches {
    pub list: Vec<Branch>,
    pub current: usize,
    /// Evaluation was asked for ([`Msg::EvaluateBranches`]): above
    /// [`AUTO_EVAL_MAX_NODES`] too, from then on in this session.
    pub requested: bool,
}

/// A branch whose expectations are missing or stale, as a worker checks it
/// (`crate::sweep::check::check_session`, the same path as the session's Expectations list):
/// the scenario (a built-in's name, else a file's text with the branch's recorded actions),
/// variant and seed. The answer comes back as [`Msg::BranchEvaluated`] with `actions`.
#[derive(Clone, Debug, PartialEq)]
pub struct BranchJob {
    pub index: usize,
    pub actions: Vec<RecordedAction>,
    /// (built-in name, scenario text), or why the branch cannot be written as a scenario.
    pub scenario: Result<(String, String), String>,
    pub variant: String,
    pub seed: u64,
}

impl Branches {
    /// How deep branch `i` is in the tree (0 for the original).
    pub fn depth(&self, i: usize) -> usize {
        let mut d = 0;
        let mut p = self.list.get(i).and_then(|b| b.parent);
        while let Some(k) = p {
            d += 1;
            p = self.list.get(k).and_then(|b| b.parent).filter(|x| *x < k);
        }
        d
    }
}

impl Model {
    /// Branch `i`'s recorded actions (the shown one's from the engine).
    pub fn branch_actions(&self, i: usize) -> Vec<RecordedAction> {
        if i == self.branches.current {
            self.run.engine.user_actions().to_vec()
        } else {
            self.branches
                .list
                .get(i)
                .map(|b| b.actions.clone())
                .unwrap_or_default()
        }
    }

    /// Branch `i`'s expectations, when evaluated for its present actions.
    pub fn branch_expectations(&self, i: usize) -> Option<&Outcome> {
        let b = self.branches.list.get(i)?;
        let (for_actions, r) = b.expectations.as_ref()?;
        (*for_actions == self.branch_actions(i)).then_some(r)
    }

    /// The branches as a permalink carries them.
    pub fn branch_refs(&self) -> Vec<BranchRef> {
        (0..self.branches.list.len())
            .map(|i| {
                let b = &self.branches.list[i];
                BranchRef {
                    parent: b.parent,
                    what: b.what.clone(),
                    at_us: b.at,
                    actions: self.branch_actions(i),
                }
            })
            .collect()
    }

    /// An accepted action at an earlier cursor: `old` (the actions before it) stays as the
    /// branch it was, and the session goes on in a new branch.
    pub(super) fn branch_off(&mut self, old: Vec<RecordedAction>, what: &str, at: Micros) {
        if self.branches.list.is_empty() {
            self.branches.list.push(Branch {
                parent: None,
                what: "original".into(),
                at: 0,
                actions: Vec::new(),
                expectations: None,
            });
            self.branches.current = 0;
        }
        let cur = self.branches.current;
        self.branches.list[cur].actions = old;
        self.branches.list.push(Branch {
            parent: Some(cur),
            what: what.to_string(),
            at,
            actions: Vec::new(),
            expectations: None,
        });
        self.branches.current = self.branches.list.len() - 1;
    }

    /// Show branch `i`, at the cursor's time.
    pub(super) fn switch_branch(&mut self, i: usize) {
        if i >= self.branches.list.len() || i == self.branches.current {
            return;
        }
        self.stop();
        let cur = self.branches.current;
        self.branches.list[cur].actions = self.run.engine.user_actions().to_vec();
        let t = self.now();
        let actions = self.branches.list[i].actions.clone();
        let saved = std::mem::take(&mut self.branches);
        let r = self.scenario_ref.clone();
        let scenario = self.run.scenario.clone();
        let (v, seed) = (self.run.variant.clone(), self.run.seed);
        let ok = self
            .load(r, Some(scenario), Some(&v), Some(seed), Some(actions))
            .is_some();
        self.branches = saved;
        if ok {
            self.branches.current = i;
            let what = self.branches.list[i].what.clone();
            self.info(format!("Branch {}: {what}", i + 1));
            if t > 0 {
                self.start_seek(Seek::Time(t));
            }
        }
    }

    /// Go to virtual time `at` (within the computed trace) and take `action` there.
    pub(super) fn fork_at(&mut self, at: Micros, action: Action) {
        let trace = self.run.engine.trace();
        if at > nav::frontier_time(trace) {
            self.error(format!(
                "{} is not computed yet: compute up to it first. Nothing was changed.",
                fmt_time(at)
            ));
            return;
        }
        let k = nav::step_at_time(trace, at);
        self.stop();
        self.snapshot();
        if self.engine_ok(|m| m.run.engine.jump_to_step(k))
            && self.engine_ok(|m| m.run.engine.run_until(at, 1).map(|_| ()))
        {
            self.after_move();
            self.user_action(action);
        }
    }

    /// Whether branches are evaluated now: small clusters always, larger ones once asked.
    pub fn branches_auto(&self) -> bool {
        self.n() <= AUTO_EVAL_MAX_NODES || self.branches.requested
    }

    /// The branches whose expectations are missing or stale, as worker jobs (none while the
    /// session has one branch).
    pub fn branch_jobs(&self) -> Vec<BranchJob> {
        if self.branches.list.len() < 2 {
            return Vec::new();
        }
        // The scenario with the person's own expectations, as the Expectations list checks it.
        let checked = self.checked_scenario();
        (0..self.branches.list.len())
            .filter(|i| self.branch_expectations(*i).is_none())
            .map(|index| {
                let actions = self.branch_actions(index);
                let scenario = checked
                    .as_ref()
                    .map_err(Clone::clone)
                    .and_then(|(r, with)| {
                        crate::sweep::check::session_job(r, with, self.run.seed, &actions)
                    });
                BranchJob {
                    index,
                    actions,
                    scenario,
                    variant: self.run.variant.clone(),
                    seed: self.run.seed,
                }
            })
            .collect()
    }

    /// A worker's answer for branch `index` evaluated with `actions`; ignored when the branch
    /// has other actions by now (a stale answer).
    pub(super) fn branch_evaluated(
        &mut self,
        index: usize,
        actions: Vec<RecordedAction>,
        outcome: Outcome,
    ) {
        if index < self.branches.list.len() && self.branch_actions(index) == actions {
            self.branches.list[index].expectations = Some((actions, outcome));
        }
    }

    /// Take the branches of a permalink (after its session is installed).
    pub(super) fn restore_branches(&mut self, refs: Vec<BranchRef>, current: usize) {
        if refs.is_empty() {
            return;
        }
        self.branches = Branches {
            current: current.min(refs.len() - 1),
            list: refs
                .into_iter()
                .map(|b| Branch {
                    parent: b.parent,
                    what: b.what,
                    at: b.at_us,
                    actions: b.actions,
                    expectations: None,
                })
                .collect(),
            requested: false,
        };
    }
}
