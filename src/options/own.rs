//! What a workload's own options tell the run besides their flags (`OwnOptions`), and one
//! option of a run in the words reports use (`OptionField`).

/// What a workload's own options value tells the run besides its flags, which it declares
/// as a clap `Args`: the keys `--sweep` may vary and how reports list the options.
pub trait OwnOptions {
    /// The options `--sweep` can vary, by their command-line names.
    fn sweep_keys(&self) -> &'static [&'static str] {
        &[]
    }

    /// Set one of `sweep_keys` from its text, checked as its flag is.
    fn set(&mut self, key: &str, _value: &str) -> Result<(), String> {
        Err(format!("unknown workload option '{key}'"))
    }

    /// The options as reports list them; `ran(prefix)` says whether a workload whose name
    /// starts with `prefix` ran, so options of workloads that did not can be left out.
    fn fields(&self, ran: &dyn Fn(&str) -> bool) -> Vec<OptionField>;
}

/// One option of a run in the words reports use: the HTML environment table lists them,
/// `compare` notes those that differ between two runs.
#[derive(Clone, Debug, PartialEq)]
pub struct OptionField {
    /// Its name, e.g. `warm-up`.
    pub label: &'static str,
    /// Its value with its unit, e.g. `0.1 s`.
    pub value: String,
    /// Whether it changes what a cell measures (`compare` notes a difference), rather than
    /// how often it is repeated, how it is judged or how it is recorded.
    pub measures: bool,
}
