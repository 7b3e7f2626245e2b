//! Times in-process renders of a chart by operator-rs and prints the median of each, for
//! `benches/template.sh`:
//!
//! - `engine_first_ms`: what Helm's engine does for a render (values coalesced, every template
//!   parsed and executed), on a freshly loaded chart (its loading not timed);
//! - `engine_ms`: the same on a chart rendered before, whose parsed templates are kept (Helm
//!   parses them anew every time);
//! - `render_ms`: what `operator-rs template` does with a loaded chart: the above, every
//!   manifest sorted as Helm sorts them, and the output written;
//! - `load_render_ms`: the chart loaded from disk and rendered so, per iteration.
//!
//! `cargo run --release -p render-bench -- CHART_DIR [ITERATIONS] [first]`
//!
//! With `first`, it only loads the chart and renders it once per iteration, untimed and
//! without warm-up, for instruction counts (`valgrind --tool=callgrind`) of the first render.

use std::path::Path;
use std::time::{Duration, Instant};

use operator_rs::render::capabilities::Capabilities;
use operator_rs::render::release::{self, Options};
use operator_rs::render::tree::ChartNode;
use operator_rs::render::values::Values;

fn main() {
    let args: Vec<String> = std::env::args().collect();
    let (Some(dir), iterations) = (args.get(1), args.get(2)) else {
        eprintln!("usage: render-bench CHART_DIR [ITERATIONS] [first]");
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
    let engine = |node: &ChartNode| {
        let outputs =
            release::render_templates(node, &Values::new(), &options).unwrap_or_else(|e| fail(&e));
        outputs.templates.len()
    };
    let render = |node: &ChartNode| {
        let rendered = release::render(node, &Values::new(), &options).unwrap_or_else(|e| fail(&e));
        rendered.helm_template_output(false).len()
    };
    if args.get(3).is_some_and(|mode| mode == "first") {
        let rendered: usize = (0..iterations).map(|_| engine(&load())).sum();
        std::hint::black_box(rendered);
        return;
    }
    let engine_first = median(iterations, |timed| {
        let node = load();
        timed(&mut || engine(&node))
    });
    let node = load();
    let engine_again = median(iterations, |timed| timed(&mut || engine(&node)));
    let render_again = median(iterations, |timed| timed(&mut || render(&node)));
    let load_and_render = median(iterations, |timed| timed(&mut || render(&load())));
    println!("engine_first_ms {:.3}", millis(engine_first));
    println!("engine_ms {:.3}", millis(engine_again));
    println!("render_ms {:.3}", millis(render_again));
    println!("load_render_ms {:.3}", millis(load_and_render));
}

/// A run that times the part it passes to its argument (set-up outside it is not timed).
type Timed<'a> = &'a mut dyn FnMut(&mut dyn FnMut() -> usize) -> Duration;

/// The median of `iterations` timed runs, after a few unmeasured ones.
fn median(iterations: usize, mut run: impl FnMut(Timed<'_>) -> Duration) -> Duration {
    let mut sink = 0;
    let mut timed = |f: &mut dyn FnMut() -> usize| {
        let start = Instant::now();
        sink += f();
        start.elapsed()
    };
    for _ in 0..5 {
        run(&mut timed);
    }
    let mut times: Vec<Duration> = (0..iterations.max(1)).map(|_| run(&mut timed)).collect();
    // The outputs' lengths are used, so that no render can be optimised away.
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
