//! Teaching aids (issue 14), pure state like the rest of `model`: the timeline's zoom window,
//! presentation mode, the message-by-message mode (each message animated along its link over a
//! fixed real time, as RaftScope's slow links do, although the simulated links take 0.2-2 ms)
//! and "explain this state" (computed from the model's views when shown, never in the
//! background).

use super::{nav, Model};
use clusterscope_core::engine::trace::RecKind;
use clusterscope_core::engine::NodeId;
use clusterscope_core::model::FlightInfo;
use clusterscope_core::time::Micros;

/// Dropped messages are drawn on the timeline's track (and a fork can start from them) when
/// the window holds at most this many records.
pub const MAX_DROP_SCAN: usize = 300_000;
/// Real time one message takes to cross its link in the message-by-message mode.
pub const MSG_MS: f64 = 600.0;
/// The narrowest timeline window (1 ms).
pub const MIN_SPAN: Micros = 1_000;
/// Most events a frame of the message-by-message mode processes looking for the next message
/// (a quiet stretch goes on in the next frame).
pub const MSG_STEPS_PER_TICK: u64 = 20_000;
/// Above this many nodes the message-by-message mode animates only the selected node's messages.
pub const MSG_ALL_NODES_MAX: usize = 16;
/// Zoom factor of one key press or button (in: this, out: its inverse).
pub const ZOOM_STEP: f64 = 0.5;

#[derive(Clone, Copy, Debug, PartialEq)]
pub enum TeachMsg {
    /// Zoom the timeline around virtual time `at` by `factor` (< 1 in, > 1 out).
    Zoom {
        at: Micros,
        factor: f64,
    },
    /// Zoom around the cursor (keys, buttons).
    ZoomCursor(f64),
    /// Show this window (a dragged range, the overview strip); `None`: the whole run.
    SetView(Option<(Micros, Micros)>),
    /// Move the window by this fraction of its width.
    Pan(f64),
    SetPresent(bool),
    SetMsgMode(bool),
    SetExplain(bool),
}

/// The message the message-by-message mode is animating.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct MsgAnim {
    pub id: u64,
    pub from: NodeId,
    pub to: NodeId,
    pub label: &'static str,
    /// Lost on its way: drawn to the middle of the link, then crossed out.
    pub dropped: bool,
    /// 0..=1 of its way (of [`MSG_MS`]).
    pub progress: f64,
    /// The cursor (step) it belongs to: a cursor move makes it stale.
    pub cursor: u64,
}

#[derive(Clone, Debug, Default, PartialEq)]
pub struct Teach {
    /// The timeline's visible window; `None`: the whole run ([`Model::view`] clamps it).
    pub view: Option<(Micros, Micros)>,
    /// Presentation mode: large type, the topology filling the screen, fullscreen if allowed.
    pub present: bool,
    /// Playing goes message by message ([`MSG_MS`] each) instead of at a speed.
    pub msg_mode: bool,
    pub anim: Option<MsgAnim>,
    /// Messages in flight already animated (waiting for their delivery).
    shown: Vec<u64>,
    /// The explanation of the selected node is shown ([`Model::explain`]).
    pub explain: bool,
}

impl Teach {
    /// A new run: no zoom, no animation (the modes stay as the person set them).
    pub fn reset(&mut self) {
        self.view = None;
        self.anim = None;
        self.shown.clear();
    }
}

/// The window `[lo, hi]` kept inside `[0, end]` and at least [`MIN_SPAN`] wide; `None` when it
/// covers the whole run.
pub fn clamp_view(lo: f64, hi: f64, end: Micros) -> Option<(Micros, Micros)> {
    let end_f = end.max(1) as f64;
    let span = (hi - lo).max(MIN_SPAN as f64);
    if !span.is_finite() || span >= end_f {
        return None;
    }
    let lo = lo.clamp(0.0, end_f - span);
    Some((lo.round() as Micros, (lo + span).round() as Micros))
}

/// `view` scaled by `factor` around `at` (kept where it is on screen).
pub fn zoom(
    view: (Micros, Micros),
    end: Micros,
    at: Micros,
    factor: f64,
) -> Option<(Micros, Micros)> {
    let (lo, hi) = (view.0 as f64, view.1 as f64);
    let at = (at as f64).clamp(lo, hi);
    let f = if factor.is_finite() && factor > 0.0 {
        factor
    } else {
        1.0
    };
    clamp_view(at - (at - lo) * f, at + (hi - at) * f, end)
}

/// `view` moved by `frac` of its width.
pub fn pan(view: (Micros, Micros), end: Micros, frac: f64) -> Option<(Micros, Micros)> {
    let (lo, hi) = (view.0 as f64, view.1 as f64);
    let d = (hi - lo) * frac;
    clamp_view(lo + d, hi + d, end)
}

impl Model {
    /// The timeline's visible window (the whole run unless zoomed).
    pub fn view(&self) -> (Micros, Micros) {
        let end = self.end();
        self.teach
            .view
            .filter(|v| v.0 < v.1 && v.1 <= end)
            .unwrap_or((0, end))
    }

    /// Whether the timeline shows less than the whole run.
    pub fn zoomed(&self) -> bool {
        self.view() != (0, self.end())
    }

    /// "Explain this state" for the selected node, when the person asked for it.
    pub fn explain(&self) -> Option<Vec<String>> {
        let id = self.selected.filter(|_| self.teach.explain)?;
        Some(self.run.engine.explain(id))
    }

