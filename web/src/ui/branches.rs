//! The branch list under the timeline (issue 18, `model/branches.rs`): one button per branch,
//! indented by its depth in the tree, with its expectations (passed / in all); one click shows
//! it. Under the list, the shown branch's failing expectations and why. Hidden while the session
//! has one branch. The expectations are evaluated in a Web Worker, the Expectations list's path
//! (`sweep::check`): the model lists the jobs (`Model::branch_jobs`), this component sends them
//! and dispatches the answers (`Msg::BranchEvaluated`). In the split release build its code is in
//! the part `actions`, drawn through `ui::actions::Actions` from two branches on (issue 44).

use crate::kit::{Handle, PanelProps};
use crate::model::branches::BranchJob;
use crate::model::Msg;
use crate::sweep::check::expectations_of;
use crate::sweep::workers::Pool;
use clusterscope_core::engine::action::RecordedAction;
use std::cell::RefCell;
use std::collections::VecDeque;
use std::rc::Rc;
use yew::prelude::*;

/// A branch sent to the worker: its index and the actions it is evaluated with.
type Sent = (usize, Vec<RecordedAction>);

/// The worker evaluating branches (the Expectations list's path, `sweep::check`), with what it
/// was sent, in order (a worker answers its messages in order). Dropped: terminated.
struct Eval {
    _pool: Pool,
    pending: Rc<RefCell<VecDeque<Sent>>>,
}

/// Send `jobs` to a new worker; its answers come back as [`Msg::BranchEvaluated`]. A job
/// whose branch cannot be written as a scenario is answered at once with why.
fn start(s: &Handle, jobs: Vec<BranchJob>) -> Option<Eval> {
    let pending: Rc<RefCell<VecDeque<Sent>>> = Rc::default();
    let on_reply = {
        let (s, pending) = (s.clone(), pending.clone());
        Rc::new(move |(_, res): crate::sweep::workers::Reply| {
            let Some((index, actions)) = pending.borrow_mut().pop_front() else {
                return;
            };
            s.dispatch(Msg::BranchEvaluated {
                index,
                actions,
                outcome: expectations_of(res),
            });
        })
    };
    let fail = |j: BranchJob, e: String| {
        s.dispatch(Msg::BranchEvaluated {
            index: j.index,
            actions: j.actions,
            outcome: Err(e),
        })
    };
    let pool = match Pool::start(1, on_reply) {
        Ok(p) => p,
        Err(e) => {
            for j in jobs {
                fail(j, e.clone());
            }
            return None;
        }
    };
    for j in jobs {
        match &j.scenario {
            Ok((builtin, text)) => match pool.send_check(0, builtin, text, &j.variant, j.seed) {
                Ok(()) => pending.borrow_mut().push_back((j.index, j.actions)),
                Err(e) => fail(j, e),
            },
            Err(e) => {
                let e = e.clone();
                fail(j, e)
            }
        }
    }
    Some(Eval {
        _pool: pool,
        pending,
    })
}

