//! The node log: system.log-style lines with virtual timestamps, up to the cursor.

use crate::kit::{stamp, PanelProps};
use crate::model::{nav, Msg};
use clusterscope_core::engine::action::Action;
use clusterscope_core::engine::trace::LogLevel;
use clusterscope_core::time::Micros;
use yew::prelude::*;

/// Most lines rendered (about ten screens of the box): every line is DOM the browser lays out on
/// each move of the cursor; the whole log is in the trace export.
const MAX_LINES: usize = 150;

/// Whether `hay` contains `needle` (already lower case), ignoring ASCII case, without allocating
/// (a search runs over every computed line: a million at 251 nodes).
pub fn contains_ci(hay: &str, needle: &str) -> bool {
    let (h, n) = (hay.as_bytes(), needle.as_bytes());
    n.is_empty() || h.windows(n.len()).any(|w| w.eq_ignore_ascii_case(n))
}

#[function_component(LogPanel)]
pub fn log_panel(p: &PanelProps) -> Html {
    let s = &p.s;
    let all = use_state(|| false);
    let trace_lines = use_state(|| true);
    let query = use_state(String::new);
    // The line last clicked: the fork bar acts at its time on its node.
    let picked = use_state(|| None::<(Micros, u32)>);
    let m = s.model.borrow();
    let trace = m.run.engine.trace();
    let before = nav::logs_before_cursor(trace, m.cursor(), m.now());
    // A search looks through every computed line (also after the cursor: "when did this
    // happen?"); clicking a line moves the cursor to it.
    // ASCII case folding, as `contains_ci` compares (`str::to_lowercase` would bring std's
    // Unicode case tables into the first download: ~11 KB gzipped, issue 44).
    let q = query.trim().to_ascii_lowercase();
    let searching = !q.is_empty();
    let cut = if searching { trace.logs.len() } else { before };
    let node = m.selected;
    let show_all = *all || node.is_none();
    let with_trace = *trace_lines;
    let shown = |l: &&clusterscope_core::engine::trace::LogLine| {
        (show_all || Some(l.node) == node)
            && (with_trace || l.level != LogLevel::Trace)
            && (!searching || contains_ci(trace.text(l), &q))
    };
    let mut lines: Vec<_> = trace.logs[..cut]
        .iter()
        .rev()
        .filter(shown)
        .take(MAX_LINES)
        .collect();
    lines.reverse();
    // How many lines the filters pass up to the cursor (counted only when some are cut).
    let matching = if lines.len() < MAX_LINES {
        lines.len()
    } else if show_all && with_trace && !searching {
        cut
    } else {
        trace.logs[..cut].iter().filter(shown).count()
    };
    let topo = &m.run.scenario.topo;
    let now = m.now();
    let rows = lines.iter().map(|l| {
        let lvl = l.level.as_str();
        let at = l.time;
        let node = l.node;
        let onclick = {
            let s = s.clone();
            let picked = picked.clone();
            Callback::from(move |_| {
                picked.set(Some((at, node)));
                s.dispatch(Msg::ScrubTo(at))
            })
        };
        let future = at > now;
        html! {
            <div class={classes!("ll", lvl.to_ascii_lowercase(), future.then_some("future"))}
                data-time-us={at.to_string()} {onclick} title="Move the cursor to this line">
                // Each field ends with a space: "TRACE" fills its five columns, and the node name
                // must not run into it ("TRACEn9").
                <span class="lvl">{ format!("{lvl:<5} ") }</span>
                <>{ for show_all.then(|| html!{ <span class="lnode">{ format!("{:<6} ", topo.name(l.node)) }</span> }) }</>
                <span class="lts">{ format!("{} ", stamp(l.time)) }</span>
                <span class="ltext">{ trace.text(l) }</span>
            </div>
        }
    });
    let toggle_all = {
        let all = all.clone();
        Callback::from(move |_| all.set(!*all))
    };
    let toggle_trace = {
        let tl = trace_lines.clone();
        Callback::from(move |_| tl.set(!*tl))
    };
    let on_query = {
        let query = query.clone();
        Callback::from(move |e: InputEvent| {
            query.set(
                e.target_unchecked_into::<web_sys::HtmlInputElement>()
                    .value(),
            )
        })
    };
    // Fork from the picked line: kill / restart its node or stall one of its threads there.
    let fork_bar = picked
        .filter(|(_, n)| (*n as usize) < m.n())
        .map(|(at, n)| {
            let name = m.name(n).to_string();
            let btn = |id: String, label: String, action: Action| {
                let s = s.clone();
                let onclick = Callback::from(move |_| {
                    s.dispatch(Msg::ForkAt {
                        at,
                        action: action.clone(),
                    })
                });
                html! { <button id={id} class="btn small-btn" {onclick}>{ label }</button> }
            };
            let stalls = m.run.engine.executors().iter().take(3).map(|x| {
                btn(
                    format!("log-fork-stall-{x}"),
                    format!("stall {x} here"),
                    Action::Stall {
                        node: name.clone(),
                        executor: x.to_string(),
                    },
                )
            });
            html! {
                <div class="log-fork" id="log-fork" data-time-us={at.to_string()} data-node={name.clone()}>
                    <span class="muted small">{ format!("Fork at {} on {name}:", stamp(at)) }</span>
                    { btn("log-fork-kill".into(), "kill here".into(), Action::Kill { node: name.clone() }) }
                    { btn("log-fork-restart".into(), "restart here".into(), Action::Restart { node: name.clone(), kill: false, down_for: None }) }
                    <>{ for stalls }</>
                </div>
            }
        });
    let title = match (show_all, node) {
        (false, Some(n)) => format!("system.log · {}", m.name(n)),
        _ => "system.log · all nodes".to_string(),
    };
    html! {
        <section class="card log-card" aria-label="Log">
            <div class="card-head">
                <h2>{ title }</h2>
                { super::compare::side_label(&m) }
                <label class="check"><input type="checkbox" checked={*all} onchange={toggle_all} />{ "all nodes" }</label>
                <label class="check"><input type="checkbox" checked={*trace_lines} onchange={toggle_trace} />{ "TRACE lines" }</label>
                <input id="log-search" class="log-search" type="search" placeholder="search the log"
                    value={(*query).clone()} oninput={on_query} aria-label="Search the log (all computed lines)" />
                <span class="muted small" id="log-count">{
                    match (searching, matching > lines.len()) {
                        (true, true) => format!("{matching} matching lines computed · the last {MAX_LINES} shown · click one to go there"),
                        (true, false) => format!("{matching} matching lines computed · click one to go there"),
                        (false, true) => format!("{matching} lines up to the cursor · the last {MAX_LINES} shown"),
                        (false, false) => format!("{matching} lines up to the cursor"),
                    }
                }</span>
            </div>
            // Reversed flex: the box opens scrolled to its newest line and stays anchored to the
            // bottom as lines arrive, with no scrolling from script (setting scrollTop from the
            // height would force a layout of the page in the middle of every render).
            { crate::kit::slot(fork_bar) }
            <div class="log" id="log">
                <div class="log-lines">
                    { if lines.is_empty() { html!{ <p class="muted">{ "No log lines yet." }</p> } } else { html!{ <>{ for rows }</> } } }
                </div>
            </div>
        </section>
    }
}
