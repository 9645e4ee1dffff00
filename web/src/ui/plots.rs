//! The plots card: three small time-series charts drawn with plotters, with HTML legends.

use super::PanelProps;
use crate::draw::palette;
use crate::draw::plots::{self, Plot};
use web_sys::HtmlCanvasElement;
use yew::prelude::*;

const PLOTS: [Plot; 3] = [Plot::DownPairs, Plot::StageQueue, Plot::Phi];

#[function_component(Plots)]
pub fn plots_card(p: &PanelProps) -> Html {
    let s = &p.s;
    let refs = [use_node_ref(), use_node_ref(), use_node_ref()];
    {
        let (refs, s, dark) = (refs.clone(), s.clone(), p.dark);
        use_effect(move || {
            let m = s.model.borrow();
            let pal = palette(dark);
            for (r, plot) in refs.iter().zip(PLOTS) {
                if let Some(c) = r.cast::<HtmlCanvasElement>() {
                    let (w, h) = (
                        c.client_width().max(1) as u32,
                        c.client_height().max(1) as u32,
                    );
                    if c.width() != w {
                        c.set_width(w);
                    }
                    if c.height() != h {
                        c.set_height(h);
                    }
                    let _ = plots::draw(c, &m, plot, &pal);
                }
            }
        });
    }
    let m = s.model.borrow();
    let pal = palette(p.dark);
    let charts = PLOTS.iter().zip(refs.iter()).map(|(plot, r)| {
        let series = plots::series(&m, *plot);
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
