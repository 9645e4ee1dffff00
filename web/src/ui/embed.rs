//! The embed form of the app (issue 40, "lessons in a course page"): `index.html?embed&...` shows
//! the lecture view of one scenario, sized to its frame, and talks to the page that holds the
//! frame through `postMessage` (docs/EMBEDDING.md).
//!
//! The query names what to open (`scenario`, `variant`, `seed`, `chapter`, `autoplay`); a
//! permalink in the fragment (`#s=...`) opens a whole session instead. An embedded replay never
//! reads or writes the app's saved session: a course page must not replace the reader's own work.
//!
//! Host to frame: `{ clusterscope: "play" | "pause" | "step" | "seek" | "chapter" | "variant" }`,
//! with `at` (seconds) for `seek`, `index` (0-based) for `chapter`, `name` for `variant`.
//! Frame to host: `ready` (scenario, variant, duration, chapters), `chapter` (index, at, text:
//! each time the cursor enters another chapter), `state` (playing, at: when playing starts or
//! stops), `error` (message: a command that could not be done).

use crate::kit::Handle;
use crate::model::Msg;
use clusterscope_core::time::{Micros, US_PER_S};
use js_sys::{Array, Object, Reflect};
use wasm_bindgen::{JsCast, JsValue};

/// What the query of an embedded page asks for.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Embed {
    pub scenario: Option<String>,
    pub variant: Option<String>,
    pub seed: Option<u64>,
    /// The chapter (a caption, 0-based) to open at.
    pub chapter: Option<usize>,
    pub autoplay: bool,
}

/// `Some` when the page's query has `embed`.
pub fn opts() -> Option<Embed> {
    let search = web_sys::window()?.location().search().ok()?;
    parse(&search)
}

/// The embed options in a query string (`?embed&scenario=raft-leader-election&chapter=2`).
pub fn parse(search: &str) -> Option<Embed> {
    let mut e = None::<Embed>;
    let mut rest = Vec::new();
    for part in search.trim_start_matches('?').split('&') {
        let (k, v) = part.split_once('=').unwrap_or((part, ""));
        let v = decode(v);
        match k {
            "embed" => e = Some(e.unwrap_or_default()),
            _ => rest.push((k.to_string(), v)),
        }
    }
    let mut e = e?;
    for (k, v) in rest {
        match k.as_str() {
            "scenario" if !v.is_empty() => e.scenario = Some(v),
            "variant" if !v.is_empty() => e.variant = Some(v),
            "seed" => e.seed = v.parse().ok(),
            "chapter" => e.chapter = v.parse().ok(),
            "autoplay" => e.autoplay = v != "0" && v != "false",
            _ => {}
        }
    }
    Some(e)
}

fn decode(v: &str) -> String {
    let plus = v.replace('+', " ");
    if cfg!(target_arch = "wasm32") {
        js_sys::decode_uri_component(&plus)
            .ok()
            .and_then(|s| s.as_string())
            .unwrap_or(plus)
    } else {
        plus
    }
}

/// Open what the query asks for (after the default scenario is shown).
pub fn open(s: &Handle, e: &Embed, hash: &str) {
    let link = hash.trim();
    if !link.is_empty() {
        s.dispatch(Msg::OpenPermalink(link.to_string()));
    } else if let Some(name) = &e.scenario {
        s.dispatch(Msg::LoadBuiltin(name.clone()));
    }
    if let Some(v) = &e.variant {
        s.dispatch(Msg::SetVariant(v.clone()));
    }
    if let Some(seed) = e.seed {
        s.dispatch(Msg::SetSeed(seed));
    }
    if let Some(i) = e.chapter {
        s.dispatch(Msg::Chapter(i));
    }
    if e.autoplay {
        s.dispatch(Msg::TogglePlay);
    }
}

