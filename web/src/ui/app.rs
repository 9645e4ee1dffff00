//! The root component: owns the reducer, restores the session (permalink, then autosave), runs
//! the animation loop (`frame_loop`) while playing or seeking, handles keyboard shortcuts, keeps the URL and
//! localStorage in sync when the replay settles (not while a link's session is on trial,
//! `model::trial`, nor ever after the simulator stopped, `crate::crash`), and applies the theme.

use super::below::{Below, Card};
use super::transport::Transport;
use super::{confirm::ConfirmDiscard, frame_loop::FrameLoop, header::Header};
use super::{matrix::Matrix, topology::TopologyView};
use crate::kit::Handle;
use crate::model::nav::NavKind;
use crate::model::teach::{TeachMsg, ZOOM_STEP};
use crate::model::{BannerKind, Model, Msg, Store, Theme, SPEED_MAX, SPEED_MIN};
use crate::models::Inspector;
use crate::platform;
use clusterscope_core::session::Session;
use std::cell::{Cell, RefCell};
use std::rc::Rc;
use wasm_bindgen::JsCast;
use yew::prelude::*;

/// While playing or seeking, the DOM-heavy panels (inspector, log, sequence diagram, plots,
/// header) re-render at most this often; the canvases (topology, matrix, timeline) every frame.
/// A change of selection, session, theme or help re-renders them at once, and so does the end of
/// playing.
pub const SLOW_PANEL_MS: f64 = 250.0;
/// Header, inspector, sequence diagram, plots, log.
const SLOW_PANELS: usize = 5;
/// Where each slow panel is on the page, in the order of `SLOW_PANELS`: a jump brings the ones
/// off screen up to date after the frame is painted ([`platform::off_screen`], issue 44).
const SLOW_PANEL_CARDS: [&str; SLOW_PANELS] = [
    ".topbar",
    ".insp-card",
    ".seq-card",
    ".plots-card",
    ".log-card",
];

fn key_msg(e: &KeyboardEvent, help_open: bool, speed: f64) -> Option<Msg> {
    let shift = e.shift_key();
    Some(match e.key().as_str() {
        " " | "k" => Msg::TogglePlay,
        "ArrowRight" if shift => Msg::Next(NavKind::Interesting),
        "ArrowRight" => Msg::StepEvent,
        "ArrowLeft" if shift => Msg::Prev(NavKind::Interesting),
        "ArrowLeft" => Msg::StepBack,
        "d" => Msg::Next(NavKind::Delivery),
        "D" => Msg::Prev(NavKind::Delivery),
        "x" => Msg::Next(NavKind::Drop),
        "X" => Msg::Prev(NavKind::Drop),
        "i" => Msg::Next(NavKind::Interesting),
        "I" => Msg::Prev(NavKind::Interesting),
        "n" => Msg::NextMoment,
        "b" => Msg::SetBookmarkForm(true),
        "N" => Msg::PrevMoment,
        "c" => Msg::NextCaption,
        "C" => Msg::PrevCaption,
        "Home" => Msg::JumpToStart,
        "End" | "e" => Msg::JumpToEnd,
        "]" | "+" | "=" => Msg::SetSpeed((speed * 2.0).min(SPEED_MAX)),
        "[" | "-" => Msg::SetSpeed((speed / 2.0).max(SPEED_MIN)),
        "z" => Msg::Teach(TeachMsg::ZoomCursor(ZOOM_STEP)),
        "Z" => Msg::Teach(TeachMsg::ZoomCursor(1.0 / ZOOM_STEP)),
        "0" => Msg::Teach(TeachMsg::SetView(None)),
        "," => Msg::Teach(TeachMsg::Pan(-0.5)),
        "." => Msg::Teach(TeachMsg::Pan(0.5)),
        "?" => Msg::SetHelp(!help_open),
        "Escape" if help_open => Msg::SetHelp(false),
        "Escape" => Msg::Pause,
        _ => return None,
    })
}

