//! The expectation editor (issue 41, "Student's lab"): pick a view from the model's catalogue
//! (its one-line description and unit), its node / peer / key, see the view's value at the
//! cursor, pick a check (equals, one_of, not_equals, at_least, at_most, increases) and a time
//! (`at`, the cursor's by default) or a window (`during`), and add it. The row is read by
//! `core::user_expect` (errors name the field and the fix), kept by `model::user_expects`, and
//! checked by the Expectations list's worker run of the session (`ui::checks`): its verdict, with
//! the value observed, shows here and in that list. At most `MAX_USER_EXPECTS` rows.
//!
//! The person's rows are the card's face ([`ExpectEditor`]); the form ([`EditorForm`]: the
//! catalogue's views, the checks, reading a row) is, in the split release build, the part
//! `editor` of the wasm, fetched when the card is first opened (`crate::in_part!`, issue 44):
//! "Loading…" meanwhile, a note naming `split/editor` if the fetch fails (opening it again
//! retries).
//!
//! Test hooks: `#expect-editor[data-count]` (a `<details>`), `#ue-view`, `#ue-view-about`,
//! `#ue-node`, `#ue-peer`, `#ue-key`, `#ue-now[data-value]` (the view's value at the cursor),
//! `#ue-pred`, `#ue-value`, `#ue-when` (at / during), `#ue-at`, `#ue-from`, `#ue-to`, `#ue-name`,
//! `#ue-add`, `#ue-error[data-field]`, `#ue-limit`; `.ue-row[data-name][data-status]` (checking,
//! held, failed) with `.ue-detail` and `.ue-remove`; `.part-note[data-part]` (loading, error) in the
//! card while its form's part loads or after it failed.

use crate::kit::{part_note, use_part, Handle, PartLoad};
use crate::model::Msg;
use clusterscope_core::catalogue;
use clusterscope_core::registry;
use clusterscope_core::scenario::node_of;
use clusterscope_core::time::{fmt_duration, Micros};
use clusterscope_core::user_expect::{
    needs_of, views_of, with_user_expects, ExpectForm, MAX_USER_EXPECTS, PREDICATES,
};
use web_sys::{HtmlInputElement, HtmlSelectElement};
use yew::prelude::*;

#[derive(Properties, Clone)]
pub struct EditorProps {
    pub s: Handle,
    pub session: u64,
    pub now: Micros,
    /// The session revision of the last finished check (`Model::checked`).
    pub checked: Option<u64>,
}

impl PartialEq for EditorProps {
    fn eq(&self, o: &Self) -> bool {
        self.session == o.session && self.now == o.now && self.checked == o.checked
    }
}

/// What a field's input or change event carries.
fn value_of(e: &Event) -> String {
    let t = e.target();
    if let Some(i) = t
        .clone()
        .and_then(|t| wasm_bindgen::JsCast::dyn_into::<HtmlInputElement>(t).ok())
    {
        return i.value();
    }
    t.and_then(|t| wasm_bindgen::JsCast::dyn_into::<HtmlSelectElement>(t).ok())
        .map(|s| s.value())
        .unwrap_or_default()
}

/// The card: its summary and the person's rows with their verdicts, and once it has been opened
/// (and its part is in) the form ([`EditorForm`]).
#[function_component(ExpectEditor)]
pub fn expect_editor(p: &EditorProps) -> Html {
    let (load, open) = use_part("editor");
    let m = p.s.model.borrow();
    if registry::find(&m.run.scenario.raw.protocol).is_none() {
        return html! {};
    }
    // The verdicts of the last check of this session revision (the Expectations list's run).
    let results = m
        .checked
        .as_ref()
        .filter(|(rev, _)| *rev == m.session_rev)
        .map(|(_, r)| r.clone());
    let rows = m.user_expects.iter().enumerate().map(|(i, e)| {
        let r = results.as_ref().and_then(|r| r.iter().find(|x| x.name == e.name));
        let (status, icon, detail) = match r {
            None => ("checking", "…", "checking on this run…".to_string()),
            Some(r) if r.passed => ("held", "✓", r.detail.clone()),
            Some(r) => ("failed", "✗", r.detail.clone()),
        };
        let remove = {
            let s = p.s.clone();
            Callback::from(move |_| s.dispatch(Msg::RemoveExpect(i)))
        };
        html! {
            <li class={classes!("check-row", "ue-row", status)} data-name={e.name.clone()} data-status={status}>
                <span class="check-icon" aria-hidden="true">{ icon }</span>
                <span class="check-name">{ e.name.clone() }</span>
                <button class="ue-remove" onclick={remove} title="Remove this expectation"
                    aria-label={format!("Remove the expectation {}", e.name)}>{ "×" }</button>
                <span class="ue-detail check-detail">{ detail }</span>
            </li>
        }
    });
    // Opening the card (again, after a failed fetch) fetches the form's part.
    let ontoggle = Callback::from(move |e: Event| {
        let opened = e
            .target()
            .and_then(|t| wasm_bindgen::JsCast::dyn_into::<web_sys::Element>(t).ok())
            .is_some_and(|d| d.has_attribute("open"));
        if opened {
            open.emit(None);
        }
    });
    let form = match &*load {
        PartLoad::Loaded(_) => {
            crate::in_part!(editor, form, EditorProps => Html, p.clone(), |p: EditorProps| {
                html! { <EditorForm ..p /> }
            })
        }
        _ => None,
    };
    let count = m.user_expects.len();
    html! {
        <details id="expect-editor" class="checks ue" data-count={count.to_string()} {ontoggle}>
            <summary title="Write your own expectation of this run: checked at once, kept in the link and the export, swept by How often?">
                { format!("your expectations ({count})") }</summary>
            <ul class="checks-list">{ for rows }</ul>
            { form.unwrap_or_else(|| part_note(&load, "the expectation editor")) }
        </details>
    }
}

