//! Yew components. They render the [`Model`](crate::model::Model) and dispatch
//! [`Msg`](crate::model::Msg)s; the only state they keep is presentational (hover positions,
//! open menus).

pub mod app;
pub mod header;
pub mod help;
pub mod icons;
pub mod inspector;
pub mod log;
pub mod matrix;
pub mod panels;
pub mod plots;
pub mod sequence;
pub mod topology;
pub mod transport;

use crate::model::Store;
use yew::prelude::*;

pub type Handle = UseReducerHandle<Store>;

/// Props of every panel: the store and the effective theme.
#[derive(Properties, Clone, PartialEq)]
pub struct PanelProps {
    pub s: Handle,
    pub dark: bool,
    /// Bumps on window resizes, so canvases redraw at their new size.
    #[prop_or_default]
    pub resize: u32,
}

/// `1m05.250s`-style time.
pub fn t(us: u64) -> String {
    clusterscope_core::time::fmt_time(us)
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
