//! Compare mode in the page (issue 18): the "compare with" picker, the compare bar under the
//! transport (where the first divergence is, both records, "jump to divergence"), and the two
//! sides — each its own topology, matrix and inspector, side by side (stacked on a narrow
//! screen). The sides are the generic panels given the other side's model (`PanelProps::side`),
//! so compare works for every model. Differing matrix cells are outlined on both sides
//! (`Compare::cells`); differing inspector rows are found in the page, row by row, whatever
//! inspector the model has ([`mark_differing_rows`]).

use super::{matrix::Matrix, topology::TopologyView, Handle, PanelProps};
use crate::model::compare::{rec_line, DivState};
use crate::model::{Model, Msg};
use crate::models::Inspector;
use clusterscope_core::engine::NodeId;
use wasm_bindgen::JsCast;
use web_sys::HtmlSelectElement;
use yew::prelude::*;

/// Most cells named in the matrix canvas's `data-differs`.
const MAX_LISTED: usize = 5000;

/// The cells that differ between the sides, when compare is on and they are known.
pub fn differing(m: &Model) -> Option<Vec<(NodeId, NodeId)>> {
    m.compare.as_ref().and_then(|c| c.cells.clone())
}

/// Name the differing cells on a matrix canvas (`data-differs="A>B,..."`, for tests and
/// assistive tooling).
pub fn mark_differs(c: &web_sys::HtmlCanvasElement, m: &Model, cells: Option<&[(NodeId, NodeId)]>) {
    match cells {
        Some(cells) => {
            let topo = &m.run.scenario.topo;
            let list: Vec<String> = cells
                .iter()
                .take(MAX_LISTED)
                .map(|(o, q)| format!("{}>{}", topo.name(*o), topo.name(*q)))
                .collect();
            let _ = c.set_attribute("data-differs", &list.join(","));
            let _ = c.set_attribute("data-differs-count", &cells.len().to_string());
        }
        None => {
            let _ = c.remove_attribute("data-differs");
            let _ = c.remove_attribute("data-differs-count");
        }
    }
}

/// The header's "compare with" picker: the scenario's other variants, or off.
pub fn picker(m: &Model, s: &Handle) -> Html {
    let variants = &m.run.scenario.raw.variants;
    if variants.len() < 2 {
        return html! {};
    }
    let current = m.compare.as_ref().map(|c| c.variant.clone());
    let onchange = {
        let s = s.clone();
        Callback::from(move |e: Event| {
            let v = e.target_unchecked_into::<HtmlSelectElement>().value();
            s.dispatch(Msg::Compare((!v.is_empty()).then_some(v)));
        })
    };
    let options = variants
        .iter()
        .filter(|v| v.name != m.run.variant)
        .map(|v| {
            let sel = current.as_deref() == Some(v.name.as_str());
            html! { <option value={v.name.clone()} selected={sel}>{ format!("compare: {}", v.name) }</option> }
        });
    html! {
        <select id="compare-select" class="compare-select" {onchange} aria-label="Compare with another variant"
            title="Compare: another variant beside this one, on the same cursor, with the first divergence marked">
            <option value="" selected={current.is_none()}>{ if current.is_some() { "compare: off" } else { "compare…" } }</option>
            <>{ for options }</>
        </select>
    }
}

/// The compare bar: the sides, where the search stands, both divergent records, and the jump.
#[function_component(CompareBar)]
pub fn compare_bar(p: &PanelProps) -> Html {
    let m = p.s.model.borrow();
    let Some(c) = m.compare.as_ref() else {
        return html! {};
    };
    let jump = {
        let s = p.s.clone();
        Callback::from(move |_| {
            crate::platform::perf::jump_start();
            s.dispatch(Msg::JumpToDivergence)
        })
    };
    let close = {
        let s = p.s.clone();
        Callback::from(move |_| s.dispatch(Msg::Compare(None)))
    };
    let (state, at) = match &c.div {
        DivState::Searching(_) => ("searching", String::new()),
        DivState::Found(d) => ("found", d.time_us.to_string()),
        DivState::Same => ("same", String::new()),
        DivState::Failed(_) => ("failed", String::new()),
    };
    let recs = c.divergence().map(|d| {
        html! {
            <div class="cmp-recs">
                <div><span class="chip">{ &m.run.variant }</span>{ rec_line(d.a.as_ref()) }</div>
                <div><span class="chip">{ &c.variant }</span>{ rec_line(d.b.as_ref()) }</div>
            </div>
        }
    });
    let after = c.divergence().is_some_and(|d| m.now() >= d.time_us);
    let cells = c.cells.as_ref().map(|v| v.len());
    let note = match (after, cells) {
        (false, _) => "before it the two sides are the same".to_string(),
        (true, Some(n)) => {
            format!("{n} matrix cell(s) differ now (outlined); differing inspector rows are marked")
        }
        (true, None) => "differing cells are outlined when the replay pauses".to_string(),
    };
    html! {
        <div class="cmp-bar" id="compare-bar" data-state={state} data-divergence-us={at}
            data-variants={format!("{},{}", m.run.variant, c.variant)}>
            <span class="cmp-key" aria-hidden="true"></span>
            <b>{ format!("{} vs {}", m.run.variant, c.variant) }</b>
            <span id="compare-status">{ c.status() }</span>
            { super::slot(c.divergence().map(|_| html! { <span class="muted small">{ note }</span> })) }
            <button id="jump-divergence" class="btn small-btn" onclick={jump}
                disabled={matches!(c.div, DivState::Same | DivState::Failed(_))}
                title="Move both sides to the first divergence">{ "Jump to divergence" }</button>
            <button id="compare-close" class="btn small-btn ghost" onclick={close} title="Close compare">{ "Close" }</button>
            <>{ for recs }</>
        </div>
    }
}

