//! Yew components. They render the [`Model`](crate::model::Model) and dispatch
//! [`Msg`](crate::model::Msg)s; the only state they keep is presentational (hover positions,
//! open menus). What every panel takes and the helpers they share are in [`crate::kit`], below
//! both these generic panels and the model panels (`crate::models`) that [`app`] puts together.

pub mod actions;
pub mod app;
pub mod below;
pub mod bookmarks;
pub mod branches;
pub mod check_rows;
pub mod checks;
pub mod compare;
pub mod confirm;
pub mod embed;
pub mod expect_editor;
pub mod export;
pub mod frame_loop;
pub mod header;
pub mod help;
pub mod hunt;
pub mod icons;
pub mod lecture;
pub mod log;
pub mod matrix;
pub mod panels;
pub mod plots;
pub mod sequence;
pub mod sweep;
pub mod sweep_grid;
pub mod timeline;
pub mod timeline_fork;
pub mod topology;
pub mod transport;
pub mod violation;
