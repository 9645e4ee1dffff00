//! The one place models are registered: a scenario's `protocol` picks an entry here, and the
//! runner, the CLI and the web app reach the model only through it (and `model::Driver`).
//!
//! Adding a model: its folder in `core/src/<model>/` with `impl Protocol` and `impl Model`, one
//! line in [`MODELS`] (see ARCHITECTURE.md, "Adding a model").

// `entry` and `build` are unused only in a build without any model (`--no-default-features`:
// a download measurement, `scripts/wasm-models none`).
#![cfg_attr(
    not(any(
        feature = "gossip",
        feature = "mutation-tracking",
        feature = "pingpong",
        feature = "raft"
    )),
    allow(dead_code)
)]

use crate::engine::network::Link;
use crate::engine::{Engine, Sim};
#[cfg(feature = "gossip")]
use crate::gossip::Gossip;
use crate::limits::Limits;
use crate::meaning::{Info, ParamSpec};
use crate::model::{Driver, Model, ViewNeeds};
#[cfg(feature = "mutation-tracking")]
use crate::mutation::MutationTracking;
#[cfg(feature = "ozone")]
use crate::ozone::view::Ozone;
#[cfg(feature = "pingpong")]
use crate::pingpong::PingPong;
#[cfg(feature = "raft")]
use crate::raft::RaftKv;
use crate::scenario_file::{ModelVocab, Scenario};
use crate::time::Micros;

/// What it takes to start a run of a model.
pub struct BuildArgs<'a> {
    pub scenario: &'a Scenario,
    /// Index of the variant in `scenario.raw.variants`.
    pub variant: usize,
    /// Merged `[params]`: the file's, the variant's, then overrides.
    pub params: toml::Table,
    pub seed: u64,
    pub limits: Limits,
    pub checkpointing: bool,
    pub body_budget: usize,
}

/// `Model::params_now`. In the web app's split release build a model's is in its part (its
/// parameter reader with it): a model whose part is not loaded yet answers an error and is
/// remembered for [`take_wanted`], as [`ModelEntry::build`] does.
pub type ParamsNow =
    fn(toml::Table, &Scenario) -> Result<serde_json::Map<String, serde_json::Value>, String>;

/// A registered model.
pub struct ModelEntry {
    pub name: &'static str,
    pub about: &'static str,
    /// Its expectation vocabulary (checked when a scenario is loaded).
    pub views: &'static [&'static str],
    /// What each view needs (`Model::view_needs`).
    pub view_needs: fn(&str) -> ViewNeeds,
    /// `Model::VIEW_INFO`, `Model::METRICS`, `Model::PARAMS` (`crate::catalogue`): see
    /// [`ModelEntry::tables`].
    tables: fn() -> Option<Tables>,
    /// `Model::params_now` (`crate::catalogue`).
    pub params_now: ParamsNow,
    /// `Model::HAS_LEADER`: an expectation may name `"leader"` as its node.
    pub has_leader: bool,
    build: fn(BuildArgs) -> Result<Box<dyn Driver>, String>,
    /// In the web app's split release build: the name of the part of the wasm that holds the
    /// model's code, fetched on first use (see [`take_wanted`]); `None`: in the main module.
    pub part: Option<&'static str>,
}

/// What a model's views, metrics and parameters mean: its `Model::VIEW_INFO`, `Model::METRICS`
/// and `Model::PARAMS` (`crate::catalogue` reads them).
#[derive(Clone, Copy)]
pub struct Tables {
    pub view_info: &'static [&'static [Info]],
    pub metrics: &'static [&'static [Info]],
    pub params: &'static [&'static [ParamSpec]],
}

impl Tables {
    const fn of<M: Model>() -> Tables {
        Tables {
            view_info: M::VIEW_INFO,
            metrics: M::METRICS,
            params: M::PARAMS,
        }
    }
}

thread_local! {
    /// A model a build asked for whose code is not loaded yet ([`take_wanted`]).
    static WANTED: std::cell::Cell<Option<&'static str>> = const { std::cell::Cell::new(None) };
}

