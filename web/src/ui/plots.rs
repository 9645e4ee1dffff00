//! The plots card: the model's time series (at most [`MAX_PLOTS`]) as small charts drawn with
//! plotters, with HTML legends.

use crate::draw::palette;
use crate::draw::plots::{self, Plot, Series};
use crate::kit::PanelProps;
use clusterscope_core::engine::NodeId;
use std::rc::Rc;
use web_sys::HtmlCanvasElement;
use yew::prelude::*;

/// Most plots shown (one canvas each): two full rows of the three-column grid. Raft has five
/// (commitIndex, lastApplied, client latency, oldest pending request, and the leader's
/// matchIndex per follower).
pub const MAX_PLOTS: usize = 6;

/// What the series depend on: the session (user actions truncate the samples), how many samples
/// there are, and the nodes the plots follow.
type SeriesKey = (u64, usize, Option<NodeId>, Vec<NodeId>, usize);

#[function_component(Plots)]
pub fn plots_card(p: &PanelProps) -> Html {
    let s = &p.s;
    let refs = [
        use_node_ref(),
        use_node_ref(),
        use_node_ref(),
        use_node_ref(),
        use_node_ref(),
        use_node_ref(),
    ];
    // The plots' series, recomputed only when the samples or the nodes they follow change: a
    // jump moves only the cursor line, and at 251 nodes the series take milliseconds.
    let memo = use_mut_ref(|| None::<(SeriesKey, Rc<Vec<(Plot, Vec<Series>)>>)>);
    let series = {
        let m = s.model.borrow();
        let key: SeriesKey = (
            m.session_rev,
            m.samples.len(),
            m.selected,
            m.seq_nodes.clone(),
            m.samples.specs.as_ptr() as usize,
        );
        let mut memo = memo.borrow_mut();
        match memo.as_ref() {
            Some((k, v)) if *k == key => v.clone(),
            _ => {
                let v: Rc<Vec<(Plot, Vec<Series>)>> = Rc::new(
                    Plot::all(&m, MAX_PLOTS)
                        .into_iter()
                        .map(|plot| (plot, plots::series(&m, plot)))
                        .collect(),
                );
                *memo = Some((key, v.clone()));
                v
            }
        }
    };
    // Off screen (below the fold, or a compare's second column) the charts are not drawn: a
    // jump's cursor moves the time window of every chart, so each would be drawn in full for
    // nobody (~9 ms a compare jump at 251 nodes, mostly plotters' text). They are drawn when
    // the card comes into view; their axes' data attributes stay current either way.
    let card = use_node_ref();
    let on_screen = crate::kit::use_on_screen(&card);
    {
        let (refs, s, dark, series) = (refs.clone(), s.clone(), p.dark, series.clone());
        use_effect(move || {
            let m = s.model.borrow();
            let pal = palette(dark);
            for (r, (plot, sr)) in refs.iter().zip(series.iter()) {
                let plot = *plot;
                let Some(c) = r.cast::<HtmlCanvasElement>() else {
                    continue;
                };
                let w = crate::platform::canvas_size(&c).0.max(1) as u32;
                let axes = plots::Axes::of(&m, plot, sr, w);
                let d = axes.drawn();
                set_if_changed(&c, "data-x-ticks", &d.ticks.join(","));
                set_if_changed(&c, "data-clipped", if d.clipped { "1" } else { "0" });
                if !on_screen {
                    continue;
                }
                // Backing store at the device pixel ratio (sharp on HiDPI screens).
                let Some((_, w, h)) = crate::platform::prepare_canvas(&c, true) else {
                    continue;
                };
                plots::draw(c.clone(), (w as u32, h as u32), &m, plot, sr, &axes, &pal);
            }
        });
    }
    let m = s.model.borrow();
    let pal = palette(p.dark);
    let charts = series.iter().zip(refs.iter()).map(|((plot, series), r)| {
        let legend = series.iter().enumerate().map(|(i, sr)| {
            html! { <span class="lg"><i class="bar" style={format!("background:{}", plots::series_css(&m, *plot, i, &pal))}></i>{ sr.name.clone() }</span> }
        });
        let title = match (plot, m.selected) {
            (Plot::Pair, Some(o)) => format!("{} — {}", plot.title(&m), m.name(o)),
            (Plot::Pair, None) => format!("{} (select a node)", plot.title(&m)),
            _ => plot.title(&m),
        };
        let threshold = m.run.engine.pair_series().and_then(|p| p.threshold);
        let extra = (*plot == Plot::Pair && threshold.is_some()).then(|| html! {
            <span class="lg"><i class="bar" style={format!("background:{}", pal.down)}></i>{
                format!("threshold {:.0} (the axis stops at {:.0})", threshold.unwrap_or(0.0), threshold.unwrap_or(0.0) * crate::draw::axis::THRESHOLD_HEADROOM)
            }</span>
        });
        // Why the per-peer plot is empty: a large cluster keeps the history of the selected node
        // only (from its selection on); a small one keeps every node's, so there is simply none
        // yet (Raft's matchIndex: the node has not led).
        let large = m.samples.n > crate::model::samples::FULL_PAIR_NODES;
        let no_history = (*plot == Plot::Pair && series.is_empty()).then(|| m.selected).flatten().map(|o| html! {
            <span class="lg muted" id="pair-no-history">{ if large { format!(
                "No per-peer history of {} yet: large clusters record it for the selected node only, from now on (replay a stretch to fill it).",
                m.name(o)
            ) } else { format!("No per-peer values of {} up to the cursor.", m.name(o)) } }</span>
        });
        html! {
            <figure class="plot">
                <figcaption>{ title }</figcaption>
                <canvas ref={r.clone()} class="plot-canvas" data-plot={plot.key(&m)}></canvas>
                <div class="legend"><>{ for legend }</><>{ for extra }</><>{ for no_history }</></div>
            </figure>
        }
    });
    let note = if m.samples.pairs && m.samples.n > crate::model::samples::FULL_PAIR_NODES {
        " · per-peer history is kept for the node that was selected while the replay computed it"
    } else {
        ""
    };
    html! {
        <section class="card plots-card" aria-label="Plots" ref={card}>
            <div class="card-head">
                <h2>{ "Over time" }</h2>
                { super::compare::side_label(&m) }
                <span class="muted small">{ format!("{} sample{}, one every {}{note}", m.samples.len(), if m.samples.len() == 1 { "" } else { "s" }, crate::kit::age(m.samples.interval_us)) }</span>
            </div>
            <div class="plots">{ for charts }</div>
        </section>
    }
}

/// Set an attribute only when its value changes: no DOM write (and no style invalidation for the
/// next chart's font to force) when a move keeps a chart's axis.
fn set_if_changed(el: &web_sys::Element, name: &str, value: &str) {
    if el.get_attribute(name).as_deref() != Some(value) {
        let _ = el.set_attribute(name, value);
    }
}
