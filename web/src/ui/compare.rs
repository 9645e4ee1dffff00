//! Compare mode in the page (issue 18): the "compare with" picker, the compare bar under the
//! transport (where the first divergence is, both records, "jump to divergence"), and the two
//! sides — each its own topology, matrix and inspector, side by side (stacked on a narrow
//! screen). The sides are the generic panels given the other side's model (`PanelProps::side`),
//! so compare works for every model. Differing matrix cells are outlined on both sides
//! (`Compare::cells`); differing inspector rows are found in the page, row by row, whatever
//! inspector the model has ([`mark_differing_rows`]). The bar and the sides are code of
//! compare's part of the split release build (`model::compare::PART`, issue 44); the picker is
//! not (picking a variant fetches the part first).

use super::{matrix::Matrix, topology::TopologyView};
use crate::kit::{Handle, PanelProps};
use crate::model::compare::DivState;
use crate::model::{Model, Msg};
use crate::models::Inspector;
use clusterscope_core::diff::{self, DivKind, Divergence};
use wasm_bindgen::JsCast;
use web_sys::HtmlSelectElement;
use yew::prelude::*;

/// In compare mode, the chip a card drawn for one side only (sequence diagram, log, plots)
/// carries in its head: "side A: buggy" (`.cmp-side-label[data-side][data-variant]`); else
/// nothing (one node either way, `crate::kit::slot`).
pub fn side_label(m: &Model) -> Html {
    crate::kit::slot(m.compare.as_ref().map(|c| {
        html! {
            <span class="chip cmp-side-label" data-side="A" data-variant={m.run.variant.clone()}
                title={format!("Compare: this card shows side A ({}), not side B ({})", m.run.variant, c.variant)}>
                { format!("side A: {}", m.run.variant) }</span>
        }
    }))
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
    // Drawn anew when compare opens or closes and when its part's fetch starts or ends (the
    // split release build): after a fetch that failed it says "compare…" again, so picking the
    // variant again retries.
    let key = format!("{current:?}-{}", m.download.is_some());
    html! {
        <select id="compare-select" class="compare-select" {key} {onchange} aria-label="Compare with another variant"
            title="Compare: another variant beside this one, on the same cursor, with the first divergence marked">
            <option value="" selected={current.is_none()}>{ if current.is_some() { "compare: off" } else { "compare…" } }</option>
            <>{ for options }</>
        </select>
    }
}

/// What [`in_part`] draws.
enum Call {
    Bar(PanelProps),
    Sides(GridProps),
}

/// `call` drawn by compare's part (`crate::in_part!`; one split point for both: code two points
/// share stays in the main module), nothing while the part is not loaded.
fn in_part(call: Call) -> Html {
    crate::in_part!(compare, panels, Call => Html, call, |call: Call| match call {
        Call::Bar(p) => html! { <Bar ..p /> },
        Call::Sides(p) => html! { <Sides ..p /> },
    })
    .unwrap_or_default()
}

/// The compare bar ([`Bar`]) while compare is on. Compare is on only once its part of the
/// split release build is in (`model::compare`), so the bar's code is that part's.
#[function_component(CompareBar)]
pub fn compare_bar(p: &PanelProps) -> Html {
    if p.s.model.borrow().compare.is_none() {
        return html! {};
    }
    in_part(Call::Bar(p.clone()))
}

/// The compare bar: the sides, where the search stands, both divergent records, and the jump.
#[function_component(Bar)]
fn bar(p: &PanelProps) -> Html {
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
    let recs = c
        .divergence()
        .map(|d| records(d, &m.run.variant, &c.variant));
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
            data-kind={c.divergence().map(|d| d.kind.as_str())}
            data-variants={format!("{},{}", m.run.variant, c.variant)}>
            <span class="cmp-key" aria-hidden="true"></span>
            <b>{ format!("{} vs {}", m.run.variant, c.variant) }</b>
            <span id="compare-status">{ c.status() }</span>
            { crate::kit::slot(c.divergence().map(|_| html! { <span class="muted small">{ note }</span> })) }
            <button id="jump-divergence" class="btn small-btn" onclick={jump}
                disabled={matches!(c.div, DivState::Same | DivState::Failed(_))}
                title="Move both sides to the first divergence">{ "Jump to divergence" }</button>
            <button id="compare-close" class="btn small-btn ghost" onclick={close} title="Close compare">{ "Close" }</button>
            <>{ for recs }</>
        </div>
    }
}

/// Characters of a record line kept before the words that differ (the rest elided, from a
/// word's start).
const LEAD_CHARS: usize = 60;
/// Characters kept after them.
const TAIL_CHARS: usize = 60;
/// View values a state divergence lists in the bar (all of them in its tooltip).
const VIEWS_SHOWN: usize = 3;

/// A record line with the words that differ marked (`mark.cmp-word`) and never cut: the text
/// before them is elided at its start, the text after them at its end.
fn marked(line: Option<&(String, std::ops::Range<usize>)>, none: &'static str) -> Html {
    let Some((text, r)) = line else {
        return html! { <span class="muted">{ none }</span> };
    };
    let (lead, word, tail) = (&text[..r.start], &text[r.clone()], &text[r.end..]);
    let n = lead.chars().count();
    let lead = if n > LEAD_CHARS {
        let cut: String = lead.chars().skip(n - LEAD_CHARS).collect();
        let cut = cut.split_once(' ').map_or(cut.as_str(), |(_, rest)| rest);
        format!("…{cut}")
    } else {
        lead.to_string()
    };
    let tail = if tail.chars().count() > TAIL_CHARS {
        let cut: String = tail.chars().take(TAIL_CHARS).collect();
        format!("{cut}…")
    } else {
        tail.to_string()
    };
    let word = if word.is_empty() {
        html! {}
    } else {
        html! { <mark class="cmp-word">{ word }</mark> }
    };
    html! { <span class="cmp-line" title={text.clone()}>{ lead }{ word }{ tail }</span> }
}