/// The model asked for by a build since the last call whose code was not loaded. Only in the
/// web app's split release build, where every model but gossip (the default scenario's) is a
/// part of the wasm (`ModelEntry::part`, ARCHITECTURE.md, "The split build"): the app fetches
/// the part and builds again, as it does for a built-in scenario's text.
pub fn take_wanted() -> Option<&'static str> {
    WANTED.with(|w| w.take())
}

impl ModelEntry {
    /// Build the model and an engine around it, ready to run from time zero.
    ///
    /// In the web app's split release build a model whose part is not loaded yet answers an
    /// error and is remembered for [`take_wanted`].
    pub fn build(&self, args: BuildArgs) -> Result<Box<dyn Driver>, String> {
        (self.build)(args)
    }

    /// The model's catalogue tables. `None` only in the web app's split release build while the
    /// model's part is not loaded: its sentences are in its part (issue 44), read by the sweep
    /// card, the parameter catalogue and the expectation editor, which show a model only once
    /// its run is built (the part in). Nothing is wanted: a build asks for the part.
    pub fn tables(&self) -> Option<Tables> {
        (self.tables)()
    }
}

const fn entry<M: Model>() -> ModelEntry {
    with_build::<M>(build::<M>, M::params_now, || Some(Tables::of::<M>()), None)
}

const fn with_build<M: Model>(
    build: fn(BuildArgs) -> Result<Box<dyn Driver>, String>,
    params_now: ParamsNow,
    tables: fn() -> Option<Tables>,
    part: Option<&'static str>,
) -> ModelEntry {
    ModelEntry {
        name: M::NAME,
        about: M::ABOUT,
        views: M::VIEWS,
        has_leader: M::HAS_LEADER,
        view_needs: M::view_needs,
        tables,
        params_now,
        build,
        part,
    }
}

/// A model compiled in everywhere but the web app's split release build, where its engine
/// (`build::<M>` and all only it reaches) is the part `$part` of the wasm: `wasm_split`'s
/// split point, which `scripts/wasm-split.mjs` cuts at. `cs_split` is set by core's build.rs
/// (an optimised wasm32 build with the `split-models` feature).
#[cfg(not(cs_split))]
macro_rules! lazy_entry {
    ($m:ty, $part:ident) => {
        entry::<$m>()
    };
}

