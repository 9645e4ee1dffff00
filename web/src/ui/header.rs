//! Top bar (incident picker, variant switch, seed, share/export/import, theme, help) and the
//! incident strip (title, ticket, description, current caption).

use crate::kit::{t, PanelProps};
use crate::model::{Msg, Theme};
use crate::platform;
use clusterscope_core::session::ScenarioRef;
use std::cell::RefCell;
use std::rc::Rc;
use web_sys::{HtmlInputElement, HtmlSelectElement};
use yew::prelude::*;

/// The most variants shown as a row of buttons; more are one select (a sweep's grid of loads and
/// timings would take rows of the top bar).
const MAX_VARIANT_BUTTONS: usize = 6;

#[function_component(Header)]
pub fn header(p: &PanelProps) -> Html {
    let s = &p.s;
    let reader = use_mut_ref(|| None::<gloo::file::callbacks::FileReader>);
    let desc_open = use_state(|| false);
    let menu = use_node_ref();
    let export_progress = use_state(|| None::<(usize, usize)>);
    let export_cancel = use_mut_ref(|| false);
    let m = s.model.borrow();

    let on_pick = {
        let s = s.clone();
        Callback::from(move |e: Event| {
            let v = e.target_unchecked_into::<HtmlSelectElement>().value();
            if !v.is_empty() {
                s.dispatch(Msg::LoadBuiltin(v));
            }
        })
    };
    let current_builtin = match &m.scenario_ref {
        ScenarioRef::Builtin(n) => Some(n.clone()),
        ScenarioRef::Custom(_) => None,
    };
    let options = m.catalog.iter().map(|c| {
        let sel = current_builtin.as_deref() == Some(c.name.as_str());
        html! { <option value={c.name.clone()} selected={sel}>{ format!("{} ({} nodes)", c.name, c.nodes) }</option> }
    });
    // "New": a sandbox of each model (a few nodes, no scripted faults) to experiment on.
    let sandboxes = m
        .catalog
        .iter()
        .filter_map(|c| {
            c.name
                .strip_prefix("sandbox-")
                .map(|model| (c.name.clone(), model.to_string()))
        })
        .map(
            |(name, model)| html! { <option value={name}>{ format!("{model} sandbox") }</option> },
        );
    let on_new = {
        let s = s.clone();
        Callback::from(move |e: Event| {
            let el = e.target_unchecked_into::<HtmlSelectElement>();
            let v = el.value();
            el.set_value("");
            if !v.is_empty() {
                s.dispatch(Msg::LoadBuiltin(v));
            }
        })
    };
    // The picker shows what is open: a pick that failed (its text could not be downloaded,
    // `crate::builtins`) or is still downloading leaves the choice the DOM made, which the
    // options' unchanged `selected` would not undo.
    let picker = use_node_ref();
    {
        let picker = picker.clone();
        let open = current_builtin.clone().unwrap_or_default();
        use_effect(move || {
            if let Some(el) = picker.cast::<HtmlSelectElement>() {
                if el.value() != open {
                    el.set_value(&open);
                }
            }
        });
    }
    let custom_opt = current_builtin.is_none().then(|| {
        html! { <option value="" selected=true>{ format!("{} (imported)", m.run.scenario.name()) }</option> }
    });

    // Timed like a jump (`cs-jump-paint`, issue 44): a switch to a kept run is one.
    let switch_to = {
        let s = s.clone();
        Callback::from(move |name: String| {
            crate::platform::perf::jump_start();
            s.dispatch(Msg::SetVariant(name))
        })
    };
    let variants = if m.run.scenario.raw.variants.len() > MAX_VARIANT_BUTTONS {
        // A sweep's grid of variants (eight in HDDS-17673's) took three rows as buttons.
        let onchange =
            switch_to.reform(|e: Event| e.target_unchecked_into::<HtmlSelectElement>().value());
        let options = m.run.scenario.raw.variants.iter().map(|v| {
            let active = v.name == m.run.variant;
            html! { <option value={v.name.clone()} selected={active} title={v.description.clone()}>{ &v.name }</option> }
        });
        // Keyed by the variant: a fresh element shows the one that is open.
        html! {
            <select id="variant-select" class="variant-select" key={m.run.variant.clone()}
                aria-label="Variant" title="The scenario's variants" {onchange}>{ for options }</select>
        }
    } else {
        let buttons = m.run.scenario.raw.variants.iter().map(|v| {
            let active = v.name == m.run.variant;
            let name = v.name.clone();
            let onclick = switch_to.reform(move |_: MouseEvent| name.clone());
            html! {
                <button class={classes!("seg", active.then_some("active"))} aria-pressed={active.to_string()}
                    data-variant={v.name.clone()} title={v.description.clone()} {onclick}>{ &v.name }</button>
            }
        });
        html! { <div class="segmented" role="group" aria-label="Variant">{ for buttons }</div> }
    };

    let on_seed = {
        let s = s.clone();
        Callback::from(move |e: Event| {
            let el = e.target_unchecked_into::<HtmlInputElement>();
            match el.value().trim().parse::<u64>() {
                Ok(v) => s.dispatch(Msg::SetSeed(v)),
                Err(_) => s.dispatch(Msg::ShowError(format!(
                    "Seed \"{}\" is not a whole number between 0 and {}.",
                    el.value(),
                    u64::MAX
                ))),
            }
        })
    };

    let on_share = {
        let s = s.clone();
        Callback::from(move |_| {
            crate::kit::with_writer(&s, |s| {
                let Some(enc) = s.model.borrow().session().try_encode() else {
                    return;
                };
                platform::replace_hash(&enc);
                platform::copy(&platform::permalink_url(&enc));
                s.dispatch(Msg::ShowInfo(
                    "Permalink copied to the clipboard (it is also in the address bar).".into(),
                ));
            })
        })
    };
    let close_menu = {
        let menu = menu.clone();
        move || {
            if let Some(d) = menu.cast::<web_sys::Element>() {
                let _ = d.remove_attribute("open");
            }
        }
    };
    let on_export_toml = {
        let s = s.clone();
        let close_menu = close_menu.clone();
        Callback::from(move |_| {
            close_menu();
            crate::kit::with_writer(&s, |s| {
                let m = s.model.borrow();
                match m.export_scenario() {
                    Ok(text) => {
                        platform::download(&format!("{}.toml", m.file_stem()), &text, "text/plain");
                    }
                    // The session writer's part is fetched, then this runs again.
                    Err(_) if clusterscope_core::session::encoder_wanted() => {}
                    Err(e) => {
                        drop(m);
                        s.dispatch(Msg::ShowError(e));
                    }
                }
            })
        })
    };
    let on_export_trace = {
        let s = s.clone();
        let progress = export_progress.clone();
        let cancelled = export_cancel.clone();
        Callback::from(move |_| {
            close_menu();
            if progress.is_some() {
                return;
            }
            let p = progress.clone();
            super::export::start(s.clone(), Rc::new(move |x| p.set(x)), cancelled.clone());
        })
    };
    let export_status = export_progress.map(|(done, total)| {
        let cancelled = export_cancel.clone();
        let on_cancel = Callback::from(move |_| *cancelled.borrow_mut() = true);
        let pct = (done * 100).checked_div(total).unwrap_or(100);
        html! {
            <div class="export-progress" id="export-progress" role="status" data-done={done.to_string()} data-total={total.to_string()}>
                <span>{ format!("Exporting the trace… {pct}% ({done} of {total} records)") }</span>
                <progress max={total.max(1).to_string()} value={done.to_string()}></progress>
                <button class="btn small-btn" id="export-cancel" onclick={on_cancel}>{ "Cancel" }</button>
            </div>
        }
    });
    let on_import = {
        let s = s.clone();
        let reader = reader.clone();
        Callback::from(move |e: Event| {
            let input = e.target_unchecked_into::<HtmlInputElement>();
            let Some(file) = input.files().and_then(|f| f.get(0)) else {
                return;
            };
            input.set_value("");
            let file = gloo::file::File::from(file);
            let name = file.name();
            let max = clusterscope_core::limits::Limits::browser().max_scenario_bytes;
            if file.size() > max as u64 {
                // Refused by size without reading it (the message is the CLI's).
                s.dispatch(Msg::ImportTooLarge {
                    file: name,
                    size: file.size(),
                });
                return;
            }
            let s = s.clone();
            let slot: Rc<RefCell<Option<gloo::file::callbacks::FileReader>>> = reader.clone();
            // Bytes, not text: the app and the CLI decode a file by one rule (size, UTF-8).
            let task = gloo::file::callbacks::read_as_bytes(&file, move |res| match res {
                Ok(bytes) => s.dispatch(Msg::ImportFile { file: name, bytes }),
                Err(e) => s.dispatch(Msg::ShowError(format!("Could not read {name}: {e}"))),
            });
            *slot.borrow_mut() = Some(task);
        })
    };
    let on_theme = {
        let s = s.clone();
        let th = m.theme;
        Callback::from(move |_| s.dispatch(Msg::SetTheme(th.next())))
    };
    let on_help = {
        let s = s.clone();
        Callback::from(move |_| s.dispatch(Msg::SetHelp(true)))
    };
    let theme_label = match m.theme {
        Theme::Auto => "Theme: auto",
        Theme::Light => "Theme: light",
        Theme::Dark => "Theme: dark",
    };

    let raw = &m.run.scenario.raw;
    let ticket = raw.ticket.clone().map(|u| {
        let label = u.rsplit('/').next().unwrap_or(&u).to_string();
        html! { <a class="ticket" href={u} target="_blank" rel="noopener">{ label }</a> }
    });
    let variant_desc = raw
        .variants
        .iter()
        .find(|v| v.name == m.run.variant)
        .map(|v| {
            if v.description.trim().is_empty() {
                // No prose: what the variant sets says what it is.
                v.params
                    .iter()
                    .map(|(k, val)| match val {
                        // Not `Display`: that is the TOML writer, too much download for this.
                        toml::Value::String(t) => format!("{k} = {t}"),
                        toml::Value::Integer(i) => format!("{k} = {i}"),
                        toml::Value::Float(f) => format!("{k} = {f}"),
                        toml::Value::Boolean(b) => format!("{k} = {b}"),
                        _ => format!("{k} = …"),
                    })
                    .collect::<Vec<_>>()
                    .join(", ")
            } else {
                v.description.clone()
            }
        })
        .unwrap_or_default();
    let toggle_desc = {
        let d = desc_open.clone();
        Callback::from(move |_| d.set(!*d))
    };
    let caption = m.caption_now().map(|(i, (at, text))| {
        let fresh = m.now().saturating_sub(*at) < 3_000_000;
        let truth = caption_truth(&m, i);
        let state = match &truth {
            CaptionTruth::Unchecked => "unchecked",
            CaptionTruth::Held(_) => "held",
            CaptionTruth::Failed(_) => "failed",
        };
        let badge = match truth {
            CaptionTruth::Unchecked => None,
            CaptionTruth::Held(n) => Some(html! {
                <span class="caption-truth held" title={format!("What this caption says was checked in this run when it shows: {n} check(s) held")}>{ "✓ true in this run" }</span>
            }),
            CaptionTruth::Failed(why) => Some(html! {
                <span class="caption-truth failed" role="note" title="The caption describes the scenario's story; this run (its seed or your changes) differs">
                    { format!("✗ not so in this run: {why}") }
                </span>
            }),
        };
        html! {
            <div id="caption" class={classes!("caption", fresh.then_some("fresh"))} data-index={i.to_string()} data-truth={state} aria-live="polite">
                <span class="caption-time">{ t(*at) }</span>
                <span class="caption-text">{ text.clone() }</span>
                { crate::kit::slot(badge) }
            </div>
        }
    });
    let caption = caption.unwrap_or_else(|| {
        let first = m.captions.first().map(|c| t(c.0));
        html! {
            <div id="caption" class="caption empty">
                <span class="caption-text">{
                    match first {
                        Some(at) => format!("Press play (space) — the first caption is at {at}."),
                        None => "Press play (space) to start the replay.".to_string(),
                    }
                }</span>
            </div>
        }
    });

    // Chapters: every caption, click to go there; and "pause at captions" for a lecture.
    let chapters = (!m.captions.is_empty()).then(|| {
        let now_i = m.caption_now().map(|(i, _)| i);
        let items = m.captions.iter().enumerate().map(|(i, (at, text))| {
            let s = s.clone();
            let at = *at;
            let onclick = Callback::from(move |_| s.dispatch(Msg::ScrubTo(at)));
            html! {
                <li class={classes!((now_i == Some(i)).then_some("now"))}>
                    <button class="chapter" data-at-us={at.to_string()} {onclick}>
                        <span class="caption-time">{ t(at) }</span>{ " " }{ text.clone() }
                    </button>
                </li>
            }
        });
        let on_pause = {
            let s = s.clone();
            let on = m.caption_pause;
            Callback::from(move |_| s.dispatch(Msg::SetCaptionPause(!on)))
        };
        html! {
            <>
                <label class="check" title="Playing stops at each caption: read it, explain, press play again">
                    <input id="caption-pause" type="checkbox" checked={m.caption_pause} onchange={on_pause} />{ "pause at captions" }
                </label>
                <details id="chapters" class="chapters">
                    <summary>{ format!("chapters ({})", m.captions.len()) }</summary>
                    <ol>{ for items }</ol>
                </details>
            </>
        }
    });
    html! {
        <>
        <header class="topbar">
            <div class="brand" title="Clusterscope"><span class="logo" aria-hidden="true"></span><span class="brand-name">{ "Clusterscope" }</span></div>
            <label class="field">
                <span class="sr">{ "Incident" }</span>
                <select id="scenario-select" ref={picker} onchange={on_pick} title="Built-in incidents">
                    <>{ for custom_opt }</>
                    <>{ for options }</>
                </select>
            </label>
            <select id="new-scenario" class="new-scenario" onchange={on_new} title="Start a sandbox: a few nodes of one model, nothing scripted; act on it, then export it as your own scenario" aria-label="New scenario">
                <option value="" selected=true>{ "New…" }</option>
                <>{ for sandboxes }</>
            </select>
            <div id="variants" class="variants">{ variants }</div>
            { super::compare::picker(&m, s) }
            <label class="field seed" title="Root seed of the run (the same seed replays the same trace)">
                <span>{ "seed" }</span>
                // As wide as the seed (a hunt's found run has ten digits; the narrow field of a
                // 1366-px bar cut it to "202").
                <input id="seed" type="number" min="0" value={m.run.seed.to_string()} onchange={on_seed}
                    style={seed_width(m.run.seed)} />
            </label>
            <div class="spacer"></div>
            <button id="share" class="btn" onclick={on_share} title="Copy a link that reopens exactly this state">{ "Share link" }</button>
            <details class="menu" ref={menu}>
                <summary class="btn">{ "Export" }</summary>
                <div class="menu-body">
                    <button id="export-toml" class="btn ghost" onclick={on_export_toml}>{ "Scenario + your actions (.toml)" }</button>
                    <button id="export-trace" class="btn ghost" onclick={on_export_trace}>{ "Trace up to the cursor (.jsonl)" }</button>
                </div>
            </details>
            <label class="btn file" title="Open a scenario file (.toml), e.g. one exported here">
                { "Import" }
                <input id="import" type="file" accept=".toml,text/plain,application/toml" onchange={on_import} />
            </label>
            <button class="btn icon" onclick={on_theme} title={theme_label} aria-label={theme_label}>{ "◐" }</button>
            <button class="btn icon" onclick={on_help} title="Keyboard shortcuts (?)" aria-label="Help">{ "?" }</button>
            <>{ for export_status }</>
        </header>
        <section class="incident">
            <div class="incident-head">
                <h1 id="title">{ &raw.title }</h1>
                <>{ for ticket }</>
            </div>
            <p class={classes!("desc", (!*desc_open).then_some("clamped"))} onclick={toggle_desc.clone()} title="Click to expand">
                { &raw.description }
            </p>
            if !variant_desc.is_empty() {
                <p class="variant-desc"><b>{ format!("{}: ", m.run.variant) }</b>{ variant_desc }</p>
            }
            { caption }
            <div class="caption-tools">
                <>{ for chapters }</>
                <super::checks::Checks s={s.clone()} session={m.session_rev} now={m.now()}
                    hold={crate::platform::opening_link()} />
                <super::expect_editor::ExpectEditor s={s.clone()} session={m.session_rev} now={m.now()}
                    checked={m.checked.as_ref().map(|c| c.0)} />
                // "How often?": in the page's flow beside the Expectations, not floating over the
                // panels (issue 41: it covered node B on a phone and the node panel's buttons);
                // the panel it opens floats as a dialog.
                <super::sweep::SweepPanel s={s.clone()} dark={p.dark} session={m.session_rev} />
                <super::hunt::HuntPanel s={s.clone()} session={m.session_rev} />
            </div>
        </section>
        </>
    }
}

