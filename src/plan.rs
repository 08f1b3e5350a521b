//! Flags -> the matrix of cells a run measures.

mod asked;
mod composed;

use crate::engine::{self, Engine, Machine, Target};
use crate::error::{Error, Result};
use crate::profile::{self, Profile};
pub use crate::runner::cell::Cell;
use crate::workload::WorkloadOptions;
use crate::workload::{self, Workload};
use std::collections::HashMap;
use std::sync::Arc;

pub use asked::{Asked, DEFAULT_ENGINES, DEFAULT_PROFILES, DEFAULT_WORKLOADS};

/// What the user asked for, before validation.
#[derive(Clone, Debug, Default)]
pub struct Request {
    /// The cells asked for, as the flags give them.
    pub asked: Asked,
    /// Profiles given as values with settings of their own (a Compose file's), instead of
    /// the profiles asked for when there are any.
    pub profile_values: Vec<Profile>,
    /// The workloads' options; a sweep over one of them overrides it per cell.
    pub options: WorkloadOptions,
    /// The options of `script:` workloads.
    pub script: workload::script::Config,
    /// Every profile's throwaway server runs with TLS (`--tls`), as if each ended in `+tls`.
    pub tls: bool,
    /// How this machine's servers are found, run and reached.
    pub machine: Machine,
    /// Why there is no ram location, where there is none: the default profiles on RAM
    /// are left out.
    pub no_ram: Option<String>,
}

/// What `--sweep KEY=a,b,c` varies.
enum Sweep {
    /// Client counts: one cell per value, as `--clients a,b,c`.
    Clients(Vec<u32>),
    /// A workload option such as `scale`: the key and one option set per value.
    Option(String, Vec<(String, WorkloadOptions)>),
    /// An engine setting: (engine, key, value) for each value and engine that knows it.
    Setting(Vec<(String, String, String)>),
}

/// One way to run an engine × profile: the settings and options of one sweep value.
struct Variant {
    label: Option<String>,
    settings: Vec<(String, String, String)>,
    options: WorkloadOptions,
}

/// The validated matrix.
pub struct Plan {
    /// Cells in report order: workload, clients, engine, profile.
    pub cells: Vec<Cell>,
    /// Combinations left out, and why.
    pub skipped: Vec<String>,
    /// The baseline the report compares against.
    pub baseline: String,
    /// The options every cell's engine launches with.
    pub machine: Machine,
}

/// The profiles asked for (the default set when none), each with TLS under `--tls`.
pub fn profile_names(given: &[String], tls: bool) -> Vec<String> {
    profile::with_tls(or_default(given, DEFAULT_PROFILES), tls)
}

fn or_default(given: &[String], default: &[&str]) -> Vec<String> {
    if given.is_empty() { default.iter().map(|s| s.to_string()).collect() } else { given.to_vec() }
}

/// Validate a request and build its cells.
pub fn build(req: &Request) -> Result<Plan> {
    let mut skipped = Vec::new();
    let bound = bind_urls(&req.asked.url)?;
    let engines = engines(req, &bound, &mut skipped)?;
    let profiles = match req.profile_values.is_empty() {
        true => {
            profile_names(&req.asked.profile, req.tls).iter().map(|n| Profile::named(n)).collect::<Result<Vec<_>>>()?
        }
        false => req.profile_values.clone(),
    };
    let profiles = without_ram_by_default(req, profiles, &mut skipped);
    let mut workloads = workload::resolve(&or_default(&req.asked.workload, DEFAULT_WORKLOADS), &req.script)?;
    if req.asked.workload.is_empty() {
        // Defaults adapt to the engines; only workloads the user named must all run.
        workloads.retain(|w| engines.iter().any(|e| w.runs_on(*e)));
    }
    check_drivable(&workloads, &engines)?;
    let sweep = req.asked.sweep.as_deref().map(|s| parse_sweep(s, &engines, &req.options, &req.machine)).transpose()?;
    let clients = match &sweep {
        Some(Sweep::Clients(values)) => values.clone(),
        _ => req.asked.clients.clone(),
    };
    if clients.is_empty() {
        return Err(bad_input!("no client count given; use --clients N"));
    }
    let mut m = Matrix {
        req,
        sets: parse_sets(&req.asked.set, &engines, &req.machine)?,
        sweep,
        bound,
        skipped,
        refused: HashMap::new(),
        cells: Vec::new(),
    };
    for w in &workloads {
        for &n in &clients {
            for e in &engines {
                m.add(*e, w, n, &profiles);
            }
        }
    }
    m.check_everything_asked_runs(&engines, &profiles)?;
    let baseline = baseline(req, &profiles, &m.cells)?;
    Ok(Plan { cells: m.cells, skipped: m.skipped, baseline, machine: req.machine.clone() })
}