    /// The animated message, if it belongs to the cursor.
    pub fn msg_anim(&self) -> Option<MsgAnim> {
        self.teach
            .anim
            .filter(|a| self.teach.msg_mode && a.cursor == self.cursor())
    }

    pub(super) fn teach_update(&mut self, msg: TeachMsg) -> bool {
        let end = self.end();
        match msg {
            TeachMsg::Zoom { at, factor } => self.teach.view = zoom(self.view(), end, at, factor),
            TeachMsg::ZoomCursor(factor) => {
                let now = self.now();
                self.teach.view = zoom(self.view(), end, now, factor);
            }
            TeachMsg::SetView(v) => {
                self.teach.view = v.and_then(|(lo, hi)| clamp_view(lo as f64, hi as f64, end))
            }
            TeachMsg::Pan(frac) => self.teach.view = pan(self.view(), end, frac),
            TeachMsg::SetPresent(b) => self.teach.present = b,
            TeachMsg::SetMsgMode(b) => {
                self.teach.msg_mode = b;
                self.teach.anim = None;
                self.teach.shown.clear();
            }
            TeachMsg::SetExplain(b) => self.teach.explain = b,
        }
        true
    }

    /// While playing, a zoomed timeline follows the cursor out of its window (not while a jump
    /// computes its way to a time, which may start before the window).
    pub(super) fn follow_view(&mut self) {
        let Some((lo, hi)) = self.teach.view else {
            return;
        };
        let now = self.now();
        if !self.playing || self.seek.is_some() || (lo..=hi).contains(&now) {
            return;
        }
        let span = (hi - lo) as f64;
        let lo = now as f64 - span * 0.1;
        self.teach.view = clamp_view(lo, lo + span, self.end());
    }

    /// Whether the message-by-message mode animates this message (all of them in a small
    /// cluster; in a large one, the selected node's).
    fn animates(&self, from: NodeId, to: NodeId) -> bool {
        self.n() <= MSG_ALL_NODES_MAX || self.selected.is_some_and(|s| s == from || s == to)
    }

    /// A frame of the message-by-message mode: the animated message moves on by `dt_ms`; once
    /// it has arrived, events are processed one at a time until another message is on the wire
    /// (the earliest due first) or lost, which is animated next.
    pub(super) fn msg_tick(&mut self, dt_ms: f64) -> bool {
        let dt = dt_ms.clamp(0.0, 100.0);
        let cursor = self.cursor();
        if let Some(a) = self.teach.anim.as_mut().filter(|a| a.cursor == cursor) {
            if a.progress < 1.0 {
                a.progress = (a.progress + dt / MSG_MS).min(1.0);
                return true;
            }
            if !a.dropped {
                let id = a.id;
                self.teach.shown.push(id);
            }
        }
        self.teach.anim = None;
        self.snapshot();
        let end = self.end();
        let mut left = MSG_STEPS_PER_TICK;
        loop {
            let mut flights: Vec<FlightInfo> = Vec::new();
            self.run.engine.flights(&mut |f| flights.push(f));
            self.teach
                .shown
                .retain(|id| flights.iter().any(|f| f.id == *id));
            let next = flights
                .iter()
                .filter(|f| !self.teach.shown.contains(&f.id) && self.animates(f.from, f.to))
                .min_by_key(|f| (f.deliver_at, f.id))
                .copied();
            if let Some(f) = next {
                self.teach.anim = Some(MsgAnim {
                    id: f.id,
                    from: f.from,
                    to: f.to,
                    label: f.label,
                    dropped: false,
                    progress: 0.0,
                    cursor: self.cursor(),
                });
                break;
            }
            // Not-animated messages count as shown: wait for an event.
            for f in &flights {
                if !self.teach.shown.contains(&f.id) {
                    self.teach.shown.push(f.id);
                }
            }
            if left == 0 {
                break;
            }
            let Some(t) = self.run.engine.next_time().filter(|t| *t <= end) else {
                self.engine_ok(|m| m.run.engine.run_until(end, 1).map(|_| ()));
                self.playing = false;
                break;
            };
            let now = self.now();
            if let Some(c) = self
                .caption_pause
                .then(|| {
                    self.captions
                        .iter()
                        .map(|c| c.0)
                        .find(|c| *c > now && *c < t)
                })
                .flatten()
            {
                // "Pause at captions" holds here too.
                self.engine_ok(|m| m.run.engine.run_until(c, 1).map(|_| ()));
                self.playing = false;
                break;
            }
            let before = self.cursor();
            let mut one = 1;
            if !self.engine_ok(|m| m.forward_to_time(t, &mut one).map(|_| ())) {
                break;
            }
            left -= 1;
            let trace = self.run.engine.trace();
            let lost = nav::recs_of_step(trace, before).find_map(|r| match r.kind {
                RecKind::Drop {
                    msg,
                    from,
                    to,
                    label,
                    ..
                } if self.animates(from, to) => Some((msg, from, to, label)),
                _ => None,
            });
            if let Some((id, from, to, label)) = lost {
                self.teach.anim = Some(MsgAnim {
                    id,
                    from,
                    to,
                    label,
                    dropped: true,
                    progress: 0.0,
                    cursor: self.cursor(),
                });
                break;
            }
        }
        self.after_move();
        true
    }
}
