//! The safety-violation banner (issue 38): once the cursor is at or after a step where the
//! model's invariant check failed (`Protocol::check`, kept in `Trace::violations`), a red line in
//! the dock names the invariant, says what is broken and on which nodes, and when — whatever the
//! variant expects, so a broken invariant is never silent. The same violations are marked on the
//! timeline (`draw::timeline`) and their nodes outlined on the topology (`draw::topology`).

use crate::draw::violation::node_names;
use crate::kit::{t, PanelProps};
use crate::model::Msg;
use clusterscope_core::engine::trace::ViolationRec;
use yew::prelude::*;

/// The violations a cursor at `step` has passed, in order.
pub fn passed(trace: &clusterscope_core::engine::trace::Trace, step: u64) -> &[ViolationRec] {
    trace.violations_before(step)
}

#[function_component(ViolationBanner)]
pub fn violation_banner(p: &PanelProps) -> Html {
    let m = p.s.model.borrow();
    let trace = m.run.engine.trace();
    let seen = passed(trace, m.cursor());
    let Some(v) = seen.last() else {
        return html! { <div id="violation" class="violation none" aria-hidden="true"></div> };
    };
    let names = &m.run.scenario.topo.names;
    let nodes = node_names(names, v);
    let at = v.time;
    let go = {
        let s = p.s.clone();
        Callback::from(move |_| {
            crate::platform::perf::jump_start();
            s.dispatch(Msg::ScrubTo(at))
        })
    };
    let more = match seen.len() {
        1 => String::new(),
        n => format!(" ({n} violations so far; the latest)"),
    };
    let chips = v
        .violation
        .nodes
        .iter()
        .filter_map(|&n| names.get(n as usize))
        .map(|n| {
            html! { <span class="chip vio-node">{ n.clone() }</span> }
        });
    let text = format!(
        "Safety violated at {}: {} — {}{more}",
        t(at),
        v.violation.invariant,
        v.violation.detail
    );
    html! {
        <div id="violation" class="violation" role="alert" title={format!("{text} ({nodes})")}
            data-invariant={v.violation.invariant} data-nodes={nodes.replace(", ", ",")}
            data-time-us={at.to_string()} data-count={seen.len().to_string()}>
            <span class="vio-icon" aria-hidden="true">{ "!" }</span>
            <span class="vio-text">
                <b>{ format!("Safety violated at {}:", t(at)) }</b>{ " " }
                <b>{ v.violation.invariant }</b>{ format!(" — {}{more}", v.violation.detail) }
            </span>
            <span class="vio-nodes"><>{ for chips }</></span>
            <button id="violation-go" class="btn small-btn" onclick={go}
                title="Move the cursor to the moment the invariant broke">{ "go to it" }</button>
        </div>
    }
}
