//! `squad publish`, `squad pull`, `squad versions`, `squad login` and `squad logout`: sharing
//! squads through OCI registries. `squad install oci://…` lives in `install.rs` and uses
//! [`fetch`] from here.

use std::io::Read;
use std::path::PathBuf;

use super::args::NetworkArgs;
use super::documents::{
    self, PublishSummary, Published, PublishedInTree, PublishedTree, Pulled, Versions,
};
use super::failures::report_share_error;
use super::report::Progress;
use super::{DataFormat, ExitStatus, Format};
use crate::http::Secret;
use crate::oci::credentials::{self, Credential};
use crate::oci::{Access, Credentials, Reference, Repository};
use crate::output::{Printer, TransferBar};
use crate::share::{self, PublishStatus, Resolved, ShareError};

/// Resolves and downloads a reference's package archive, with a progress bar.
pub fn fetch(
    reference: &str,
    network: &NetworkArgs,
    printer: &Printer,
) -> Result<(Reference, Resolved, Vec<u8>), ShareError> {
    let reference = Reference::parse(reference).map_err(ShareError::Reference)?;
    let client = network.client();
    let progress = Progress(TransferBar::new(printer));
    let (resolved, bytes) = share::fetch(&client, &reference, &progress)?;
    Ok((reference, resolved, bytes))
}

/// The exit statuses every registry command's `--help` ends with (a literal, so help text is
/// not formatted at start-up: clap builds every subcommand on each run).
macro_rules! exit_help {
    () => {
        "\n\nExit status: 0 done (or unchanged), 1 refused (invalid package, version conflict, \
an artifact that is not the squad it claims), 2 usage, network, authentication or I/O error."
    };
}

/// Validate, pack and push a package, or every package of a tree, to an OCI registry.
///
/// The package goes to the repository BASE/<namespace>/<id>, tagged with its version, as an OCI
/// artifact (artifactType application/vnd.opencorvus.squad.v1: a config blob with the
/// identity and digests, one layer with the exact `squad pack` archive). The manifest is a
/// pure function of the package, so publishing the same package twice gives the same digest.
/// A published version is immutable: if the tag exists with another package digest, publish
/// refuses (exit 1) and names both; with the same digest it reports "unchanged" and pushes
/// nothing. Prints the pinned reference `oci://HOST/BASE/<namespace>/<id>@sha256:…`.
///
/// A tree (a folder whose child folders are packages) is published as a whole: every package
/// is validated and packed, and its version asked for, before anything is sent; if any is
/// invalid, or would overwrite a version with other bytes, nothing is pushed (exit 1). Only
/// what the registry does not hold with the same bytes is pushed, --jobs at once; one pinned
/// reference is printed per package.
///
/// Credentials come from `squad login`, Docker's or Podman's config files and their
/// credential helpers. Plain HTTP is used only for loopback hosts unless --plain-http.
#[derive(Debug, clap::Args)]
#[command(after_help = concat!("Examples:
  squad publish oci://ghcr.io/acme/squads            the package in the current directory
  squad publish my-squad oci://127.0.0.1:5000/squads
  squad publish my-squad oci://ghcr.io/acme/squads --dry-run --format json
  squad publish my-squad oci://ghcr.io/acme/squads --sign ci.key      signed, as a referrer
  squad publish squads/ oci://ghcr.io/acme/squads --format json       a tree: what changed
  echo \"$KEY_PASSWORD\" | squad publish oci://ghcr.io/acme/squads --sign acme.key --password-stdin", exit_help!()))]
pub struct PublishArgs {
    /// The package folder or a folder of packages (default: the current directory), then the
    /// registry and base path `oci://HOST[:PORT]/BASE`.
    #[arg(value_name = "[PKG] oci://HOST/BASE", num_args = 1..=2, required = true)]
    pub targets: Vec<String>,

    /// Validate and pack, ask the registry whether the version is there, show what would be
    /// pushed (or that the version is unchanged, or refused), and send nothing.
    #[arg(long)]
    pub dry_run: bool,

    /// Sign the package's statement with this minisign secret key and attach the signature
    /// to the published manifest as an OCI referrer (also when the version was published
    /// already). See docs/signatures.md.
    #[arg(long, value_name = "KEY")]
    pub sign: Option<PathBuf>,