#[function_component(App)]
pub fn app() -> Html {
    // The state takes the model panels' snapshots from here: it does not know the panels.
    let s = use_reducer(|| Store::new(Model::new().with_snapshots(crate::models::snapshot)));
    let ready = use_state(|| false);
    let resize = use_state(|| 0u32);
    // A phone's dock folds to the transport and the timeline (issue 41: ~245 of 844 px).
    let dock_folded = use_state(|| false);
    let saved = use_mut_ref(String::new);
    // The session the page starts with, before any restore (the default scenario's).
    let initial = use_mut_ref(|| s.model.borrow().session());
    let sys_dark = use_state(platform::prefers_dark);
    // The embed form (`?embed`, `embed.rs`): the lecture view of one scenario in a course page.
    let embed = (*use_memo((), |_| super::embed::opts())).clone();
    // The page started with a session in its address (not an embedded replay, which opens its
    // own way), and whether it has been ready since (`restoring_at_start` below).
    let started_with_session = use_memo((), {
        let embedded = embed.is_some();
        move |_| !embedded && platform::hash().starts_with("s=")
    });
    let first_ready = use_mut_ref(|| false);

    // Restore: the autosaved session first, then a permalink on top (so a broken link leaves the
    // saved session in place; a link that is the saved session, as after a reload, is not opened
    // twice).
    {
        let s = s.clone();
        let ready = ready.clone();
        let saved = saved.clone();
        let embed = embed.clone();
        use_effect_with((), move |_| {
            if let Some(t) = platform::load(platform::THEME_KEY) {
                s.dispatch(Msg::SetTheme(Theme::parse(&t)));
            }
            let hash = platform::hash();
            // An embedded replay opens what its address names and never touches the saved
            // session (a course page must not replace the reader's own work).
            if let Some(e) = &embed {
                super::embed::open(&s, e, hash.strip_prefix("s=").unwrap_or(&hash));
                ready.set(true);
                return;
            }
            let stored = platform::load(platform::SESSION_KEY);
            if let Some(stored) = &stored {
                s.dispatch(Msg::RestoreSaved(stored.clone()));
                *saved.borrow_mut() = stored.clone();
            }
            let link = hash.trim();
            let payload = link.strip_prefix("s=").unwrap_or(link);
            if !payload.is_empty() && stored.as_deref() != Some(payload) {
                s.dispatch(Msg::OpenPermalink(hash));
            }
            ready.set(true);
        });
    }

    // Keyboard shortcuts and window resizes.
    {
        let s = s.clone();
        let resize = resize.clone();
        let embedded = embed.is_some();
        use_effect_with((), move |_| {
            let doc = gloo::utils::document();
            // The host page's commands (`embed.rs`).
            let host = embedded.then(|| super::embed::listen(s.clone()));
            let s2 = s.clone();
            let keys = gloo::events::EventListener::new_with_options(
                &doc,
                "keydown",
                gloo::events::EventListenerOptions::enable_prevent_default(),
                move |e| {
                    let Some(e) = e.dyn_ref::<KeyboardEvent>() else {
                        return;
                    };
                    if crate::crash::stopped() {
                        return;
                    }
                    if e.ctrl_key() || e.meta_key() || e.alt_key() {
                        return;
                    }
                    let editing = e
                        .target()
                        .and_then(|t| t.dyn_into::<web_sys::Element>().ok())
                        .is_some_and(|el| {
                            matches!(el.tag_name().as_str(), "INPUT" | "SELECT" | "TEXTAREA")
                        });
                    if editing {
                        return;
                    }
                    let (help, speed, asking) = {
                        let m = s2.model.borrow();
                        (m.help_open, m.speed, m.confirm.is_some())
                    };
                    if asking {
                        // The question is modal: only Escape (keep the actions) acts.
                        if e.key() == "Escape" {
                            e.prevent_default();
                            s2.dispatch(Msg::CancelDiscard);
                        }
                        return;
                    }
                    let (msg_mode, present, explain) = {
                        let m = s2.model.borrow();
                        (m.teach.msg_mode, m.teach.present, m.teach.explain)
                    };
                    let toggle = match e.key().as_str() {
                        "m" => Some(Msg::Teach(TeachMsg::SetMsgMode(!msg_mode))),
                        // An embedded replay is always the lecture view.
                        "f" | "Escape" if embedded => None,
                        // Not on a phone, where the present button is hidden too.
                        "f" if !platform::is_phone() => {
                            platform::fullscreen(!present);
                            Some(Msg::Teach(TeachMsg::SetPresent(!present)))
                        }
                        // Esc leaves presentation mode (the browser's own Esc leaves
                        // fullscreen only; and a refused fullscreen never sees it).
                        "Escape" if present && !help => {
                            platform::fullscreen(false);
                            Some(Msg::Teach(TeachMsg::SetPresent(false)))
                        }
                        "w" => Some(Msg::Teach(TeachMsg::SetExplain(!explain))),
                        _ => None,
                    };
                    // The model's one-key actions (`Model::quick_keys`: Raft's r, R, K, t, s).
                    let quick = {
                        let k = e.key();
                        let mut ch = k.chars();
                        match (ch.next(), ch.next()) {
                            (Some(c), None)
                                if s2
                                    .model
                                    .borrow()
                                    .run
                                    .engine
                                    .quick_keys()
                                    .iter()
                                    .any(|q| q.key == c) =>
                            {
                                Some(Msg::QuickKey(c))
                            }
                            _ => None,
                        }
                    };
                    if let Some(msg) = toggle.or(quick).or_else(|| key_msg(e, help, speed)) {
                        e.prevent_default();
                        if matches!(msg, Msg::JumpToStart | Msg::JumpToEnd) {
                            platform::perf::jump_start();
                        }
                        s2.dispatch(msg);
                    }
                },
            );
            let win = gloo::utils::window();
            // A link pasted into this tab changes only the fragment: open it.
            let s3 = s.clone();
            let hashes = gloo::events::EventListener::new(&win, "hashchange", move |_| {
                if crate::crash::stopped() {
                    return;
                }
                let h = platform::hash();
                if !h.trim().is_empty() {
                    s3.dispatch(Msg::OpenPermalink(h));
                }
            });
            // Window resizes, and any canvas whose box changed (a panel reflowed): redraw.
            let counter = Rc::new(Cell::new(0u32));
            let bump = {
                let counter = counter.clone();
                move || {
                    if crate::crash::stopped() {
                        return;
                    }
                    counter.set(counter.get() + 1);
                    resize.set(counter.get());
                }
            };
            platform::on_canvas_resize(bump.clone());
            let resizer = gloo::events::EventListener::new(&win, "resize", move |_| bump());
            // Leaving fullscreen (Esc, the browser's own control) ends presentation mode.
            let s4 = s.clone();
            let fs = gloo::events::EventListener::new(&doc, "fullscreenchange", move |_| {
                if crate::crash::stopped() {
                    return;
                }
                if !platform::is_fullscreen() && s4.model.borrow().teach.present {
                    s4.dispatch(Msg::Teach(TeachMsg::SetPresent(false)));
                }
            });
            // A choice in a <select> (the scenario, a variant, the next message's kind) gives the
            // focus back to the page, so the arrow keys drive the replay instead of changing the
            // choice again (issue 40: → after picking a scenario switched to another one).
            let blur = gloo::events::EventListener::new(&doc, "change", move |e| {
                if let Some(el) = e
                    .target()
                    .and_then(|t| t.dyn_into::<web_sys::HtmlSelectElement>().ok())
                {
                    let _ = el.blur();
                }
            });
            // The topology ends at the bottom of the viewport (`--topo-top`, style.css).
            let top = platform::watch_topology_top();
            move || {
                drop(host);
                drop(top);
                drop(blur);
                drop(fs);
                drop(keys);
                drop(hashes);
                drop(resizer);
            }
        });
    }
    {
        let sys_dark = sys_dark.clone();
        use_effect_with((), move |_| {
            let mq = gloo::utils::window()
                .match_media("(prefers-color-scheme: dark)")
                .ok()
                .flatten();
            let l = mq.map(|mq| {
                gloo::events::EventListener::new(&mq, "change", move |e| {
                    if crate::crash::stopped() {
                        return;
                    }
                    if let Some(m) = e.dyn_ref::<web_sys::MediaQueryList>() {
                        sys_dark.set(m.matches());
                    }
                })
            });
            move || drop(l)
        });
    }

    let m = s.model.borrow();
    let busy = m.busy();
    let rev = s.rev;
    // A built-in scenario's text or a model's code being downloaded (`crate::builtins`,
    // `platform::load_model`): the app is busy and not
    // ready meanwhile (what waits for it is applied when it comes), and nothing is saved.
    let download = m.download.as_ref().map(|d| (d.name, d.part, d.id));
    let shown_ready = *ready && download.is_none();
    // The cards below the first screen come right after the first frame (`ui::below`), or
    // after the opening of a session (a link's run computed to its cursor, which the opening
    // card hides them behind): not while it computes, whose time is what a link's opening waits
    // for (issue 44).
    let after_opening = shown_ready && m.opening().is_none();
    let (below_load, below_retry) =
        crate::kit::use_part_after_paint(super::below::PART, after_opening && embed.is_none());
    // The topology card's actions too, an embedded replay's included (`ui::actions`).
    let (actions_load, actions_retry) =
        crate::kit::use_part_after_paint(super::actions::PART, after_opening);
    let actions_load = super::actions::ActionsLoad {
        load: (*actions_load).clone(),
        retry: actions_retry,
    };
    {
        let s = s.clone();
        use_effect_with(download, move |d| {
            if let Some((name, part, _)) = *d {
                wasm_bindgen_futures::spawn_local(async move {
                    let result = if part && name == crate::model::compare::PART {
                        // Compare's code (the split release build's part for it).
                        crate::platform::load_part(name).await.map_err(|()| {
                            "the compare view's code did not load (a part of the app, \
                             split/compare; check the connection)"
                                .to_string()
                        })
                    } else if part && name == crate::reader::WRITER_PART {
                        crate::platform::load_part(name)
                            .await
                            .map_err(|()| crate::reader::WRITER_FAILED.to_string())
                    } else if part && name == crate::reader::SESSION_PART {
                        // The session reader (the split release build's part for it).
                        crate::platform::load_part(name).await.map_err(|()| {
                            "the session reader's code did not load (a part of the app, \
                             split/session; check the connection)"
                                .to_string()
                        })
                    } else if part && name == crate::reader::PART {
                        // The scenario reader (the split release build's part for it).
                        crate::platform::load_part(name).await.map_err(|()| {
                            "the scenario reader's code did not load (a part of the app, \
                             split/reader; check the connection)"
                                .to_string()
                        })
                    } else if part {
                        // The model's code (the split release build's part for it).
                        crate::platform::load_model(name).await
                    } else {
                        // The text is read by the scenario reader (the split release build's
                        // part `reader`): its fetch goes beside the text's instead of after it
                        // (the store asks for it when the text is in; the glue fetches a part
                        // once).
                        #[cfg(cs_split)]
                        wasm_bindgen_futures::spawn_local(async {
                            let _ = crate::platform::load_part(crate::reader::PART).await;
                        });
                        crate::builtins::download(name).await
                    };
                    if !crate::crash::stopped() {
                        s.dispatch(Msg::Downloaded { name, result });
                    }
                });
            }
        });
    }
    // The revisions the slow panels show (see SLOW_PANEL_MS): while busy, at most one of them
    // catches up per frame (the stalest), so their costs do not add up in one frame.
    let slow = use_mut_ref(|| ([(0u64, f64::NEG_INFINITY); SLOW_PANELS], None, 0u32));
    // The slow panels wait while a drag of the scrubber moves (issue 44).
    let held = m.scrub_moving;
    let held_before = use_mut_ref(|| false);
    let was_held = std::mem::replace(&mut *held_before.borrow_mut(), held);
    // Bumped after a painted frame to bring the panels a jump left behind off screen up to date.
    let catch_up = use_state(|| 0u32);
    let mut deferred = false;
    let slow_revs = {
        let key = Some((
            m.selected,
            m.seq_nodes.clone(),
            m.selected_link,
            m.selected_msg,
            m.session_rev,
            m.help_open,
            m.theme,
        ));
        let now = platform::now_ms();
        let mut sl = slow.borrow_mut();
        // While a drag of the scrubber moves (issue 44) they wait for its rest or release,
        // and say so (`#app[data-held]`): a catch-up (their lists' render, a restyle and
        // layout) would hold the drag's next update up. Their key (the sequence diagram's
        // nodes follow the selected node's partners) is taken as it is, so that it does not
        // bring them all up at once meanwhile, nor at the rest or release, whose partners
        // are followed then (`Model::scrub_rest`): that render is a jump's, the panels off
        // screen catch up after the paint.
        if held || was_held {
            sl.1 = key.clone();
        }
        // A drag that rests, or is released, is like a jump (below). In compare mode a drag
        // jumps exactly at each move (no keyframes, nothing held): the panels follow it at most
        // every SLOW_PANEL_MS, as while playing (issue 20).
        let throttled = busy || (m.scrubbing && m.compare.is_some());
        // This render is the catch-up after a painted frame: every panel comes up to date.
        let catching_up = sl.2 != *catch_up;
        sl.2 = *catch_up;
        if held {
        } else if !throttled && sl.1 == key && !catching_up {
            // A jump, a rest or a release (issue 44): the panels nobody can see (off screen)
            // wait for the frame to be painted, then catch up (their lists' render and the
            // reconciling of their DOM were ~40% of a jump's render at 251 nodes).
            // Right after a drag that held them (its rest or release), all of them wait for
            // that paint: the exact frame of the cluster view and the cursor comes first.
            for (i, card) in SLOW_PANEL_CARDS.iter().enumerate() {
                if sl.0[i].0 != rev && (was_held || platform::off_screen(card)) {
                    deferred = true;
                } else {
                    sl.0[i] = (rev, now);
                }
            }
        } else if !throttled || sl.1 != key {
            sl.0 = [(rev, now); SLOW_PANELS];
            sl.1 = key;
        } else if let Some(i) = (0..SLOW_PANELS)
            .filter(|i| now - sl.0[*i].1 >= SLOW_PANEL_MS)
            .min_by(|a, b| sl.0[*a].1.total_cmp(&sl.0[*b].1))
        {
            sl.0[i] = (rev, now);
        }
        sl.0.map(|x| x.0)
    };
    let [header_rev, insp_rev, seq_rev, plots_rev, log_rev] = slow_revs;

    // The animation loop runs only while playing or seeking.
    {
        let s = s.clone();
        use_effect_with(busy, move |busy| {
            let lp = busy.then(|| FrameLoop::start(s));
            move || drop(lp)
        });
    }

    // Autosave and permalink: when the replay settles and the session or cursor changed. Keyed
    // cheaply; the encoding (JSON + deflate) happens only when the key changes. A link's session
    // on trial is in the URL only: the saved session stays the one before it until the link's
    // recorded actions have run (or the person keeps it). Nothing is saved after the simulator
    // stopped (a panic): the saved session is the last one that settled.
    {
        // Not while the scrubber is dragged: each move would encode and save the session
        // (issue 44); the release saves where it ended.
        // Nor while a saved session that could not be restored waits for a reload.
        let keep_saved = m.keep_saved_until_edit == Some(m.session_rev);
        let key = (!busy && shown_ready && !m.scrubbing && !keep_saved).then(|| {
            (
                m.session_rev,
                m.cursor(),
                // A scrub between two events moves the time alone (`Session::at_us`).
                m.now(),
                m.selected,
                m.bookmarks.len(),
                m.bookmarks.first().map(|b| b.at_us),
                m.trial.as_ref().map(|t| t.failed.is_some()),
            )
        });
        // The payload in the address bar (a link being opened is there already).
        let hashed = use_mut_ref(|| {
            let h = platform::hash();
            h.strip_prefix("s=").unwrap_or(&h).to_string()
        });
        let embedded = embed.is_some();
        // Done after the frame is painted (`platform::after_paint`): `replaceState` alone took
        // ~9 ms of a jump at 251 nodes (issue 44). A newer key before then supersedes it.
        let a = Autosave {
            s: s.clone(),
            saved: saved.clone(),
            hashed,
            initial: initial.clone(),
            generation: use_mut_ref(|| 0u64),
        };
        use_effect_with(key, move |key| {
            *a.generation.borrow_mut() += 1;
            if key.is_some() && !crate::crash::stopped() && !embedded {
                let mine = *a.generation.borrow();
                platform::after_paint(move || a.save(mine));
            }
        });
    }

    let dark = match m.theme {
        Theme::Auto => *sys_dark,
        Theme::Dark => true,
        Theme::Light => false,
    };
    {
        let theme = m.theme;
        use_effect_with((dark, theme), move |(dark, theme)| {
            platform::apply_theme(*dark);
            platform::save(platform::THEME_KEY, theme.as_str());
        });
    }

    // Info messages fade after a few seconds; errors stay until dismissed.
    {
        let s = s.clone();
        let info = m
            .banner
            .as_ref()
            .filter(|b| b.kind == BannerKind::Info)
            .map(|b| b.text.clone());
        use_effect_with(info, move |info| {
            let timer = info.clone().map(|text| {
                gloo::timers::callback::Timeout::new(6_000, move || {
                    if crate::crash::stopped() {
                        return;
                    }
                    let same = s
                        .model
                        .borrow()
                        .banner
                        .as_ref()
                        .is_some_and(|b| b.text == text);
                    if same {
                        s.dispatch(Msg::DismissBanner);
                    }
                })
            });
            move || drop(timer)
        });
    }
    // The status line: in the sticky dock under the transport, so a message never covers the
    // panels (the node panel's buttons, the inspector's tables) and never hides with a scroll.
    let undo = m.undo.as_ref().map(|u| (u.what.clone(), u.discarded));
    let trial = m.trial.as_ref().map(|t| {
        (
            t.failed.is_some(),
            t.previous_label.clone(),
            t.actions,
            t.last_at,
        )
    });
    // A link's session on trial: back to the saved session, or keep this one.
    let trial_btns = |failed: bool, label: &str| {
        let back = {
            let s = s.clone();
            Callback::from(move |_| s.dispatch(Msg::BackToSaved))
        };
        let keep = {
            let s = s.clone();
            Callback::from(move |_| s.dispatch(Msg::KeepLinkSession))
        };
        let back = failed.then(|| html! {
            <button id="trial-back" class="btn small-btn" onclick={back}
                title={format!("Open your saved session again: {label}")}>{ "Back to saved" }</button>
        });
        html! { <>
            { crate::kit::slot(back) }
            <button id="trial-keep" class="btn small-btn" onclick={keep}
                title="Keep this link's session: it replaces your saved session">{ "Keep this one" }</button>
        </> }
    };
    let banner = match m.banner.clone() {
        Some(b) => {
            let close = {
                let s = s.clone();
                Callback::from(move |_| s.dispatch(Msg::DismissBanner))
            };
            let (cls, role) = match b.kind {
                BannerKind::Error => ("banner error", "alert"),
                BannerKind::Info => ("banner info", "status"),
            };
            let undo_btn = undo.clone().map(|(what, n)| {
                let s = s.clone();
                let onclick = Callback::from(move |_| s.dispatch(Msg::Undo));
                html! { <button id="undo" class="btn small-btn" {onclick}
                    title={format!("Undo “{what}”: bring back the {n} discarded recorded action(s)")}>{ "Undo" }</button> }
            });
            let trial_here = trial
                .as_ref()
                .filter(|t| t.0 && b.kind == BannerKind::Error)
                .map(|t| trial_btns(true, &t.1));
            html! {
                <div id="banner" class={cls} role={role} title={b.text.clone()} data-kind={if b.kind == BannerKind::Error { "error" } else { "info" }}>
                    <span class="banner-text">{ b.text }</span>
                    { crate::kit::slot(trial_here) }
                    { crate::kit::slot(undo_btn) }
                    <button class="icon" title="Dismiss" aria-label="Dismiss" onclick={close}>{ "×" }</button>
                </div>
            }
        }
        None => match (undo, trial) {
            (_, Some((failed, label, n, last))) if failed || !busy => {
                let text = if failed {
                    "This link's session stopped at a recorded action it could not replay; your saved session is kept.".to_string()
                } else {
                    format!(
                        "Opened from a link: your saved session ({label}) stays saved until this one's {n} recorded action{} {} run (the last at {}).",
                        if n == 1 { "" } else { "s" },
                        if n == 1 { "has" } else { "have" },
                        clusterscope_core::time::fmt_time(last)
                    )
                };
                html! { <div id="trial" class="banner idle" data-failed={if failed { "1" } else { "0" }}>
                    <span class="banner-text muted" title={text.clone()}>{ text }</span>
                    { trial_btns(failed, &label) }
                </div> }
            }
            (Some((what, n)), _) => {
                let s = s.clone();
                let onclick = Callback::from(move |_| s.dispatch(Msg::Undo));
                html! { <div class="banner idle"><span class="banner-text muted">{ format!("“{what}” discarded {n} recorded action(s).") }</span>
                <button id="undo" class="btn small-btn" {onclick}>{ "Undo" }</button></div> }
            }
            // Nothing to say: the row of the lecture line keeps the height a message takes.
            _ => html! {},
        },
    };
    // The help overlay's code is the part `actions` (`ui::actions`): its dialog says so meanwhile.
    let help = m.help_open.then(|| {
        let target = super::actions::Target::Help(header_rev);
        html! { <super::actions::Actions s={s.clone()} {dark} {target} /> }
    });
    let branches_shown = m.branches.list.len() > 1;
    let scenario = m.run.scenario.name().to_string();
    let variant = m.run.variant.clone();
    let step = m.cursor().to_string();
    let time = m.now().to_string();
    // Where the timeline's cursor is, and whether the frame shown is a keyframe's before it
    // (a drag of the scrubber, issue 44).
    let cursor_us = m.cursor_time().to_string();
    let approx = if m.scrub_approx.is_some() { "1" } else { "0" };
    let frontier = m.frontier().to_string();
    let n_nodes = m.n();
    // A model with no N x N relation (Ozone, pingpong) has no matrix card: the sequence diagram
    // takes the row (style.css, `.grid.no-matrix`) instead of leaving the matrix's place empty.
    let no_matrix = m.run.engine.matrix().is_none();
    let present = m.teach.present;
    // What an embedded replay tells its host page (`embed.rs`): what is open, the chapter the
    // cursor is in, playing or not, and errors.
    let to_host = embed.as_ref().map(|_| {
        (
            (
                m.run.scenario.name().to_string(),
                m.run.variant.clone(),
                m.session_rev,
            ),
            super::embed::chapter_at(&m.captions, m.now()),
            m.playing,
            m.banner
                .as_ref()
                .filter(|b| b.kind == BannerKind::Error)
                .map(|b| b.text.clone()),
        )
    });
    let now_us = m.now();
    let user_actions = m.run.engine.user_actions().len().to_string();
    let comparing = m.compare.is_some();
    // A restored session computing its way to its cursor (`Model::opening`): its progress
    // stands where the panels go. So does the wait before it, when the page started with a
    // session in its address (a link, a reload): the session reader, the scenario's text and
    // its reader arriving. The default scenario's panels would be drawn and laid out for
    // nothing meanwhile (issue 44).
    let restoring_at_start = {
        let mut seen = first_ready.borrow_mut();
        *seen |= shown_ready;
        // Before the panels of this render: the header's check sees it (`ui::checks`).
        if *seen {
            platform::set_opening_link(false);
        }
        *started_with_session && !*seen
    };
    // What it says, and how far (none: an indeterminate bar).
    let opening = match m.opening() {
        Some((done, of)) => {
            let pct = (done as f64 / of.max(1) as f64 * 100.0).min(100.0);
            Some((
                format!("Computing the run up to its moment (step {}): {pct:.0}%. The cluster appears there; pause (space) to see it sooner.", group_digits(of)),
                Some(format!("{pct:.0}")),
            ))
        }
        None if restoring_at_start => Some(("Loading its scenario…".to_string(), None)),
        None => None,
    }
    .map(|(text, value)| {
        html! {
            <section id="opening" class="card opening" aria-live="polite">
                <h2>{ "Opening the session" }</h2>
                <p>{ text }</p>
                <progress max="100" {value}></progress>
            </section>
        }
    });
    // A link's session on trial (`model::trial`), for tests: pending or failed.
    let trial_state = m.trial.as_ref().map(|t| {
        if t.failed.is_some() {
            "failed"
        } else {
            "pending"
        }
    });
    // Compare: the other side's variant and time, for tests (`ui::compare`).
    let (cmp_variant, cmp_time) = match m.compare.as_ref() {
        Some(c) => (
            Some(c.variant.clone()),
            Some(c.other.borrow().now().to_string()),
        ),
        None => (None, None),
    };
    drop(m);
    {
        let (opened, chapter, playing, error) = to_host.map_or((None, None, None, None), |h| {
            (Some(h.0), Some(h.1), Some(h.2), h.3)
        });
        let s1 = s.clone();
        use_effect_with((opened, shown_ready), move |(o, ready)| {
            if o.is_some() && *ready {
                super::embed::post_ready(&s1);
            }
        });
        let s2 = s.clone();
        use_effect_with(chapter, move |c| {
            if let Some(Some(i)) = c {
                super::embed::post_chapter(&s2, *i);
            }
        });
        use_effect_with(playing, move |p| {
            if let Some(p) = p {
                super::embed::post_state(*p, now_us);
            }
        });
        use_effect_with(error, move |e| {
            if let Some(e) = e {
                super::embed::post("error", &[("message", e.as_str().into())]);
            }
        });
    }
    // Panels left behind off screen catch up once the frame is painted.
    {
        let catch_up = catch_up.clone();
        use_effect_with((deferred, rev), move |(deferred, _)| {
            if *deferred {
                let next = *catch_up + 1;
                platform::after_paint(move || {
                    if !crate::crash::stopped() {
                        catch_up.set(next);
                    }
                });
            }
        });
    }
    // Last effect of the root: the children's effects (canvas drawing) have run.
    use_effect(move || platform::perf::rendered(busy));
    // The cards below the first screen (`ui::below`).
    let below = |card: Card, rev: u64| {
        let panel = crate::kit::PanelProps {
            s: s.clone(),
            dark,
            resize: *resize,
            rev,
            side: None,
        };
        html! { <Below {card} load={(*below_load).clone()} retry={below_retry.clone()} {panel} /> }
    };
    html! {
        <main id="app" class={classes!("app", present.then_some("present"), embed.is_some().then_some("embed"))}
            data-ready={if shown_ready { "1" } else { "0" }}
            data-busy={if busy || deferred || download.is_some() { "1" } else { "0" }}
            data-deferred={if deferred { "1" } else { "0" }}
            data-held={if held || (was_held && deferred) { "1" } else { "0" }}
            data-scenario={scenario} data-variant={variant}
            data-step={step} data-time-us={time} data-frontier={frontier}
            data-cursor-us={cursor_us} data-approx={approx}
            data-user-actions={user_actions} data-trial={trial_state} data-theme={if dark { "dark" } else { "light" }}
            data-compare={cmp_variant} data-compare-time-us={cmp_time}>
            <ContextProvider<super::actions::ActionsLoad> context={actions_load}>
            <Header s={s.clone()} dark={dark} rev={header_rev} />
            <div class={classes!("dock", dock_folded.then_some("folded"))} id="dock" data-folded={dock_folded.to_string()}>
                <button id="dock-fold" class="dock-fold btn ghost" aria-expanded={(!*dock_folded).to_string()}
                    title={if *dock_folded { "Show the speed, the timeline's tools and the status lines" } else { "Fold the dock to the transport and the timeline" }}
                    onclick={{ let f = dock_folded.clone(); Callback::from(move |_| f.set(!*f)) }}>
                    { if *dock_folded { "▾ more" } else { "▴ less" } }</button>
                <Transport s={s.clone()} dark={dark} resize={*resize} rev={rev} />
                // "Just now" and the status message share one row (an empty status line was a
                // blank band of 30 px over the topology).
                <div class="say-row">
                    <super::lecture::LectureLine s={s.clone()} dark={dark} rev={rev} />
                    // Phones only (style.css): the topology is below the first screen there. Before
                    // the status line, which takes a row of its own on a phone.
                    <button id="jump-topology" class="jump-topo btn small-btn" title="Scroll to the cluster's topology"
                        onclick={Callback::from(|_| platform::scroll_under_dock("topology"))}>{ "↓ topology" }</button>
                    <div class="status-line" id="status-line">{ banner }</div>
                </div>
                <super::violation::ViolationBanner s={s.clone()} dark={dark} rev={rev} />
                <super::compare::CompareBar s={s.clone()} dark={dark} rev={rev} />
                // The branch list (two branches or more; its code the part `actions`).
                if branches_shown {
                    <super::actions::Actions s={s.clone()} {dark} target={super::actions::Target::Branches(header_rev)} />
                }
                <super::bookmarks::BookmarkBar s={s.clone()} dark={dark} rev={rev} />
            </div>
            if opening.is_none() {
                <super::compare::CompareSides s={s.clone()} dark={dark} resize={*resize} rev={rev} insp_rev={insp_rev} />
            }
            <div class={classes!("grid", (n_nodes > 40).then_some("large"), comparing.then_some("compare"), no_matrix.then_some("no-matrix"))}>
                if let Some(o) = opening {
                    { o }
                } else {
                if !comparing {
                    <TopologyView s={s.clone()} dark={dark} resize={*resize} rev={rev} />
                    <Inspector s={s.clone()} dark={dark} resize={*resize} rev={insp_rev} />
                    <Matrix s={s.clone()} dark={dark} resize={*resize} rev={rev} />
                }
                { below(Card::Sequence, seq_rev) }
                { below(Card::Plots, plots_rev) }
                { below(Card::Log, log_rev) }
                }
            </div>
            { crate::kit::slot(help) }
            <ConfirmDiscard s={s.clone()} dark={dark} resize={*resize} rev={rev} />
            </ContextProvider<super::actions::ActionsLoad>>
        </main>
    }
}

