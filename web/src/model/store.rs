//! The reducer Yew holds ([`Store`]): a shared [`Model`] and a revision, and what every message
//! goes through around [`Model::update`] (a planted failure, stale notices, a link's trial,
//! compare's other side).

use super::{Download, Model, Msg};
use std::cell::RefCell;
use std::rc::Rc;
use yew::Reducible;

/// The reducer Yew holds: a shared [`Model`] plus a revision so that every change re-renders.
pub struct Store {
    pub model: Rc<RefCell<Model>>,
    pub rev: u64,
}

impl Store {
    pub fn new(model: Model) -> Self {
        Store {
            model: Rc::new(RefCell::new(model)),
            rev: 0,
        }
    }
}

impl PartialEq for Store {
    fn eq(&self, o: &Self) -> bool {
        Rc::ptr_eq(&self.model, &o.model) && self.rev == o.rev
    }
}

impl Reducible for Store {
    type Action = Msg;

    fn reduce(self: Rc<Self>, msg: Msg) -> Rc<Self> {
        let changed = {
            let mut m = self.model.borrow_mut();
            // A test's planted failure (`crash::fail_next_update`) happens here, as a bug would.
            crate::crash::planted_failure();
            match msg {
                Msg::Downloaded { name, result } => downloaded(&mut m, name, result),
                // While a built-in's text is downloaded, what comes waits behind the message
                // that asked for it (an embed's variant after its scenario, a link after the
                // saved session), except the animation loop's ticks.
                msg if m.download.is_some() && !matches!(msg, Msg::Tick { .. }) => {
                    if let Some(d) = m.download.as_mut() {
                        d.waiting.push(msg);
                    }
                    false
                }
                msg => apply(&mut m, msg),
            }
        };
        if changed {
            Rc::new(Store {
                model: self.model.clone(),
                rev: self.rev + 1,
            })
        } else {
            self
        }
    }
}

thread_local! {
    /// Downloads started, to tell two of the same text apart.
    static DOWNLOADS: std::cell::Cell<u64> = const { std::cell::Cell::new(0) };
}

/// A new download of `name` (a built-in's text, or with `part` a part of the split build) that
/// `msg` waits for; its id is the next one.
fn start_download(name: &'static str, part: bool, msg: Msg) -> Download {
    Download {
        name,
        part,
        id: DOWNLOADS.with(|n| {
            n.set(n.get() + 1);
            n.get()
        }),
        waiting: vec![msg],
    }
}

/// One message through [`Model::update`] and what follows every message. A message that needed
/// a built-in scenario's text not downloaded yet (`crate::builtins::take_wanted`) waits for it
/// in [`Model::download`]; the app starts the download when that appears.
fn apply(m: &mut Model, msg: Msg) -> bool {
    let again = msg.may_open_builtin().then(|| msg.clone());
    let edits = msg.edits_session();
    let rev = m.session_rev;
    let changed = m.update(msg);
    // Compare's code (the split release build), asked for by this message: fetched after what
    // the message itself waits for, if anything (it asks again when it is applied again).
    let compare = super::compare::take_wanted();
    // A built-in's text first, then the scenario reader that reads it (the split release
    // build's part `reader`: the default scenario needs none), then the model's code (the
    // scenario names its model).
    let reader = crate::reader::take_wanted();
    // A link's or the saved session's reader (the split release build's part `session`).
    let session = crate::reader::take_session_wanted();
    // The session writer (the part `session_write`): a link opened writes the session it
    // replaces, to go back to.
    let writer = crate::reader::take_writer_wanted();
    let wanted = match crate::builtins::take_wanted() {
        Some(name) => Some((name, false)),
        None if writer => Some((crate::reader::WRITER_PART, true)),
        None if session => Some((crate::reader::SESSION_PART, true)),
        None if reader => Some((crate::reader::PART, true)),
        None => clusterscope_core::registry::take_wanted().map(|name| (name, true)),
    };
    if let Some((name, part)) = wanted {
        if let Some(msg) = again {
            // Its error ("not downloaded yet") is replaced by what happens meanwhile.
            m.info(if part && name == crate::reader::PART {
                "Loading the scenario reader…".to_string()
            } else if part && name == crate::reader::SESSION_PART {
                "Loading the session reader…".to_string()
            } else if part && name == crate::reader::WRITER_PART {
                "Loading the session writer…".to_string()
            } else if part {
                format!("Loading the {name} model…")
            } else {
                format!("Opening {name}: downloading its scenario file…")
            });
            m.download = Some(start_download(name, part, msg));
            return true;
        }
    }
    // Compare's part: the compare waits for it (the message that asked, a link's session say,
    // is applied as it is, with compare off meanwhile).
    if let Some(v) = compare.filter(|_| m.download.is_none()) {
        m.info("Loading the compare view…".into());
        m.download = Some(start_download(
            super::compare::PART,
            true,
            Msg::Compare(Some(v)),
        ));
    }
    // A "nothing more after the cursor" notice goes once the cursor moved.
    let changed = m.drop_stale_notice() || changed;
    // A link's session on trial passes, fails, or is kept by the person's change.
    let kept = edits && m.session_rev != rev;
    let trial = m.follow_trial(kept);
    // Compare mode: the other side follows this side's cursor and session.
    m.sync_compare() || changed || trial
}

