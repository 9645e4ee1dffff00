//! The panel kit: what every panel takes ([`PanelProps`], the store's [`Handle`]) and the small
//! helpers they share ([`slot`], [`use_on_screen`], [`t`], [`age`], [`kv_row`]). It sits below the generic
//! panels (`crate::ui`) and the model panels (`crate::models`), so that both use it while the
//! app (`ui::app`) puts them together.

use crate::model::{Model, Store};
use std::cell::RefCell;
use std::rc::Rc;
use yew::prelude::*;

pub type Handle = UseReducerHandle<Store>;

/// An optional child as exactly one node, present or not. `{ for option }` and `{ option }` add
/// zero or one node to the parent's children, and Yew pairs unkeyed children from the end: when
/// such a child comes or goes, every sibling before it is patched against the wrong old node (a
/// canvas before a hover tooltip was replaced, sized and drawn from scratch on every tooltip and
/// every jump that changed the matrix's list). An empty `Html` keeps the count fixed.
pub fn slot(h: Option<Html>) -> Html {
    h.unwrap_or_default()
}

/// Whether the element behind `node` is on screen (within 200 px): the component re-renders when
/// that changes. `true` until the first report, so that a first render draws. For panels whose
/// canvases need not be drawn while nobody can see them (`content-visibility: auto` already skips
/// their style, layout and paint; this skips the drawing calls too).
#[hook]
pub fn use_on_screen(node: &NodeRef) -> bool {
    let on = use_state_eq(|| true);
    {
        let on = on.clone();
        use_effect_with(node.clone(), move |node| {
            let watch = node
                .cast::<web_sys::Element>()
                .and_then(|el| crate::platform::watch_on_screen(&el, move |v| on.set(v)));
            move || drop(watch)
        });
    }
    *on
}

/// Props of every panel: the store and the effective theme.
///
/// A panel re-renders when `rev`, `dark` or `resize` change, not when the store does: the root
/// passes the store's revision as `rev` to the panels that animate (canvases, transport) and a
/// throttled one to the heavy DOM panels while playing (see `ui::app::SLOW_PANEL_MS`). `s`
/// always reads the current model.
#[derive(Properties, Clone)]
pub struct PanelProps {
    pub s: Handle,
    pub dark: bool,
    /// Bumps on window resizes, so canvases redraw at their new size.
    #[prop_or_default]
    pub resize: u32,
    /// The store revision this panel shows.
    pub rev: u64,
    /// Compare mode: the other side's model this panel shows instead of the store's (its
    /// messages still go to the store, which drives both sides; `ui::compare`).
    #[prop_or_default]
    pub side: Option<Rc<RefCell<Model>>>,
}

impl PanelProps {
    /// The model this panel shows: the compare side's, or the store's.
    pub fn m(&self) -> &Rc<RefCell<Model>> {
        self.side.as_ref().unwrap_or(&self.s.model)
    }
}

impl PartialEq for PanelProps {
    fn eq(&self, o: &Self) -> bool {
        self.rev == o.rev
            && self.dark == o.dark
            && self.resize == o.resize
            && match (&self.side, &o.side) {
                (None, None) => true,
                (Some(a), Some(b)) => Rc::ptr_eq(a, b),
                _ => false,
            }
    }
}

/// `1m05.250s`-style time.
pub fn t(us: u64) -> String {
    clusterscope_core::time::fmt_time(us)
}

/// `HH:MM:SS,mmm` of virtual time, as in Cassandra's system.log (the log card's and the
/// timeline fork bar's stamps).
pub fn stamp(us: u64) -> String {
    let ms = us / 1000;
    format!(
        "{:02}:{:02}:{:02},{:03}",
        ms / 3_600_000,
        (ms / 60_000) % 60,
        (ms / 1000) % 60,
        ms % 1000
    )
}