/// `n` with a thin space between groups of three digits (1 197 635).
fn group_digits(n: u64) -> String {
    let d = n.to_string();
    let mut out = String::with_capacity(d.len() + d.len() / 3 * 3);
    for (i, c) in d.chars().enumerate() {
        if i > 0 && (d.len() - i).is_multiple_of(3) {
            out.push('\u{2009}');
        }
        out.push(c);
    }
    out
}

/// The autosave and the permalink in the address bar ([`App`]): what one save needs.
#[derive(Clone)]
struct Autosave {
    s: Handle,
    /// The payload saved last (or restored at the start).
    saved: Rc<RefCell<String>>,
    /// The payload in the address bar.
    hashed: Rc<RefCell<String>>,
    /// The session the page started with.
    initial: Rc<RefCell<Session>>,
    /// Moved by every newer key: a save superseded before it ran does nothing.
    generation: Rc<RefCell<u64>>,
}

impl Autosave {
    /// Save the session and put it in the address bar, if it changed. A first visit that has
    /// changed nothing (the session the page started with, nothing saved, no link) has nothing
    /// to save: a reload shows the same. The session writer is a part of the split release
    /// build (`session_write`): when it is not loaded yet, it is fetched and the save runs then
    /// (unless a newer one superseded it); a writer that does not load is an error naming it,
    /// the saved session the one before, tried again at the next change.
    fn save(self, mine: u64) {
        if *self.generation.borrow() != mine || crate::crash::stopped() {
            return;
        }
        let m = self.s.model.borrow();
        let session = m.session();
        if self.saved.borrow().is_empty()
            && self.hashed.borrow().is_empty()
            && session == *self.initial.borrow()
        {
            return;
        }
        let Some(enc) = session.try_encode() else {
            drop(m);
            crate::reader::take_writer_wanted();
            platform::mark_saving(true);
            wasm_bindgen_futures::spawn_local(async move {
                let loaded = platform::load_part(crate::reader::WRITER_PART).await;
                platform::mark_saving(false);
                match loaded {
                    Ok(()) => self.save(mine),
                    Err(()) if !crate::crash::stopped() => {
                        self.s.dispatch(Msg::ShowError(format!(
                            "Your session could not be saved: {}. The session saved before \
                             stays saved; saving is tried again at your next change.",
                            crate::reader::WRITER_FAILED
                        )))
                    }
                    Err(()) => {}
                }
            });
            return;
        };
        if m.trial.is_none() && *self.saved.borrow() != enc {
            platform::save(platform::SESSION_KEY, &enc);
            platform::save(platform::SESSION_LABEL_KEY, &m.session_label());
            *self.saved.borrow_mut() = enc.clone();
        }
        if *self.hashed.borrow() != enc {
            platform::replace_hash(&enc);
            *self.hashed.borrow_mut() = enc;
        }
    }
}