#[derive(Properties, Clone)]
pub struct GridProps {
    pub s: Handle,
    pub dark: bool,
    pub resize: u32,
    /// Revisions of the canvases (every frame) and of the inspectors (throttled).
    pub rev: u64,
    pub insp_rev: u64,
}

impl PartialEq for GridProps {
    fn eq(&self, o: &Self) -> bool {
        self.rev == o.rev
            && self.insp_rev == o.insp_rev
            && self.dark == o.dark
            && self.resize == o.resize
    }
}

/// The two sides: topology, matrix and inspector each, side by side.
#[function_component(CompareSides)]
pub fn compare_sides(p: &GridProps) -> Html {
    let (a_variant, other) = {
        let m = p.s.model.borrow();
        (
            m.run.variant.clone(),
            m.compare
                .as_ref()
                .map(|c| (c.variant.clone(), c.other.clone())),
        )
    };
    {
        // After both inspectors rendered: mark the rows that differ.
        let key = (p.insp_rev, p.dark, other.is_some());
        use_effect_with(key, |_| {
            mark_differing_rows("cmp-a", "cmp-b");
        });
    }
    let Some((b_variant, other)) = other else {
        return html! {};
    };
    let side = |id: &'static str,
                variant: String,
                model: Option<std::rc::Rc<std::cell::RefCell<Model>>>| {
        let (s, dark, resize) = (p.s.clone(), p.dark, p.resize);
        html! {
            <div class="cmp-side" id={id} data-variant={variant.clone()}>
                <div class="cmp-head"><span class="chip">{ variant }</span></div>
                <TopologyView s={s.clone()} {dark} {resize} rev={p.rev} side={model.clone()} />
                <Matrix s={s.clone()} {dark} {resize} rev={p.rev} side={model.clone()} />
                <Inspector s={s} {dark} {resize} rev={p.insp_rev} side={model} />
            </div>
        }
    };
    html! {
        <div class="cmp" id="compare">
            { side("cmp-a", a_variant, None) }
            { side("cmp-b", b_variant, Some(other)) }
        </div>
    }
}

/// Mark (class `cmp-diff`) the inspector rows of the two sides whose text differs, matching rows
/// by their table and first cell; a row one side has and the other not is marked too. Returns
/// how many rows differ.
pub fn mark_differing_rows(a_id: &str, b_id: &str) -> usize {
    let doc = gloo::utils::document();
    let (Some(a), Some(b)) = (doc.get_element_by_id(a_id), doc.get_element_by_id(b_id)) else {
        return 0;
    };
    let rows = |root: &web_sys::Element| -> Vec<(String, String, web_sys::Element)> {
        let mut out = Vec::new();
        let Ok(list) = root.query_selector_all(".insp-card tr") else {
            return out;
        };
        let mut seen = std::collections::BTreeMap::<String, usize>::new();
        for i in 0..list.length() {
            let Some(tr) = list
                .item(i)
                .and_then(|n| n.dyn_into::<web_sys::Element>().ok())
            else {
                continue;
            };
            if tr.closest("thead").ok().flatten().is_some() {
                continue;
            }
            let table = tr
                .closest("table")
                .ok()
                .flatten()
                .map(|t| {
                    let id = t.id();
                    if id.is_empty() {
                        t.class_name()
                    } else {
                        id
                    }
                })
                .unwrap_or_default();
            let first = tr
                .first_element_child()
                .and_then(|c| c.text_content())
                .unwrap_or_default();
            let base = format!("{table}|{first}");
            let k = seen.entry(base.clone()).or_insert(0);
            *k += 1;
            let key = format!("{base}#{k}");
            out.push((key, tr.text_content().unwrap_or_default(), tr));
        }
        out
    };
    let (ra, rb) = (rows(&a), rows(&b));
    let index = |v: &[(String, String, web_sys::Element)]| {
        v.iter()
            .map(|(k, t, _)| (k.clone(), t.clone()))
            .collect::<std::collections::BTreeMap<_, _>>()
    };
    let (ia, ib) = (index(&ra), index(&rb));
    let mut n = 0;
    for (mine, theirs) in [(&ra, &ib), (&rb, &ia)] {
        for (k, t, tr) in mine.iter() {
            let differs = theirs.get(k) != Some(t);
            let cl = tr.class_list();
            if differs {
                n += 1;
                let _ = cl.add_1("cmp-diff");
            } else if cl.contains("cmp-diff") {
                let _ = cl.remove_1("cmp-diff");
            }
        }
    }
    if let Some(el) = doc.get_element_by_id("compare") {
        let _ = el.set_attribute("data-differing-rows", &n.to_string());
    }
    n
}
