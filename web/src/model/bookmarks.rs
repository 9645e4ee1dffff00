//! Named bookmarks on the timeline (issue 41: a review's "here W1 gets index 4"): each a time, a
//! name and a short note, added at the cursor, listed under the timeline (a click jumps there),
//! drawn on it, removable, and carried by the permalink and the export (`Session::bookmarks`).
//! They mark virtual times, so they stay across a variant, seed or branch switch; another
//! scenario starts without them.
//!
//! Also here: two small cursor chores of a restored or navigated session — the exact time a
//! link was shared at ([`Model::settle_step_time`]) and the "nothing more that way" notice that
//! goes once the cursor moves ([`Model::drop_stale_notice`]).

use super::*;
use clusterscope_core::session::{Bookmark, MAX_BOOKMARKS, MAX_BOOKMARK_NAME, MAX_BOOKMARK_NOTE};

/// `text` trimmed and cut to `max` characters.
fn clip_chars(text: &str, max: usize) -> String {
    text.trim().chars().take(max).collect()
}

impl Model {
    /// A bookmark at the cursor's time; an empty name becomes "B<n>". Kept in time order.
    pub(super) fn add_bookmark(&mut self, name: String, note: String) {
        if self.bookmarks.len() >= MAX_BOOKMARKS {
            self.error(format!(
                "This session has {MAX_BOOKMARKS} bookmarks, the most it keeps: remove one first."
            ));
            return;
        }
        let at = self.now();
        let mut name = clip_chars(&name, MAX_BOOKMARK_NAME);
        if name.is_empty() {
            name = format!("B{}", self.bookmarks.len() + 1);
        }
        let b = Bookmark {
            at_us: at,
            name,
            note: clip_chars(&note, MAX_BOOKMARK_NOTE),
        };
        let i = self.bookmarks.partition_point(|x| x.at_us <= at);
        self.bookmark_form = false;
        self.info(format!("Bookmark “{}” at {}", b.name, fmt_time(at)));
        self.bookmarks.insert(i, b);
    }

    pub(super) fn remove_bookmark(&mut self, i: usize) {
        if i < self.bookmarks.len() {
            let b = self.bookmarks.remove(i);
            self.info(format!("Removed the bookmark “{}”", b.name));
        }
    }

    pub(super) fn go_to_bookmark(&mut self, i: usize) {
        let Some(at) = self.bookmarks.get(i).map(|b| b.at_us) else {
            return;
        };
        self.stop();
        self.scrub_to(at.min(self.end()));
    }

    /// A restored session's time ([`Model::step_time`]), once its step is reached: the clock
    /// moves on to it when no event (nor recorded action) is due before it, as it stood when the
    /// link was made.
    pub(super) fn settle_step_time(&mut self) {
        let Some(t) = self.step_time.take() else {
            return;
        };
        let t = t.min(self.end());
        let step = self.run.engine.steps();
        let event_before = self.run.engine.next_time().is_some_and(|nt| nt <= t);
        let action_due = self
            .run
            .engine
            .user_actions()
            .iter()
            .any(|a| a.step == step && a.at.0 <= t);
        if t > self.now() && !event_before && !action_due {
            self.engine_ok(|m| m.run.engine.run_until(t, 1).map(|_| ()));
            self.sample();
            self.after_move();
        }
    }

    /// An information that there is nothing more in that direction ("No more captions after the
    /// cursor."): shown until the cursor moves.
    pub(super) fn notice(&mut self, text: String) {
        self.info(text.clone());
        self.notice_at = Some((self.now(), text));
    }

    /// Drop such a notice once the cursor has moved (or another message replaced it); whether
    /// the banner changed.
    pub(super) fn drop_stale_notice(&mut self) -> bool {
        let Some((at, text)) = &self.notice_at else {
            return false;
        };
        if self.banner.as_ref().is_none_or(|b| b.text != *text) {
            self.notice_at = None;
            return false;
        }
        if self.now() != *at {
            self.notice_at = None;
            self.banner = None;
            return true;
        }
        false
    }
}