    /// Read the --sign key's password from standard input instead of the terminal.
    #[arg(long, requires = "sign")]
    pub password_stdin: bool,

    /// For a tree: packages prepared, checked and pushed at once.
    #[arg(long, default_value_t = super::args::DEFAULT_JOBS, value_name = "N")]
    pub jobs: usize,

    #[command(flatten)]
    pub network: NetworkArgs,

    /// Output format.
    #[arg(long, value_enum, default_value_t = Format::Human)]
    pub format: Format,
}

pub fn run_publish(args: &PublishArgs, printer: &Printer) -> ExitStatus {
    let (package, base) = match args.targets.as_slice() {
        [base] => (PathBuf::from("."), base),
        [package, base, ..] => (PathBuf::from(package), base),
        [] => unreachable!("clap requires one"),
    };
    let base = match share::publish_base(base) {
        Ok(base) => base,
        Err(error) => return report_share_error(printer, args.format, error),
    };
    let signer = match &args.sign {
        Some(path) => match crate::sign::keys::unlock(path, args.password_stdin) {
            Ok(key) => Some(key),
            Err(error) => return super::failures::key_error(printer, &error),
        },
        None => None,
    };
    let client = args.network.client();
    let tree = match super::inputs::tree(&package, args.format, printer) {
        Ok(tree) => tree,
        Err(status) => return status,
    };
    if tree.is_tree {
        let options = share::tree::TreeOptions {
            dry_run: args.dry_run,
            jobs: args.jobs,
            signer: signer.as_ref(),
        };
        let published =
            share::tree::publish_tree(&client, &tree.packages, &base, &options, &share::Silent);
        return report_tree(args, &tree, &base, &published, printer);
    }
    let progress = Progress(TransferBar::new(printer));
    let published = match share::publish(
        &client,
        &package,
        &base,
        args.dry_run,
        &progress,
        signer.as_ref(),
    ) {
        Ok(published) => published,
        Err(error) => return report_share_error(printer, args.format, error),
    };
    let artifact = &published.artifact;
    let identity = &published.identity;
    match args.format {
        Format::Json => documents::print(
            printer,
            "publish",
            Published {
                status: published.status,
                reference: published.pinned.to_string(),
                tag: published
                    .pinned
                    .repository_only()
                    .with_tag(&identity.version)
                    .to_string(),
                namespace: &identity.namespace,
                id: &identity.id,
                version: &identity.version,
                package_digest: &artifact.config.package_digest,
                manifest_digest: published.pinned.digest.as_deref(),
                config_digest: &artifact.manifest.config.digest,
                archive_sha256: &artifact.config.archive_sha256,
                archive_bytes: artifact.config.archive_bytes,
                uploaded: &published.uploaded,
                signature: published.signature.as_ref(),
            },
        ),
        Format::Human | Format::Sarif | Format::Github => {
            let what = format!(
                "{}/{} {} to {}",
                identity.namespace,
                identity.id,
                identity.version,
                published
                    .pinned
                    .repository_only()
                    .with_tag(&identity.version)
            );
            if let Some(signature) = &published.signature {
                let how = match (&signature.manifest_digest, &signature.referrers_tag) {
                    (None, _) => "already attached".to_owned(),
                    (Some(digest), Some(tag)) => format!("referrer {digest}, listed in tag {tag}"),
                    (Some(digest), None) => format!("referrer {digest}"),
                };
                printer.status("Signed", &format!("with key {} ({how})", signature.key_id));
            }
            match published.status {
                PublishStatus::Pushed => printer.status("Published", &what),
                PublishStatus::Unchanged => printer.status(
                    "Unchanged",
                    &format!("{what}: already published with the same package digest"),
                ),
                PublishStatus::DryRun | PublishStatus::NotPushed => {
                    printer.status("Would push", &what);
                    let layer = artifact.layer();
                    for (kind, digest, size) in [
                        (
                            "config",
                            &artifact.manifest.config.digest,
                            artifact.manifest.config.size,
                        ),
                        ("layer", &layer.digest, layer.size),
                        (
                            "manifest",
                            &artifact.manifest_digest,
                            artifact.manifest_bytes.len() as u64,
                        ),
                    ] {
                        printer.status("", &format!("{kind:<8} {digest} ({size} bytes)"));
                    }
                }
            }
            if args.dry_run {
                printer.status("", "nothing was sent (--dry-run)");
            }
            printer.data(&format!("{}\n", published.pinned));
        }
    }
    ExitStatus::Success
}

