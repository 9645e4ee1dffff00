//! The timeline under the transport bar (issue 14), scrubbed as in a media player (issue 40):
//! press anywhere on the track and drag to scrub (the cursor has a handle); shift+drag a range
//! to zoom into it, wheel to zoom around the pointer (shift+wheel or a sideways wheel pans);
//! while zoomed, an overview strip of the whole run whose window box drags. A click never opens
//! a menu: what can be forked near a mark is offered by a right-click there, or by "fork
//! here…" for the cursor's moment. Then its tools: zoom buttons, the legend of its marks (named
//! by the model: `Model::state_marks`), the message-by-message mode and presentation mode.

use crate::draw::{palette, timeline, timescale};
use crate::kit::{t, Handle, PanelProps};
use crate::model::teach::{TeachMsg, ZOOM_STEP};
use crate::model::timeline_fork::TimelinePick;
use crate::model::Msg;
use crate::platform;
use clusterscope_core::time::Micros;
use wasm_bindgen::JsCast;
use web_sys::HtmlCanvasElement;
use yew::prelude::*;

/// A press on the timeline: scrubbing (a plain press, anywhere), or a shift+press that becomes a
/// range to zoom into once it moves.
#[derive(Clone, Copy, Debug, PartialEq)]
enum Drag {
    Idle,
    Pressed(f64),
    Scrub,
    Range(f64, f64),
}

/// Pixels a shift+press must move to become a range.
const DRAG_PX: f64 = 5.0;
/// A right-click this close to a mark (pixels either side) offers to fork there.
const MARK_PICK_PX: f64 = 4.0;

fn width(c: &NodeRef) -> f64 {
    c.cast::<HtmlCanvasElement>()
        .map_or(1.0, |el| platform::canvas_size(&el).0 as f64)
}

/// A fork menu where no mark is near: the selected node's actions at `at` (none selected: the
/// bar says to select one).
fn empty_pick(s: &Handle, at: Micros) -> TimelinePick {
    let m = s.model.borrow();
    TimelinePick {
        at,
        drops: Vec::new(),
        nodes: m.selected.into_iter().collect(),
        session_rev: m.session_rev,
    }
}

fn scrub(s: &Handle, view: (Micros, Micros), w: f64, x: f64) {
    platform::perf::jump_start();
    s.dispatch(Msg::ScrubTo(timescale::t_in(x, view, w)));
}

/// A drag that rests this long (no move) shows the exact frame in place of a keyframe's
/// ([`Msg::ScrubSettle`], issue 44).
pub const SCRUB_REST_MS: u32 = 100;

/// A drag's moves, coalesced (issue 44): only the latest pointer position matters, and it is
/// taken at the next animation frame, so that a pointer move never waits for a frame's work
/// (the browser delivers moves between frames) and a frame never does more than one update.
#[derive(Default)]
struct DragQueue {
    /// The time the pointer points at, not yet shown.
    at: Option<Micros>,
    /// An animation frame has been asked for, to show `at`.
    frame_asked: bool,
    /// Settles the frame shown when the drag rests (re-armed by each move and update).
    rest: Option<gloo::timers::callback::Timeout>,
    /// Moves and updates so far: a rest timer that fired settles only if none came since it
    /// was armed (checked in an animation frame, after the moves the browser held meanwhile).
    seq: u64,
}

type Queue = std::rc::Rc<std::cell::RefCell<DragQueue>>;

/// (Re-)arm the rest timer: [`SCRUB_REST_MS`] after the last move and the last update, the
/// frame shown is settled (a release does the same at once). The timer's task can run before
/// moves the browser holds for its next frame (after a long frame): it settles in an animation
/// frame, after those moves, and only if none came.
fn arm_rest(s: &Handle, q: &Queue) {
    let (s, q2) = (s.clone(), q.clone());
    let mut qb = q.borrow_mut();
    qb.seq += 1;
    let seq = qb.seq;
    qb.rest = Some(gloo::timers::callback::Timeout::new(
        SCRUB_REST_MS,
        move || {
            let Some(w) = web_sys::window() else { return };
            let f = wasm_bindgen::closure::Closure::once_into_js(move || {
                if q2.borrow().seq == seq && !crate::crash::stopped() {
                    platform::perf::jump_start();
                    s.dispatch(Msg::ScrubSettle);
                }
            });
            let _ = w.request_animation_frame(f.unchecked_ref());
        },
    ));
}

