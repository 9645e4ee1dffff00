//! Transport: play/pause, stepping, jumps, the speed slider, the clock, and the timeline
//! (`ui/timeline.rs`: zoom, overview, legend, teaching modes).

use super::icons::icon;
use crate::kit::{t, PanelProps};
use crate::model::nav::NavKind;
use crate::model::{Msg, SPEED_MAX, SPEED_MIN};
use crate::platform;
use web_sys::HtmlInputElement;
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
    let m = s.model.borrow();

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
    // What playing achieves (issue 20): shown while playing once measured.
    let actual = playing
        .then(|| crate::model::speed::achieved_label(&m.achieved))
        .flatten()
        .map(|text| {
            let behind = m.achieved.behind;
            html! {
                <output id="speed-actual" class={classes!("speed-actual", behind.then_some("behind"))}
                    data-behind={if behind { "1" } else { "0" }}
                    title="The speed playing achieves (virtual time per real second, over the last half second)">{ text }</output>
            }
        });
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
    // A drag of the scrubber showing a keyframe's frame (issue 44): the cursor's time is marked
    // approximate ("≈", its place kept when hidden: the bar must not change size under a drag,
    // or the page lays out again at every update), and the timeline says which time the frame
    // shown is at (`ui::timeline`).
    let approx = m.scrub_approx;
    let status = if seeking {
        let pct = (m.now() as f64 / end.max(1) as f64 * 100.0).min(100.0);
        format!("computing… {pct:.0}%")
    } else if m.at_end() {
        "end of scenario".to_string()
    } else if playing && m.teach.msg_mode {
        "message by message".to_string()
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
                { btn("bookmark-add", "bookmark", "Bookmark the cursor: a name and a note (b)", Msg::SetBookmarkForm(true)) }
                <label class="speed" title="Replay speed: virtual time per real second ([ and ])">
                    <span>{ "speed" }</span>
                    <input id="speed" type="range" min="0" max="1000" step="1"
                        value={format!("{:.0}", speed_to_pos(m.speed))} oninput={on_speed} />
                    <output id="speed-label">{ speed_label(m.speed) }</output>
                    { actual }
                </label>
                <div class="clock" id="clock">
                    <span class={classes!("approx-mark", approx.is_some().then_some("on"))} id="clock-approx" aria-hidden={(approx.is_none()).to_string()}
                        title="Approximate: while you drag, the frame shown is the nearest stored one before the cursor; the exact frame follows when you let go or hold still">{ "≈" }</span>
                    <span class={classes!("now", approx.is_some().then_some("approx"))}>{ t(m.cursor_time()) }</span>
                    <span class="muted end">{ format!(" / {}", t(end)) }</span>
                    <span class="muted step">{ format!(" · step {}", m.cursor()) }</span>
                    <span class={classes!("state", if seeking || playing { "live" } else { "idle" })} id="play-state">{ status }</span>
                </div>
            </div>
            <super::timeline::Timeline s={s.clone()} dark={p.dark} resize={p.resize} rev={p.rev} />
        </section>
    }
}
