//! The expectation vocabulary's types: a view [`Query`] and the [`QValue`] it answers, and what
//! a view needs and answers ([`ViewNeeds`], [`KeyForm`], [`ViewValue`]), which the scenario
//! parser checks an expectation against at load. Below both the parser and `model` (which
//! re-exports them: a model names them `crate::model::ViewNeeds` as before).

use crate::engine::{NodeId, Topology};
use crate::time::Micros;
use serde::Serialize;

/// A value a view query returns.
#[derive(Clone, Debug, PartialEq, Serialize)]
#[serde(untagged)]
pub enum QValue {
    Num(f64),
    Text(String),
}

impl std::fmt::Display for QValue {
    fn fmt(&self, f: &mut std::fmt::Formatter) -> std::fmt::Result {
        match self {
            QValue::Num(n) => write!(f, "{n}"),
            QValue::Text(t) => write!(f, "{t}"),
        }
    }
}

/// One view query of an expectation (resolved node names).
#[derive(Clone, Copy, Debug)]
pub struct Query<'a> {
    pub view: &'a str,
    pub node: Option<NodeId>,
    pub peer: Option<NodeId>,
    /// For text views (`log`): what to look for.
    pub contains: Option<&'a str>,
    /// Start of the expectation's window (windowed views count from here).
    pub from: Micros,
    /// A model-specific key (e.g. a read id, a container id), as written in the scenario.
    pub key: Option<&'a str>,
}

impl Query<'_> {
    pub fn need_node(&self, what: &str) -> Result<NodeId, String> {
        self.node
            .ok_or_else(|| format!("view `{}` needs `{what}`", self.view))
    }
    pub fn need_peer(&self) -> Result<NodeId, String> {
        self.peer
            .ok_or_else(|| format!("view `{}` needs `peer`", self.view))
    }
    pub fn need_key(&self, what: &str) -> Result<&str, String> {
        self.key
            .ok_or_else(|| format!("view `{}` needs `key = \"...\"` ({what})", self.view))
    }
}

/// What a view's query needs besides its name, and what it answers: checked when a scenario is
/// loaded, so an expectation that could never be evaluated, or never hold, is bad input, not a
/// failed check.
#[derive(Clone, Copy, Debug)]
pub struct ViewNeeds {
    /// `observer = "..."` (alias `node`).
    pub node: bool,
    pub peer: bool,
    pub key: bool,
    pub contains: bool,
    /// The form of `key` when one is given (required or not).
    pub key_form: KeyForm,
    /// What the view answers.
    pub value: ViewValue,
}

/// The form of a view's `key`.
#[derive(Clone, Copy, Debug)]
pub enum KeyForm {
    /// Any text (a state machine's key, a request's tag).
    Any,
    /// A whole number (0, 1, ...); says what it is, e.g. "a log index".
    Number(&'static str),
    /// Checked by this function: `Err` says what is wrong and what is valid.
    Check(fn(&str, &Topology) -> Result<(), String>),
}

/// What a view answers.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum ViewValue {
    /// Not declared: nothing is checked. Every view of a registered model declares one of the
    /// others (`registry`'s tests check it).
    Undeclared,
    /// A number: `equals = 3`, `at_least`/`at_most`, `increases`.
    Num,
    /// One of these words.
    Text(&'static [&'static str]),
    /// A node's name, or `""` for none.
    NodeName,
    /// Any text; says what it is.
    AnyText(&'static str),
    /// A number, or one of these words when there is none (Raft's `lag`: "no leader").
    NumOr(&'static [&'static str]),
}