#[cfg(cs_split)]
macro_rules! lazy_entry {
    ($m:ty, $part:ident) => {{
        crate::lazy::split_fn!($part, enter,
            fn in_part(split::Args<'_>) -> split::Out = split::answer::<$m>);
        fn build(a: BuildArgs) -> Result<Box<dyn Driver>, String> {
            split::build(in_part, <$m as Model>::NAME, a)
        }
        fn params_now(
            t: toml::Table,
            sc: &Scenario,
        ) -> Result<serde_json::Map<String, serde_json::Value>, String> {
            split::params_now(in_part, <$m as Model>::NAME, t, sc)
        }
        fn tables() -> Option<Tables> {
            split::tables(in_part)
        }
        with_build::<$m>(build, params_now, tables, Some(stringify!($part)))
    }};
}

/// The split build's way into a model's part: a call through its split point (`lazy_entry!`'s
/// `in_part`, a `lazy::split_fn!`), to a build or the model's parameters read (`params_now`, its
/// parameter reader and their errors, are in the part too). While the part is not loaded nothing
/// runs and the model is wanted (the app fetches the part: the split's glue).
#[cfg(cs_split)]
mod split {
    use super::{BuildArgs, Driver, Model, Scenario, Tables, WANTED};

    type Params = Result<serde_json::Map<String, serde_json::Value>, String>;

    pub enum Args<'a> {
        Build(BuildArgs<'a>),
        Params(toml::Table, &'a Scenario),
        Tables,
    }

    pub enum Out {
        Build(Result<Box<dyn Driver>, String>),
        Params(Params),
        Tables(Tables),
    }

    /// In the part: answer `a` for `M`.
    pub fn answer<M: Model>(a: Args) -> Out {
        match a {
            Args::Build(a) => Out::Build(super::build::<M>(a)),
            Args::Params(t, sc) => Out::Params(M::params_now(t, sc)),
            Args::Tables => Out::Tables(Tables::of::<M>()),
        }
    }

    /// In the main module: call into the part if it is in; otherwise remember the model for
    /// `take_wanted` and say so.
    fn run(
        in_part: impl FnOnce(Args) -> Option<Out>,
        name: &'static str,
        args: Args,
    ) -> Result<Out, String> {
        in_part(args).ok_or_else(|| {
            WANTED.with(|w| w.set(Some(name)));
            format!("the {name} model's code is not loaded yet")
        })
    }

    pub fn build(
        in_part: impl FnOnce(Args) -> Option<Out>,
        name: &'static str,
        a: BuildArgs,
    ) -> Result<Box<dyn Driver>, String> {
        match run(in_part, name, Args::Build(a))? {
            Out::Build(r) => r,
            _ => Err(format!("the {name} model's code did not run")),
        }
    }

    pub fn params_now(
        in_part: impl FnOnce(Args) -> Option<Out>,
        name: &'static str,
        t: toml::Table,
        sc: &Scenario,
    ) -> Params {
        match run(in_part, name, Args::Params(t, sc))? {
            Out::Params(r) => r,
            _ => Err(format!("the {name} model's code did not run")),
        }
    }

    /// The model's tables if its part is loaded; nothing is wanted (see `ModelEntry::tables`).
    pub fn tables(in_part: impl FnOnce(Args) -> Option<Out>) -> Option<Tables> {
        match in_part(Args::Tables)? {
            Out::Tables(t) => Some(t),
            _ => None,
        }
    }
}

/// Every model compiled in (the crate's features; all of them by default), in the order
/// `clusterscope list` shows them.
pub static MODELS: &[ModelEntry] = &[
    #[cfg(feature = "gossip")]
    entry::<Gossip>(),
    #[cfg(feature = "mutation-tracking")]
    lazy_entry!(MutationTracking, mutation_tracking),
    #[cfg(feature = "pingpong")]
    lazy_entry!(PingPong, pingpong),
    #[cfg(feature = "raft")]
    lazy_entry!(RaftKv, raft),
    #[cfg(feature = "ozone")]
    lazy_entry!(Ozone, ozone),
];

impl ModelEntry {
    /// What the scenario parser checks an expectation against.
    pub fn vocab(&self) -> ModelVocab {
        ModelVocab {
            name: self.name,
            views: self.views,
            view_needs: self.view_needs,
            has_leader: self.has_leader,
        }
    }
}

/// Every model's vocabulary, for the scenario parser.
pub fn vocabs() -> Vec<ModelVocab> {
    MODELS.iter().map(ModelEntry::vocab).collect()
}

/// The entry for a scenario's `protocol`.
pub fn find(name: &str) -> Option<&'static ModelEntry> {
    MODELS.iter().find(|m| m.name == name)
}

pub fn names() -> Vec<&'static str> {
    MODELS.iter().map(|m| m.name).collect()
}

fn build<M: Model>(a: BuildArgs) -> Result<Box<dyn Driver>, String> {
    let sc = a.scenario;
    let proto = M::build(a.params, sc.section.as_ref(), sc)?;
    let net = &sc.raw.network;
    let link = Link {
        loss: net.loss,
        ..Link::healthy(net.latency_min.0, net.latency_max.0)
    };
    let sim = Sim::new(
        proto,
        sc.topo.clone(),
        link,
        a.seed,
        sc.schedule(a.variant),
        a.limits,
    );
    let engine: Engine<M> = Engine::new(sim, a.checkpointing, a.body_budget);
    Ok(Box::new(engine))
}

/// Longest span between checkpoints a run starts with: see `Run::new`.
pub fn checkpoint_span(duration: Micros, max_checkpoints: usize) -> Micros {
    (duration / (max_checkpoints as Micros - 2)).max(crate::time::US_PER_S)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::ViewValue;

    /// Every view, generic or a model's, declares what it answers: the load-time checks of
    /// `equals`, bounds and `increases` rely on it.
    #[test]
    fn every_view_declares_its_value() {
        for v in crate::scenario_file::GENERIC_VIEWS {
            let d = crate::scenario_file::generic_view_needs(v).value;
            assert_ne!(d, ViewValue::Undeclared, "generic view `{v}`");
        }
        for m in MODELS {
            for v in m.views {
                let d = (m.view_needs)(v).value;
                assert_ne!(d, ViewValue::Undeclared, "{}: view `{v}`", m.name);
            }
        }
    }
}
