//! The reducer Yew holds ([`Store`]): a shared [`Model`] and a revision, and what every message
//! goes through around [`Model::update`] (a planted failure, stale notices, a link's trial,
//! compare's other side).

use super::{Model, Msg};
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
            let edits = msg.edits_session();
            let rev = m.session_rev;
            let changed = m.update(msg);
            // A "nothing more after the cursor" notice goes once the cursor moved.
            let changed = m.drop_stale_notice() || changed;
            // A link's session on trial passes, fails, or is kept by the person's change.
            let kept = edits && m.session_rev != rev;
            let trial = m.follow_trial(kept);
            // Compare mode: the other side follows this side's cursor and session.
            m.sync_compare() || changed || trial
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
