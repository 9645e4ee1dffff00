//! The large matrix's image (`draw::matrix::pixels`): one pixel per cell of the view, in the
//! view's order, coloured by the cell's class (the classes come a block at a time from
//! `Driver::matrix_classes`; here each pixel is checked against its cell's own class).

use clusterscope_web::draw::matrix::pixels;
use clusterscope_web::draw::{model_color, palette};
use clusterscope_web::model::matrix_view::{view, ViewOpts};
use clusterscope_web::model::Msg;

#[cfg(target_arch = "wasm32")]
use wasm_bindgen_test::wasm_bindgen_test as test;

#[cfg(target_arch = "wasm32")]
wasm_bindgen_test::wasm_bindgen_test_configure!(run_in_browser);

mod common;
use common::{send, settle, store};

fn rgba(hex: &str) -> [u8; 4] {
    let v = u32::from_str_radix(hex.trim_start_matches('#'), 16).expect("a #rrggbb colour");
    [(v >> 16) as u8, (v >> 8) as u8, v as u8, 255]
}

#[test]
fn each_pixel_is_the_colour_of_its_cells_class_in_the_views_order() {
    // Overlapping restarts: cells DOWN both ways and one-sided, stopped nodes, UP.
    let s = send(store(), Msg::LoadBuiltin("cassandra-21636-restart".into()));
    let s = settle(send(s, Msg::SetVariant("buggy".into())));
    let s = settle(send(s, Msg::JumpToEnd));
    let m = s.model.borrow();
    let e = &*m.run.engine;
    let legend = e.matrix().expect("gossip has a matrix").legend;
    for dark in [false, true] {
        let pal = palette(dark);
        let notable = m.matrix_summary(0).notable.clone();
        assert!(!notable.is_empty(), "someone is seen DOWN at the end");
        // Notable rows and columns first: not the node order.
        let v = view(
            &m.run.scenario.topo,
            &notable,
            &ViewOpts {
                sort_notable: true,
                ..ViewOpts::default()
            },
        );
        assert_ne!(v.rows, (0..v.rows.len() as u32).collect::<Vec<_>>());
        let px = pixels(&m, &v, &pal);
        assert_eq!(px.len(), v.rows.len() * v.cols.len() * 4);
        let mut classes = std::collections::BTreeSet::new();
        for (i, &o) in v.rows.iter().enumerate() {
            for (j, &q) in v.cols.iter().enumerate() {
                let class = e.matrix_cell(o, q).class;
                classes.insert(class);
                let want = rgba(model_color(&pal, legend[class as usize].0));
                let at = (i * v.cols.len() + j) * 4;
                assert_eq!(px[at..at + 4], want, "cell ({o}, {q}), class {class}");
            }
        }
        assert!(classes.len() >= 3, "classes seen: {classes:?}");
    }
}
