//! Runs kept beside the one on screen (issue 20): switching variant or seed parks the current
//! run here and takes the other one back if it was computed before, so switching back and forth
//! at the end of a 251-node run is a jump instead of computing the run again. Keyed by what
//! decides a run's history: scenario, variant, seed and the person's actions (by virtual time,
//! which stays the same across variants where the step numbers do not).
//!
//! Bounded by [`KEPT_RUNS_BYTES`] (trace + checkpoints + state, estimated) and [`MAX_KEPT`]
//! entries; the least recently parked goes first. This is the one holder of runs: compare mode
//! (`model/compare.rs`) takes its other side's run from here when it was kept, while compare is
//! open that run counts against the same budget (the kept runs shrink to make room for it), and
//! when compare closes or is rebuilt the side goes back here.

use super::nav::Marks;
use super::samples::Samples;
use clusterscope_core::engine::action::{Action, RecordedAction};
use clusterscope_core::runner::Run;
use clusterscope_core::session::ScenarioRef;
use clusterscope_core::time::Micros;

/// The most memory the kept runs may hold together (estimated, see [`run_bytes`]). A 251-node
/// run of ten virtual minutes is ~200-300 MB: one of them fits beside the one on screen.
pub const KEPT_RUNS_BYTES: usize = 480 << 20;
/// The most runs kept.
pub const MAX_KEPT: usize = 4;

/// What decides a run's history.
#[derive(Clone, Debug, PartialEq)]
pub struct RunKey {
    pub scenario: ScenarioRef,
    pub variant: String,
    pub seed: u64,
    /// The person's actions by virtual time.
    pub actions: Vec<(Micros, Action)>,
}

impl RunKey {
    pub fn new(
        scenario: &ScenarioRef,
        variant: &str,
        seed: u64,
        actions: &[RecordedAction],
    ) -> Self {
        RunKey {
            scenario: scenario.clone(),
            variant: variant.to_string(),
            seed,
            actions: actions.iter().map(|a| (a.at.0, a.action.clone())).collect(),
        }
    }

    /// The key of `run` (its recorded actions) under `scenario`.
    pub fn of(scenario: &ScenarioRef, run: &Run) -> Self {
        RunKey::new(scenario, &run.variant, run.seed, run.engine.user_actions())
    }
}

/// A parked run with what the app derived from it while computing (plots, timeline marks), so
/// taking it back needs no recomputation.
pub struct Kept {
    pub key: RunKey,
    pub run: Run,
    pub samples: Samples,
    pub marks: Marks,
    pub bytes: usize,
}

/// Estimated memory of a run: its trace, checkpoints and current state.
pub fn run_bytes(run: &Run) -> usize {
    let e = &run.engine;
    let state = e.approx_bytes();
    e.trace().approx_bytes() + state * (1 + e.checkpoint_count())
}

/// The kept runs, least recently parked first.
pub struct Runs {
    kept: Vec<Kept>,
    /// Bytes the kept runs may hold together ([`KEPT_RUNS_BYTES`]; tests lower it).
    pub budget: usize,
}

impl Default for Runs {
    fn default() -> Self {
        Runs {
            kept: Vec::new(),
            budget: KEPT_RUNS_BYTES,
        }
    }
}

impl Runs {
    /// Keep `run` (replacing one with the same key), then drop the oldest until within the
    /// budget; a run larger than the whole budget is not kept.
    pub fn park(&mut self, key: RunKey, run: Run, samples: Samples, marks: Marks) {
        self.kept.retain(|k| k.key != key);
        let bytes = run_bytes(&run);
        if bytes > self.budget {
            return;
        }
        self.kept.push(Kept {
            key,
            run,
            samples,
            marks,
            bytes,
        });
        self.trim();
    }

    /// Drop the oldest kept runs until within [`MAX_KEPT`] and the budget.
    pub fn trim(&mut self) {
        while self.kept.len() > MAX_KEPT || self.bytes() > self.budget {
            self.kept.remove(0);
        }
    }

    /// Take the run with this key out, if kept.
    pub fn take(&mut self, key: &RunKey) -> Option<Kept> {
        let i = self.kept.iter().position(|k| k.key == *key)?;
        Some(self.kept.remove(i))
    }

    /// The run with this key, if kept (left in place).
    pub fn get(&self, key: &RunKey) -> Option<&Kept> {
        self.kept.iter().find(|k| k.key == *key)
    }

    /// Drop every kept run.
    pub fn clear(&mut self) {
        self.kept.clear();
    }

    /// Drop the kept runs of other scenarios (another scenario was opened: theirs would only hold
    /// memory until evicted).
    pub fn retain_scenario(&mut self, scenario: &ScenarioRef) {
        self.kept.retain(|k| k.key.scenario == *scenario);
    }

    pub fn len(&self) -> usize {
        self.kept.len()
    }

    pub fn is_empty(&self) -> bool {
        self.kept.is_empty()
    }

    /// Estimated bytes held.
    pub fn bytes(&self) -> usize {
        self.kept.iter().map(|k| k.bytes).sum()
    }

    /// The keys held, oldest first.
    pub fn keys(&self) -> impl Iterator<Item = &RunKey> {
        self.kept.iter().map(|k| &k.key)
    }
}