/// Show the drag at `t` at the next animation frame (with every later move until then
/// replacing it).
fn queue_scrub(s: &Handle, q: &Queue, t: Micros) {
    q.borrow_mut().at = Some(t);
    arm_rest(s, q);
    if q.borrow().frame_asked {
        return;
    }
    let Some(w) = web_sys::window() else { return };
    q.borrow_mut().frame_asked = true;
    let (s, q) = (s.clone(), q.clone());
    let f = wasm_bindgen::closure::Closure::once_into_js(move || {
        let at = {
            let mut qb = q.borrow_mut();
            qb.frame_asked = false;
            qb.at.take()
        };
        let Some(t) = at else { return };
        if crate::crash::stopped() {
            return;
        }
        platform::perf::jump_start();
        s.dispatch(Msg::ScrubTo(t));
        arm_rest(&s, &q);
    });
    let _ = w.request_animation_frame(f.unchecked_ref());
}

/// The drag ends (released, or the pointer left): the queued move is dropped, and the exact
/// frame is shown at `at` (the release's position) or at the time dragged to.
fn end_scrub(s: &Handle, q: &Queue, at: Option<Micros>) {
    {
        let mut qb = q.borrow_mut();
        qb.at = None;
        qb.rest = None;
        qb.seq += 1;
    }
    platform::perf::jump_start();
    // Still dragging: the release's position as a keyframe (usually the state shown, replayed
    // on a little), then its exact frame, replayed from there.
    if let Some(t) = at {
        s.dispatch(Msg::ScrubTo(t));
    }
    s.dispatch(Msg::SetScrubbing(false));
}

