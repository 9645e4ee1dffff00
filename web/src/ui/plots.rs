//! The plots card: the model's time series (at most [`MAX_PLOTS`]) as small charts drawn with
//! plotters, with HTML legends.

use super::PanelProps;
use crate::draw::palette;
use crate::draw::plots::{self, Plot, Series};
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
    {
        let (refs, s, dark, series) = (refs.clone(), s.clone(), p.dark, series.clone());
        use_effect(move || {
            let m = s.model.borrow();
            let pal = palette(dark);
            for (r, (plot, sr)) in refs.iter().zip(series.iter()) {
                let plot = *plot;
                if let Some(c) = r.cast::<HtmlCanvasElement>() {
                    // Backing store at the device pixel ratio (sharp on HiDPI screens).
                    let Some((_, w, h)) = crate::platform::prepare_canvas(&c, true) else {
                        continue;
                    };
                    let drawn = plots::draw(c.clone(), (w as u32, h as u32), &m, plot, sr, &pal);
                    if let Some(d) = drawn {
                        let _ = c.set_attribute("data-x-ticks", &d.ticks.join(","));
                        let _ = c.set_attribute("data-clipped", if d.clipped { "1" } else { "0" });
                    }
                }
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
        let no_history = (*plot == Plot::Pair && series.is_empty()).then(|| m.selected).flatten().map(|o| html! {
            <span class="lg muted" id="pair-no-history">{ format!(
                "No per-peer history of {} yet: large clusters record it for the selected node only, from now on (replay a stretch to fill it).",
                m.name(o)
            ) }</span>
        });
        html! {
            <figure class="plot">
                <figcaption>{ title }</figcaption>
                <canvas ref={r.clone()} class="plot-canvas" data-plot={plot.key(&m)}></canvas>
                <div class="legend">{ for legend }{ for extra }{ for no_history }</div>
            </figure>
        }
    });
    let note = if m.samples.pairs && m.samples.n > crate::model::samples::FULL_PAIR_NODES {
        " · per-peer history is kept for the node that was selected while the replay computed it"
    } else {
        ""
    };
    html! {
        <section class="card plots-card" aria-label="Plots">
            <div class="card-head">
                <h2>{ "Over time" }</h2>
                <span class="muted small">{ format!("{} samples, one every {}{note}", m.samples.len(), super::age(m.samples.interval_us)) }</span>
            </div>
            <div class="plots">{ for charts }</div>
        </section>
    }
}