/// Listen to the host page's commands.
pub fn listen(s: Handle) -> gloo::events::EventListener {
    let win = gloo::utils::window();
    gloo::events::EventListener::new(&win, "message", move |e| {
        if crate::crash::stopped() {
            return;
        }
        let Some(e) = e.dyn_ref::<web_sys::MessageEvent>() else {
            return;
        };
        let data = e.data();
        let Some(cmd) = field(&data, "clusterscope").as_string() else {
            return;
        };
        let playing = s.model.borrow().playing;
        match cmd.as_str() {
            "play" if !playing => s.dispatch(Msg::TogglePlay),
            "pause" => s.dispatch(Msg::Pause),
            "play" => {}
            "step" => s.dispatch(Msg::StepEvent),
            "seek" => match field(&data, "at").as_f64() {
                Some(at) if at.is_finite() && at >= 0.0 => {
                    s.dispatch(Msg::ScrubTo((at * US_PER_S as f64) as Micros))
                }
                _ => post_error("seek: `at` must be a time in seconds, 0 or more"),
            },
            "chapter" => match field(&data, "index").as_f64() {
                Some(i) if i >= 0.0 && i.fract() == 0.0 => s.dispatch(Msg::Chapter(i as usize)),
                _ => post_error("chapter: `index` must be a chapter number, 0 or more"),
            },
            "variant" => match field(&data, "name").as_string() {
                Some(v) => s.dispatch(Msg::SetVariant(v)),
                None => post_error("variant: `name` must be a variant's name"),
            },
            other => post_error(&format!(
                "unknown command \"{}\": use play, pause, step, seek, chapter or variant",
                clusterscope_core::text::clip(other, 40)
            )),
        }
    })
}

fn field(v: &JsValue, name: &str) -> JsValue {
    Reflect::get(v, &JsValue::from_str(name)).unwrap_or(JsValue::UNDEFINED)
}

/// Post `{ clusterscope: event, ...fields }` to the host page (nothing when not in a frame).
pub fn post(event: &str, fields: &[(&str, JsValue)]) {
    let Some(win) = web_sys::window() else { return };
    let Ok(Some(parent)) = win.parent() else {
        return;
    };
    if parent == win {
        return;
    }
    let o = Object::new();
    let _ = Reflect::set(&o, &"clusterscope".into(), &event.into());
    for (k, v) in fields {
        let _ = Reflect::set(&o, &JsValue::from_str(k), v);
    }
    let _ = parent.post_message(&o, "*");
}

fn post_error(message: &str) {
    post("error", &[("message", message.into())]);
}

fn secs(t: Micros) -> JsValue {
    JsValue::from_f64(t as f64 / US_PER_S as f64)
}

/// `ready`: what is open, with its chapters.
pub fn post_ready(s: &Handle) {
    let m = s.model.borrow();
    let chapters = Array::new();
    for (i, (at, text)) in m.captions.iter().enumerate() {
        let c = Object::new();
        let _ = Reflect::set(&c, &"index".into(), &JsValue::from_f64(i as f64));
        let _ = Reflect::set(&c, &"at".into(), &secs(*at));
        let _ = Reflect::set(&c, &"text".into(), &text.as_str().into());
        chapters.push(&c);
    }
    post(
        "ready",
        &[
            ("scenario", m.run.scenario.name().into()),
            ("variant", m.run.variant.as_str().into()),
            ("duration", secs(m.run.scenario.duration())),
            ("chapters", chapters.into()),
        ],
    );
}

/// The chapter the cursor is in at `now` (the last caption at or before it).
pub fn chapter_at(captions: &[(Micros, String)], now: Micros) -> Option<usize> {
    captions.iter().rposition(|c| c.0 <= now)
}

/// `chapter`: the cursor entered chapter `i`.
pub fn post_chapter(s: &Handle, i: usize) {
    let m = s.model.borrow();
    if let Some((at, text)) = m.captions.get(i) {
        post(
            "chapter",
            &[
                ("index", JsValue::from_f64(i as f64)),
                ("at", secs(*at)),
                ("text", text.as_str().into()),
            ],
        );
    }
}

/// `state`: playing or not, and the cursor's time.
pub fn post_state(playing: bool, now: Micros) {
    post("state", &[("playing", playing.into()), ("at", secs(now))]);
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_query_names_what_to_open() {
        assert_eq!(
            parse("?scenario=raft-figure-8"),
            None,
            "no `embed`: the app"
        );
        assert_eq!(parse(""), None);
        let e = parse("?embed&scenario=raft-figure-8&variant=safe&seed=7&chapter=2&autoplay=1")
            .unwrap();
        assert_eq!(e.scenario.as_deref(), Some("raft-figure-8"));
        assert_eq!(e.variant.as_deref(), Some("safe"));
        assert_eq!((e.seed, e.chapter, e.autoplay), (Some(7), Some(2), true));
        let e = parse("?embed=1&chapter=x&autoplay=0").unwrap();
        assert_eq!(e, Embed::default(), "bad numbers are ignored");
    }

    #[test]
    fn the_chapter_is_the_last_caption_reached() {
        let caps = vec![(10, "a".to_string()), (20, "b".to_string())];
        assert_eq!(chapter_at(&caps, 5), None);
        assert_eq!(chapter_at(&caps, 10), Some(0));
        assert_eq!(chapter_at(&caps, 19), Some(0));
        assert_eq!(chapter_at(&caps, 25), Some(1));
    }
}
