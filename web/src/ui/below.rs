//! The cards below the first screen: the sequence diagram, the plots ("Over time") and the log.
//! At every size the app is laid out for, they start below the fold (the topology ends at the
//! bottom of the viewport, style.css; a phone shows the dock first), so in the split release
//! build their code (with plotters, which only the plots draw with on the page) is the part
//! `below` of the wasm (`crate::in_part!`, issue 44), fetched right after the first frame is
//! painted (`ui::app`, `kit::use_part_after_paint`) rather than before it: its bytes move behind the first
//! paint, they do not go away. Meanwhile each card is a placeholder of the card's class and
//! size with its heading (`data-part="loading"`), nothing focusable in it, so neither the layout
//! nor the keyboard's order changes when the cards come. A failed fetch says so in each card with a
//! button to fetch it again (`data-part="error"`). An embedded replay (`?embed`) hides these
//! cards and never fetches the part.
//!
//! Elsewhere (debug builds, tests, `CLUSTERSCOPE_SPLIT=0`) the cards are drawn at once.

use crate::kit::{PanelProps, PartLoad};
use yew::prelude::*;

/// The part's name (`platform::load_part`).
pub const PART: &str = "below";

/// Which card.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub enum Card {
    Sequence,
    Plots,
    Log,
}

impl Card {
    /// The card's class, label and heading, as the card itself has them, and its key for the
    /// placeholder's height (style.css, `.below-wait`).
    fn face(self) -> (&'static str, &'static str, &'static str, &'static str) {
        match self {
            Card::Sequence => ("seq-card", "Sequence diagram", "Sequence", "seq"),
            Card::Plots => ("plots-card", "Plots", "Over time", "plots"),
            Card::Log => ("log-card", "Log", "Log", "log"),
        }
    }
}

#[derive(Properties, Clone, PartialEq)]
pub struct BelowProps {
    pub card: Card,
    /// Whether the part is in, being fetched, or failed (`kit::use_part_after_paint`).
    pub load: PartLoad,
    /// Fetch the part again after a failure.
    pub retry: Callback<Option<String>>,
    pub panel: PanelProps,
}

/// One of the cards: the card itself when its part is in, else its placeholder.
#[function_component(Below)]
pub fn below(p: &BelowProps) -> Html {
    if matches!(p.load, PartLoad::Loaded(_)) {
        let drawn = crate::in_part!(
            below,
            cards,
            (Card, PanelProps) => Html,
            (p.card, p.panel.clone()),
            |(card, panel): (Card, PanelProps)| match card {
                Card::Sequence => html! { <super::sequence::Sequence ..panel /> },
                Card::Plots => html! { <super::plots::Plots ..panel /> },
                Card::Log => html! { <super::log::LogPanel ..panel /> },
            }
        );
        if let Some(h) = drawn {
            return h;
        }
    }
    let (class, label, title, key) = p.card.face();
    let note = match &p.load {
        PartLoad::Failed(part) => crate::kit::part_retry("This card's code", part, &p.retry),
        _ => html! {},
    };
    let state = p.load.wait_state();
    html! {
        <section class={classes!("card", class, "below-wait")} aria-label={label} data-part={state} data-below={key}>
            <div class="card-head"><h2>{ title }</h2></div>
            { note }
        </section>
    }
}