fn report_tree(
    args: &PublishArgs,
    tree: &crate::tree::Tree,
    base: &Reference,
    published: &share::tree::TreePublished,
    printer: &Printer,
) -> ExitStatus {
    let outcomes = &published.outcomes;
    let count = |status: PublishStatus| {
        outcomes
            .iter()
            .filter(|outcome| matches!(&outcome.result, Ok(p) if p.status == status))
            .count()
    };
    let failed = outcomes.iter().filter(|o| o.result.is_err()).count();
    match args.format {
        Format::Json => documents::print(
            printer,
            "publish-tree",
            PublishedTree {
                path: tree.root.display().to_string(),
                base: base.to_string(),
                status: if published.refused {
                    "refused"
                } else if failed > 0 {
                    "failed"
                } else {
                    "ok"
                },
                dry_run: args.dry_run,
                packages: documents::tree_packages(outcomes, |published| PublishedInTree {
                    namespace: &published.identity.namespace,
                    id: &published.identity.id,
                    version: &published.identity.version,
                    reference: published.pinned.to_string(),
                    status: published.status,
                    package_digest: &published.artifact.config.package_digest,
                    uploaded: &published.uploaded,
                    signature: published.signature.as_ref(),
                }),
                summary: PublishSummary {
                    packages: outcomes.len(),
                    pushed: count(PublishStatus::Pushed),
                    unchanged: count(PublishStatus::Unchanged),
                    failed,
                },
            },
        ),
        Format::Human | Format::Sarif | Format::Github => {
            let mut references = String::new();
            for outcome in outcomes {
                let Ok(one) = &outcome.result else {
                    continue;
                };
                let what = format!(
                    "{}/{} {}",
                    one.identity.namespace, one.identity.id, one.identity.version
                );
                let (verb, note) = match one.status {
                    PublishStatus::Pushed => ("Published", String::new()),
                    PublishStatus::Unchanged => ("Unchanged", " (same package digest)".to_owned()),
                    PublishStatus::DryRun => ("Would push", String::new()),
                    PublishStatus::NotPushed => ("Held", " (nothing was pushed)".to_owned()),
                };
                printer.status(verb, &format!("{what}{note}"));
                if let Some(signature) = &one.signature {
                    printer.detail(&format!("{what}: signed with key {}", signature.key_id));
                }
                if matches!(one.status, PublishStatus::Pushed | PublishStatus::Unchanged) {
                    references.push_str(&format!("{}\n", one.pinned));
                }
            }
            printer.data(&references);
            if !published.refused && failed == 0 {
                printer.status(
                    "Summary",
                    &format!(
                        "{} pushed, {} unchanged of {} packages{}",
                        count(PublishStatus::Pushed),
                        count(PublishStatus::Unchanged),
                        outcomes.len(),
                        if args.dry_run {
                            " (--dry-run: nothing was sent)"
                        } else {
                            ""
                        }
                    ),
                );
            }
        }
    }
    let status = super::failures::report_package_failures(printer, args.format, outcomes);
    if published.refused {
        printer.error(
            &format!(
                "the tree `{}` was not published: nothing was pushed",
                tree.root.display()
            ),
            Some("fix the packages named above, then publish the tree again"),
        );
    }
    status
}

/// Download a package archive from an OCI registry and verify it, for offline use.
///
/// The archive is checked like an install checks it: the manifest is a squad package, the
/// layer's size and SHA-256 match its descriptor and stay within the import limit (18 MiB),
/// and the package digest re-derived from the archive is the one the registry's config
/// declares. The file is written atomically, never over an existing file unless --force. A
/// signature attached in the registry is written beside it as `<archive>.minisig`, where
/// `squad add` and `squad install` look for it.
#[derive(Debug, clap::Args)]
#[command(after_help = concat!("Examples:
  squad pull oci://ghcr.io/acme/squads/acme/review:2026.12.01.1
  squad pull oci://127.0.0.1:5000/squads/acme/review@sha256:<manifest digest> -o review.zip
  squad pull oci://ghcr.io/acme/squads/acme/review    the newest version", exit_help!()))]