/// Whether what caption `i` (of the shown variant) says held in this session's run.
enum CaptionTruth {
    /// No check of this session yet, or the caption states nothing checkable.
    Unchecked,
    /// Every one of its checks held (how many).
    Held(usize),
    /// The first that did not, and why.
    Failed(String),
}

fn caption_truth(m: &crate::model::Model, i: usize) -> CaptionTruth {
    let Some((rev, results)) = &m.checked else {
        return CaptionTruth::Unchecked;
    };
    let Some(&raw) = m.caption_index.get(i) else {
        return CaptionTruth::Unchecked;
    };
    if *rev != m.session_rev {
        return CaptionTruth::Unchecked;
    }
    let mine: Vec<_> = results.iter().filter(|e| e.caption == Some(raw)).collect();
    match mine.iter().find(|e| !e.passed) {
        _ if mine.is_empty() => CaptionTruth::Unchecked,
        Some(e) => CaptionTruth::Failed(e.detail.clone()),
        None => CaptionTruth::Held(mine.len()),
    }
}

/// The seed field's least width for `seed`: its digits and the number input's spinner (the
/// stylesheet's width stays the floor).
fn seed_width(seed: u64) -> Option<String> {
    let digits = seed.to_string().len();
    (digits > 3).then(|| format!("min-width: calc({digits}ch + 2.4em)"))
}
