//! Small inline SVG icons (system fonts lack several media glyphs).

use yew::prelude::*;

pub fn icon(name: &str) -> Html {
    let body = match name {
        "start" => html! { <>
            <path d="M6 5v14" /><path d="M19 5l-9 7 9 7z" fill="currentColor" />
        </> },
        "back" => html! { <>
            <path d="M17 5l-9 7 9 7z" fill="currentColor" /><path d="M7 5v14" />
        </> },
        "play" => html! { <path d="M7 4l13 8-13 8z" fill="currentColor" /> },
        "pause" => {
            html! { <><path d="M8 5v14" stroke-width="3.2" /><path d="M16 5v14" stroke-width="3.2" /></> }
        }
        "step" => html! { <>
            <path d="M7 5l9 7-9 7z" fill="currentColor" /><path d="M17 5v14" />
        </> },
        "delivery" => html! { <>
            <rect x="2.5" y="6" width="13" height="11" rx="1.5" /><path d="M2.5 7l6.5 5 6.5-5" />
            <path d="M17 12h5" /><path d="M19.5 9.5L22 12l-2.5 2.5" />
        </> },
        "interesting" => html! { <>
            <path d="M9 3l1.9 4.3 4.6.4-3.5 3 1.1 4.5L9 12.8 4.9 15.2 6 10.7l-3.5-3 4.6-.4z" fill="currentColor" stroke="none" />
            <path d="M17 12h5" /><path d="M19.5 9.5L22 12l-2.5 2.5" />
        </> },
        "drop" => html! { <>
            <path d="M4 7l8 8" /><path d="M12 7l-8 8" /><path d="M17 12h5" /><path d="M19.5 9.5L22 12l-2.5 2.5" />
        </> },
        "caption" => html! { <>
            <path d="M3 5h12v8H8l-3 3v-3H3z" /><path d="M17 12h5" /><path d="M19.5 9.5L22 12l-2.5 2.5" />
        </> },
        "end" => html! { <>
            <path d="M4 5l7 7-7 7z" fill="currentColor" /><path d="M11 5l7 7-7 7z" fill="currentColor" /><path d="M20 5v14" />
        </> },
        "bookmark" => html! { <>
            <path d="M6 3h10v18l-5-4-5 4z" /><path d="M18 8h5" /><path d="M20.5 5.5v5" />
        </> },
        _ => html! {},
    };
    html! {
        <svg class="ico" viewBox="0 0 24 24" width="18" height="18" fill="none" stroke="currentColor"
            stroke-width="2" stroke-linecap="round" stroke-linejoin="round" aria-hidden="true">{ body }</svg>
    }
}
