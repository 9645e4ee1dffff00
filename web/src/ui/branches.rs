//! The branch list under the timeline (issue 18, `model/branches.rs`): one button per branch,
//! indented by its depth in the tree, with its expectations (passed / in all); one click shows
//! it. Under the list, the shown branch's failing expectations and why. Hidden while the session
//! has one branch.

use super::PanelProps;
use crate::model::Msg;
use yew::prelude::*;

#[function_component(BranchList)]
pub fn branch_list(p: &PanelProps) -> Html {
    let m = p.s.model.borrow();
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
                title={format!("Branch {} from {}: {} (expectations: {label})", i + 1, super::t(br.at), br.what)} {onclick}>
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
                        { for bad.iter().map(|x| html! {
                            <li data-expectation={x.name.clone()}><b>{ format!("✗ {}", x.name) }</b>{ format!(" — {}", x.detail) }</li>
                        }) }
                    </ul>
                }
            }
        }
        Some(Err(e)) => {
            html! { <div class="bad small">{ format!("This branch's replay stopped: {e}") }</div> }
        }
        None => html! {},
    };
    let eval = unevaluated.then(|| {
        let s = p.s.clone();
        let onclick = Callback::from(move |_| s.dispatch(Msg::EvaluateBranches));
        html! { <button id="branches-eval" class="btn small-btn" {onclick} title="Run every branch to the end and check its expectations">{ "Evaluate expectations" }</button> }
    });
    html! {
        <div class="branches" id="branches" data-count={b.list.len().to_string()} data-current={b.current.to_string()}>
            <span class="muted small">{ "Branches" }</span>
            { for items }
            { for eval }
            { failing }
        </div>
    }
}