/// Age as a short human duration.
pub fn age(us: u64) -> String {
    if us >= 60_000_000 {
        format!("{}m{:02}s", us / 60_000_000, (us / 1_000_000) % 60)
    } else if us >= 1_000_000 {
        format!("{:.1}s", us as f64 / 1e6)
    } else {
        format!("{}ms", us / 1000)
    }
}

/// A value longer than this many characters takes a `.kv` list's row to itself, across the
/// list's width, rather than wrapping in its narrow value column.
pub const KV_WIDE: usize = 28;

/// One `<dt>`/`<dd>` pair of a `.kv` list, both `wide` (a row of their own, the value spanning
/// the list) when the value is longer than [`KV_WIDE`]: a Raft read's "read #3 of n2's
/// client (get x): waits for a heartbeat round to confirm readIndex 16 (since 11.004s)" wrapped
/// ten lines in a quarter of the inspector.
pub fn kv_row(label: &str, value: String, class: Option<&'static str>) -> Html {
    let wide = (value.chars().count() > KV_WIDE).then_some("wide");
    html! {
        <>
            <dt class={classes!(wide)}>{ label.to_string() }</dt>
            <dd class={classes!(wide, class)}>{ value }</dd>
        </>
    }
}

/// Where a rarely used card's code is ([`use_part`]): in the split release build the card (and
/// all only it reaches) is a part of the wasm fetched at its first opening (`crate::in_part!`,
/// issue 44); elsewhere it is in the main module, loaded from the start.
#[derive(Clone, PartialEq)]
pub enum PartLoad {
    /// Not opened yet.
    Closed,
    /// Its part being fetched.
    Loading,
    /// A part it needs did not load (this one, named in the note; opening again retries).
    Failed(&'static str),
    /// Loaded: the card, created open with this argument (an expectation's name for the hunt).
    Loaded(Option<String>),
}

impl PartLoad {
    /// A part fetched once the first frame is painted ([`use_part_after_paint`]), before that:
    /// not fetched yet in the split build, in the main module (`Loaded`) elsewhere.
    pub fn at_start() -> PartLoad {
        if cfg!(cs_split) {
            PartLoad::Closed
        } else {
            PartLoad::Loaded(None)
        }
    }

    /// The `data-part` of a placeholder standing for this part's code: `error` after a failed
    /// fetch, else `loading`.
    pub fn wait_state(&self) -> &'static str {
        if matches!(self, PartLoad::Failed(_)) {
            "error"
        } else {
            "loading"
        }
    }
}

