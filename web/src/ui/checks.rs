//! "Expectations": what the scenario says must happen in this variant, and whether it does in the
//! open session (its seed, the person's recorded actions and forks). The session is run to its end
//! in a Web Worker (`crate::sweep::check`) whenever it changes — automatically for small clusters,
//! on request above [`AUTO_NODES`] nodes (a second whole run of a 251-node cluster is seconds of a
//! core and its own memory) — and each expectation is shown against the replay's cursor: held,
//! failed at a time (with the reason, one click to go there), or failing later in this run.
//!
//! Test hooks: `#checks[data-state]` (idle, running, done, stale, error; data-held, data-failed,
//! data-session); `.check-row` (data-name, data-status: held, holds, failed, fails-later;
//! data-failed-at-us; data-met-at-us: when a `within` check first held); `.check-go` (jumps to
//! the time; a `within` that held: "held after 1.713 s", to that moment); `#checks-run`.
//!
//! The rows (`ui::check_rows::rows`) are drawn by the `actions` part (`ui::actions::Target::Checks`, issue 44):
//! the summary and its counts come with the check, `data-state` is `done` once the part is in (or
//! failed: its note with "Try again" in the rows' place, `#checks-wait`), `running` until then.

use super::actions::ActionsLoad;
use crate::kit::{Handle, PartLoad};
use crate::model::Msg;
use crate::sweep::check_wire::Checked;
use crate::sweep::workers::{Pool, Reply};
use clusterscope_core::time::Micros;
use std::rc::Rc;
use yew::prelude::*;

/// Clusters up to this many nodes are checked as soon as the session changes.
pub const AUTO_NODES: usize = 60;

#[derive(Properties, Clone)]
pub struct ChecksProps {
    pub s: Handle,
    /// The session's revision (scenario, variant, seed, recorded actions).
    pub session: u64,
    /// The replay's cursor, to place each result against.
    pub now: Micros,
    /// The page is opening the link in its address (`platform::opening_link`): the session
    /// shown is about to be replaced, and is not checked meanwhile (its run in a worker would
    /// take a core from the link's opening, issue 44); it is once this is off, if still shown.
    pub hold: bool,
}

impl PartialEq for ChecksProps {
    fn eq(&self, o: &Self) -> bool {
        self.session == o.session && self.now == o.now && self.hold == o.hold
    }
}

enum State {
    /// Not checked yet (a large cluster: waits for the button).
    Stale,
    Running,
    Done(Rc<Checked>),
    Error(String),
}

pub enum CMsg {
    Run,
    Reply(Reply),
    /// The writers' part (`reader::WRITER_PART`) loaded, or not: the check waited for it.
    Writer(bool),
    /// The `actions` part's state changed (the app's context): the rows are drawn there.
    Actions(ActionsLoad),
}

pub struct Checks {
    state: State,
    /// The session revision the state is about.
    session: u64,
    pool: Option<Pool>,
    /// The `actions` part's state (`ActionsLoad`, the app's context; `None` without one: the
    /// rows are drawn at once), and the context's subscription.
    actions: Option<ActionsLoad>,
    _actions: Option<ContextHandle<ActionsLoad>>,
}

impl Checks {
    fn start(&mut self, ctx: &Context<Self>) {
        self.session = ctx.props().session;
        let job = {
            let m = ctx.props().s.model.borrow();
            let actions = m.run.engine.user_actions();
            // With the person's own expectations (`model::user_expects`).
            m.checked_scenario()
                .and_then(|(r, sc)| crate::sweep::check::session_job(&r, &sc, m.run.seed, actions))
                .map(|(b, text)| (b, text, m.run.variant.clone(), m.run.seed))
        };
        // A new check replaces (terminates) any earlier one.
        self.pool = None;
        let (builtin, text, variant, seed) = match job {
            Ok(j) => j,
            // The session as a scenario file (recorded actions, the person's expectations) needs
            // the scenario writer: in the split release build a part, fetched now; the check
            // starts again when it is in (`CMsg::Writer`).
            Err(_) if !crate::reader::writer_loaded() => {
                crate::reader::take_writer_wanted();
                self.state = State::Running;
                let link = ctx.link().clone();
                wasm_bindgen_futures::spawn_local(async move {
                    let r = crate::platform::load_part(crate::reader::WRITER_PART).await;
                    if !crate::crash::stopped() {
                        link.send_message(CMsg::Writer(r.is_ok()));
                    }
                });
                return;
            }
            Err(e) => {
                self.state = State::Error(e);
                return;
            }
        };
        let link = ctx.link().clone();
        let res =
            Pool::start(1, Rc::new(move |r| link.send_message(CMsg::Reply(r)))).and_then(|pool| {
                pool.send_check(0, &builtin, &text, &variant, seed)?;
                Ok(pool)
            });
        match res {
            Ok(pool) => {
                self.pool = Some(pool);
                self.state = State::Running;
            }
            Err(e) => self.state = State::Error(e),
        }
    }