/// The form that adds a row: the view (with its description, unit and value at the cursor), its
/// node / peer / key, the check, the time or window, the name; a refused row names its field.
#[function_component(EditorForm)]
pub fn editor_form(p: &EditorProps) -> Html {
    let form = use_state(|| ExpectForm {
        predicate: "equals".into(),
        ..ExpectForm::default()
    });
    // The refused field and why (cleared by the next edit).
    let error = use_state(|| None::<(String, String)>);
    let m = p.s.model.borrow();
    let Some(model) = registry::find(&m.run.scenario.raw.protocol) else {
        return html! {};
    };
    let views = views_of(model);
    let f = (*form).clone();
    let view = if views.contains(&f.view.as_str()) {
        f.view.clone()
    } else {
        String::new()
    };
    let needs = (!view.is_empty()).then(|| needs_of(model, &view));
    let names: Vec<String> = m.run.scenario.topo.names.clone();
    let set = |apply: fn(&mut ExpectForm, String)| {
        let (form, error) = (form.clone(), error.clone());
        Callback::from(move |e: Event| {
            let mut f = (*form).clone();
            apply(&mut f, value_of(&e));
            form.set(f);
            error.set(None);
        })
    };
    let input = |apply: fn(&mut ExpectForm, String)| {
        let (form, error) = (form.clone(), error.clone());
        Callback::from(move |e: InputEvent| {
            let mut f = (*form).clone();
            apply(&mut f, value_of(&e));
            form.set(f);
            error.set(None);
        })
    };
    let now_text = fmt_duration(p.now);
    // The view's value at the cursor, as the run answers it (the query an expectation makes).
    let current = needs.map(|n| {
        let topo = &m.run.scenario.topo;
        let node = node_of(topo, &Some(f.observer.clone()).filter(|s| !s.is_empty()));
        let peer = node_of(topo, &Some(f.peer.clone()).filter(|s| !s.is_empty()));
        if (n.node && node.is_none()) || (n.peer && peer.is_none()) {
            return Err("pick the node".to_string());
        }
        if n.key && f.key.trim().is_empty() {
            return Err("give the key".to_string());
        }
        let key = Some(f.key.trim()).filter(|k| !k.is_empty());
        m.run
            .query_key(&view, node, peer, None, key, 0)
            .map(|v| v.to_string())
    });
    let about = (!view.is_empty())
        .then(|| catalogue::view(model, &view))
        .flatten()
        .map(|i| format!("{} ({})", i.about, i.unit))
        .unwrap_or_default();
    let full = m.user_expects.len() >= MAX_USER_EXPECTS;
    let add = {
        let (form, error, s) = (form.clone(), error.clone(), p.s.clone());
        let now_text = now_text.clone();
        Callback::from(move |e: SubmitEvent| {
            e.prevent_default();
            let mut f = (*form).clone();
            // Empty times: the cursor's (a window: from the cursor to the end).
            if f.at.trim().is_empty() {
                f.at = now_text.clone();
            }
            if f.from.trim().is_empty() {
                f.from = now_text.clone();
            }
            if f.to.trim().is_empty() {
                f.to = "end".into();
            }
            let checked = {
                let m = s.model.borrow();
                f.to_spec(&m.run.scenario)
                    .map_err(|e| (e.field.to_string(), format!("{}: {}", e.field, e.msg)))
                    .and_then(|spec| {
                        let mut rows = m.user_expects.clone();
                        rows.push(spec.clone());
                        with_user_expects(&m.run.scenario, &rows, &m.limits)
                            .map(|_| spec)
                            .map_err(|e| {
                                let field = e
                                    .split(':')
                                    .next()
                                    .filter(|x| *x == "Name")
                                    .unwrap_or("Check");
                                (field.to_string(), e)
                            })
                    })
            };
            match checked {
                Ok(spec) => {
                    error.set(None);
                    let mut kept = (*form).clone();
                    kept.name.clear();
                    form.set(kept);
                    s.dispatch(Msg::AddExpect(Box::new(spec)));
                }
                Err(e) => error.set(Some(e)),
            }
        })
    };
    let view_opts = views.iter().map(|v| {
        let unit = catalogue::view(model, v).map(|i| i.unit).unwrap_or("");
        html! { <option value={*v} selected={*v == view}>{ format!("{v} ({unit})") }</option> }
    });
    let node_select = |id: &'static str,
                       label: &'static str,
                       cur: &str,
                       apply: fn(&mut ExpectForm, String),
                       needed: bool| {
        let opts = names.iter().map(
            |n| html! { <option value={n.clone()} selected={n == cur}>{ n.clone() }</option> },
        );
        html! {
            <label class="ue-field">{ label }
                <select id={id} onchange={set(apply)}>
                    <option value="" selected={cur.is_empty()}>{ if needed { "— pick —" } else { "(none)" } }</option>
                    <>{ for opts }</>
                </select>
            </label>
        }
    };
    let node_field = needs
        .filter(|n| n.node)
        .map(|_| node_select("ue-node", "Node", &f.observer, |f, v| f.observer = v, true));
    let peer_field = needs
        .filter(|n| n.peer)
        .map(|_| node_select("ue-peer", "Peer", &f.peer, |f, v| f.peer = v, true));
    let key_field = needs.filter(|n| n.key).map(|_| html! {
        <label class="ue-field">{ "Key" }
            <input id="ue-key" type="text" size="8" value={f.key.clone()} oninput={input(|f, v| f.key = v)} />
        </label>
    });
    let now_line = current.map(|c| {
        let (text, val) = match c {
            Ok(v) => (format!("now ({}): {v}", crate::kit::t(p.now)), v),
            Err(e) => (format!("now: — ({e})"), String::new()),
        };
        html! { <span id="ue-now" class="ue-now" data-value={val}>{ text }</span> }
    });
    let pred_opts = PREDICATES.iter().map(|x| html! { <option value={*x} selected={*x == f.predicate}>{ x.replace('_', " ") }</option> });
    let value_field = (f.predicate != "increases").then(|| html! {
        <label class="ue-field">{ "Value" }
            <input id="ue-value" type="text" size="10" value={f.value.clone()} oninput={input(|f, v| f.value = v)}
                placeholder={if f.predicate == "one_of" { "a, b" } else { "" }} />
        </label>
    });
    let when = if f.window {
        html! { <>
            <label class="ue-field">{ "From" }<input id="ue-from" type="text" size="7" value={f.from.clone()} placeholder={now_text.clone()} oninput={input(|f, v| f.from = v)} /></label>
            <label class="ue-field">{ "To" }<input id="ue-to" type="text" size="7" value={f.to.clone()} placeholder="end" oninput={input(|f, v| f.to = v)} /></label>
        </> }
    } else {
        html! { <label class="ue-field">{ "At" }<input id="ue-at" type="text" size="7" value={f.at.clone()} placeholder={now_text.clone()} oninput={input(|f, v| f.at = v)} /></label> }
    };
    let err = (*error).clone().map(|(field, msg)| {
        html! {
            <p id="ue-error" class="checks-note error" role="alert" data-field={field}>{ msg }</p>
        }
    });
    let limit = full.then(|| html! {
        <p id="ue-limit" class="checks-note">{ format!("You have {MAX_USER_EXPECTS} expectations, the most a session keeps: remove one to add another.") }</p>
    });
    html! {
            <form class="ue-form" onsubmit={add}>
                <label class="ue-field">{ "View" }
                    <select id="ue-view" onchange={set(|f, v| { f.view = v; f.key.clear(); })}>
                        <option value="" selected={view.is_empty()}>{ "— pick a view —" }</option>
                        <>{ for view_opts }</>
                    </select>
                </label>
                { crate::kit::slot(node_field) }
                { crate::kit::slot(peer_field) }
                { crate::kit::slot(key_field) }
                { crate::kit::slot(now_line) }
                <label class="ue-field">{ "Check" }
                    <select id="ue-pred" onchange={set(|f, v| f.predicate = v)}><>{ for pred_opts }</></select>
                </label>
                { crate::kit::slot(value_field) }
                <label class="ue-field">{ "When" }
                    <select id="ue-when" onchange={set(|f, v| f.window = v == "during")}>
                        <option value="at" selected={!f.window}>{ "at" }</option>
                        <option value="during" selected={f.window}>{ "during" }</option>
                    </select>
                </label>
                { when }
                <label class="ue-field">{ "Name" }
                    <input id="ue-name" type="text" size="14" maxlength="120" value={f.name.clone()} placeholder="(made from the rest)" oninput={input(|f, v| f.name = v)} />
                </label>
                <button id="ue-add" class="btn small-btn primary" type="submit" disabled={full}>{ "Add" }</button>
                <p id="ue-view-about" class="checks-note ue-about">{ about }</p>
                { crate::kit::slot(err) }
                { crate::kit::slot(limit) }
            </form>
    }
}