pub struct PullArgs {
    /// `oci://HOST/BASE/<namespace>/<id>[:VERSION|@sha256:DIGEST]` (no tag: the newest version).
    #[arg(value_name = "REFERENCE")]
    pub reference: String,

    /// Output file, or a directory for the default name (an existing one, or a path ending
    /// in `/`) [default: <id>-<version>-expert-squad.zip in the current directory].
    #[arg(short, long, value_name = "FILE|DIR/")]
    pub output: Option<PathBuf>,

    /// Replace an existing output file.
    #[arg(long)]
    pub force: bool,

    #[command(flatten)]
    pub network: NetworkArgs,

    /// Output format.
    #[arg(long, value_enum, default_value_t = DataFormat::Human)]
    pub format: DataFormat,
}

pub fn run_pull(args: &PullArgs, printer: &Printer) -> ExitStatus {
    let (_, resolved, bytes) = match fetch(&args.reference, &args.network, printer) {
        Ok(fetched) => fetched,
        Err(error) => return report_share_error(printer, Format::Human, error),
    };
    if let Err(error) = share::verify_archive(&resolved, &bytes) {
        return report_share_error(printer, Format::Human, error);
    }
    let config = &resolved.config;
    let identity = crate::package::Identity {
        namespace: config.namespace.clone(),
        id: config.id.clone(),
        version: config.version.clone(),
    };
    let output = match crate::pack::output_path(args.output.as_deref(), &identity) {
        Ok(output) => output,
        Err(error) => {
            let shown = args.output.as_deref().unwrap_or(std::path::Path::new("."));
            printer.error(
                &format!(
                    "cannot create the output directory `{}`: {error}",
                    shown.display()
                ),
                None,
            );
            return ExitStatus::Error;
        }
    };
    if let Err(error) = write_output(&output, &bytes, args.force) {
        let hint = (error.kind() == std::io::ErrorKind::AlreadyExists)
            .then_some("pass --force to replace it, or choose another path with -o");
        printer.error(
            &format!("cannot write `{}`: {error}", output.display()),
            hint,
        );
        return ExitStatus::Error;
    }
    // The signature travels with the archive, under the name add and install look for.
    let signature_file = match share::signatures_of(&args.network.client(), &resolved) {
        Ok(found) => match found.first() {
            Some(first) => {
                let path = crate::sign::beside(&output);
                if found.len() > 1 {
                    printer.warning(&format!(
                        "{} signatures are attached; `{}` holds the first (`squad verify --signature` tells whose it is)",
                        found.len(),
                        path.display()
                    ));
                }
                match write_output(&path, first.as_bytes(), args.force) {
                    Ok(()) => Some(path),
                    Err(error) => {
                        let hint = (error.kind() == std::io::ErrorKind::AlreadyExists)
                            .then_some("pass --force to replace it");
                        printer.error(
                            &format!(
                                "the archive was written, but not its signature `{}`: {error}",
                                path.display()
                            ),
                            hint,
                        );
                        return ExitStatus::Error;
                    }
                }
            }
            None => None,
        },
        Err(error) => {
            printer.warning(&format!(
                "the archive was written, but its signatures could not be looked for: {}",
                crate::error::chain(&error)
            ));
            None
        }
    };
    match args.format {
        DataFormat::Json => documents::print(
            printer,
            "pull",
            Pulled {
                path: output.display().to_string(),
                reference: resolved.pinned.to_string(),
                namespace: &config.namespace,
                id: &config.id,
                version: &config.version,
                package_digest: &config.package_digest,
                manifest_digest: &resolved.manifest_digest,
                archive_sha256: &config.archive_sha256,
                bytes: config.archive_bytes,
                signature_file: signature_file.as_deref(),
            },
        ),
        DataFormat::Human => {
            if let Some(path) = &signature_file {
                printer.status("Signature", &format!("to {}", path.display()));
            }
            printer.status(
                "Pulled",
                &format!(
                    "{}/{} {} ({} bytes) to {}",
                    config.namespace,
                    config.id,
                    config.version,
                    config.archive_bytes,
                    output.display()
                ),
            );
            printer.data(&format!(
                "archive_sha256  {}\npackage_digest  {}\nreference       {}\n",
                config.archive_sha256, config.package_digest, resolved.pinned
            ));
        }
    }
    ExitStatus::Success
}

