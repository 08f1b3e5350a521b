//! `dbrace suggest` (docs/suggest.md): the configuration that gives an engine's profile in
//! the user's own tools. `Suggestion` holds what each output needs (image, data
//! directory, server settings, what a commit survives); one small file per output kind
//! renders it, and `KINDS` registers them.

mod compose;
mod conf;
mod docker_run;
mod github;
mod go;
mod java;
mod node;
mod python;
mod rust;
mod suggestion;
mod text;

pub use suggestion::Suggestion;

/// What `dbrace suggest` writes.
#[derive(Clone, Copy, Debug, PartialEq, Eq, clap::ValueEnum)]
pub enum Format {
    /// A docker-compose.override.yml for the service.
    Compose,
    /// A GitHub Actions job that starts the server in a step.
    Github,
    /// Testcontainers for Java: withTmpFs, withCommand.
    TestcontainersJava,
    /// Testcontainers for Node.js: withTmpFs, withCommand.
    TestcontainersNode,
    /// testcontainers-python: with_kwargs(tmpfs=…), with_command.
    TestcontainersPython,
    /// testcontainers-rs: with_mount(Mount::tmpfs_mount(…)), with_cmd.
    TestcontainersRust,
    /// testcontainers-go: a ContainerRequest with Tmpfs and Cmd.
    TestcontainersGo,
    /// One `docker run` line.
    DockerRun,
    /// The lines of the engine's configuration file.
    Conf,
    /// Every one of the above, each under a heading.
    All,
}

/// One output kind: its format, its heading, the language of its text, and its renderer.
struct Kind {
    format: Format,
    title: &'static str,
    lang: &'static str,
    render: fn(&Suggestion) -> String,
}

/// Every output kind, in the order `all` prints them: the one registration.
const KINDS: &[Kind] = &[
    Kind { format: Format::Compose, title: "Compose override", lang: "yaml", render: compose::render },
    Kind { format: Format::DockerRun, title: "docker run", lang: "sh", render: docker_run::render },
    Kind { format: Format::Github, title: "GitHub Actions", lang: "yaml", render: github::render },
    Kind { format: Format::TestcontainersJava, title: "Testcontainers for Java", lang: "java", render: java::render },
    Kind { format: Format::TestcontainersNode, title: "Testcontainers for Node.js", lang: "js", render: node::render },
    Kind {
        format: Format::TestcontainersPython,
        title: "testcontainers-python",
        lang: "python",
        render: python::render,
    },
    Kind { format: Format::TestcontainersRust, title: "testcontainers-rs", lang: "rust", render: rust::render },
    Kind { format: Format::TestcontainersGo, title: "testcontainers-go", lang: "go", render: go::render },
    Kind { format: Format::Conf, title: "configuration file", lang: "ini", render: conf::render },
];

/// The suggestion as `format` writes it: one kind's text as it is, so it can go straight
/// into a file; `all` as Markdown, each kind under its heading.
pub fn render(s: &Suggestion, format: Format) -> String {
    match KINDS.iter().find(|k| k.format == format) {
        Some(kind) => (kind.render)(s),
        None => KINDS.iter().map(|k| format!("## {}\n\n```{}\n{}```\n\n", k.title, k.lang, (k.render)(s))).collect(),
    }
}
