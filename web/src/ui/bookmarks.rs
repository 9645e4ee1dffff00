//! Bookmarks in the dock (issue 41, `model/bookmarks.rs`): the form that names a bookmark at the
//! cursor (the transport's bookmark button or `b`), and the list — one chip per bookmark, its
//! name, time and note; a click moves the cursor there, × removes it. The timeline draws them
//! (`draw::timeline`). Hidden while there are none and the form is closed.
//!
//! Test hooks: `#bookmark-add` (transport), `#bookmark-form` with `#bookmark-name`,
//! `#bookmark-note`, `#bookmark-save`, `#bookmark-cancel`; `#bookmarks[data-count]` with
//! `.bm[data-at-us][data-name]`, each `.bm-go` and `.bm-remove`; `#timeline[data-bookmarks]`.

use crate::kit::PanelProps;
use crate::model::Msg;
use web_sys::HtmlInputElement;
use yew::prelude::*;

#[function_component(BookmarkBar)]
pub fn bookmark_bar(p: &PanelProps) -> Html {
    let name = use_node_ref();
    let note = use_node_ref();
    let m = p.s.model.borrow();
    let open = m.bookmark_form;
    {
        // The name field takes the focus when the form opens.
        let name = name.clone();
        use_effect_with(open, move |open| {
            if *open {
                if let Some(i) = name.cast::<HtmlInputElement>() {
                    let _ = i.focus();
                }
            }
        });
    }
    if !open && m.bookmarks.is_empty() {
        return html! {};
    }
    let form = open.then(|| {
        let save = {
            let (s, name, note) = (p.s.clone(), name.clone(), note.clone());
            Callback::from(move |e: SubmitEvent| {
                e.prevent_default();
                let get = |r: &NodeRef| {
                    r.cast::<HtmlInputElement>()
                        .map(|i| i.value())
                        .unwrap_or_default()
                };
                s.dispatch(Msg::AddBookmark {
                    name: get(&name),
                    note: get(&note),
                });
            })
        };
        let cancel = {
            let s = p.s.clone();
            Callback::from(move |_| s.dispatch(Msg::SetBookmarkForm(false)))
        };
        let keys = {
            let s = p.s.clone();
            Callback::from(move |e: KeyboardEvent| {
                if e.key() == "Escape" {
                    s.dispatch(Msg::SetBookmarkForm(false));
                }
            })
        };
        html! {
            <form id="bookmark-form" class="bm-form" onsubmit={save} onkeydown={keys}>
                <input id="bookmark-name" ref={name.clone()} type="text" maxlength="80"
                    placeholder={format!("B{}", m.bookmarks.len() + 1)} aria-label="Bookmark name" />
                <input id="bookmark-note" ref={note.clone()} type="text" maxlength="500"
                    placeholder="note (here W1 gets index 4)" aria-label="Bookmark note" />
                <button id="bookmark-save" class="btn small-btn primary" type="submit">
                    { format!("Bookmark {}", crate::kit::t(m.now())) }</button>
                <button id="bookmark-cancel" class="btn small-btn ghost" type="button" onclick={cancel}>{ "Cancel" }</button>
            </form>
        }
    });
    let items = m.bookmarks.iter().enumerate().map(|(i, b)| {
        let go = {
            let s = p.s.clone();
            Callback::from(move |_| s.dispatch(Msg::GoToBookmark(i)))
        };
        let remove = {
            let s = p.s.clone();
            Callback::from(move |_| s.dispatch(Msg::RemoveBookmark(i)))
        };
        let here = b.at_us == m.now();
        let title = if b.note.is_empty() {
            format!("{} at {}", b.name, crate::kit::t(b.at_us))
        } else {
            format!("{} at {}: {}", b.name, crate::kit::t(b.at_us), b.note)
        };
        html! {
            <span class={classes!("bm", here.then_some("here"))} data-at-us={b.at_us.to_string()} data-name={b.name.clone()}>
                <button class="bm-go" onclick={go} {title}>
                    <b>{ b.name.clone() }</b>
                    <span class="muted">{ format!(" {}", crate::kit::t(b.at_us)) }</span>
                    { crate::kit::slot((!b.note.is_empty()).then(|| html! { <span class="bm-note">{ b.note.clone() }</span> })) }
                </button>
                <button class="bm-remove" onclick={remove} aria-label={format!("Remove the bookmark {}", b.name)}
                    title="Remove this bookmark">{ "×" }</button>
            </span>
        }
    });
    html! {
        <div class="bookmarks" id="bookmarks" data-count={m.bookmarks.len().to_string()}>
            <span class="muted small">{ "Bookmarks" }</span>
            <>{ for items }</>
            { crate::kit::slot(form) }
        </div>
    }
}
