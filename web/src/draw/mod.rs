//! Canvas drawing: the topology, the liveness matrix, the timeline and the plots. Each function
//! takes a 2D context sized in CSS pixels and plain data; none dispatches or keeps state.

pub mod axis;
pub mod compare;
pub mod contrast;
pub mod matrix;
pub mod plots;
pub mod timeline;
pub mod timescale;
pub mod topology;
pub mod violation;

use clusterscope_core::model::MsgKind;

/// Colours for one theme. Canvas code cannot read CSS variables cheaply, so the palette mirrors
/// `static/style.css`.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Palette {
    pub bg: &'static str,
    pub panel: &'static str,
    pub fg: &'static str,
    pub muted: &'static str,
    pub grid: &'static str,
    pub accent: &'static str,
    pub up: &'static str,
    pub up_soft: &'static str,
    pub down: &'static str,
    pub asym: &'static str,
    pub lossy: &'static str,
    pub stopped: &'static str,
    pub stopping: &'static str,
    pub link: &'static str,
    pub fault: &'static str,
    pub user: &'static str,
    pub caption: &'static str,
}

pub const LIGHT: Palette = Palette {
    bg: "#ffffff",
    panel: "#f6f7f9",
    fg: "#1d232b",
    muted: "#6b7480",
    grid: "#e3e6ea",
    accent: "#2463eb",
    up: "#1f9d55",
    up_soft: "#d5f0df",
    down: "#d63a3a",
    asym: "#e8740c",
    lossy: "#d89b00",
    stopped: "#9aa3ad",
    stopping: "#d89b00",
    link: "#c3c9d1",
    fault: "#2463eb",
    user: "#8b3fd9",
    caption: "#b58900",
};

pub const DARK: Palette = Palette {
    bg: "#14181d",
    panel: "#1b2027",
    fg: "#e4e8ec",
    muted: "#8f99a5",
    grid: "#2a313a",
    accent: "#5b8cff",
    up: "#3ccf7a",
    up_soft: "#1d3a2a",
    down: "#ff5c5c",
    asym: "#ff9933",
    lossy: "#f0c02a",
    stopped: "#5d6672",
    stopping: "#f0c02a",
    link: "#3a434e",
    fault: "#5b8cff",
    user: "#c084fc",
    caption: "#e0b000",
};

pub fn palette(dark: bool) -> Palette {
    if dark {
        DARK
    } else {
        LIGHT
    }
}

/// Colour of a message kind, as the model declares it (`Model::msg_kinds`), shared by the
/// topology, the sequence diagram and the legend; kinds the model does not list are grey.
pub fn msg_color(kinds: &[MsgKind], label: &str) -> &'static str {
    kinds
        .iter()
        .find(|k| k.label == label)
        .map_or("#64748b", |k| k.color)
}

/// A colour a model names: CSS hex, or `@name` for a colour of the theme's palette.
pub fn model_color(p: &Palette, c: &'static str) -> &'static str {
    match c {
        "@bg" => p.bg,
        "@panel" => p.panel,
        "@fg" => p.fg,
        "@muted" => p.muted,
        "@grid" => p.grid,
        "@accent" => p.accent,
        "@up" => p.up,
        "@up_soft" => p.up_soft,
        "@down" => p.down,
        "@asym" => p.asym,
        "@lossy" => p.lossy,
        "@stopped" => p.stopped,
        "@stopping" => p.stopping,
        "@link" => p.link,
        "@user" => p.user,
        "@caption" => p.caption,
        other if other.starts_with('@') => p.muted,
        other => other,
    }
}