/// The parts a card's code needs beside its own, fetched with it: the "How often?" and hunt cards
/// write the scenario (a plan's digest, `Scenario::to_toml`), whose writer is in the session
/// writer's part (`reader::WRITER_PART`).
fn needs(part: &'static str) -> &'static [&'static str] {
    match part {
        "sweep" | "hunt" => &[crate::reader::WRITER_PART],
        _ => &[],
    }
}

/// The state of a card whose code is the part `part` ([`PartLoad`]) and the callback that
/// opens it: fetches the part first (and the parts its code needs, [`needs`]), then `Loaded`
/// (at once outside the split build). The callback is the same one for the component's life
/// (props that hold it stay equal between renders): it starts a fetch unless one is under way
/// or done; after a failure it fetches again.
#[hook]
pub fn use_part(part: &'static str) -> (UseStateHandle<PartLoad>, Callback<Option<String>>) {
    use_part_from(part, PartLoad::Closed)
}

/// [`use_part`] for a part whose code the page draws from the start outside the split build
/// (`Loaded` there from the first render) and which the split build fetches once the first
/// frame is painted (`platform::after_paint`), when `start` first becomes true: the cards
/// below the first screen (`ui::below`).
#[hook]
pub fn use_part_after_paint(
    part: &'static str,
    start: bool,
) -> (UseStateHandle<PartLoad>, Callback<Option<String>>) {
    let (load, open) = use_part_from(part, PartLoad::at_start());
    {
        let open = open.clone();
        let start = start && matches!(*load, PartLoad::Closed);
        use_effect_with(start, move |&start| {
            if start {
                crate::platform::after_paint(move || open.emit(None));
            }
        });
    }
    (load, open)
}

#[hook]
fn use_part_from(
    part: &'static str,
    first: PartLoad,
) -> (UseStateHandle<PartLoad>, Callback<Option<String>>) {
    let started = matches!(first, PartLoad::Loaded(_));
    let load = use_state(|| first);
    let open = (*use_memo((), {
        let set = load.setter();
        move |_| {
            let started = std::rc::Rc::new(std::cell::Cell::new(started));
            Callback::from(move |arg: Option<String>| {
                if started.replace(true) {
                    return;
                }
                if !cfg!(cs_split) {
                    set.set(PartLoad::Loaded(arg));
                    return;
                }
                set.set(PartLoad::Loading);
                let (set, started) = (set.clone(), started.clone());
                wasm_bindgen_futures::spawn_local(async move {
                    let parts: Vec<&'static str> = std::iter::once(part)
                        .chain(needs(part).iter().copied())
                        .collect();
                    let r = crate::platform::load_parts(&parts).await;
                    if crate::crash::stopped() {
                        return;
                    }
                    set.set(match r {
                        Ok(()) => PartLoad::Loaded(arg),
                        Err(failed) => {
                            started.set(false);
                            PartLoad::Failed(failed)
                        }
                    });
                });
            })
        }
    }))
    .clone();
    (load, open)
}

/// `f` now, and again once the session writer's part is in if `f` found it missing (the split
/// release build: `Session::try_encode` answered `None`, `reader::take_writer_wanted`); `f` does
/// nothing the first time then. A part that does not load is an error naming it, the session
/// unchanged. For what a person asks of a written session: the link to share, an export.
pub fn with_writer(s: &Handle, f: impl Fn(&Handle) + 'static) {
    f(s);
    if !crate::reader::take_writer_wanted() {
        return;
    }
    let s = s.clone();
    wasm_bindgen_futures::spawn_local(async move {
        let loaded = crate::platform::load_part(crate::reader::WRITER_PART).await;
        if crate::crash::stopped() {
            return;
        }
        match loaded {
            Ok(()) => f(&s),
            Err(()) => s.dispatch(crate::model::Msg::ShowError(format!(
                "Could not write the session: {}. Your session is unchanged; try again.",
                crate::reader::WRITER_FAILED
            ))),
        }
    });
}

/// Beside a card's button while its part loads or after it failed (`data-part`: loading,
/// error, naming the part that did not load); `what` names the card's code ("the hunt's code").
pub fn part_note(load: &PartLoad, what: &str) -> Html {
    match load {
        PartLoad::Loading | PartLoad::Loaded(_) => {
            html! { <span class="muted part-note" data-part="loading">{ "Loading…" }</span> }
        }
        PartLoad::Failed(part) => html! {
            <span class="part-note" role="alert" data-part="error">
                { format!("{} did not load (a part of the app, split/{part}; check the connection and press again).", capitalised(what)) }
            </span>
        },
        PartLoad::Closed => html! {},
    }
}

/// In a placeholder whose part did not load (`part`, [`PartLoad::Failed`]): `what` ("This
/// card's code") did not load, and a button that fetches it again (`retry`, [`use_part`]'s).
pub fn part_retry(what: &str, part: &str, retry: &Callback<Option<String>>) -> Html {
    let retry = retry.clone();
    html! {
        <p class="part-note" role="alert" data-part="error">
            { format!("{what} did not load (a part of the app, split/{part}; check the connection). ") }
            <button class="btn small-btn" onclick={Callback::from(move |_| retry.emit(None))}>{ "Try again" }</button>
        </p>
    }
}

fn capitalised(s: &str) -> String {
    let mut c = s.chars();
    c.next()
        .map(|f| std::iter::once(f.to_ascii_uppercase()).chain(c).collect())
        .unwrap_or_default()
}
