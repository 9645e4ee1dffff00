//! A session: which scenario, variant and seed, the user's recorded actions, and the cursor.
//! It round-trips through a permalink (JSON, deflated, base64url) and through a scenario file.
//!
//! Permalinks come from strangers: decoding is bounded (size before and after inflating, action
//! count) and every failure says what was wrong with the link.

use crate::engine::action::RecordedAction;
use crate::limits::Limits;
use base64::Engine as _;
use serde::{Deserialize, Serialize};

/// Longest permalink payload accepted (characters after `#`).
pub const MAX_PERMALINK_CHARS: usize = 2_000_000;
/// Current permalink format version.
pub const PERMALINK_VERSION: u32 = 1;

#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum ScenarioRef {
    /// A built-in scenario by name.
    Builtin(String),
    /// A whole scenario file (imported or edited).
    Custom(String),
}

#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Session {
    pub v: u32,
    pub scenario: ScenarioRef,
    pub variant: String,
    pub seed: u64,
    #[serde(default)]
    pub actions: Vec<RecordedAction>,
    /// Engine step the view is at.
    #[serde(default)]
    pub cursor: u64,
    /// The node the person had selected (by name), so a reload or a permalink shows it again.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub selected: Option<String>,
    /// Compare mode: the variant shown beside `variant` on the same cursor (the web app's
    /// compare; same scenario, seed and actions).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub compare: Option<String>,
    /// Branch tree (the web app): every branch of the session — the recorded actions of each
    /// replay a fork or an earlier action started, the old future kept — and which one is shown
    /// (`branch`; its actions are `actions`). Empty: one branch.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub branches: Vec<BranchRef>,
    #[serde(default, skip_serializing_if = "is_zero")]
    pub branch: usize,
    /// Virtual time (µs) the view is at. The cursor can stand between two events (a scrub to
    /// 7.318 s with the last event at 7.200 s), which the step alone cannot say: a link opens
    /// at this time, with the messages in flight and the timers of this time. `None`: the
    /// time of step `cursor` (links made before it existed).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub at_us: Option<u64>,
    /// Named bookmarks on the timeline, by time (a review's "here W1 gets index 4").
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub bookmarks: Vec<Bookmark>,
    /// Expectations the person added (the web app's expectation editor): `[[expect]]` rows
    /// checked with the scenario's own (`user_expect`).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub expects: Vec<crate::scenario::ExpectSpec>,
}

/// Most bookmarks a session holds.
pub const MAX_BOOKMARKS: usize = 200;
/// Longest bookmark name and note, in characters.
pub const MAX_BOOKMARK_NAME: usize = 80;
pub const MAX_BOOKMARK_NOTE: usize = 500;

/// A named point on the timeline with a short note.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Bookmark {
    /// Virtual time it marks.
    pub at_us: u64,
    pub name: String,
    #[serde(default, skip_serializing_if = "String::is_empty")]
    pub note: String,
}

fn is_zero(x: &usize) -> bool {
    *x == 0
}

/// One branch of a session's tree.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct BranchRef {
    /// The branch it was forked from (an index before its own).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub parent: Option<usize>,
    /// What started it (the action, described), for the branch list.
    pub what: String,
    /// Virtual time it forked at.
    #[serde(default)]
    pub at_us: u64,
    #[serde(default)]
    pub actions: Vec<RecordedAction>,
}

impl Session {
    /// A fresh session of `scenario`'s `variant` at `seed`: no actions, at the start, one
    /// branch (what a sweep's or a hunt's link to one seed opens).
    pub fn new(scenario: ScenarioRef, variant: String, seed: u64) -> Session {
        Session {
            v: PERMALINK_VERSION,
            scenario,
            variant,
            seed,
            actions: Vec::new(),
            cursor: 0,
            selected: None,
            compare: None,
            branches: Vec::new(),
            branch: 0,
            at_us: None,
            bookmarks: Vec::new(),
            expects: Vec::new(),
        }
    }

