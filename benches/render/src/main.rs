//! Times in-process renders of a chart by operator-rs and prints the median of each, for
//! `benches/template.sh`: what Helm's engine does (values coalesced, every template parsed and
//! executed: `engine_ms`), what `operator-rs template` does besides (manifests sorted, the output
//! written: `render_ms`), both with the chart loaded once; and the chart loaded from disk and
//! rendered as `template` renders it, per iteration (`load_render_ms`).
//!
//! `cargo run --release -p render-bench -- CHART_DIR [ITERATIONS]`

use std::path::Path;
use std::time::{Duration, Instant};

use operator_rs::render::capabilities::Capabilities;
use operator_rs::render::release::{self, Options};
use operator_rs::render::tree::ChartNode;
use operator_rs::render::values::Values;

fn main() {
    let args: Vec<String> = std::env::args().collect();
    let (Some(dir), iterations) = (args.get(1), args.get(2)) else {
        eprintln!("usage: render-bench CHART_DIR [ITERATIONS]");
        std::process::exit(2);
    };
    let iterations: usize = iterations
        .map_or(Ok(100), |n| n.parse())
        .unwrap_or_else(|_| {
            eprintln!("ITERATIONS must be a number");
            std::process::exit(2);
        });
    let dir = Path::new(dir);
    let options = Options::new("release-name", "default", Capabilities::new(None, &[]));
    let load = || {
        let chart = operator_rs::chart::load_local(dir).unwrap_or_else(|e| fail(&e));
        ChartNode::load(&chart, true).unwrap_or_else(|e| fail(&e))
    };
    let render = |node: &ChartNode| {
        let rendered = release::render(node, &Values::new(), &options).unwrap_or_else(|e| fail(&e));
        rendered.helm_template_output(false).len()
    };
    let engine = |node: &ChartNode| {
        let outputs =
            release::render_templates(node, &Values::new(), &options).unwrap_or_else(|e| fail(&e));
        outputs.templates.len()
    };
    let node = load();
    let engine_only = median(iterations, || engine(&node));
    let render_only = median(iterations, || render(&node));
    let load_and_render = median(iterations, || render(&load()));
    println!("engine_ms {:.3}", millis(engine_only));
    println!("render_ms {:.3}", millis(render_only));
    println!("load_render_ms {:.3}", millis(load_and_render));
}

/// The median time of `f` over `iterations` runs, after a few unmeasured ones.
fn median(iterations: usize, mut f: impl FnMut() -> usize) -> Duration {
    let mut sink = 0;
    for _ in 0..5 {
        sink += f();
    }
    let mut times: Vec<Duration> = (0..iterations.max(1))
        .map(|_| {
            let start = Instant::now();
            sink += f();
            start.elapsed()
        })
        .collect();
    // The output's length is used so that the render cannot be optimised away.
    std::hint::black_box(sink);
    times.sort();
    times[times.len() / 2]
}

fn millis(d: Duration) -> f64 {
    d.as_secs_f64() * 1000.0
}

fn fail(error: &dyn std::fmt::Display) -> ! {
    eprintln!("render-bench: {error}");
    std::process::exit(1);
}