/// Writes `bytes` to `output` through a synced temporary file beside it.
fn write_output(output: &std::path::Path, bytes: &[u8], force: bool) -> std::io::Result<()> {
    use std::io::Write;
    if !force && output.symlink_metadata().is_ok() {
        return Err(std::io::Error::new(
            std::io::ErrorKind::AlreadyExists,
            "it already exists",
        ));
    }
    let mut temporary = crate::fs::create_beside(output)?;
    temporary.write_all(bytes)?;
    temporary.as_file().sync_all()?;
    crate::fs::publish_file(temporary, output, force)
}

/// List the versions of a package published in an OCI registry, newest first.
///
/// Only tags that are valid squad versions (YYYY.MM.DD.N) are listed, in release order
/// (2026.12.10.10 after 2026.12.10.9); other tags such as `latest` are left out. With
/// --format json, each version also has its manifest and package digest.
#[derive(Debug, clap::Args)]
#[command(after_help = concat!("Examples:
  squad versions oci://ghcr.io/acme/squads/acme/review
  squad versions oci://127.0.0.1:5000/squads/acme/review --format json", exit_help!()))]
pub struct VersionsArgs {
    /// `oci://HOST/BASE/<namespace>/<id>`.
    #[arg(value_name = "REFERENCE")]
    pub reference: String,

    #[command(flatten)]
    pub network: NetworkArgs,

    /// Output format.
    #[arg(long, value_enum, default_value_t = DataFormat::Human)]
    pub format: DataFormat,
}

pub fn run_versions(args: &VersionsArgs, printer: &Printer) -> ExitStatus {
    let reference = match Reference::parse(&args.reference) {
        Ok(reference) => reference,
        Err(message) => {
            return report_share_error(printer, Format::Human, ShareError::Reference(message));
        }
    };
    let client = args.network.client();
    let digests = args.format == DataFormat::Json;
    let listed = match share::versions(&client, &reference, digests) {
        Ok(listed) => listed,
        Err(error) => return report_share_error(printer, Format::Human, error),
    };
    match args.format {
        DataFormat::Json => documents::print(
            printer,
            "versions",
            Versions {
                reference: reference.to_string(),
                versions: &listed,
            },
        ),
        DataFormat::Human => {
            let text: String = listed
                .iter()
                .map(|entry| format!("{} {}\n", entry.version, reference.with_tag(&entry.version)))
                .collect();
            printer.data(&text);
            if listed.is_empty() {
                printer.status("Found", &format!("no versions at {reference}"));
            }
        }
    }
    ExitStatus::Success
}

/// `HOST[:PORT]` from `HOST[:PORT]` or `oci://HOST[:PORT][/…]`.
fn registry_host(text: &str) -> Result<Reference, String> {
    let with_scheme = if crate::oci::reference::is_reference(text) {
        text.to_owned()
    } else {
        format!("{}{text}", crate::oci::reference::SCHEME)
    };
    let host = with_scheme
        .trim_start_matches(crate::oci::reference::SCHEME)
        .split('/')
        .next()
        .unwrap_or_default()
        .to_owned();
    // A placeholder repository: login talks to `/v2/` only.
    Reference::parse(&format!("{}{host}/login", crate::oci::reference::SCHEME))
        .map_err(|_| format!("`{text}` is not a registry host[:port]"))
}

/// Log in to an OCI registry: check the credentials, then store them.
///
/// The password (or token) is read from standard input, never from the command line. The
/// credentials are checked against the registry (Basic or the Bearer token flow) before they
/// are stored, in the Docker config format that docker, podman, helm and oras read:
/// $REGISTRY_AUTH_FILE when set, else $DOCKER_CONFIG/config.json, else ~/.docker/config.json
/// (mode 0600), or through the credential helper that file names (credHelpers, credsStore).
#[derive(Debug, clap::Args)]
#[command(after_help = "Examples:
  echo \"$GITHUB_TOKEN\" | squad login ghcr.io -u \"$GITHUB_ACTOR\" --password-stdin
  squad login 127.0.0.1:5000 -u ci --password-stdin < password.txt

