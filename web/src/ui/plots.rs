//! The plots card: three small time-series charts drawn with plotters, with HTML legends.

use super::PanelProps;
use crate::draw::palette;
use crate::draw::plots::{self, Plot, Series};
use clusterscope_core::engine::NodeId;
use std::rc::Rc;
use web_sys::HtmlCanvasElement;
use yew::prelude::*;

const PLOTS: [Plot; 3] = [Plot::DownPairs, Plot::StageQueue, Plot::Phi];

/// What the series depend on: the session (user actions truncate the samples), how many samples
/// there are, and the nodes the plots follow.
type SeriesKey = (u64, usize, Option<NodeId>, Vec<NodeId>);

#[function_component(Plots)]
pub fn plots_card(p: &PanelProps) -> Html {
    let s = &p.s;
    let refs = [use_node_ref(), use_node_ref(), use_node_ref()];
    // The plots' series, recomputed only when the samples or the nodes they follow change: a
    // jump moves only the cursor line, and at 251 nodes the series take milliseconds.
    let memo = use_mut_ref(|| None::<(SeriesKey, Rc<[Vec<Series>; 3]>)>);
    let series = {
        let m = s.model.borrow();
        let key: SeriesKey = (
            m.session_rev,
            m.samples.len(),
            m.selected,
            m.seq_nodes.clone(),
        );
        let mut memo = memo.borrow_mut();
        match memo.as_ref() {
            Some((k, v)) if *k == key => v.clone(),
            _ => {
                let v: Rc<[Vec<Series>; 3]> = Rc::new(PLOTS.map(|plot| plots::series(&m, plot)));
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
            for ((r, plot), sr) in refs.iter().zip(PLOTS).zip(series.iter()) {
                if let Some(c) = r.cast::<HtmlCanvasElement>() {
                    let (w, h) = crate::platform::canvas_size(&c);
                    let (w, h) = (w.max(1) as u32, h.max(1) as u32);
                    if c.width() != w {
                        c.set_width(w);
                    }
                    if c.height() != h {
                        c.set_height(h);
                    }
                    let _ = plots::draw(c, &m, plot, sr, &pal);
                }
            }
        });
    }
    let m = s.model.borrow();
    let pal = palette(p.dark);
    let charts = PLOTS.iter().zip(refs.iter()).zip(series.iter()).map(|((plot, r), series)| {
        let legend = series.iter().enumerate().map(|(i, sr)| {
            html! { <span class="lg"><i class="bar" style={format!("background:{}", plots::series_css(*plot, i, &pal))}></i>{ sr.name.clone() }</span> }
        });
        let title = match (plot, m.selected) {
            (Plot::Phi, Some(o)) => format!("φ of {} about each peer", m.name(o)),
            _ => plot.title().to_string(),
        };
        let extra = (*plot == Plot::Phi).then(|| html! {
            <span class="lg"><i class="bar" style={format!("background:{}", pal.down)}></i>{ "conviction threshold" }</span>
        });
        html! {
            <figure class="plot">
                <figcaption>{ title }</figcaption>
                <canvas ref={r.clone()} class="plot-canvas" data-plot={format!("{plot:?}")}></canvas>
                <div class="legend">{ for legend }{ for extra }</div>
            </figure>
        }
    });
    let note = if m.samples.n > crate::model::samples::FULL_PHI_NODES {
        " · φ history is kept for the node that was selected while the replay computed it"
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