#[function_component(BranchList)]
pub fn branch_list(p: &PanelProps) -> Html {
    let eval = use_mut_ref(|| None::<Eval>);
    let m = p.s.model.borrow();
    // The branches to evaluate now, in a worker: a new set replaces the worker unless it is
    // already working on every one of them; none left, the worker goes (with its memory).
    let jobs = if m.branches_auto() {
        m.branch_jobs()
    } else {
        Vec::new()
    };
    {
        let key: Vec<Sent> = jobs.iter().map(|j| (j.index, j.actions.clone())).collect();
        let (s, eval) = (p.s.clone(), eval.clone());
        use_effect_with(key, move |key| {
            let busy_with_all = eval.borrow().as_ref().is_some_and(|e| {
                let pending = e.pending.borrow();
                !pending.is_empty() && key.iter().all(|k| pending.contains(k))
            });
            if !busy_with_all {
                *eval.borrow_mut() = None;
                let wait =
                    jobs.iter().any(|j| j.scenario.is_err()) && !crate::reader::writer_loaded();
                if key.is_empty() {
                    // Nothing to evaluate.
                } else if wait {
                    // A branch as a scenario file needs the scenario writer: in the split release
                    // build a part, fetched now; the branches are listed again once it is in.
                    crate::reader::take_writer_wanted();
                    wasm_bindgen_futures::spawn_local(async move {
                        let r = crate::platform::load_part(crate::reader::WRITER_PART).await;
                        if crate::crash::stopped() {
                            return;
                        }
                        let jobs = match r {
                            Ok(()) => s.model.borrow().branch_jobs(),
                            Err(()) => jobs
                                .into_iter()
                                .map(|mut j| {
                                    j.scenario = Err(format!(
                                        "Could not check: {}.",
                                        crate::reader::WRITER_FAILED
                                    ));
                                    j
                                })
                                .collect(),
                        };
                        *eval.borrow_mut() = start(&s, jobs);
                    });
                } else {
                    *eval.borrow_mut() = start(&s, jobs);
                }
            }
        });
    }
    let b = &m.branches;
    if b.list.len() < 2 {
        return html! {};
    }
    let mut unevaluated = false;
    let items = b.list.iter().enumerate().map(|(i, br)| {
        let current = i == b.current;
        let (passed, label) = match m.branch_expectations(i) {
            Some(Ok(e)) => {
                let ok = e.iter().filter(|x| x.passed).count();
                let all = ok == e.len();
                (
                    if all { "true" } else { "false" },
                    format!("{} {ok}/{}", if all { "✓" } else { "✗" }, e.len()),
                )
            }
            Some(Err(_)) => ("false", "stopped".to_string()),
            None => {
                unevaluated = true;
                ("unknown", "…".to_string())
            }
        };
        let s = p.s.clone();
        let onclick = Callback::from(move |_| s.dispatch(Msg::SwitchBranch(i)));
        let indent = "↳ ".repeat(b.depth(i).min(4));
        html! {
            <button class={classes!("branch", current.then_some("current"))} data-branch={i.to_string()}
                data-current={current.to_string()} data-passed={passed} aria-pressed={current.to_string()}
                title={format!("Branch {} from {}: {} (expectations: {label})", i + 1, crate::kit::t(br.at), br.what)} {onclick}>
                <span class="muted">{ indent }</span>
                { format!("{}. {}", i + 1, br.what) }
                <span class={classes!("exp", match passed { "true" => "ok", "false" => "bad", _ => "muted" })}>{ label }</span>
            </button>
        }
    }).collect::<Vec<Html>>();
    let failing = match m.branch_expectations(b.current) {
        Some(Ok(e)) => {
            let bad: Vec<_> = e.iter().filter(|x| !x.passed).collect();
            if bad.is_empty() {
                html! { <div class="muted small">{ format!("This branch: all {} expectations hold.", e.len()) }</div> }
            } else {
                html! {
                    <ul class="branch-fail" id="branch-failing">
                        <>{ for bad.iter().map(|x| html! {
                            <li data-expectation={x.name.clone()}><b>{ format!("✗ {}", x.name) }</b>{ format!(" — {}", x.detail) }</li>
                        }) }</>
                    </ul>
                }
            }
        }
        Some(Err(e)) => {
            html! { <div class="bad small">{ format!("This branch's replay stopped: {e}") }</div> }
        }
        None => html! {},
    };
    let eval = (unevaluated && !m.branches.requested).then(|| {
        let s = p.s.clone();
        let onclick = Callback::from(move |_| s.dispatch(Msg::EvaluateBranches));
        html! { <button id="branches-eval" class="btn small-btn" {onclick} title="Run every branch to the end and check its expectations">{ "Evaluate expectations" }</button> }
    });
    html! {
        <div class="branches" id="branches" data-count={b.list.len().to_string()} data-current={b.current.to_string()}>
            <span class="muted small">{ "Branches" }</span>
            <>{ for items }</>
            <>{ for eval }</>
            { failing }
        </div>
    }
}