    /// The permalink payload (JSON, deflated, base64url). The web app calls [`Session::try_encode`]
    /// instead (the autosave, the link, an export's session line).
    pub fn encode(&self) -> String {
        let json = serde_json::to_vec(self).expect("a session serializes");
        let packed = miniz_oxide::deflate::compress_to_vec(&json, 9);
        base64::engine::general_purpose::URL_SAFE_NO_PAD.encode(packed)
    }

    /// [`Session::encode`], as the web app calls it: in its split release build the session
    /// writer is the part `session_write` (serde_json's writing of a session, deflate, base64:
    /// ~12 KB of the gzipped main module, which a first visit that changes nothing never runs),
    /// fetched the first time a session is written; while it is not loaded this answers `None`
    /// and the part is wanted ([`take_encoder_wanted`]). Elsewhere it is always `Some`.
    pub fn try_encode(&self) -> Option<String> {
        coder::encode(self)
    }

    /// A permalink payload (or the autosave) read back and checked against `limits`. In the web
    /// app's split release build this is the part `session`, fetched the first time a session
    /// is read (a link, the saved session, an export's session line): while it is not loaded it
    /// answers an error and the part is wanted ([`take_decoder_wanted`]).
    pub fn decode(text: &str, limits: &Limits) -> Result<Session, String> {
        coder::decode(text, limits)
    }

    fn decode_now(text: &str, limits: &Limits) -> Result<Session, String> {
        let text = text.trim().trim_start_matches('#');
        let text = text.strip_prefix("s=").unwrap_or(text);
        if text.is_empty() {
            return Err("the link has no session data after '#'".into());
        }
        if text.len() > MAX_PERMALINK_CHARS {
            return Err(format!(
                "the link is {} characters long; the limit is {MAX_PERMALINK_CHARS}",
                text.len()
            ));
        }
        let packed = base64::engine::general_purpose::URL_SAFE_NO_PAD
            .decode(text.as_bytes())
            .map_err(|e| {
                format!("the link is damaged (not base64url: {e}); was it cut off when copied?")
            })?;
        let json = miniz_oxide::inflate::decompress_to_vec_with_limit(&packed, limits.max_scenario_bytes * 2)
            .map_err(|e| match e.status {
                miniz_oxide::inflate::TINFLStatus::HasMoreOutput => {
                    format!("the link's session is larger than {} bytes", limits.max_scenario_bytes * 2)
                }
                _ => "the link is damaged (its compressed data is truncated or corrupt); was it cut off when copied?".into(),
            })?;
        // Every JSON the app reads goes through `from_slice` (one instance of each type's
        // deserializer in the wasm; `from_str` is a second: docs/PERFORMANCE.md).
        let s: Session = serde_json::from_slice(&json)
            .map_err(|e| format!("the link's session is not valid: {e}"))?;
        if s.v != PERMALINK_VERSION {
            return Err(format!(
                "the link is format version {}; this build reads version {PERMALINK_VERSION}",
                s.v
            ));
        }
        if s.actions.len() > limits.max_schedule {
            return Err(format!(
                "the link records {} actions; the limit is {}",
                s.actions.len(),
                limits.max_schedule
            ));
        }
        let in_order = |a: &[RecordedAction]| {
            !a.windows(2)
                .any(|w| w[0].step >= w[1].step || w[0].at.0 > w[1].at.0)
        };
        if !in_order(&s.actions) {
            return Err("the link's recorded actions are not in step order".into());
        }
        let all: usize = s.branches.iter().map(|b| b.actions.len()).sum();
        if s.branches.len() > limits.max_schedule || all > limits.max_schedule {
            return Err(format!(
                "the link has {} branches with {all} actions in all; the limit is {}",
                s.branches.len(),
                limits.max_schedule
            ));
        }
        if !s.branches.is_empty() && s.branch >= s.branches.len() {
            return Err(format!(
                "the link shows branch {} of {}",
                s.branch + 1,
                s.branches.len()
            ));
        }
        if s.bookmarks.len() > MAX_BOOKMARKS {
            return Err(format!(
                "the link has {} bookmarks; the limit is {MAX_BOOKMARKS}",
                s.bookmarks.len()
            ));
        }
        for (i, b) in s.bookmarks.iter().enumerate() {
            if b.name.chars().count() > MAX_BOOKMARK_NAME
                || b.note.chars().count() > MAX_BOOKMARK_NOTE
            {
                return Err(format!(
                    "the link's bookmark {} is too long (name at most {MAX_BOOKMARK_NAME} \
                     characters, note at most {MAX_BOOKMARK_NOTE})",
                    i + 1
                ));
            }
        }
        if s.expects.len() > crate::user_expect::MAX_USER_EXPECTS {
            return Err(format!(
                "the link has {} expectations of the person's; the limit is {}",
                s.expects.len(),
                crate::user_expect::MAX_USER_EXPECTS
            ));
        }
        for (i, b) in s.branches.iter().enumerate() {
            if b.parent.is_some_and(|p| p >= i) {
                return Err(format!("the link's branch {} names a later parent", i + 1));
            }
            if !in_order(&b.actions) {
                return Err(format!(
                    "the link's branch {} has recorded actions out of step order",
                    i + 1
                ));
            }
        }
        Ok(s)
    }
}

