//! The charts drawn from counters, on results made here: a panel per group, with marks,
//! where the cells have counters; none (and the page as it was) where they have not.

use super::{Kind, panels};
use crate::counters::{Counters, Device, Figures, Usage};
use crate::profile::Profile;
use crate::report::{html, rows};
use crate::results::{CellResult, Interval, RepeatResult, RepeatStatus, Results, encode_histogram, new_histogram};

/// A measured repeat of `tps` over 3 s, cut in 1 s slices, with `counters` (per
/// transaction, scaled to the repeat and each slice) unless none.
fn repeat(n: u32, tps: f64, counters: Option<&dyn Fn(f64, usize) -> Counters>) -> RepeatResult {
    let mut r = RepeatResult::failed(n, String::new(), String::new(), "1".into());
    let mut h = new_histogram();
    h.record(1_000_000).unwrap();
    r.status = RepeatStatus::Ok;
    r.error = None;
    r.duration_s = 3.0;
    r.transactions = (tps * 3.0) as u64;
    r.tps = tps;
    r.histogram = encode_histogram(&h);
    r.timeline = vec![tps as u64; 3];
    r.client_cpu_s = r.transactions as f64 * 50e-6;
    if let Some(c) = counters {
        r.counters = Some(c(r.transactions as f64, usize::MAX));
        r.intervals = (0..3)
            .map(|i| Interval {
                start_s: i as f64,
                transactions: tps as u64,
                histogram: encode_histogram(&h),
                counters: Some(c(tps, i)),
                ..Interval::default()
            })
            .collect();
    }
    r
}

/// PostgreSQL-like counters for `tx` transactions: an fsync and 200 log bytes each, and a
/// checkpoint in slice 1 (`slice` is usize::MAX for the whole repeat).
fn server(tx: f64, slice: usize) -> Counters {
    Counters {
        figures: Figures {
            commits: Some(tx),
            fsyncs: Some(tx),
            fsync_s: Some(tx * 1e-3),
            log_bytes: Some(tx * 200.0),
            cache_misses: Some(tx * 0.1),
            cache_requests: Some(tx * 5.0),
            checkpoints: Some(if slice == 1 || slice == usize::MAX { 1.0 } else { 0.0 }),
            ..Figures::default()
        },
        processes: Some(Usage {
            cpu_s: Some(tx * 200e-6),
            read_bytes: 0.0,
            write_bytes: tx * 8192.0,
            ..Usage::default()
        }),
        device: Some(Device { name: "vda".into(), write_bytes: tx * 9000.0, flushes: tx * 1.2, ..Device::default() }),
        ..Counters::default()
    }
}

/// SQLite-like counters: no server figures, the disk's flushes and bytes.
fn embedded(tx: f64, _: usize) -> Counters {
    Counters {
        processes: Some(Usage { read_bytes: 0.0, write_bytes: tx * 4096.0, ..Usage::default() }),
        device: Some(Device { name: "vda".into(), write_bytes: tx * 5000.0, flushes: tx * 2.0, ..Device::default() }),
        ..Counters::default()
    }
}

fn cell(engine: &str, profile: &str, clients: u32, repeats: Vec<RepeatResult>) -> CellResult {
    let mut p = Profile::named(profile.split('+').next().unwrap()).unwrap();
    p.name = profile.into();
    CellResult {
        id: format!("{engine}/{profile}/insert-commit/c{clients}"),
        engine: engine.into(),
        profile: p,
        workload: "insert-commit".into(),
        clients,
        repeats,
        summary: None,
    }
}

/// A run's skeleton with `cells`, 1 s slices.
fn results(cells: Vec<CellResult>) -> Results {
    let mut r: Results = serde_json::from_value(serde_json::json!({
        "schema": 1, "dbrace_version": "test", "status": "complete", "started_at": "2026-01-01T00:00:00Z",
        "finished_at": null, "command": ["dbrace", "run"],
        "host": {"cpus": 2, "cpu_model": "test", "memory_bytes": 1u64 << 30, "kernel": "6", "os": "linux"},
        "locations": [],
        "options": {"duration_s": 3.0, "transactions": null, "warmup_s": 0.1, "repeat": 2, "seed": 1,
                    "scale": 1, "tables": 1, "table_size": 10000, "records": 10000,
                    "baseline": "disk", "log_interval_s": 1.0},
        "cells": []
    }))
    .unwrap();
    r.cells = cells;
    r
}

