//! Transport: play/pause, stepping, jumps, the speed slider, the clock, and the timeline scrubber.

use super::icons::icon;
use super::{t, PanelProps};
use crate::draw::{palette, timeline};
use crate::model::nav::NavKind;
use crate::model::{Msg, SPEED_MAX, SPEED_MIN};
use crate::platform;
use web_sys::{HtmlCanvasElement, HtmlInputElement};
use yew::prelude::*;

/// Slider position (0..=1000) <-> speed, logarithmic.
fn speed_to_pos(s: f64) -> f64 {
    (s.log10() - SPEED_MIN.log10()) / (SPEED_MAX.log10() - SPEED_MIN.log10()) * 1000.0
}

fn pos_to_speed(p: f64) -> f64 {
    let e = SPEED_MIN.log10() + p / 1000.0 * (SPEED_MAX.log10() - SPEED_MIN.log10());
    // Snap to 1, 2, 5 x 10^k.
    let k = e.floor();
    let f = 10f64.powf(e - k);
    let snapped = [1.0, 2.0, 5.0, 10.0]
        .into_iter()
        .min_by(|a, b| (a - f).abs().total_cmp(&(b - f).abs()))
        .unwrap_or(1.0);
    snapped * 10f64.powf(k)
}

pub fn speed_label(s: f64) -> String {
    if s >= 1.0 {
        format!("{s:.0}×")
    } else {
        let txt = format!("{s:.4}");
        format!("{}×", txt.trim_end_matches('0'))
    }
}