In CI, no login is needed: SQUAD_REGISTRY_HOST with SQUAD_REGISTRY_TOKEN (and
SQUAD_REGISTRY_USERNAME), or DOCKER_AUTH_CONFIG, give every command credentials.

Exit status: 0 logged in (credentials checked and stored), 1 the registry refused the \
credentials (nothing stored), 2 usage, network or I/O error (no password on standard input, \
a registry that cannot be reached, a credentials file that cannot be written).")]
pub struct LoginArgs {
    /// The registry: `HOST[:PORT]`.
    #[arg(value_name = "HOST")]
    pub host: String,

    /// The user name (a registry that takes tokens may take any).
    #[arg(long, short = 'u', value_name = "USER")]
    pub username: String,

    /// Read the password or token from standard input.
    #[arg(long)]
    pub password_stdin: bool,

    #[command(flatten)]
    pub network: NetworkArgs,
}

pub fn run_login(args: &LoginArgs, printer: &Printer) -> ExitStatus {
    let reference = match registry_host(&args.host) {
        Ok(reference) => reference,
        Err(message) => {
            printer.error(&message, None);
            return ExitStatus::Error;
        }
    };
    if !args.password_stdin {
        printer.error(
            "squad reads the password from standard input only",
            Some("pass --password-stdin and pipe the password or token in"),
        );
        return ExitStatus::Error;
    }
    let mut password = String::new();
    if let Err(error) = std::io::stdin()
        .take(64 * 1024)
        .read_to_string(&mut password)
    {
        printer.error(&format!("cannot read the password: {error}"), None);
        return ExitStatus::Error;
    }
    let password = Secret::new(password.trim_end_matches(['\n', '\r']));
    if password.expose().is_empty() {
        printer.error("the password read from standard input is empty", None);
        return ExitStatus::Error;
    }
    let credential = Credential {
        username: args.username.clone(),
        secret: password,
        source: "standard input".to_owned(),
    };
    let client = args.network.client();
    let mut session = Repository::new(
        &client,
        &reference,
        Access::Pull,
        Credentials::Given(credential.clone()),
    );
    if let Err(error) = session.ping() {
        let status = if matches!(error, crate::oci::OciError::Unauthorized { .. }) {
            printer.error(
                &format!(
                    "{} refused the credentials of `{}`; nothing was stored",
                    reference.registry, args.username
                ),
                None,
            );
            ExitStatus::Failure
        } else {
            printer.failure(&error, error.hint().as_deref());
            ExitStatus::Error
        };
        return status;
    }
    match credentials::store(
        &reference.registry,
        &credential.username,
        &credential.secret,
    ) {
        Ok(stored) => {
            printer.status(
                "Logged in",
                &format!(
                    "to {} as {} (stored in {stored})",
                    reference.registry, args.username
                ),
            );
            ExitStatus::Success
        }
        Err(error) => {
            printer.failure(&error, None);
            ExitStatus::Error
        }
    }
}

/// Remove the stored credentials of an OCI registry.
///
/// Removes the registry's entry from the file `squad login` writes (or asks its credential
/// helper to erase it). Logging out of a registry with no stored credentials is not an error.
#[derive(Debug, clap::Args)]
#[command(after_help = concat!("Example:
  squad logout ghcr.io", exit_help!()))]
pub struct LogoutArgs {
    /// The registry: `HOST[:PORT]`.
    #[arg(value_name = "HOST")]
    pub host: String,
}

pub fn run_logout(args: &LogoutArgs, printer: &Printer) -> ExitStatus {
    let reference = match registry_host(&args.host) {
        Ok(reference) => reference,
        Err(message) => {
            printer.error(&message, None);
            return ExitStatus::Error;
        }
    };
    match credentials::erase(&reference.registry) {
        Ok(Some(stored)) => {
            printer.status(
                "Logged out",
                &format!("of {} (removed from {stored})", reference.registry),
            );
            ExitStatus::Success
        }
        Ok(None) => {
            printer.status(
                "Logged out",
                &format!("of {}: no credentials were stored", reference.registry),
            );
            ExitStatus::Success
        }
        Err(error) => {
            printer.failure(&error, None);
            ExitStatus::Error
        }
    }
}