/// Two cells with counters (a server's, an embedded engine's), two repeats each.
fn with_counters() -> Results {
    results(vec![
        cell("postgres", "disk", 1, vec![repeat(1, 500.0, Some(&server)), repeat(2, 520.0, Some(&server))]),
        cell("sqlite", "disk", 1, vec![repeat(1, 300.0, Some(&embedded)), repeat(2, 310.0, Some(&embedded))]),
    ])
}

/// The same results as a file without counters has them.
fn without_counters(mut r: Results) -> Results {
    for rep in r.cells.iter_mut().flat_map(|c| c.repeats.iter_mut()) {
        rep.counters = None;
        for i in &mut rep.intervals {
            i.counters = None;
        }
    }
    r
}

/// The panels of one chart, as markup.
fn drawn(r: &Results, kind: Kind) -> Vec<String> {
    let rows = rows(r, "disk").unwrap();
    panels(r, &rows, kind).unwrap().into_iter().map(|p| p.svg).collect()
}

/// The number in `data-marks` of a panel.
fn marks(svg: &str) -> usize {
    svg.split("data-marks=\"").nth(1).unwrap().split('"').next().unwrap().parse().unwrap()
}

fn count(svg: &str, class: &str) -> usize {
    svg.matches(&format!("class=\"{class}\"")).count()
}

