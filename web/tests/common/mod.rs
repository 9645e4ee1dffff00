//! Helpers shared by the reducer tests (`reducer.rs`, `issue14.rs`): a fresh store, dispatch as
//! the UI does, and ticks until nothing plays or seeks.

use clusterscope_web::model::{Model, Msg, Store};
use std::rc::Rc;
use yew::Reducible;

/// A fresh store as the app builds it (with the model panels' snapshots).
pub fn store() -> Rc<Store> {
    Rc::new(Store::new(
        Model::new().with_snapshots(clusterscope_web::models::snapshot),
    ))
}

pub fn send(s: Rc<Store>, m: Msg) -> Rc<Store> {
    s.reduce(m)
}

/// Dispatch ticks until nothing is playing or seeking (bounded).
pub fn settle(mut s: Rc<Store>) -> Rc<Store> {
    for _ in 0..100_000 {
        if !s.model.borrow().busy() {
            return s;
        }
        s = send(
            s,
            Msg::Tick {
                dt_ms: 16.0,
                cost_ms: 1.0,
                render_ms: 0.0,
            },
        );
    }
    panic!("the model never settled");
}

/// Evaluate the branches due as the page's worker does (`sweep::check::check_session`, the
/// Expectations list's path) and answer with `Msg::BranchEvaluated`.
#[allow(dead_code)]
pub fn evaluate(mut s: Rc<Store>) -> Rc<Store> {
    use clusterscope_web::sweep::check::{check_session, expectations_of};
    let jobs = {
        let m = s.model.borrow();
        if m.branches_auto() {
            m.branch_jobs()
        } else {
            Vec::new()
        }
    };
    for j in jobs {
        let out = j
            .scenario
            .clone()
            .and_then(|(b, t)| check_session(&b, &t, &j.variant, j.seed));
        s = send(
            s,
            Msg::BranchEvaluated {
                index: j.index,
                actions: j.actions,
                outcome: expectations_of(out),
            },
        );
    }
    s
}
