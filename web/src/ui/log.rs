//! The node log: system.log-style lines with virtual timestamps, up to the cursor.

use super::PanelProps;
use crate::model::nav;
use clusterscope_core::engine::trace::LogLevel;
use clusterscope_core::time::Micros;
use yew::prelude::*;

/// Most lines rendered (about ten screens of the box): every line is DOM the browser lays out on
/// each move of the cursor; the whole log is in the trace export.
const MAX_LINES: usize = 150;

/// `HH:MM:SS,mmm` of virtual time, as in Cassandra's system.log.
pub fn stamp(us: Micros) -> String {
    let ms = us / 1000;
    format!(
        "{:02}:{:02}:{:02},{:03}",
        ms / 3_600_000,
        (ms / 60_000) % 60,
        (ms / 1000) % 60,
        ms % 1000
    )
}

#[function_component(LogPanel)]
pub fn log_panel(p: &PanelProps) -> Html {
    let s = &p.s;
    let all = use_state(|| false);
    let trace_lines = use_state(|| true);
    let m = s.model.borrow();
    let trace = m.run.engine.trace();
    let cut = nav::logs_before_cursor(trace, m.cursor(), m.now());
    let node = m.selected;
    let show_all = *all || node.is_none();
    let with_trace = *trace_lines;
    let shown = |l: &&clusterscope_core::engine::trace::LogLine| {
        (show_all || Some(l.node) == node) && (with_trace || l.level != LogLevel::Trace)
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
    } else if show_all && with_trace {
        cut
    } else {
        trace.logs[..cut].iter().filter(shown).count()
    };
    let topo = &m.run.scenario.topo;
    let rows = lines.iter().map(|l| {
        let lvl = l.level.as_str();
        html! {
            <div class={classes!("ll", lvl.to_ascii_lowercase())}>
                <span class="lvl">{ format!("{lvl:<5}") }</span>
                { for show_all.then(|| html!{ <span class="lnode">{ format!("{:<6}", topo.name(l.node)) }</span> }) }
                <span class="lts">{ stamp(l.time) }</span>
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
    let title = match (show_all, node) {
        (false, Some(n)) => format!("system.log · {}", m.name(n)),
        _ => "system.log · all nodes".to_string(),
    };
    html! {
        <section class="card log-card" aria-label="Log">
            <div class="card-head">
                <h2>{ title }</h2>
                <label class="check"><input type="checkbox" checked={*all} onchange={toggle_all} />{ "all nodes" }</label>
                <label class="check"><input type="checkbox" checked={*trace_lines} onchange={toggle_trace} />{ "TRACE lines" }</label>
                <span class="muted small">{
                    if matching > lines.len() {
                        format!("{matching} lines up to the cursor · the last {MAX_LINES} shown")
                    } else {
                        format!("{matching} lines up to the cursor")
                    }
                }</span>
            </div>
            // Reversed flex: the box opens scrolled to its newest line and stays anchored to the
            // bottom as lines arrive, with no scrolling from script (setting scrollTop from the
            // height would force a layout of the page in the middle of every render).
            <div class="log" id="log">
                <div class="log-lines">
                    { if lines.is_empty() { html!{ <p class="muted">{ "No log lines yet." }</p> } } else { html!{ <>{ for rows }</> } } }
                </div>
            </div>
        </section>
    }
}