#[test]
fn where_the_time_goes_is_a_stacked_bar_per_cell_with_its_bound() {
    let p = drawn(&with_counters(), Kind::Bound);
    assert_eq!(p.len(), 1);
    assert!(p[0].contains(r#"data-chart="bound""#));
    assert_eq!(marks(&p[0]), 2);
    assert_eq!(count(&p[0], "bound"), 2);
    // PostgreSQL: 1 ms of fsync per transaction at ~510 tps, about half its time.
    assert!(p[0].contains(r#"data-part="storage""#) && p[0].contains("postgres disk: storage 5"), "{}", p[0]);
    assert!(count(&p[0], "segment") >= 4, "{}", p[0]);
    assert!(p[0].contains(">→ storage<"), "{}", p[0]);
}

#[test]
fn costs_draw_each_figure_a_cell_has_and_skip_the_others() {
    let p = drawn(&with_counters(), Kind::Costs);
    assert_eq!(p.len(), 1);
    let svg = &p[0];
    // fsyncs, log bytes, cache reads and server CPU: postgres's alone; flushes, disk
    // bytes and client CPU: both cells'.
    assert_eq!(marks(svg), 4 + 3 * 2);
    assert_eq!(count(svg, "bar"), 10);
    for heading in ["fsyncs/tx", "disk flushes/tx", "log bytes/tx", "disk bytes/tx", "server CPU µs/tx"] {
        assert!(svg.contains(&format!(">{heading}<")), "no {heading}");
    }
    assert!(svg.contains("postgres disk: 200 bytes of WAL, redo or append-only log per transaction"), "{svg}");
    // An embedded engine has no server figures: a dash in those columns.
    assert_eq!(count(svg, "missing"), 4);
}

#[test]
fn counters_over_time_draw_each_repeats_slices_and_shade_checkpoints() {
    let p = drawn(&with_counters(), Kind::Counters);
    assert_eq!(p.len(), 1);
    let svg = &p[0];
    // Syncs and bytes: four repeats each; server CPU: postgres's two.
    assert_eq!(marks(svg), 4 + 4 + 2);
    assert_eq!(count(svg, "series"), 10);
    assert_eq!(count(svg, "point"), 30);
    // Slice 1 of each postgres repeat, shaded in each of the three plots.
    assert_eq!(count(svg, "checkpoint"), 2 * 3);
    assert!(svg.contains("postgres disk repeat 2: a checkpoint in the slice 1–2 s"), "{svg}");
    assert!(svg.contains("sqlite disk repeat 1: 2.00 disk flushes per transaction"), "{svg}");
    assert!(svg.contains("postgres disk repeat 1: 1.00 fsyncs per transaction"), "{svg}");
    // Without --log-interval slices there is nothing to draw.
    let mut r = with_counters();
    r.options.driving.log_interval = None;
    assert!(drawn(&r, Kind::Counters).is_empty());
}

#[test]
fn a_file_without_counters_renders_without_their_charts() {
    let counted: Vec<Kind> = Kind::ALL.into_iter().filter(|k| k.from_counters()).collect();
    assert_eq!(counted, [Kind::Bound, Kind::Costs, Kind::Counters]);
    let r = without_counters(with_counters());
    for kind in &counted {
        assert!(drawn(&r, *kind).is_empty(), "{kind:?}");
        assert!(super::standalone(&r, &rows(&r, "disk").unwrap(), *kind).is_err());
    }
    let page = html::render(&r, "disk", "r.json").unwrap();
    for name in counted.iter().map(|k| k.name()) {
        assert!(!page.contains(&format!("<section id=\"{name}\">")), "{name}");
        assert!(!page.contains(&format!("data-chart=\"{name}\"")), "{name}");
    }
    for section in ["summary", "tps", "latency", "timeline", "sweep", "environment", "notes"] {
        assert!(page.contains(&format!("<section id=\"{section}\">")), "{section}");
    }
    // With counters: a section each, with its panel, between the timeline and the sweep.
    let page = html::render(&with_counters(), "disk", "r.json").unwrap();
    let at = |s: &str| page.find(&format!("<section id=\"{s}\">")).unwrap_or_else(|| panic!("no {s} section"));
    let order: Vec<usize> =
        std::iter::once(at("timeline")).chain(counted.iter().map(|k| at(k.name()))).chain([at("sweep")]).collect();
    assert!(order.windows(2).all(|w| w[0] < w[1]), "{order:?}");
    for name in counted.iter().map(|k| k.name()) {
        assert_eq!(page.matches(&format!("data-chart=\"{name}\"")).count(), 1, "{name}");
    }
    assert!(page.contains("docs/explain.md"));
}

/// A sweep of `cache_size` whose cells read more pages into the cache the smaller it is.
fn sweep(counted: bool) -> Results {
    let reads = |per: f64| {
        move |tx: f64, slice: usize| {
            let mut c = server(tx, slice);
            c.figures.cache_misses = Some(tx * per);
            c
        }
    };
    let (small, large) = (reads(40.0), reads(0.5));
    let cells = [("-100", 400.0, &small as &dyn Fn(f64, usize) -> Counters), ("-20000", 600.0, &large)]
        .into_iter()
        .map(|(size, tps, c)| {
            let counters = counted.then_some(c);
            cell(
                "postgres",
                &format!("disk+cache_size={size}"),
                1,
                vec![repeat(1, tps, counters), repeat(2, tps, counters)],
            )
        })
        .collect();
    results(cells)
}

#[test]
fn a_sweep_draws_the_cost_that_varies_most_against_the_swept_value() {
    let p = drawn(&sweep(true), Kind::Sweep);
    assert_eq!(p.len(), 2, "the sweep and what it changed");
    let cost = p.iter().find(|s| s.contains(r#"data-chart="sweep-cost""#)).expect("no sweep-cost panel");
    assert!(cost.contains("cache reads per transaction, across the values of cache_size"), "{cost}");
    assert!(cost.contains("postgres disk+cache_size=-100: cache reads per transaction 40.0"), "{cost}");
    // And the share of the time that varies most: storage, at 1 ms a transaction.
    assert!(cost.contains("share of the time in storage (the flush), across"), "{cost}");
    assert_eq!(marks(cost), 2);
    assert_eq!(count(cost, "point"), 4);

    let p = drawn(&sweep(false), Kind::Sweep);
    assert_eq!(p.len(), 1);
    assert!(p[0].contains(r#"data-chart="sweep""#));
}

#[test]
fn a_sweep_of_rows_per_commit_draws_costs_per_row() {
    // A commit's fsync shared by its rows; each row logs 100 bytes more.
    let rows = |n: f64| {
        move |tx: f64, slice: usize| {
            let mut c = server(tx, slice);
            c.figures.log_bytes = Some(tx * (100.0 * n + 100.0));
            c
        }
    };
    let (one, hundred) = (rows(1.0), rows(100.0));
    let cells = [("1", 500.0, &one as &dyn Fn(f64, usize) -> Counters), ("100", 300.0, &hundred)]
        .into_iter()
        .map(|(n, tps, c)| {
            let repeats = vec![repeat(1, tps, Some(c)), repeat(2, tps, Some(c))];
            cell("postgres", &format!("disk+rows-per-commit={n}"), 1, repeats)
        })
        .collect();
    let p = drawn(&results(cells), Kind::Sweep);
    let cost = p.iter().find(|s| s.contains(r#"data-chart="sweep-cost""#)).expect("no sweep-cost panel");
    assert!(cost.contains("the cost per row and the share"), "{cost}");
    assert!(cost.contains("fsyncs per row, across the values of rows-per-commit"), "{cost}");
    assert!(cost.contains("postgres disk+rows-per-commit=100: fsyncs per row 0.0100"), "{cost}");
    assert!(cost.contains(">fsyncs/row (log scale)<"), "{cost}");
}
