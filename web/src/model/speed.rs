//! The speed playing actually achieves (issue 20): the slider says what the person asks for;
//! a large cluster cannot always compute that much virtual time per frame, so the transport also
//! shows the speed measured over the last half second and says when playing falls behind.

/// Real time over which the achieved speed is measured.
pub const WINDOW_MS: f64 = 500.0;
/// Playing counts as falling behind when a window achieves less than this share of the chosen
/// speed while frames ran out of their step budget.
pub const BEHIND_SHARE: f64 = 0.9;

/// The speed measured while playing.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Achieved {
    /// Virtual seconds per real second over the last full window (`None` until one is measured
    /// since playing started).
    pub speed: Option<f64>,
    /// Whether the last window fell behind the chosen speed.
    pub behind: bool,
    /// Frames get a larger share of the real time for simulating (see
    /// `super::PLAY_FRAME_MAX_MS`): set when a window falls behind, cleared when a window keeps
    /// up with frames whose simulation fits the normal share (`normal_ms`).
    pub boosted: bool,
    real_ms: f64,
    cost_ms: f64,
    frames: u32,
    virtual_us: f64,
    /// Frames of the current window that stopped short of their target time (out of budget).
    short: u32,
}

impl Achieved {
    /// Forget the measurement (playing starts, the speed or the run changes).
    pub fn reset(&mut self) {
        *self = Achieved::default();
    }

    /// One frame of playing: `dt_ms` of real time, `virtual_us` of virtual time advanced,
    /// whether it `reached` the time the chosen speed asked for; `chosen` in virtual s per real s.
    /// `cost_ms`: the previous frame's simulation time; `normal_ms`: the share a frame gets
    /// when not boosted.
    pub fn frame(
        &mut self,
        dt_ms: f64,
        virtual_us: f64,
        reached: bool,
        chosen: f64,
        cost_ms: f64,
        normal_ms: f64,
    ) {
        self.real_ms += dt_ms.max(0.0);
        self.virtual_us += virtual_us.max(0.0);
        self.cost_ms += cost_ms.max(0.0);
        self.frames += 1;
        if !reached {
            self.short += 1;
        }
        if self.real_ms >= WINDOW_MS {
            let s = self.virtual_us / 1000.0 / self.real_ms;
            self.speed = Some(s);
            self.behind = self.short > 0 && s < chosen * BEHIND_SHARE;
            if self.behind {
                self.boosted = true;
            } else if self.short == 0 && self.cost_ms / f64::from(self.frames) < normal_ms {
                self.boosted = false;
            }
            self.real_ms = 0.0;
            self.virtual_us = 0.0;
            self.cost_ms = 0.0;
            self.frames = 0;
            self.short = 0;
        }
    }
}

/// "9.8×" style, for the achieved speed.
pub fn fmt_speed(s: f64) -> String {
    if s >= 100.0 {
        format!("{s:.0}×")
    } else if s >= 10.0 {
        format!("{s:.1}×")
    } else if s >= 0.01 {
        format!("{s:.2}×")
    } else {
        format!("{s:.1e}×")
    }
}

/// What the transport shows next to the chosen speed while playing: the achieved speed and,
/// when it falls behind, that it does. `None` before a window is measured.
pub fn achieved_label(a: &Achieved) -> Option<String> {
    let s = a.speed?;
    Some(if a.behind {
        format!("actual {} · falling behind", fmt_speed(s))
    } else {
        format!("actual {}", fmt_speed(s))
    })
}