/// Whether [`Session::decode`] was needed since the last call and its part was not loaded (only
/// in the web app's split release build).
pub fn take_decoder_wanted() -> bool {
    WANTED.with(|w| w.replace(false))
}

/// Whether it is wanted now, the flag left as it is.
pub fn decoder_wanted() -> bool {
    WANTED.with(|w| w.get())
}

/// Whether [`Session::try_encode`] or `Scenario::to_toml` (the scenario writer, in the same
/// part `session_write`) was needed since the last call and their part was not loaded (only in
/// the web app's split release build).
pub fn take_encoder_wanted() -> bool {
    let scenario = crate::scenario::take_writer_wanted();
    ENCODER_WANTED.with(|w| w.replace(false)) || scenario
}

/// Whether it is wanted now, the flags left as they are.
pub fn encoder_wanted() -> bool {
    ENCODER_WANTED.with(|w| w.get()) || crate::scenario::writer_wanted()
}

thread_local! {
    /// The decoder was needed while its part was not loaded (set only in the split build).
    static WANTED: std::cell::Cell<bool> = const { std::cell::Cell::new(false) };
    /// The encoder was, likewise.
    static ENCODER_WANTED: std::cell::Cell<bool> = const { std::cell::Cell::new(false) };
}

/// The decoder and the encoder called directly: every build but the web app's split release build.
#[cfg(not(cs_split))]
mod coder {
    use super::*;

    pub fn decode(text: &str, limits: &Limits) -> Result<Session, String> {
        Session::decode_now(text, limits)
    }

    pub fn encode(s: &Session) -> Option<String> {
        Some(s.encode())
    }
}

/// The decoder behind the split point of the part `session` (base64, inflate, serde_json's
/// reading of a session: ~30 KB of the gzipped main module, which a first visit without a link
/// never runs), and the encoder behind the split point of the part `session_write`, each a
/// `lazy::split_fn!`.
#[cfg(cs_split)]
mod coder {
    use super::*;

    /// What the app says while the part is not loaded.
    const NOT_LOADED: &str =
        "the session reader is not loaded yet (a part of the app, split/session)";

    crate::lazy::split_fn!(session, read,
        fn decode_in_part((&str, &Limits)) -> Result<Session, String> =
            |(t, l): (&str, &Limits)| Session::decode_now(t, l));

    pub fn decode(text: &str, limits: &Limits) -> Result<Session, String> {
        decode_in_part((text, limits)).unwrap_or_else(|| {
            WANTED.with(|w| w.set(true));
            Err(NOT_LOADED.to_string())
        })
    }

    // The writer's split point, a part of its own (`session_write`): a first visit that only
    // plays writes a session (the autosave) without ever reading one.
    crate::lazy::split_fn!(session_write, write,
        fn encode_in_part(&Session) -> String = Session::encode);

    pub fn encode(s: &Session) -> Option<String> {
        let e = encode_in_part(s);
        if e.is_none() {
            ENCODER_WANTED.with(|w| w.set(true));
        }
        e
    }
}

/// A line in exported scenario files carrying the whole session (a permalink payload whose
/// scenario is the file itself): an import restores its branches, bookmarks, cursor time,
/// selection and compare.
pub const SESSION_MARKER: &str = "# clusterscope: session = ";