    /// Its automatic check, unless held (`ChecksProps::hold`: it starts when the hold ends) or
    /// the cluster is large (it waits for the button).
    fn on_session(&mut self, ctx: &Context<Self>) {
        if !ctx.props().hold && ctx.props().s.model.borrow().n() <= AUTO_NODES {
            self.start(ctx);
        } else {
            self.pool = None;
            self.session = ctx.props().session;
            self.state = State::Stale;
        }
    }
}

impl Component for Checks {
    type Message = CMsg;
    type Properties = ChecksProps;

    fn create(ctx: &Context<Self>) -> Self {
        let sub = ctx
            .link()
            .context::<ActionsLoad>(ctx.link().callback(CMsg::Actions));
        let mut c = Checks {
            state: State::Stale,
            session: ctx.props().session,
            pool: None,
            actions: sub.as_ref().map(|(a, _)| a.clone()),
            _actions: sub.map(|(_, h)| h),
        };
        c.on_session(ctx);
        c
    }

    fn changed(&mut self, ctx: &Context<Self>, old: &Self::Properties) -> bool {
        if ctx.props().session != self.session || (old.hold && !ctx.props().hold) {
            self.on_session(ctx);
        }
        true
    }

    fn update(&mut self, ctx: &Context<Self>, msg: CMsg) -> bool {
        match msg {
            CMsg::Actions(a) => self.actions = Some(a),
            CMsg::Run => self.start(ctx),
            // Only while the check waits for it (a newer session may have started one since).
            CMsg::Writer(_) if self.pool.is_some() || !matches!(self.state, State::Running) => {
                return false;
            }
            CMsg::Writer(true) => self.start(ctx),
            CMsg::Writer(false) => {
                self.state = State::Error(format!(
                    "Could not check: {}.",
                    crate::reader::WRITER_FAILED
                ))
            }
            CMsg::Reply((_, res)) => {
                if self.pool.is_none() {
                    return false; // a check replaced by a newer one
                }
                // Done with the worker: its memory goes with it.
                self.pool = None;
                self.state = match res.and_then(|out| crate::sweep::check_wire::read(&out)) {
                    Ok(c) => {
                        // The caption says whether its claims held in this session.
                        ctx.props()
                            .s
                            .dispatch(Msg::Checked(self.session, Rc::new(c.expectations.clone())));
                        State::Done(Rc::new(c))
                    }
                    Err(e) => State::Error(e),
                };
            }
        }
        true
    }

    fn view(&self, ctx: &Context<Self>) -> Html {
        let now = ctx.props().now;
        let s = ctx.props().s.clone();
        let yours = s.model.borrow().run.engine.user_actions().len();
        let (held, failed) = match &self.state {
            State::Done(c) => {
                let h = c.expectations.iter().filter(|e| e.passed).count();
                let f = c.expectations.iter().filter(|e| e.fails_run()).count();
                (h, f + c.skipped.len())
            }
            _ => (0, 0),
        };
        let (state, summary, body) = match &self.state {
            State::Stale => (
                "stale",
                "expectations: not checked".to_string(),
                html! {
                    <p class="checks-note">
                        { format!("Above {AUTO_NODES} nodes the expectations are checked on request: a second whole run of the session, in the background. ") }
                        <button id="checks-run" class="btn small-btn" onclick={ctx.link().callback(|_| CMsg::Run)}>{ "Check now" }</button>
                    </p>
                },
            ),
            State::Running => (
                "running",
                "expectations: checking…".to_string(),
                html! { <p class="checks-note">{ "Running this session to its end in the background…" }</p> },
            ),
            State::Error(e) => (
                "error",
                "expectations: could not check".to_string(),
                html! { <p class="checks-note error" role="alert">{ e.clone() }</p> },
            ),
            State::Done(c) => (
                // The rows once the `actions` part is in (`rows`, drawn there; issue 44): "done"
                // then, or when the part failed (its note in the rows' place), "running" meanwhile.
                match self.actions.as_ref().map(|a| &a.load) {
                    Some(PartLoad::Loaded(_) | PartLoad::Failed(_)) | None => "done",
                    Some(_) => "running",
                },
                if failed > 0 && yours > 0 {
                    format!("the script's expectations: {held} ✓ {failed} ✗ (you changed the run)")
                } else {
                    format!("expectations: {held} ✓ {failed} ✗")
                },
                html! {
                    <super::actions::Actions s={s.clone()} dark={false}
                        target={super::actions::Target::Checks(c.clone(), now)} />
                },
            ),
        };
        html! {
            <details id="checks" class={classes!("checks", (failed > 0).then_some("has-failed"))} data-state={state}
                data-held={held.to_string()} data-failed={failed.to_string()} data-session={self.session.to_string()}>
                <summary title="What the scenario expects of this variant, checked on this session (seed, your actions and forks)">{ summary }</summary>
                { body }
            </details>
        }
    }
}
