//! Canvas drawing: the topology, the liveness matrix, the timeline and the plots. Each function
//! takes a 2D context sized in CSS pixels and plain data; none dispatches or keeps state.

pub mod matrix;
pub mod plots;
pub mod timeline;
pub mod topology;

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

/// Colour of a message kind (SYN/ACK/ACK2/ECHO/...), shared by the topology, the sequence
/// diagram and the legend.
pub fn msg_color(label: &str) -> &'static str {
    match label {
        "SYN" => "#3b82f6",
        "ACK" => "#06b6d4",
        "ACK2" => "#14b8a6",
        "ECHO_REQ" => "#e11d8f",
        "ECHO_RSP" => "#a855f7",
        "GOSSIP_SHUTDOWN" => "#f59e0b",
        _ => "#64748b",
    }
}

/// Message kinds in legend order.
pub const MSG_KINDS: &[&str] = &[
    "SYN",
    "ACK",
    "ACK2",
    "ECHO_REQ",
    "ECHO_RSP",
    "GOSSIP_SHUTDOWN",
];