/// The session line of an export: `s` as a permalink payload, its scenario replaced by the
/// built-in name `name` (the file itself is the scenario; carrying its text again would double
/// the file).
/// `None` while the session writer is not loaded ([`Session::try_encode`]).
pub fn session_line(s: &Session, name: &str) -> Option<String> {
    let mut s = s.clone();
    s.scenario = ScenarioRef::Builtin(name.to_string());
    Some(format!("{SESSION_MARKER}{}\n", s.try_encode()?))
}

/// The session an exported file carries (its [`SESSION_MARKER`] line), with the scenario set to
/// the file (`text`, without that line) and the file's seed and recorded actions taken as they
/// are in the file (a person may have edited them). `None`: the file has no such line.
pub fn session_of_export(text: &str, limits: &Limits) -> Option<Result<Session, String>> {
    let line = text.lines().find_map(|l| l.strip_prefix(SESSION_MARKER))?;
    Some(
        Session::decode(line, limits)
            .map(|mut s| {
                s.scenario = ScenarioRef::Custom(without_session_line(text));
                s
            })
            .map_err(|e| format!("its session line ({SESSION_MARKER}...) cannot be read: {e}")),
    )
}

/// `text` without its [`SESSION_MARKER`] line.
pub fn without_session_line(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    for l in text.split_inclusive('\n') {
        if !l.starts_with(SESSION_MARKER) {
            out.push_str(l);
        }
    }
    out
}

