//! Every transition of the state: [`Model::update`] dispatches each [`Msg`], and the plumbing
//! the transitions share (the banner's error and notice, stopping, an engine step that may fail).

use super::*;

impl Model {
    /// Apply one message. Returns whether anything visible changed.
    pub fn update(&mut self, msg: Msg) -> bool {
        // Anything else than the drag itself acts on the exact state at the cursor: a
        // keyframe's frame shown meanwhile is settled first (issue 44).
        let settle = self.scrub_approx.is_some()
            && !matches!(
                msg,
                Msg::ScrubTo(_) | Msg::SetScrubbing(true) | Msg::Tick { .. }
            );
        if settle {
            self.settle_scrub();
        }
        match msg {
            Msg::LoadBuiltin(name) => {
                // A new scenario: the run replaced is dropped (kept runs stay within their
                // budget and are taken back only for their own scenario).
                if self
                    .load(ScenarioRef::Builtin(name), None, None, None, None)
                    .is_some()
                {
                    self.bookmarks.clear();
                    self.user_expects.clear();
                }
            }
            Msg::SetVariant(v) => self.switch(Some(v), None),
            Msg::SetSeed(s) => self.switch(None, Some(s)),
            Msg::ImportScenario { file, text } => self.import(&file, text),
            Msg::ImportFile { file, bytes } => {
                let max = self.limits.max_scenario_bytes;
                match clusterscope_core::text::scenario_text(&file, bytes, max) {
                    Ok(text) => self.import(&file, text),
                    Err(e) => self.error(format!(
                        "Import failed: {} Your current session is unchanged.",
                        sentence(&e)
                    )),
                }
            }
            Msg::ImportTooLarge { file, size } => {
                let max = self.limits.max_scenario_bytes;
                if let Err(e) = clusterscope_core::text::check_size(&file, size, max) {
                    self.error(format!(
                        "Import failed: {} Your current session is unchanged.",
                        sentence(&e)
                    ));
                }
            }
            Msg::OpenPermalink(text) => self.open_link(&text),
            Msg::KeepLinkSession => self.keep_link_session(),
            Msg::BackToSaved => self.back_to_saved(),
            Msg::RestoreSaved(text) => {
                if let Err(e) = self.open_session(&text) {
                    self.error(format!(
                        "The saved session could not be restored: {}",
                        sentence(&e)
                    ));
                }
            }
            Msg::TogglePlay => {
                if self.busy() {
                    self.playing = false;
                    self.seek = None;
                } else {
                    if self.at_end() {
                        self.scrub_to(0);
                    }
                    self.playing = true;
                    self.frac_us = 0.0;
                    self.achieved.reset();
                }
            }
            Msg::Pause => {
                if !self.busy() {
                    return false;
                }
                self.playing = false;
                self.seek = None;
            }
            Msg::Tick {
                dt_ms,
                cost_ms,
                render_ms,
            } => {
                self.note_render(render_ms);
                let changed = self.tick(dt_ms, cost_ms);
                self.follow_view();
                return changed;
            }
            Msg::StepEvent => {
                self.stop();
                self.snapshot();
                if self.engine_ok(|m| m.step_once()) {
                    self.after_move();
                }
            }
            Msg::StepBack => {
                self.stop();
                let c = self.cursor();
                if c > 0 {
                    self.snapshot();
                    self.jump_to_step(c - 1);
                }
            }
            Msg::Next(kind) => {
                self.stop();
                self.start_seek(Seek::Until(kind));
            }
            Msg::Prev(kind) => {
                self.stop();
                self.prev(kind);
            }
            Msg::NextCaption => {
                self.stop();
                let now = self.now();
                match self.captions.iter().find(|c| c.0 > now) {
                    Some(c) => {
                        let t = c.0;
                        self.scrub_to(t);
                    }
                    None => self.notice("No more captions after the cursor.".into()),
                }
            }
            Msg::Chapter(i) => {
                self.stop();
                match self.captions.get(i) {
                    Some(c) => {
                        let t = c.0;
                        self.scrub_to(t);
                    }
                    None => self.error(format!(
                        "chapter {i}: this replay has {} chapter(s), numbered from 0",
                        self.captions.len()
                    )),
                }
            }
            Msg::PrevCaption => {
                self.stop();
                let now = self.now();
                match self.captions.iter().rev().find(|c| c.0 < now) {
                    Some(c) => {
                        let t = c.0;
                        self.scrub_to(t);
                    }
                    None => self.scrub_to(0),
                }
            }
            Msg::JumpToStart => {
                self.stop();
                self.scrub_to(0);
            }
            Msg::JumpToEnd => {
                self.stop();
                let end = self.end();
                self.scrub_to(end);
            }
            Msg::ScrubTo(t) => {
                self.seek = None;
                // Compare mode keeps its exact jumps (both sides on one cursor).
                if self.scrubbing && self.compare.is_none() {
                    self.scrub_moving = true;
                    crate::platform::perf::scrub_start();
                    self.scrub_preview(t);
                    crate::platform::perf::scrub_end();
                } else {
                    self.scrub_to(t.min(self.end()));
                }
            }
            // Settled above, if a keyframe's frame was shown; the panels held while the drag
            // moved catch up (issue 44).
            Msg::ScrubSettle => return self.scrub_rest() || settle,
            Msg::SetSpeed(s) => {
                self.achieved.reset();
                self.speed = if s.is_finite() {
                    s.clamp(SPEED_MIN, SPEED_MAX)
                } else {
                    1.0
                };
            }
            Msg::SelectNode(id) => {
                let id = id.filter(|i| (*i as usize) < self.n());
                self.selected = id;
                self.prev_node = None;
                if let Some(i) = id {
                    self.selected_link = None;
                    if self.seq_auto {
                        self.follow_partners(true);
                    } else if !self.seq_nodes.contains(&i) {
                        if self.seq_nodes.len() >= MAX_SEQ_NODES {
                            self.seq_nodes.remove(0);
                        }
                        self.seq_nodes.push(i);
                    }
                }
            }
            Msg::ToggleSeqNode(id) => {
                if (id as usize) < self.n() {
                    self.seq_auto = false;
                    if let Some(p) = self.seq_nodes.iter().position(|x| *x == id) {
                        self.seq_nodes.remove(p);
                    } else {
                        if self.seq_nodes.len() >= MAX_SEQ_NODES {
                            self.seq_nodes.remove(0);
                        }
                        self.seq_nodes.push(id);
                    }
                }
            }
            Msg::SeqRecentPartners => {
                let Some(sel) = self.selected else {
                    return false;
                };
                let t = self.run.engine.trace();
                let mut nodes = vec![sel];
                nodes.extend(seq::recent_partners(
                    t,
                    self.cursor(),
                    sel,
                    MAX_SEQ_NODES - 1,
                    400_000,
                ));
                self.seq_nodes = nodes;
                self.seq_auto = false;
            }
            Msg::SelectLink(l) => {
                let n = self.n() as NodeId;
                self.selected_link = l.filter(|(a, b)| a != b && *a < n && *b < n);
            }
            Msg::SelectMsg(m) => self.selected_msg = m,
            Msg::Fork { msg, fate } => self.fork(msg, fate),
            Msg::UserAction(a) => self.user_action(a),
            Msg::ConfirmDiscard => self.confirm_discard(),
            Msg::CancelDiscard => self.confirm = None,
            Msg::Undo => self.undo(),
            Msg::ShowError(e) => self.error(e),
            Msg::ShowInfo(e) => self.info(e),
            Msg::DismissBanner => self.banner = None,
            Msg::SetHelp(b) => self.help_open = b,
            Msg::SetTheme(t) => self.theme = t,
            Msg::SetCaptionPause(b) => self.caption_pause = b,
            Msg::Checked(rev, results) => self.checked = Some((rev, results)),
            Msg::SetScrubbing(b) => {
                if self.scrubbing == b {
                    return false;
                }
                self.scrubbing = b;
                if !b {
                    self.scrub_rest();
                }
            }
            Msg::Teach(t) => return self.teach_update(t),
            Msg::Compare(v) => self.set_compare(v),
            Msg::JumpToDivergence => self.jump_to_divergence(),
            Msg::SwitchBranch(i) => self.switch_branch(i),
            Msg::EvaluateBranches => self.branches.requested = true,
            Msg::ForkAt { at, action } => self.fork_at(at, action),
            Msg::BranchEvaluated {
                index,
                actions,
                outcome,
            } => self.branch_evaluated(index, actions, outcome),
            Msg::NextMoment => self.next_moment(),
            Msg::PrevMoment => self.prev_moment(),
            Msg::QuickKey(k) => self.quick_key(k),
            Msg::BackToScript => self.back_to_script(),
            Msg::AddBookmark { name, note } => self.add_bookmark(name, note),
            Msg::RemoveBookmark(i) => self.remove_bookmark(i),
            Msg::GoToBookmark(i) => self.go_to_bookmark(i),
            Msg::SetBookmarkForm(b) => {
                self.stop();
                self.bookmark_form = b;
            }
            Msg::AddExpect(e) => self.add_expect(*e),
            Msg::RemoveExpect(i) => self.remove_expect(i),
            // The store handles it (`store.rs`): it is never queued nor passed here.
            Msg::Downloaded { .. } => return false,
        }
        true
    }

    pub(super) fn error(&mut self, text: String) {
        self.banner = Some(Banner {
            kind: BannerKind::Error,
            text: clusterscope_core::text::clip(&text, MAX_BANNER_CHARS),
        });
    }

    pub(super) fn info(&mut self, text: String) {
        self.banner = Some(Banner {
            kind: BannerKind::Info,
            text,
        });
    }

    pub(super) fn stop(&mut self) {
        self.playing = false;
        self.seek = None;
        self.step_time = None;
    }

    /// Run `f`; an engine error stops playback and shows a banner. Returns whether it succeeded.
    pub(super) fn engine_ok(
        &mut self,
        f: impl FnOnce(&mut Self) -> Result<(), clusterscope_core::SimError>,
    ) -> bool {
        let frontier = self.frontier();
        match f(self).and_then(|()| self.check_heap(frontier)) {
            Ok(()) => true,
            Err(e) => {
                self.stop();
                let text = self
                    .trial_failure(&e)
                    .unwrap_or_else(|| format!("The simulation stopped: {e}"));
                self.error(text);
                self.after_move();
                false
            }
        }
    }
}