impl ViewNeeds {
    pub const NONE: ViewNeeds = ViewNeeds {
        node: false,
        peer: false,
        key: false,
        contains: false,
        key_form: KeyForm::Any,
        value: ViewValue::Undeclared,
    };
    pub const NODE: ViewNeeds = ViewNeeds {
        node: true,
        ..ViewNeeds::NONE
    };
    pub const PAIR: ViewNeeds = ViewNeeds {
        node: true,
        peer: true,
        ..ViewNeeds::NONE
    };
    /// The view answers a number.
    pub const fn num(self) -> ViewNeeds {
        ViewNeeds {
            value: ViewValue::Num,
            ..self
        }
    }
    /// The view answers one of these words.
    pub const fn text(self, values: &'static [&'static str]) -> ViewNeeds {
        ViewNeeds {
            value: ViewValue::Text(values),
            ..self
        }
    }
    /// The view answers a node's name, or `""`.
    pub const fn node_name(self) -> ViewNeeds {
        ViewNeeds {
            value: ViewValue::NodeName,
            ..self
        }
    }
    /// The view answers a number, or one of these words when it has none.
    pub const fn num_or(self, words: &'static [&'static str]) -> ViewNeeds {
        ViewNeeds {
            value: ViewValue::NumOr(words),
            ..self
        }
    }
    /// The view answers any text (`what` says what it is).
    pub const fn any_text(self, what: &'static str) -> ViewNeeds {
        ViewNeeds {
            value: ViewValue::AnyText(what),
            ..self
        }
    }
    /// The view needs a `key` of this form.
    pub const fn key(self, form: KeyForm) -> ViewNeeds {
        ViewNeeds {
            key: true,
            key_form: form,
            ..self
        }
    }
    /// The view takes an optional `key` of this form.
    pub const fn optional_key(self, form: KeyForm) -> ViewNeeds {
        ViewNeeds {
            key_form: form,
            ..self
        }
    }
}

impl Default for ViewNeeds {
    fn default() -> ViewNeeds {
        ViewNeeds::NONE
    }
}

impl KeyForm {
    /// `Err`: what is wrong with `key` for `view`, and what is valid.
    pub fn check(&self, view: &str, key: &str, topo: &Topology) -> Result<(), String> {
        let shown = crate::text::clip(key, 40);
        match self {
            KeyForm::Any => Ok(()),
            KeyForm::Number(what) => key.parse::<u64>().map(|_| ()).map_err(|_| {
                format!(
                    "view `{view}`: key \"{shown}\" is not a whole number; the key is {what} \
                     (0, 1, 2, ...)"
                )
            }),
            KeyForm::Check(f) => f(key, topo).map_err(|m| format!("view `{view}`: key: {m}")),
        }
    }
}

impl ViewValue {
    /// For messages and the docs: "a number", "text, one of: UP, DOWN".
    pub fn describe(&self) -> String {
        match self {
            ViewValue::Undeclared => "a value".into(),
            ViewValue::Num => "a number".into(),
            ViewValue::Text(v) => format!(
                "text, one of: {}",
                v.iter()
                    .map(|w| format!("\"{w}\""))
                    .collect::<Vec<_>>()
                    .join(", ")
            ),
            ViewValue::NodeName => "text: a node's name, or \"\" for none".into(),
            ViewValue::AnyText(what) => format!("text ({what})"),
            ViewValue::NumOr(v) => format!(
                "a number, or one of: {}",
                v.iter()
                    .map(|w| format!("\"{w}\""))
                    .collect::<Vec<_>>()
                    .join(", ")
            ),
        }
    }
    pub fn is_text(&self) -> bool {
        matches!(
            self,
            ViewValue::Text(_) | ViewValue::NodeName | ViewValue::AnyText(_)
        )
    }
    /// Whether a view declared so may answer `v`.
    pub fn allows(&self, v: &QValue, topo: &Topology) -> bool {
        match (self, v) {
            (ViewValue::Undeclared, _) | (ViewValue::Num, QValue::Num(_)) => true,
            (ViewValue::Text(words), QValue::Text(t)) => words.contains(&t.as_str()),
            (ViewValue::NodeName, QValue::Text(t)) => t.is_empty() || topo.id(t).is_some(),
            (ViewValue::AnyText(_), QValue::Text(_)) | (ViewValue::NumOr(_), QValue::Num(_)) => {
                true
            }
            (ViewValue::NumOr(words), QValue::Text(t)) => words.contains(&t.as_str()),
            _ => false,
        }
    }
}