#[function_component(Timeline)]
pub fn timeline_view(p: &PanelProps) -> Html {
    let s = &p.s;
    let canvas = use_node_ref();
    let overview = use_node_ref();
    // The hovered x and the canvas width then (read in the event handler: reading it while
    // rendering would force a layout in the middle of the DOM update).
    let hover = use_state(|| None::<(f64, f64)>);
    let drag = use_state(|| Drag::Idle);
    let queue: Queue = use_mut_ref(DragQueue::default);
    let ov_drag = use_mut_ref(|| None::<Micros>);
    let wheel = use_mut_ref(|| None::<(HtmlCanvasElement, gloo::events::EventListener)>);
    // Fork from the timeline (issue 18): what a right-click near a mark, or "fork here…",
    // can fork (`ui/timeline_fork.rs`).
    let pick = use_state(|| None::<TimelinePick>);
    let m = s.model.borrow();
    let view = m.view();
    let end = m.end();
    let zoomed = m.zoomed();

    {
        let (canvas, overview, s, dark) = (canvas.clone(), overview.clone(), s.clone(), p.dark);
        let hover = hover.map(|(x, _)| x);
        let range = match *drag {
            Drag::Range(a, b) => Some((a, b)),
            _ => None,
        };
        use_effect(move || {
            let m = s.model.borrow();
            if let Some(c) = canvas.cast::<HtmlCanvasElement>() {
                if let Some((ctx, w, h)) = platform::prepare_canvas(&c, true) {
                    timeline::draw(&ctx, &m, w, h, hover, range, &palette(dark));
                    crate::draw::compare::mark_divergence(&ctx, &m, w, h);
                }
            }
            if let Some(c) = overview.cast::<HtmlCanvasElement>() {
                if let Some((ctx, w, h)) = platform::prepare_canvas(&c, true) {
                    timeline::draw_overview(&ctx, &m, w, h, &palette(dark));
                }
            }
        });
    }

    // The wheel: a listener that may prevent the page from scrolling (Yew's are passive),
    // attached to the canvas element of this render (checked each render: the element may be
    // created after the first effects ran).
    {
        let (canvas, s) = (canvas.clone(), s.clone());
        let wheel = wheel.clone();
        use_effect(move || {
            let Some(el) = canvas.cast::<HtmlCanvasElement>() else {
                return;
            };
            if wheel.borrow().as_ref().is_some_and(|(e, _)| *e == el) {
                return;
            }
            let c2 = canvas.clone();
            let l = gloo::events::EventListener::new_with_options(
                &el,
                "wheel",
                gloo::events::EventListenerOptions::enable_prevent_default(),
                move |e| {
                    // A "wheel" listener gets wheel events only.
                    let e = e.unchecked_ref::<web_sys::WheelEvent>();
                    e.prevent_default();
                    let w = width(&c2);
                    let view = s.model.borrow().view();
                    let (dx, dy) = (e.delta_x(), e.delta_y());
                    if e.shift_key() || dx.abs() > dy.abs() {
                        let d = if dx.abs() > dy.abs() { dx } else { dy };
                        let frac = (d / (w - 2.0 * timescale::PAD).max(1.0)).clamp(-0.5, 0.5);
                        s.dispatch(Msg::Teach(TeachMsg::Pan(frac)));
                    } else if dy != 0.0 {
                        let at = timescale::t_in(e.offset_x() as f64, view, w);
                        let factor = 1.0015f64.powf(dy).clamp(0.5, 2.0);
                        s.dispatch(Msg::Teach(TeachMsg::Zoom { at, factor }));
                    }
                },
            );
            *wheel.borrow_mut() = Some((el, l));
        });
    }

    let on_down = {
        let (s, c, drag, q, hv) = (
            s.clone(),
            canvas.clone(),
            drag.clone(),
            queue.clone(),
            hover.clone(),
        );
        let pick = pick.clone();
        Callback::from(move |e: MouseEvent| {
            if e.button() != 0 {
                return;
            }
            let x = e.offset_x() as f64;
            let w = width(&c);
            // A fork menu belongs to the moment it was asked at: scrubbing closes it.
            pick.set(None);
            if e.shift_key() {
                drag.set(Drag::Pressed(x));
            } else {
                drag.set(Drag::Scrub);
                // The cursor is at the pointer while dragging: no hover line or tip.
                hv.set(None);
                // The heavy panels follow a drag at most every SLOW_PANEL_MS (issue 20), and
                // not while it shows keyframes (issue 44). A click (released before the next
                // frame) jumps exactly, in `end_scrub`.
                s.dispatch(Msg::SetScrubbing(true));
                queue_scrub(&s, &q, timescale::t_in(x, view, w));
            }
        })
    };
    let on_move = {
        let (s, c, drag, hv, q) = (
            s.clone(),
            canvas.clone(),
            drag.clone(),
            hover.clone(),
            queue.clone(),
        );
        Callback::from(move |e: MouseEvent| {
            let x = e.offset_x() as f64;
            let w = width(&c);
            let pressed = e.buttons() & 1 != 0;
            if !(pressed && *drag == Drag::Scrub) {
                hv.set(Some((x, w)));
            }
            if !pressed {
                if *drag == Drag::Scrub {
                    end_scrub(&s, &q, None);
                }
                if *drag != Drag::Idle {
                    drag.set(Drag::Idle);
                }
                return;
            }
            match *drag {
                Drag::Scrub => queue_scrub(&s, &q, timescale::t_in(x, view, w)),
                Drag::Pressed(x0) if (x - x0).abs() > DRAG_PX => drag.set(Drag::Range(x0, x)),
                Drag::Range(x0, _) => drag.set(Drag::Range(x0, x)),
                _ => {}
            }
        })
    };
    // A right-click near a mark offers what can be forked there (a plain click only scrubs).
    let on_context = {
        let (s, c, pick) = (s.clone(), canvas.clone(), pick.clone());
        Callback::from(move |e: MouseEvent| {
            e.prevent_default();
            let w = width(&c);
            let x = e.offset_x() as f64;
            let near = |dx: f64| timescale::t_in(x + dx, view, w);
            let p =
                s.model
                    .borrow()
                    .timeline_pick(near(-MARK_PICK_PX), near(MARK_PICK_PX), near(0.0));
            pick.set(Some(p.unwrap_or_else(|| empty_pick(&s, near(0.0)))));
        })
    };
    // "fork here…": the same at the cursor.
    let on_fork_here = {
        let (s, c, pick) = (s.clone(), canvas.clone(), pick.clone());
        Callback::from(move |_| {
            let w = width(&c);
            let m = s.model.borrow();
            let (now, view) = (m.now(), m.view());
            let x = timescale::x_in(now, view, w);
            let near = |dx: f64| timescale::t_in(x + dx, view, w);
            let p = m
                .timeline_pick(near(-MARK_PICK_PX), near(MARK_PICK_PX), now)
                .unwrap_or_else(|| empty_pick(&s, now));
            drop(m);
            pick.set(Some(p));
        })
    };
    let on_up = {
        let (s, c, drag, q) = (s.clone(), canvas.clone(), drag.clone(), queue.clone());
        Callback::from(move |e: MouseEvent| {
            let w = width(&c);
            let x = e.offset_x() as f64;
            match *drag {
                // A shift+click that did not move: a plain scrub there.
                Drag::Pressed(_) => scrub(&s, view, w, x),
                Drag::Range(a, b) => {
                    let (lo, hi) = (
                        timescale::t_in(a.min(b), view, w),
                        timescale::t_in(a.max(b), view, w),
                    );
                    s.dispatch(Msg::Teach(TeachMsg::SetView(Some((lo, hi)))));
                }
                Drag::Scrub => end_scrub(&s, &q, Some(timescale::t_in(x, view, w))),
                _ => {}
            }
            drag.set(Drag::Idle);
        })
    };
    let on_leave = {
        let (s, drag, hv, q) = (s.clone(), drag.clone(), hover.clone(), queue.clone());
        Callback::from(move |_| {
            if *drag == Drag::Scrub {
                end_scrub(&s, &q, None);
            }
            drag.set(Drag::Idle);
            hv.set(None);
        })
    };

    // The overview strip: drag the window box, or press elsewhere to centre it there.
    let ov_at = {
        let (s, ov, od) = (s.clone(), overview.clone(), ov_drag.clone());
        move |x: f64, start: bool| {
            let w = width(&ov);
            let at = timescale::t_of(x, end, w);
            let (lo, hi) = s.model.borrow().view();
            if start {
                let inside = (lo..=hi).contains(&at);
                *od.borrow_mut() = Some(if inside { at - lo } else { (hi - lo) / 2 });
            }
            if let Some(off) = *od.borrow() {
                let lo2 = at.saturating_sub(off);
                s.dispatch(Msg::Teach(TeachMsg::SetView(Some((lo2, lo2 + (hi - lo))))));
            }
        }
    };
    let ov_down = {
        let f = ov_at.clone();
        Callback::from(move |e: MouseEvent| f(e.offset_x() as f64, true))
    };
    let ov_move = {
        let (f, od) = (ov_at.clone(), ov_drag.clone());
        Callback::from(move |e: MouseEvent| {
            if e.buttons() & 1 == 0 {
                *od.borrow_mut() = None;
            } else if od.borrow().is_some() {
                f(e.offset_x() as f64, false)
            }
        })
    };
    let ov_end = {
        let od = ov_drag.clone();
        Callback::from(move |_| *od.borrow_mut() = None)
    };

    let tip = hover.and_then(|(x, w)| {
        let at = timescale::t_in(x, view, w);
        let txt = timeline::describe_at(&m, x, w);
        let left = format!("left:{}px", x.clamp(60.0, (w - 200.0).max(60.0)));
        Some(html! {
            <div class="tl-tip" style={left}>
                <b>{ t(at) }</b>
                <span class="muted">{ " · drag to scrub, shift+drag to zoom, right-click to fork" }</span>
                { crate::kit::slot(txt.map(|x| html!{ <div class="pre">{ x }</div> })) }
            </div>
        })
    });

    let teach = |msg: TeachMsg| {
        let s = s.clone();
        Callback::from(move |_| s.dispatch(Msg::Teach(msg)))
    };
    let pal = palette(p.dark);
    let marks = m.run.engine.state_marks();
    let legend = {
        let item = |key: &'static str, swatch: Html, text: String, about: String| {
            html! { <span class="lg" data-mark={key} title={about}>{ swatch }{ text }</span> }
        };
        let mut items = vec![
            item(
                "caption",
                html! { <i class="tl-bar" style={format!("background:{}", pal.caption)}></i> },
                "caption".into(),
                "A caption; the number is its chapter (the list under the caption)".into(),
            ),
            item(
                "fault",
                html! { <i class="tl-tri" style={format!("border-top-color:{}", pal.fault)}></i> },
                "fault".into(),
                "A fault the scenario schedules".into(),
            ),
            item(
                "action",
                html! { <i class="tl-tri" style={format!("border-top-color:{}", pal.user)}></i> },
                "your action".into(),
                "An action you recorded (kill, restart, a link, a fork...)".into(),
            ),
            item(
                "drop",
                html! { <b class="x">{ "✕" }</b> },
                "dropped".into(),
                "A dropped message, on the track when the window holds few enough events (zoom in); large: a kind the model calls key (gossip: the echoes)".into(),
            ),
        ];
        if !m.bookmarks.is_empty() {
            items.push(item(
                "bookmark",
                html! { <i class="tl-bm" style={format!("border-left-color:{}", crate::draw::timeline::BOOKMARK)}></i> },
                "bookmark".into(),
                "A bookmark of yours (b: add one at the cursor; the list under the timeline jumps)".into(),
            ));
        }
        // Only once a violation is computed: a run that keeps its invariants shows none of it.
        if !m.run.engine.trace().violations.is_empty() {
            items.push(item(
                "violation",
                html! { <i class="tl-vio" style={format!("background:{}", pal.down)}>{ "!" }</i> },
                "safety violation".into(),
                "A safety invariant of the model broke here (marked once computed, before the cursor gets there); the banner names it and the topology rings its nodes".into(),
            ));
        }
        if let Some(sm) = marks {
            items.push(item(
                "above",
                html! { <i class="tl-bar" style={format!("background:{}", pal.down)}></i> },
                sm.above.0.to_string(),
                format!(
                    "Above the track's middle, how many times per moment {}",
                    sm.above.1
                ),
            ));
            items.push(item(
                "below",
                html! { <i class="tl-bar" style={format!("background:{}", pal.up)}></i> },
                sm.below.0.to_string(),
                format!("Below the middle, how many times per moment {}", sm.below.1),
            ));
        }
        for k in m.marks.kinds {
            items.push(item(
                "moment",
                html! { <i class="tl-bar" style={format!("background:{}", crate::draw::model_color(&pal, k.color))}></i> },
                k.name.to_string(),
                format!("A moment the model marks: {} (n / N: next / previous)", k.about),
            ));
        }
        items.push(item(
            "computed",
            html! { <i class="tl-track" style={format!("background:{}", pal.link)}></i> },
            "computed".into(),
            "The part of the run computed so far (the darker part: played up to the cursor)".into(),
        ));
        items
    };
    let on_msg_mode = {
        let s = s.clone();
        let on = m.teach.msg_mode;
        Callback::from(move |_| s.dispatch(Msg::Teach(TeachMsg::SetMsgMode(!on))))
    };
    let present = m.teach.present;
    let on_present = {
        let s = s.clone();
        Callback::from(move |_| {
            platform::fullscreen(!present);
            s.dispatch(Msg::Teach(TeachMsg::SetPresent(!present)));
        })
    };
    // A pick of another session (a fork, another variant) is stale: nothing shown.
    let dark = p.dark;
    let fork_bar = (*pick)
        .as_ref()
        .filter(|p| p.session_rev == m.session_rev)
        .map(|p| {
            let pick = pick.clone();
            let close = Callback::from(move |_| pick.set(None));
            // Its code is the part `actions` (`ui::actions`): a row saying so meanwhile.
            let target = super::actions::Target::Fork(std::rc::Rc::new(p.clone()), close);
            html! { <super::actions::Actions s={s.clone()} {dark} {target} /> }
        });
    let drops_listed = (!m.busy()).then(|| super::timeline_fork::listed_drops(&m));
    let marks_listed = (!m.busy()).then(|| super::timeline_fork::listed_marks(&m));
    // The moments, for tests: `time:kind:node;...` (at most 200).
    let moments_listed = (!m.busy()).then(|| {
        m.marks
            .moments
            .iter()
            .take(200)
            .map(|k| format!("{}:{}:{}", k.time, k.kind, m.name(k.node)))
            .collect::<Vec<_>>()
            .join(";")
    });
    // The violations computed so far, for tests: `time:invariant:node,node;...`.
    let violations = {
        let names = &m.run.scenario.topo.names;
        m.run
            .engine
            .trace()
            .violations
            .iter()
            .map(|v| {
                format!(
                    "{}:{}:{}",
                    v.time,
                    v.violation.invariant,
                    crate::draw::violation::node_names(names, v).replace(", ", ",")
                )
            })
            .collect::<Vec<_>>()
            .join(";")
    };
    // The bookmarks, for tests: `time:name;...`.
    let bookmarks = m
        .bookmarks
        .iter()
        .map(|b| format!("{}:{}", b.at_us, b.name.replace(';', ",")))
        .collect::<Vec<_>>()
        .join(";");
    html! {
        <>
        <div class="timeline-wrap">
            <canvas id="timeline" ref={canvas} class="timeline" role="slider"
                aria-label="Timeline: press or drag to scrub, shift+drag a range to zoom into it, wheel to zoom, right-click to fork"
                aria-valuemin={view.0.to_string()} aria-valuemax={view.1.to_string()} aria-valuenow={m.cursor_time().to_string()}
                data-view-lo={view.0.to_string()} data-view-hi={view.1.to_string()} data-drops={drops_listed} data-marks={marks_listed} data-moments={moments_listed} data-violations={violations} data-bookmarks={bookmarks}
                onmousedown={on_down} onmousemove={on_move} onmouseup={on_up} onmouseleave={on_leave} oncontextmenu={on_context}></canvas>
            { crate::kit::slot(tip) }
        </div>
        { crate::kit::slot(fork_bar) }
        if zoomed {
            <canvas id="overview" ref={overview} class="overview" title="The whole run: drag the box to move the window"
                onmousedown={ov_down} onmousemove={ov_move} onmouseup={ov_end.clone()} onmouseleave={ov_end}></canvas>
        }
        <div class={classes!("tl-tools", zoomed.then_some("zoomed"))}>
            <span class="tl-zoom">
                <button id="zoom-out" class="btn small-btn" title="Zoom out (Z)" aria-label="Zoom out" onclick={teach(TeachMsg::ZoomCursor(1.0 / ZOOM_STEP))}>{ "−" }</button>
                <button id="zoom-in" class="btn small-btn" title="Zoom in around the cursor (z); or the wheel over the timeline, or drag a range on it" aria-label="Zoom in" onclick={teach(TeachMsg::ZoomCursor(ZOOM_STEP))}>{ "+" }</button>
                <button id="zoom-reset" class="btn small-btn" title="Show the whole run (0)" disabled={!zoomed} onclick={teach(TeachMsg::SetView(None))}>{ "whole run" }</button>
                <button id="fork-here" class="btn small-btn" title="What can be forked at the cursor: deliver a dropped message, kill, restart or stall a node (also: right-click on the timeline)" onclick={on_fork_here}>{ "fork here…" }</button>
                if zoomed {
                    <span class="muted small" id="zoom-window">{ format!("{} – {}", t(view.0), t(view.1)) }</span>
                }
            </span>
            <span id="tl-legend" class="tl-legend">{ for legend }</span>
            <span class="tl-modes">
                <label class="check" title="Play message by message: each message crosses its link in 600 ms (links take 0.2-2 ms, too fast to see) (m)">
                    <input id="msg-mode" type="checkbox" checked={m.teach.msg_mode} onchange={on_msg_mode} />{ "message by message" }
                </label>
                <button id="present" class={classes!("btn", "small-btn", present.then_some("primary"))} aria-pressed={present.to_string()}
                    title="Presentation mode: fullscreen, larger type, the topology filling the screen (f)" onclick={on_present}>{ "present" }</button>
            </span>
        </div>
        </>
    }
}
