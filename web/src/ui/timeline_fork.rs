//! Fork from the timeline (issue 18): a right-click near a dropped-message mark or a state mark
//! (or "fork here…" at the cursor; a plain click only scrubs, issue 40) opens a bar under the
//! timeline with what can be forked there (`Model::timeline_pick`): "deliver"
//! for each dropped message near the click, and the log's fork actions (kill, restart, stall a
//! thread) for each node with a state mark there. Each button forks as the sequence diagram's
//! and the log's do ([`Msg::Fork`], [`Msg::ForkAt`]): a new branch, the original stays. In the split
//! release build [`bar`] is in the part `actions`, drawn through `ui::actions::Actions` (issue 44).

use crate::kit::{stamp, Handle};
use crate::model::timeline_fork::TimelinePick;
use crate::model::{Model, Msg};
use clusterscope_core::engine::action::{Action, MsgFate};
use clusterscope_core::engine::trace::RecKind;
use yew::prelude::*;

/// Most drops named in the timeline canvas's `data-drops`.
const MAX_LISTED_DROPS: usize = 200;

/// `time:label:msg` of the dropped messages in the timeline's window (the first
/// [`MAX_LISTED_DROPS`]), where the timeline draws them; for tests and assistive tooling.
pub fn listed_drops(m: &Model) -> String {
    let (lo, hi) = m.view();
    let trace = m.run.engine.trace();
    let a = trace.recs.partition_point(|r| r.time < lo);
    let b = trace.recs.partition_point(|r| r.time <= hi);
    if b.saturating_sub(a) > crate::model::teach::MAX_DROP_SCAN {
        return String::new();
    }
    trace
        .recs
        .range(a..b)
        .filter_map(|r| match r.kind {
            RecKind::Drop { msg, label, .. } => Some(format!("{}:{label}:{msg}", r.time)),
            _ => None,
        })
        .take(MAX_LISTED_DROPS)
        .collect::<Vec<_>>()
        .join(",")
}

/// `time:node:above|below` of the state marks in the timeline's window (the first
/// [`MAX_LISTED_DROPS`]); for tests and assistive tooling.
pub fn listed_marks(m: &Model) -> String {
    use crate::model::nav::MarkKind;
    let (lo, hi) = m.view();
    let marks = &m.marks.marks;
    let a = marks.partition_point(|k| k.time < lo);
    let b = marks.partition_point(|k| k.time <= hi).max(a);
    marks[a..b]
        .iter()
        .filter_map(|k| {
            let side = match k.kind {
                MarkKind::Down => "above",
                MarkKind::Up => "below",
                _ => return None,
            };
            Some(format!("{}:{}:{side}", k.time, m.name(k.node)))
        })
        .take(MAX_LISTED_DROPS)
        .collect::<Vec<_>>()
        .join(",")
}

/// The fork bar for `pick` (`#tl-fork[data-time-us]`): `.tl-fork-deliver[data-msg]` buttons,
/// and per node `.tl-fork-kill`, `.tl-fork-restart`, `.tl-fork-stall[data-executor]` (each with
/// `data-node`).
pub fn bar(m: &Model, s: &Handle, pick: &TimelinePick, close: Callback<MouseEvent>) -> Html {
    let delivers = pick.drops.iter().map(|d| {
        let s = s.clone();
        let msg = d.msg;
        let onclick = Callback::from(move |_| {
            s.dispatch(Msg::Fork {
                msg,
                fate: MsgFate::Deliver,
            })
        });
        let what = format!("{} {} → {}", d.label, m.name(d.from), m.name(d.to));
        html! {
            <button class="btn small-btn tl-fork-deliver" data-msg={msg.to_string()} data-label={d.label}
                title={format!("Fork: deliver this {what} (lost at {}); the original run stays", stamp(d.time))}
                {onclick}>{ format!("deliver {what}") }</button>
        }
    });
    let at = pick.at;
    let nodes = pick
        .nodes
        .iter()
        .filter(|n| (**n as usize) < m.n())
        .map(|n| {
            let name = m.name(*n).to_string();
            let btn = |class: &'static str, label: String, action: Action, extra: Option<String>| {
                let s = s.clone();
                let onclick = Callback::from(move |_| {
                    s.dispatch(Msg::ForkAt {
                        at,
                        action: action.clone(),
                    })
                });
                html! {
                    <button class={classes!("btn", "small-btn", class)} data-node={name.clone()}
                        data-executor={extra} {onclick}>{ label }</button>
                }
            };
            let stalls = m.run.engine.executors().iter().take(3).map(|x| {
                btn(
                    "tl-fork-stall",
                    format!("stall {x}"),
                    Action::Stall {
                        node: name.clone(),
                        executor: x.to_string(),
                    },
                    Some(x.to_string()),
                )
            });
            html! {
                <span class="tl-fork-node">
                    <b>{ format!("{name}:") }</b>
                    { btn("tl-fork-kill", "kill".into(), Action::Kill { node: name.clone() }, None) }
                    { btn("tl-fork-restart", "restart".into(), Action::Restart { node: name.clone(), kill: false, down_for: None }, None) }
                    <>{ for stalls }</>
                </span>
            }
        });
    html! {
        <div class="log-fork tl-fork" id="tl-fork" data-time-us={at.to_string()}
            data-drops={pick.drops.len().to_string()} data-nodes={pick.nodes.len().to_string()}>
            <span class="muted small">{ format!("Fork at {}:", crate::kit::t(at)) }</span>
            <>{ for delivers }</>
            { crate::kit::slot((pick.drops.is_empty() && pick.nodes.is_empty()).then(|| html! {
                <span class="muted small">{ "nothing marked here: select a node to fork its actions" }</span>
            })) }
            <>{ for nodes }</>
            <button id="tl-fork-close" class="icon" title="Close" aria-label="Close the fork bar" onclick={close}>{ "×" }</button>
        </div>
    }
}