/// The session as a scenario file: the scenario with this seed and the recorded actions, so that
/// `clusterscope run` (or an import) replays it exactly.
pub fn export_scenario(
    scenario: &crate::scenario::Scenario,
    seed: u64,
    actions: &[RecordedAction],
) -> Result<String, String> {
    let mut raw = scenario.raw.clone();
    raw.seed = seed;
    raw.recorded = actions.to_vec();
    scenario
        .to_toml(&raw)
        .map_err(|e| format!("cannot write the scenario as TOML: {e}"))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::engine::action::{Action, Dur};

    fn sample() -> Session {
        Session {
            v: PERMALINK_VERSION,
            scenario: ScenarioRef::Builtin("cassandra-21636-packet-loss".into()),
            variant: "buggy".into(),
            seed: 7,
            actions: vec![RecordedAction {
                step: 120,
                at: Dur(3_000_000),
                action: Action::DropLink {
                    from: "A".into(),
                    to: "B".into(),
                    one_way: true,
                    down_for: None,
                },
            }],
            cursor: 500,
            selected: Some("B".into()),
            compare: Some("fixed".into()),
            branches: vec![
                BranchRef {
                    parent: None,
                    what: "original".into(),
                    at_us: 0,
                    actions: Vec::new(),
                },
                BranchRef {
                    parent: Some(0),
                    what: "cut A->B".into(),
                    at_us: 3_000_000,
                    actions: Vec::new(),
                },
            ],
            branch: 1,
            at_us: Some(3_118_000),
            bookmarks: vec![Bookmark {
                at_us: 3_000_000,
                name: "cut".into(),
                note: "A stops hearing B here".into(),
            }],
            expects: Vec::new(),
        }
    }

    #[test]
    fn export_carries_the_whole_session() {
        let sc = crate::scenario::builtin::get("cassandra-21636-packet-loss").unwrap();
        let s = sample();
        let body = export_scenario(&sc, s.seed, &s.actions).unwrap();
        let text = format!("# exported\n{}{body}", session_line(&s, sc.name()).unwrap());
        let back = session_of_export(&text, &Limits::default())
            .expect("a session line")
            .unwrap();
        let ScenarioRef::Custom(file) = &back.scenario else {
            panic!("the scenario is the file")
        };
        assert!(!file.contains(SESSION_MARKER));
        let parsed = crate::scenario::Scenario::parse("x.toml", file, &Limits::default()).unwrap();
        assert_eq!(parsed.raw.recorded, s.actions);
        assert_eq!(
            Session {
                scenario: s.scenario.clone(),
                ..back
            },
            s
        );
        // No line: none; a damaged one: an error naming the line.
        assert!(session_of_export(&body, &Limits::default()).is_none());
        let bad = format!("{SESSION_MARKER}AAAA\n{body}");
        let e = session_of_export(&bad, &Limits::default())
            .unwrap()
            .unwrap_err();
        assert!(e.contains("session line"), "{e}");
    }

    #[test]
    fn long_bookmarks_are_refused() {
        let l = Limits::default();
        let mut s = sample();
        s.bookmarks[0].note = "x".repeat(MAX_BOOKMARK_NOTE + 1);
        let e = Session::decode(&s.encode(), &l).unwrap_err();
        assert!(e.contains("bookmark 1 is too long"), "{e}");
        let mut s = sample();
        s.bookmarks = vec![s.bookmarks[0].clone(); MAX_BOOKMARKS + 1];
        let e = Session::decode(&s.encode(), &l).unwrap_err();
        assert!(e.contains("bookmarks; the limit"), "{e}");
    }

    #[test]
    fn bad_branches_are_refused() {
        let l = Limits::default();
        let mut s = sample();
        s.branch = 2;
        let e = Session::decode(&s.encode(), &l).unwrap_err();
        assert!(e.contains("shows branch 3 of 2"), "{e}");
        let mut s = sample();
        s.branches[0].parent = Some(1);
        let e = Session::decode(&s.encode(), &l).unwrap_err();
        assert!(e.contains("later parent"), "{e}");
        let mut s = sample();
        s.branches[1].actions = vec![s.actions[0].clone(), s.actions[0].clone()];
        let e = Session::decode(&s.encode(), &l).unwrap_err();
        assert!(e.contains("out of step order"), "{e}");
    }

    #[test]
    fn round_trip() {
        let s = sample();
        let enc = s.encode();
        assert!(enc
            .chars()
            .all(|c| c.is_ascii_alphanumeric() || c == '-' || c == '_'));
        assert_eq!(Session::decode(&enc, &Limits::default()).unwrap(), s);
        assert_eq!(
            Session::decode(&format!("#s={enc}"), &Limits::default()).unwrap(),
            s
        );
    }

    #[test]
    fn export_round_trips_every_builtin() {
        for s in crate::scenario::builtin::all() {
            let actions = vec![RecordedAction {
                step: 40,
                at: Dur(2_000_000),
                action: Action::Kill {
                    node: s.topo.names[0].clone(),
                },
            }];
            let text = export_scenario(&s, 99, &actions).unwrap();
            let back =
                crate::scenario::Scenario::parse("export.toml", &text, &Limits::default()).unwrap();
            assert_eq!(back.raw.seed, 99);
            assert_eq!(back.raw.recorded, actions);
            assert_eq!(back.raw.variants, s.raw.variants);
            assert_eq!(back.faults, s.faults);
            assert_eq!(back.section, s.section);
        }
    }

    #[test]
    fn broken_links_get_clear_errors() {
        let l = Limits::default();
        let enc = sample().encode();
        let cases = [
            ("".to_string(), "no session data"),
            ("!!!".to_string(), "not base64url"),
            (enc[..enc.len() / 2].to_string(), "damaged"),
            ("x".repeat(MAX_PERMALINK_CHARS + 1), "limit is"),
        ];
        for (input, want) in cases {
            let e = Session::decode(&input, &l).unwrap_err();
            assert!(e.contains(want), "{input:.20}: {e}");
        }
        // Valid compression of a JSON that is not a session.
        let bogus = base64::engine::general_purpose::URL_SAFE_NO_PAD
            .encode(miniz_oxide::deflate::compress_to_vec(b"{\"v\":1}", 6));
        assert!(Session::decode(&bogus, &l)
            .unwrap_err()
            .contains("not valid"));
        // A zip bomb is refused by size.
        let bomb = base64::engine::general_purpose::URL_SAFE_NO_PAD.encode(
            miniz_oxide::deflate::compress_to_vec(&vec![b' '; 5 << 20], 9),
        );
        assert!(Session::decode(&bomb, &l)
            .unwrap_err()
            .contains("larger than"));
    }
}