/// The profiles, less those on RAM when they are the default set and there is no ram
/// location (the others left out with a note).
fn without_ram_by_default(req: &Request, profiles: Vec<Profile>, skipped: &mut Vec<String>) -> Vec<Profile> {
    let (Some(why), true) = (&req.no_ram, req.asked.profile.is_empty() && req.profile_values.is_empty()) else {
        return profiles;
    };
    let (left, kept): (Vec<Profile>, Vec<Profile>) = profiles.into_iter().partition(Profile::on_ram);
    let names: Vec<&str> = left.iter().map(|p| p.name.as_str()).collect();
    if !names.is_empty() {
        skipped.push(format!("{}: left out of the default run: {why}", names.join(", ")));
    }
    kept
}

/// The engines of the run: those named, else those the URLs name, else the default ones
/// whose servers this machine has (the others left out with a note).
fn engines(
    req: &Request,
    bound: &[(&'static str, String)],
    skipped: &mut Vec<String>,
) -> Result<Vec<&'static dyn Engine>> {
    // The URLs decide the engines: a run with --url measures the servers they name alone.
    let named: Vec<String> = bound.iter().map(|(e, _)| e.to_string()).collect();
    let given = if req.asked.engine.is_empty() { &named } else { &req.asked.engine };
    let mut engines =
        or_default(given, DEFAULT_ENGINES).iter().map(|n| engine::by_name(n)).collect::<Result<Vec<_>>>()?;
    check_covered(&engines, bound)?;
    if given.is_empty() {
        engines.retain(|e| match e.version(&req.machine) {
            Ok(_) => true,
            Err(why) => {
                skipped.push(format!("{}: left out of the default run: {why}", e.name()));
                false
            }
        });
    }
    Ok(engines)
}

/// Every workload asked for runs on one of the engines at least.
fn check_drivable(workloads: &[Arc<dyn Workload>], engines: &[&'static dyn Engine]) -> Result<()> {
    for w in workloads {
        if !engines.iter().any(|e| w.runs_on(*e)) {
            let can: Vec<_> = engine::all().iter().filter(|e| w.runs_on(**e)).map(|e| e.name()).collect();
            return Err(bad_input!(
                "workload {} cannot run on {}; engines that can: {}",
                w.name(),
                names(engines, |e| e.name()),
                can.join(", ")
            ));
        }
    }
    Ok(())
}

/// The cells as they are found, and what did not fit.
struct Matrix<'r> {
    req: &'r Request,
    /// `--set ENGINE:KEY=VALUE`, as (engine, key, value).
    sets: Vec<(String, String, String)>,
    sweep: Option<Sweep>,
    /// The engines `--url` binds, and their URLs.
    bound: Vec<(&'static str, String)>,
    skipped: Vec<String>,
    /// Why an engine refused a profile, kept for an engine that ends with no cell.
    refused: HashMap<&'static str, Error>,
    cells: Vec<Cell>,
}

impl Matrix<'_> {
    /// The cells of engine `e` × workload `w` × `clients` over every profile and variant.
    fn add(&mut self, e: &'static dyn Engine, w: &Arc<dyn Workload>, clients: u32, profiles: &[Profile]) {
        if !w.drives(e.facts().interface) {
            note(&mut self.skipped, format!("{} × {}: {} does not run it", e.name(), w.name(), e.name()));
            return;
        }
        if let Some(cap) = w.lacks(e) {
            note(&mut self.skipped, format!("{} × {}: {} has no {}", e.name(), w.name(), e.name(), cap.name()));
            return;
        }
        let variants = variants(self.sweep.as_ref(), e.name(), &self.req.options);
        for (p, variant) in profiles.iter().flat_map(|p| variants.iter().map(move |v| (p, v))) {
            if p.tls && !e.facts().serves_tls {
                note(
                    &mut self.skipped,
                    format!("{} × {}: {} has no server to run with TLS", e.name(), p.name, e.name()),
                );
                continue;
            }
            let Some(profile) = self.profile(e, p, variant) else { continue };
            let target = self.target(e.name());
            if let Err(err) = e.check(&profile, &target, &self.req.machine) {
                // Default profiles adapt to a --url's server; those named must run.
                if !(self.req.asked.profile.is_empty() && matches!(target, Target::Url(_))) {
                    note(&mut self.skipped, format!("{} × {}: {err}", e.name(), profile.name));
                }
                self.refused.entry(e.name()).or_insert(err);
                continue;
            }
            if let Some(why) = e.no_rollback(&profile).filter(|_| w.needs_rollback()) {
                let said = format!("{} × {}: {} rolls transactions back, and {why}", e.name(), profile.name, w.name());
                note(&mut self.skipped, said);
                continue;
            }
            let options = variant.options.clone();
            let cell = Cell { engine: e, profile, workload: Arc::clone(w), clients, target, options };
            if !self.cells.iter().any(|c| c.id() == cell.id()) {
                self.cells.push(cell);
            }
        }
    }

    /// Profile `p` as engine `e` runs it, with the `--set` and swept settings for it.
    fn profile(&mut self, e: &'static dyn Engine, p: &Profile, variant: &Variant) -> Option<Profile> {
        let p = match composed::for_engine(e, p, &self.req.machine) {
            Ok(p) => p,
            Err(key) => {
                let why = format!("{} × {}: {} has no setting '{key}'", e.name(), p.name, e.name());
                note(&mut self.skipped, why);
                return None;
            }
        };
        let mut profile = e.resolve_profile(&p)?;
        let given = self.sets.iter().chain(&variant.settings).filter(|(en, _, _)| en == e.name());
        profile.settings.extend(given.map(|(_, k, v)| (k.clone(), v.clone())));
        if let Some(label) = &variant.label {
            profile.name = format!("{}+{label}", profile.name);
        }
        Some(profile)
    }

    /// The server engine `name`'s cells run against: the `--url` given for it, or managed.
    fn target(&self, name: &str) -> Target {
        self.bound.iter().find(|(n, _)| *n == name).map_or(Target::Managed, |(_, u)| Target::Url(u.clone()))
    }

    /// Every engine must run something, and every profile the user named must run on some
    /// engine; beyond that, engine × profile pairs that do not fit are skipped with a note.
    fn check_everything_asked_runs(&mut self, engines: &[&'static dyn Engine], profiles: &[Profile]) -> Result<()> {
        for e in engines {
            if !self.cells.iter().any(|c| c.engine.name() == e.name())
                && let Some(err) = self.refused.remove(e.name())
            {
                return Err(err);
            }
        }
        if !self.req.asked.profile.is_empty()
            && let Some(p) =
                profiles.iter().map(|p| &p.name).find(|p| !self.cells.iter().any(|c| c.profile.is_named(p)))
        {
            let why = self.skipped.iter().find(|s| s.contains(&format!(" × {p}: "))).cloned().unwrap_or_default();
            return Err(bad_input!("profile '{p}' runs on no engine of this run ({why})"));
        }
        Ok(())
    }
}

/// `--baseline`, or the first profile asked for unless no cell runs it (memory runs only
/// `unlogged`); checked against the cells.
fn baseline(req: &Request, profiles: &[Profile], cells: &[Cell]) -> Result<String> {
    let baseline = req.asked.baseline.clone().unwrap_or_else(|| {
        let first = &profiles[0].name;
        let c = cells.iter().find(|c| &c.profile.name == first).unwrap_or(&cells[0]);
        c.profile.name.clone()
    });
    crate::baseline::Baseline::parse(&baseline)
        .validate(cells.iter().map(|c| (c.engine.name(), c.profile.name.as_str())))?;
    Ok(baseline)
}

fn names<T>(xs: &[T], f: impl Fn(&T) -> &str) -> String {
    xs.iter().map(f).collect::<Vec<_>>().join(", ")
}

/// Add a skip note once (the loops over workloads and clients meet each pair many times).
fn note(skipped: &mut Vec<String>, line: String) {
    if !skipped.contains(&line) {
        skipped.push(line);
    }
}

/// Bind each `--url` to the engine of its scheme, in the order given.
fn bind_urls(urls: &[String]) -> Result<Vec<(&'static str, String)>> {
    let mut bound: Vec<(&'static str, String)> = Vec::new();
    for url in urls {
        let e = engine::by_url(url)?;
        if bound.iter().any(|(n, _)| *n == e.name()) {
            return Err(bad_input!("two --url values for {}; give one", e.name()));
        }
        bound.push((e.name(), url.clone()));
    }
    Ok(bound)
}

/// With --url, every engine of the run must be one a URL names, and every URL's engine in
/// the run: a managed cell beside the user's server would be measured unasked.
fn check_covered(engines: &[&'static dyn Engine], bound: &[(&'static str, String)]) -> Result<()> {
    if bound.is_empty() {
        return Ok(());
    }
    let named = bound.iter().map(|(n, _)| *n).collect::<Vec<_>>().join(", ");
    if let Some(e) = engines.iter().find(|e| !bound.iter().any(|(n, _)| *n == e.name())) {
        let fix = match e.facts().url_schemes.first() {
            Some(scheme) => format!("add a {scheme}://… --url for it, or leave it out of --engine"),
            None => format!("{} takes no --url: measure it in a run without --url", e.name()),
        };
        return Err(bad_input!(
            "--engine {} has no --url, and a run with --url measures only the servers its URLs name ({named}); {fix}",
            e.name()
        ));
    }
    if let Some((n, _)) = bound.iter().find(|(n, _)| !engines.iter().any(|e| e.name() == *n)) {
        return Err(bad_input!("--url is for {n}, which --engine leaves out; add --engine {n}, or leave out --engine"));
    }
    Ok(())
}

/// The ways an engine runs under the sweep: one per value it takes, or just one.
fn variants(sweep: Option<&Sweep>, engine: &str, options: &WorkloadOptions) -> Vec<Variant> {
    let plain = || Variant { label: None, settings: Vec::new(), options: options.clone() };
    let out: Vec<Variant> = match sweep {
        Some(Sweep::Option(key, values)) => values
            .iter()
            .map(|(v, o)| Variant { label: Some(format!("{key}={v}")), settings: Vec::new(), options: o.clone() })
            .collect(),
        Some(Sweep::Setting(sets)) => sets
            .iter()
            .filter(|(en, _, _)| en == engine)
            .map(|set| Variant { label: Some(format!("{}={}", set.1, set.2)), settings: vec![set.clone()], ..plain() })
            .collect(),
        Some(Sweep::Clients(_)) | None => Vec::new(),
    };
    if out.is_empty() { vec![plain()] } else { out }
}

/// Parse `--sweep KEY=a,b,c`: over `clients`, a workload option (`scale`, …), or a
/// setting of every engine that knows the key.
fn parse_sweep(
    s: &str,
    engines: &[&'static dyn Engine],
    options: &WorkloadOptions,
    machine: &Machine,
) -> Result<Sweep> {
    let Some((k, values)) = s.split_once('=') else {
        return Err(bad_input!("--sweep '{s}' is not KEY=a,b,c; write e.g. --sweep shared_buffers=128MB,1GB"));
    };
    let (k, values): (&str, Vec<&str>) =
        (k.trim(), values.split(',').map(str::trim).filter(|v| !v.is_empty()).collect());
    if values.len() < 2 {
        return Err(bad_input!("--sweep {s}: give at least two values, comma-separated"));
    }
    if k == "clients" {
        let counts =
            values.iter().map(|v| crate::options::parse::parse_clients(v).map_err(|e| bad_input!("--sweep {s}: {e}")));
        return Ok(Sweep::Clients(counts.collect::<Result<_>>()?));
    }
    if options.sweep_keys().contains(&k) {
        let mut out = Vec::new();
        for v in values {
            let mut o = options.clone();
            o.set(k, v).map_err(|e| bad_input!("--sweep {s}: {e}"))?;
            out.push((v.to_string(), o));
        }
        return Ok(Sweep::Option(k.to_string(), out));
    }
    let sets: Vec<String> = values.iter().map(|v| format!("{k}={v}")).collect();
    parse_sets(&sets, engines, machine).map(Sweep::Setting).map_err(|e| match e {
        crate::error::Error::Input(m) => bad_input!(
            "--sweep {s}: {}; --sweep also takes clients and the workload options {}",
            m.split_once(": ").map_or(m.as_str(), |(_, why)| why),
            options.sweep_keys().join(", ")
        ),
        other => other,
    })
}

/// Parse `--set` values into (engine, key, value), each key known to its engine.
fn parse_sets(
    sets: &[String],
    engines: &[&'static dyn Engine],
    machine: &Machine,
) -> Result<Vec<(String, String, String)>> {
    let mut out = Vec::new();
    for s in sets {
        let Some((k, v)) = s.split_once('=') else {
            return Err(bad_input!("--set '{s}' is not KEY=VALUE; write e.g. --set cache_size=-64000"));
        };
        let (scope, key) = match k.split_once('.') {
            Some((e, key)) => (Some(e), key),
            None => (None, k),
        };
        if let Some(e) = scope
            && !engines.iter().any(|x| x.name() == e)
        {
            return Err(bad_input!("--set {s}: engine '{e}' is not in this run ({})", names(engines, |x| x.name())));
        }
        let takers: Vec<_> =
            engines.iter().filter(|e| scope.is_none_or(|s| s == e.name()) && e.knows_setting(key, machine)).collect();
        if takers.is_empty() {
            return Err(bad_input!(
                "--set {s}: unknown setting '{key}' for {}; see `dbrace engines` for the settings each engine takes",
                names(engines, |x| x.name())
            ));
        }
        for e in takers {
            out.push((e.name().to_string(), key.to_string(), v.to_string()));
        }
    }
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn req() -> Request {
        Request::default()
    }

    /// A request of `asked` and the defaults.
    fn asking(asked: Asked) -> Request {
        Request { asked, ..req() }
    }

    #[test]
    fn default_matrix_is_five_profiles_of_insert_commit_plus_memory_and_postgres_when_present() {
        let p = build(&req()).unwrap();
        let ids: Vec<_> = p.cells.iter().map(|c| c.id()).collect();
        let sqlite = ids.iter().filter(|i| i.starts_with("sqlite/")).count();
        assert_eq!(sqlite, 5, "{ids:?}");
        assert!(ids.contains(&"memory/unlogged/insert-commit/c1".to_string()));
        assert!(!ids.iter().any(|i| i.starts_with("memory/") && i.contains("tpcb")));
        let postgres = ids.iter().filter(|i| i.starts_with("postgres/")).count();
        match crate::engine::by_name("postgres").unwrap().version(&Machine::default()) {
            Ok(_) => assert_eq!(postgres, 5, "{ids:?}"),
            Err(_) => {
                assert_eq!(postgres, 0);
                assert!(p.skipped.iter().any(|s| s.starts_with("postgres: left out")), "{:?}", p.skipped);
            }
        }
        assert_eq!(p.baseline, "disk");
    }

    #[test]
    fn without_a_ram_location_the_default_profiles_on_ram_are_left_out_and_named() {
        let asked = Asked { engine: vec!["sqlite".into()], ..Asked::default() };
        let no_ram = Some("no RAM here; give --ram-dir".to_string());
        let p = build(&Request { no_ram: no_ram.clone(), ..asking(asked.clone()) }).unwrap();
        let profiles: Vec<_> = p.cells.iter().map(|c| c.profile.name.as_str()).collect();
        assert_eq!(profiles, ["disk", "async", "nosync", "unlogged"], "{:?}", p.skipped);
        assert!(p.skipped.iter().any(|s| s == "ram: left out of the default run: no RAM here; give --ram-dir"));
        // A profile the user names stays, to fail loudly when its location is resolved.
        let named = Asked { profile: vec!["ram".into()], ..asked };
        assert_eq!(build(&Request { no_ram, ..asking(named) }).unwrap().cells.len(), 1);
    }

    #[test]
    fn unknown_names_list_the_valid_ones() {
        let e = build(&asking(Asked { profile: vec!["fast".into()], ..Asked::default() })).err().unwrap().to_string();
        assert!(e.contains("unknown profile 'fast'") && e.contains("ram-nosync"), "{e}");
        let e = build(&asking(Asked { engine: vec!["oracle".into()], ..Asked::default() })).err().unwrap().to_string();
        assert!(e.contains("sqlite, memory"), "{e}");
    }

    #[test]
    fn sets_go_to_the_engines_that_know_them() {
        let p = build(&asking(Asked { set: vec!["cache_size=-1000".into()], ..Asked::default() })).unwrap();
        let sq = p.cells.iter().find(|c| c.engine.name() == "sqlite").unwrap();
        assert_eq!(sq.profile.settings, vec![("cache_size".to_string(), "-1000".to_string())]);
        assert!(build(&asking(Asked { set: vec!["bogus=1".into()], ..Asked::default() })).is_err());
        assert!(build(&asking(Asked { set: vec!["memory.cache_size=1".into()], ..Asked::default() })).is_err());
    }

    #[test]
    fn default_workloads_adapt_to_the_engines() {
        let p = build(&asking(Asked { engine: vec!["memory".into()], ..Asked::default() })).unwrap();
        let ids: Vec<_> = p.cells.iter().map(|c| c.id()).collect();
        assert_eq!(ids, vec!["memory/unlogged/insert-commit/c1"]);
        assert_eq!(p.baseline, "unlogged");
    }

    #[test]
    fn a_sweep_makes_one_cell_per_value_on_the_engines_that_know_the_key() {
        let r = asking(Asked {
            profile: vec!["disk".into()],
            workload: vec!["insert-commit".into()],
            sweep: Some("cache_size=-1000,-2000".into()),
            engine: vec!["sqlite".into(), "memory".into()],
            ..Asked::default()
        });
        let p = build(&r).unwrap();
        let ids: Vec<_> = p.cells.iter().map(|c| c.id()).collect();
        assert_eq!(
            ids,
            [
                "sqlite/disk+cache_size=-1000/insert-commit/c1",
                "sqlite/disk+cache_size=-2000/insert-commit/c1",
                "memory/unlogged/insert-commit/c1"
            ]
        );
        assert_eq!(p.cells[1].profile.settings, vec![("cache_size".to_string(), "-2000".to_string())]);
        assert!(build(&asking(Asked { sweep: Some("cache_size=1".into()), ..Asked::default() })).is_err());
        assert!(build(&asking(Asked { sweep: Some("nope=1,2".into()), ..Asked::default() })).is_err());
    }

    #[test]
    fn sweeps_over_clients_and_workload_options() {
        let base = asking(Asked {
            profile: vec!["ram".into()],
            workload: vec!["tpcb".into()],
            engine: vec!["sqlite".into()],
            ..Asked::default()
        });
        let p = build(&Request {
            asked: Asked { sweep: Some("clients=1,2,4".into()), ..base.asked.clone() },
            ..base.clone()
        })
        .unwrap();
        let ids: Vec<_> = p.cells.iter().map(|c| c.id()).collect();
        assert_eq!(ids, ["sqlite/ram/tpcb/c1", "sqlite/ram/tpcb/c2", "sqlite/ram/tpcb/c4"]);
        let p =
            build(&Request { asked: Asked { sweep: Some("scale=1,3".into()), ..base.asked.clone() }, ..base.clone() })
                .unwrap();
        let got: Vec<_> = p.cells.iter().map(|c| (c.id(), c.options.tpcb.scale)).collect();
        assert_eq!(got, [("sqlite/ram+scale=1/tpcb/c1".to_string(), 1), ("sqlite/ram+scale=3/tpcb/c1".to_string(), 3)]);
        for bad in ["clients=1,0", "scale=1,x", "tables=2", "nope=1,2"] {
            let e = build(&Request { asked: Asked { sweep: Some(bad.into()), ..base.asked.clone() }, ..base.clone() })
                .err()
                .unwrap()
                .to_string();
            assert!(e.starts_with("--sweep"), "{bad}: {e}");
        }
    }

    #[test]
    fn the_urls_decide_the_engines() {
        let pg = "postgres://u:pw@127.0.0.1:1/d".to_string();
        let p = build(&asking(Asked { url: vec![pg.clone()], ..Asked::default() })).unwrap();
        let ids: Vec<_> = p.cells.iter().map(|c| c.id()).collect();
        assert_eq!(
            ids,
            ["postgres/disk/insert-commit/c1", "postgres/async/insert-commit/c1", "postgres/unlogged/insert-commit/c1"]
        );
        assert!(p.skipped.is_empty(), "{:?}", p.skipped);
        assert!(p.cells.iter().all(|c| c.target == Target::Url(pg.clone())));
        let r = asking(Asked { url: vec!["redis://h:1/0".into(), pg.clone()], engine: vec![], ..Asked::default() });
        let engines: Vec<_> = build(&r).unwrap().cells.iter().map(|c| c.engine.name()).collect();
        assert_eq!(engines.first(), Some(&"redis"), "in the order of the URLs: {engines:?}");
        for (engines, want) in [
            (vec!["mysql"], "--engine mysql has no --url"),
            (vec!["postgres", "memory"], "memory takes no --url"),
            (vec!["postgres"], ""),
        ] {
            let r = asking(Asked {
                engine: engines.iter().map(|e| e.to_string()).collect(),
                url: vec![pg.clone()],
                ..Asked::default()
            });
            match build(&r) {
                Ok(_) => assert!(want.is_empty(), "{engines:?}"),
                Err(e) => assert!(!want.is_empty() && e.to_string().contains(want), "{engines:?}: {e}"),
            }
        }
        let r = asking(Asked {
            url: vec![pg.clone(), "mysql://u@h/".into()],
            engine: vec!["mysql".into()],
            ..Asked::default()
        });
        let e = build(&r).err().unwrap().to_string();
        assert!(e.contains("--url is for postgres, which --engine leaves out"), "{e}");
    }

    #[test]
    fn a_workload_no_engine_runs_is_refused() {
        let r = asking(Asked { engine: vec!["memory".into()], workload: vec!["tpcb".into()], ..Asked::default() });
        let e = build(&r).err().unwrap().to_string();
        assert!(e.contains("engines that can: sqlite"), "{e}");
    }

    /// A key-value workload that needs document ranges, which no key-value engine has.
    struct NeedsRanges;

    impl Workload for NeedsRanges {
        fn name(&self) -> &str {
            "needs-ranges"
        }
        fn about(&self) -> &str {
            "a test's"
        }
        fn interfaces(&self) -> &'static [engine::Interface] {
            &[engine::Interface::Kv]
        }
        fn needs(&self, _iface: engine::Interface) -> &'static [engine::Capability] {
            &[engine::Capability::DocRanges]
        }
        fn prepare(
            &self,
            _load: &mut workload::Loader,
            _opts: &WorkloadOptions,
        ) -> Result<Box<dyn workload::CellWorkload>> {
            Err(failed!("never prepared"))
        }
    }

    #[test]
    fn an_engine_without_a_capability_the_workload_needs_is_skipped_with_a_note() {
        let r = req();
        let mut m = Matrix {
            req: &r,
            sets: Vec::new(),
            sweep: None,
            bound: Vec::new(),
            skipped: Vec::new(),
            refused: HashMap::new(),
            cells: Vec::new(),
        };
        let w: Arc<dyn Workload> = Arc::new(NeedsRanges);
        m.add(&engine::memory::Memory, &w, 1, &[Profile::named("ram").unwrap()]);
        assert!(m.cells.is_empty());
        assert_eq!(m.skipped, ["memory × needs-ranges: memory has no document ranges"]);
        let e = check_drivable(&[w], &[&engine::memory::Memory]).unwrap_err().to_string();
        assert!(e.contains("workload needs-ranges cannot run on memory"), "{e}");
    }

    #[test]
    fn every_engine_has_what_the_workloads_of_its_interface_need() {
        for w in workload::all() {
            for e in engine::all() {
                if w.drives(e.facts().interface) {
                    assert_eq!(w.lacks(*e), None, "{} on {}", w.name(), e.name());
                }
            }
        }
        let ycsb = workload::by_name("ycsb-a", &Default::default()).unwrap();
        assert_eq!(ycsb.needs(engine::Interface::Kv), [engine::Capability::Hashes, engine::Capability::SortedSets]);
        assert_eq!(workload::counters::WRITE.needs(engine::Interface::Doc).len(), 2);
    }
}