/// The download of `name` ended: the messages that waited are applied in their order (one may
/// ask for another download: the rest wait again). On failure the message that asked for the
/// text is dropped with an error naming the file; the others are applied.
fn downloaded(m: &mut Model, name: &'static str, result: Result<(), String>) -> bool {
    let Some(d) = m.download.take().filter(|d| d.name == name) else {
        return false;
    };
    let part = d.part;
    let mut waiting = d.waiting.into_iter();
    if let Err(e) = result {
        let restoring = matches!(waiting.next(), Some(Msg::RestoreSaved(_)));
        m.error(if part && name == super::compare::PART {
            format!(
                "Could not compare: {e}. Your current session is unchanged; pick the variant to \
                 compare with again to retry."
            )
        } else if part && name == crate::reader::WRITER_PART {
            format!("Could not open the link: {e}. Your current session is unchanged; open the link again to retry.")
        } else if part && name == crate::reader::SESSION_PART {
            format!(
                "Could not read the session: {e}. {}",
                if restoring {
                    "Your saved session stays saved: reload the page once you are online."
                } else {
                    "Your current session is unchanged; open the link again to retry."
                }
            )
        } else if part && name == crate::reader::PART {
            format!(
                "Could not read the scenario: {e}. {}",
                if restoring {
                    "Your saved session stays saved: reload the page once you are online."
                } else {
                    "Your current session is unchanged; open it again to retry."
                }
            )
        } else if part {
            format!(
                "Could not open a scenario of the {name} model: {e}. Your current session is \
                 unchanged."
            )
        } else if restoring {
            format!(
                "Could not restore your saved session: the built-in scenario {name} did not \
                 download ({e}). It stays saved: reload the page once you are online."
            )
        } else {
            format!(
                "Could not open the built-in scenario {name}: {e}. Check the connection and \
                 choose it again; your current session is unchanged."
            )
        });
        if restoring {
            m.keep_saved_until_edit = Some(m.session_rev);
        }
    } else {
        m.banner = None;
    }
    while let Some(msg) = waiting.next() {
        apply(m, msg);
        if let Some(d) = m.download.as_mut() {
            d.waiting.extend(waiting);
            break;
        }
    }
    true
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A saved session whose built-in did not download stays saved: the autosave holds until
    /// the person changes the session shown instead.
    #[test]
    fn a_failed_restore_keeps_the_saved_session() {
        let mut m = Model::new();
        m.download = Some(Download {
            name: "raft-figure-8",
            part: false,
            id: 1,
            waiting: vec![Msg::RestoreSaved("saved".into())],
        });
        assert!(downloaded(&mut m, "raft-figure-8", Err("offline".into())));
        assert_eq!(m.keep_saved_until_edit, Some(m.session_rev));
        // Another scenario that failed to open holds nothing.
        let mut m = Model::new();
        m.download = Some(Download {
            name: "raft-figure-8",
            part: false,
            id: 2,
            waiting: vec![Msg::BackToSaved],
        });
        downloaded(&mut m, "raft-figure-8", Err("offline".into()));
        assert_eq!(m.keep_saved_until_edit, None);
    }

    /// A model waiting in `Model::download` for the part `part` with `msg` (download `id`).
    fn waiting_for(m: &mut Model, part: &'static str, id: u64, msg: Msg) {
        m.download = Some(Download {
            name: part,
            part: true,
            id,
            waiting: vec![msg],
        });
    }

    /// Compare's part that did not load (the split release build): an error naming it, compare
    /// off, the session shown unchanged; one that loaded opens the compare that waited for it.
    #[test]
    fn compare_waits_for_its_part() {
        let mut m = Model::new();
        let (file, rev) = (m.run.scenario.file.clone(), m.session_rev);
        waiting_for(
            &mut m,
            super::super::compare::PART,
            5,
            Msg::Compare(Some("fixed".into())),
        );
        assert!(downloaded(
            &mut m,
            super::super::compare::PART,
            Err("split/compare did not load".into())
        ));
        let b = m.banner.as_ref().expect("an error");
        assert!(
            b.text.starts_with(
                "Could not compare: split/compare did not load. Your current session is unchanged"
            ),
            "{}",
            b.text
        );
        assert!(m.compare.is_none(), "compare stays off");
        assert_eq!((m.run.scenario.file.clone(), m.session_rev), (file, rev));
        assert!(m.download.is_none());
        waiting_for(
            &mut m,
            super::super::compare::PART,
            6,
            Msg::Compare(Some("fixed".into())),
        );
        assert!(downloaded(&mut m, super::super::compare::PART, Ok(())));
        assert_eq!(
            m.compare.as_ref().map(|c| c.variant.as_str()),
            Some("fixed"),
            "the waiting compare opened"
        );
    }

    /// A model's part that did not load (the split release build): an error naming the model,
    /// the message that wanted it dropped, the session shown unchanged; one that loaded lets
    /// the waiting message through (natively every model is compiled in, so it opens).
    #[test]
    fn a_model_part_waits_like_a_text() {
        let mut m = Model::new();
        let file = m.run.scenario.file.clone();
        waiting_for(&mut m, "raft", 3, Msg::LoadBuiltin("raft-figure-8".into()));
        assert!(downloaded(&mut m, "raft", Err("offline".into())));
        let b = m.banner.as_ref().expect("an error");
        assert!(
            b.text
                .starts_with("Could not open a scenario of the raft model: offline."),
            "{}",
            b.text
        );
        assert_eq!(m.run.scenario.file, file, "the session is unchanged");
        assert!(m.download.is_none());
        waiting_for(&mut m, "raft", 4, Msg::LoadBuiltin("raft-figure-8".into()));
        assert!(downloaded(&mut m, "raft", Ok(())));
        assert_eq!(
            m.run.scenario.raw.protocol, "raft",
            "the waiting message applied"
        );
    }

    /// The scenario reader's part that did not load (the split release build): an error naming
    /// it, the session shown unchanged; a saved session being restored stays saved; one that
    /// loaded lets the waiting message through (natively the reader is compiled in).
    #[test]
    fn the_reader_part_waits_like_a_text() {
        let mut m = Model::new();
        let file = m.run.scenario.file.clone();
        let reader = crate::reader::PART;
        waiting_for(&mut m, reader, 5, Msg::LoadBuiltin("raft-figure-8".into()));
        assert!(downloaded(
            &mut m,
            reader,
            Err("split/reader did not load".into())
        ));
        let b = m.banner.as_ref().expect("an error");
        assert!(
            b.text.starts_with(
                "Could not read the scenario: split/reader did not load. Your current session \
                 is unchanged"
            ),
            "{}",
            b.text
        );
        assert_eq!(m.run.scenario.file, file, "the session is unchanged");
        assert!(m.download.is_none());
        assert_eq!(m.keep_saved_until_edit, None);
        waiting_for(&mut m, reader, 6, Msg::RestoreSaved("saved".into()));
        downloaded(&mut m, reader, Err("offline".into()));
        assert_eq!(
            m.keep_saved_until_edit,
            Some(m.session_rev),
            "the saved session stays"
        );
        waiting_for(&mut m, reader, 7, Msg::LoadBuiltin("raft-figure-8".into()));
        assert!(downloaded(&mut m, reader, Ok(())));
        assert_eq!(
            m.run.scenario.raw.protocol, "raft",
            "the waiting message applied"
        );
    }

    /// The default model, its scenario file, and a link to the same scenario at seed 7.
    fn model_and_link_at_seed_7() -> (Model, String, String) {
        let m = Model::new();
        let file = m.run.scenario.file.clone();
        let mut other = Model::new();
        other.update(Msg::SetSeed(7));
        let link = other.session().encode();
        (m, file, link)
    }

    /// The session reader's part that did not load (the split release build): an error naming
    /// it, the session shown unchanged; a saved session being restored stays saved; one that
    /// loaded lets the waiting link through (natively the decoder is compiled in).
    #[test]
    fn the_session_part_waits_like_a_text() {
        let (mut m, file, link) = model_and_link_at_seed_7();
        let part = crate::reader::SESSION_PART;
        waiting_for(&mut m, part, 5, Msg::OpenPermalink(link.clone()));
        assert!(downloaded(
            &mut m,
            part,
            Err("split/session did not load".into())
        ));
        let b = m.banner.as_ref().expect("an error");
        assert!(
            b.text.starts_with(
                "Could not read the session: split/session did not load. Your current session \
                 is unchanged"
            ),
            "{}",
            b.text
        );
        assert_eq!(m.run.scenario.file, file, "the session is unchanged");
        assert_ne!(m.run.seed, 7);
        assert!(m.download.is_none());
        assert_eq!(m.keep_saved_until_edit, None);
        waiting_for(&mut m, part, 6, Msg::RestoreSaved(link.clone()));
        downloaded(&mut m, part, Err("offline".into()));
        assert_eq!(
            m.keep_saved_until_edit,
            Some(m.session_rev),
            "the saved session stays"
        );
        waiting_for(&mut m, part, 7, Msg::OpenPermalink(link));
        assert!(downloaded(&mut m, part, Ok(())));
        assert_eq!(m.run.seed, 7, "the waiting link applied");
    }

    /// The session writer's part (the split release build: a link opened writes the session it
    /// replaces) that did not load: an error naming it, the session shown unchanged; one that
    /// loaded lets the waiting link through.
    #[test]
    fn the_session_writer_waits_like_a_part() {
        let (mut m, file, link) = model_and_link_at_seed_7();
        let part = crate::reader::WRITER_PART;
        waiting_for(&mut m, part, 5, Msg::OpenPermalink(link.clone()));
        assert!(downloaded(
            &mut m,
            part,
            Err(crate::reader::WRITER_FAILED.into())
        ));
        let b = m.banner.as_ref().expect("an error");
        assert!(
            b.text.starts_with(
                "Could not open the link: the session writer's code did not load (a part of the \
                 app, split/session_write; check the connection). Your current session is \
                 unchanged"
            ),
            "{}",
            b.text
        );
        assert_eq!(m.run.scenario.file, file, "the session is unchanged");
        assert_ne!(m.run.seed, 7);
        assert!(m.download.is_none());
        waiting_for(&mut m, part, 6, Msg::OpenPermalink(link));
        assert!(downloaded(&mut m, part, Ok(())));
        assert_eq!(m.run.seed, 7, "the waiting link applied");
    }
}