/// Both sides' lines of a pair of records (`rec_json`), the differing words marked.
fn pair_rows(
    a: Option<&serde_json::Value>,
    b: Option<&serde_json::Value>,
    va: &str,
    vb: &str,
    class: &'static str,
    none: &'static str,
) -> Html {
    let [la, lb] = diff::pair_lines(a, b);
    html! {
        <>
            <div class={class}><span class="chip">{ va.to_string() }</span>{ marked(la.as_ref(), none) }</div>
            <div class={class}><span class="chip">{ vb.to_string() }</span>{ marked(lb.as_ref(), none) }</div>
        </>
    }
}

/// What differs at the divergence: both records (or log lines) with the differing words
/// marked, what each side logged then (events), the views that differ (state).
fn records(d: &Divergence, va: &str, vb: &str) -> Html {
    let head = match d.kind {
        DivKind::Event => "what happens differs:",
        DivKind::State => "what each logged there (the state differs after it):",
        DivKind::Log => "only a log line's wording differs (nothing else, to the end):",
    };
    let logged = d.logged.as_ref().map(|(a, b)| {
        html! {
            <>
                <div class="cmp-head2">{ "what each logged then:" }</div>
                { pair_rows(a.as_ref(), b.as_ref(), va, vb, "cmp-logged", "no such line") }
            </>
        }
    });
    let views = (d.kind == DivKind::State).then(|| {
        let all: Vec<String> = d
            .views
            .iter()
            .map(|v| format!("{}: {} → {}", v.path, v.a, v.b))
            .collect();
        let shown: Vec<Html> = d
            .views
            .iter()
            .take(VIEWS_SHOWN)
            .map(|v| {
                html! { <li><code>{ &v.path }</code>{ " " }<span class="cmp-from">{ v.a.to_string() }</span>{ " → " }<span class="cmp-to">{ v.b.to_string() }</span></li> }
            })
            .collect();
        let more = d.views_differing.saturating_sub(shown.len());
        html! {
            <div class="cmp-views" id="cmp-views" data-count={d.views_differing.to_string()} title={all.join("\n")}>
                <span class="cmp-head2">{ format!("state just after it ({va} → {vb}):") }</span>
                <ul><>{ for shown }</>{ crate::kit::slot((more > 0).then(|| html! { <li class="muted">{ format!("+{more} more") }</li> })) }</ul>
            </div>
        }
    });
    html! {
        <div class="cmp-recs" data-kind={d.kind.as_str()}>
            <div class="cmp-head2">{ head }</div>
            { pair_rows(d.a.as_ref(), d.b.as_ref(), va, vb, "cmp-rec", "nothing by then") }
            { crate::kit::slot(logged) }
            { crate::kit::slot(views) }
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

/// The two sides ([`Sides`]) while compare is on: code of compare's part, as [`CompareBar`].
#[function_component(CompareSides)]
pub fn compare_sides(p: &GridProps) -> Html {
    if p.s.model.borrow().compare.is_none() {
        return html! {};
    }
    in_part(Call::Sides(p.clone()))
}

/// The two sides: topology, matrix and inspector each, side by side.
#[function_component(Sides)]
fn sides(p: &GridProps) -> Html {
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
                which: &'static str,
                variant: String,
                model: Option<std::rc::Rc<std::cell::RefCell<Model>>>| {
        let (s, dark, resize) = (p.s.clone(), p.dark, p.resize);
        // Each row in a wrapper of its own: the sides are grid rows shared across both columns
        // (`style.css`, `.cmp`: subgrid), so both topologies, both matrices and both inspectors
        // start at the same height whatever each holds.
        html! {
            <div class="cmp-side" id={id} data-variant={variant.clone()}>
                <div class="cmp-head"><span class="chip">{ format!("side {which}: {variant}") }</span></div>
                <div class="cmp-row cmp-topo"><TopologyView s={s.clone()} {dark} {resize} rev={p.rev} side={model.clone()} /></div>
                <div class="cmp-row cmp-matrix"><Matrix s={s.clone()} {dark} {resize} rev={p.rev} side={model.clone()} /></div>
                <div class="cmp-row cmp-insp"><Inspector s={s} {dark} {resize} rev={p.insp_rev} side={model} /></div>
            </div>
        }
    };
    // The actions on the selected node or link, once for both sides (they are recorded on side
    // A and replayed on B by time), in a row of their own across both columns: under each
    // topology on neither side, so that the sides' rows line up.
    let actions = {
        let m = p.s.model.borrow();
        // The panels' part (`ui::actions`), not a copy of their code in compare's.
        let panel = super::actions::for_selection(&p.s, p.dark, m.selected_link, m.selected);
        html! {
            <div class="cmp-actions" id="cmp-actions">
                <span class="muted small">{ format!("Acts on both sides: recorded on {a_variant}, replayed on {b_variant} at the same time.") }</span>
                { panel }
            </div>
        }
    };
    html! {
        <div class="cmp" id="compare">
            { side("cmp-a", "A", a_variant.clone(), None) }
            { actions }
            { side("cmp-b", "B", b_variant.clone(), Some(other)) }
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
        clusterscope_core::small_sort::map(v.iter().map(|(k, t, _)| (k.clone(), t.clone())))
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