#[function_component(Transport)]
pub fn transport(p: &PanelProps) -> Html {
    let s = &p.s;
    let canvas = use_node_ref();
    // The hovered x and the canvas width then (read in the event handler: reading it while
    // rendering would force a layout in the middle of the DOM update).
    let hover = use_state(|| None::<(f64, f64)>);
    let dragging = use_mut_ref(|| false);
    let m = s.model.borrow();

    {
        let canvas = canvas.clone();
        let s = s.clone();
        let dark = p.dark;
        let hover = hover.map(|(x, _)| x);
        use_effect(move || {
            if let Some(c) = canvas.cast::<HtmlCanvasElement>() {
                if let Some((ctx, w, h)) = platform::prepare_canvas(&c, true) {
                    let m = s.model.borrow();
                    timeline::draw(&ctx, &m, w, h, hover, &palette(dark));
                    crate::draw::compare::mark_divergence(&ctx, &m, w, h);
                }
            }
        });
    }

    let btn = |id: &'static str, label: &'static str, title: &'static str, msg: Msg| {
        let s = s.clone();
        let jump = matches!(msg, Msg::JumpToStart | Msg::JumpToEnd);
        let onclick = Callback::from(move |_| {
            if jump {
                platform::perf::jump_start();
            }
            s.dispatch(msg.clone())
        });
        html! { <button id={id} class="btn tbtn" {title} aria-label={title} {onclick}>{ icon(label) }</button> }
    };
    let playing = m.playing;
    let seeking = m.seek.is_some();
    let play = {
        let s = s.clone();
        let onclick = Callback::from(move |_| s.dispatch(Msg::TogglePlay));
        let (label, title) = if playing || seeking {
            ("pause", "Pause (space)")
        } else {
            ("play", "Play (space)")
        };
        html! { <button id="play" class="btn tbtn primary" {title} aria-label={title} {onclick}>{ icon(label) }</button> }
    };
    let on_speed = {
        let s = s.clone();
        Callback::from(move |e: InputEvent| {
            let v: f64 = e
                .target_unchecked_into::<HtmlInputElement>()
                .value()
                .parse()
                .unwrap_or(500.0);
            s.dispatch(Msg::SetSpeed(pos_to_speed(v)));
        })
    };

    let end = m.end();
    let scrub = move |s: &super::Handle, c: &NodeRef, x: f64| {
        if let Some(el) = c.cast::<HtmlCanvasElement>() {
            let w = platform::canvas_size(&el).0 as f64;
            platform::perf::jump_start();
            s.dispatch(Msg::ScrubTo(timeline::t_of(x, end, w)));
        }
    };
    let on_down = {
        let (s, c, d) = (s.clone(), canvas.clone(), dragging.clone());
        Callback::from(move |e: MouseEvent| {
            *d.borrow_mut() = true;
            scrub(&s, &c, e.offset_x() as f64);
        })
    };
    let on_move = {
        let (s, c, d, hv) = (s.clone(), canvas.clone(), dragging.clone(), hover.clone());
        Callback::from(move |e: MouseEvent| {
            let x = e.offset_x() as f64;
            let w = c
                .cast::<HtmlCanvasElement>()
                .map_or(1.0, |el| platform::canvas_size(&el).0 as f64);
            hv.set(Some((x, w)));
            if *d.borrow() && e.buttons() & 1 == 1 {
                scrub(&s, &c, x);
            }
        })
    };
    let on_up = {
        let d = dragging.clone();
        Callback::from(move |_| *d.borrow_mut() = false)
    };
    let on_leave = {
        let (d, hv) = (dragging.clone(), hover.clone());
        Callback::from(move |_| {
            *d.borrow_mut() = false;
            hv.set(None);
        })
    };
    let tip = hover.and_then(|(x, w)| {
        let at = timeline::t_of(x, end, w);
        let txt = timeline::describe_at(&m, x, w);
        let left = format!("left:{}px", x.clamp(60.0, (w - 200.0).max(60.0)));
        Some(html! {
            <div class="tl-tip" style={left}>
                <b>{ t(at) }</b>
                { for txt.map(|x| html!{ <div class="pre">{ x }</div> }) }
            </div>
        })
    });
    let status = if seeking {
        let pct = (m.now() as f64 / end.max(1) as f64 * 100.0).min(100.0);
        format!("computing… {pct:.0}%")
    } else if m.at_end() {
        "end of scenario".to_string()
    } else if playing {
        "playing".to_string()
    } else {
        "paused".to_string()
    };
    html! {
        <section class="transport" aria-label="Replay controls">
            <div class="tbar">
                { btn("to-start", "start", "Jump to start (Home)", Msg::JumpToStart) }
                { btn("step-back", "back", "Step back one event (←)", Msg::StepBack) }
                { play }
                { btn("step", "step", "Step one event (→)", Msg::StepEvent) }
                { btn("next-delivery", "delivery", "Next delivery (d)", Msg::Next(NavKind::Delivery)) }
                { btn("next-interesting", "interesting", "Next interesting event: state change, log line, fault (shift+→ or i)", Msg::Next(NavKind::Interesting)) }
                { btn("next-drop", "drop", "Next dropped message (x)", Msg::Next(NavKind::Drop)) }
                { btn("next-caption", "caption", "Next caption (c)", Msg::NextCaption) }
                { btn("to-end", "end", "Compute and jump to the end (End)", Msg::JumpToEnd) }
                <label class="speed" title="Replay speed: virtual time per real second ([ and ])">
                    <span>{ "speed" }</span>
                    <input id="speed" type="range" min="0" max="1000" step="1"
                        value={format!("{:.0}", speed_to_pos(m.speed))} oninput={on_speed} />
                    <output id="speed-label">{ speed_label(m.speed) }</output>
                </label>
                <div class="clock" id="clock">
                    <span class="now">{ t(m.now()) }</span>
                    <span class="muted">{ format!(" / {}", t(end)) }</span>
                    <span class="muted step">{ format!(" · step {}", m.cursor()) }</span>
                    <span class={classes!("state", if seeking || playing { "live" } else { "idle" })} id="play-state">{ status }</span>
                </div>
            </div>
            <div class="timeline-wrap">
                <canvas id="timeline" ref={canvas} class="timeline" role="slider"
                    aria-label="Timeline" aria-valuemin="0" aria-valuemax={end.to_string()} aria-valuenow={m.now().to_string()}
                    onmousedown={on_down} onmousemove={on_move} onmouseup={on_up} onmouseleave={on_leave}></canvas>
                { for tip }
            </div>
        </section>
    }
}
