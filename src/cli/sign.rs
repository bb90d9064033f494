//! `squad key generate`, `squad sign` and `squad trust add`: minisign keys and signatures over
//! a squad's statement (docs/signatures.md). `squad verify --signature` lives in `verify.rs`.

use std::io::Read;
use std::path::{Path, PathBuf};

use super::project::{ProjectArgs, project_of, report_error, waiting};
use super::{DataFormat, ExitStatus};
use crate::output::Printer;
use crate::sign::{FormatError, PublicKey, SecretKey, SecretKeyFile};

/// The exit statuses of the signing commands' `--help` (a literal: help text is not formatted
/// at start-up).
macro_rules! exit_help {
    () => {
        "\n\nExit status: 0 done, 1 refused (a wrong password, a malformed key, an invalid package), \
2 usage or I/O error (a file that exists already, no terminal to ask for the password)."
    };
}

/// Work with minisign keys.
#[derive(Debug, clap::Args)]
#[command(after_help = "Examples:
  squad key generate --secret-key squad.key --public-key squad.pub
  squad key generate --secret-key ci.key --public-key ci.pub --unencrypted")]
pub struct KeyArgs {
    #[command(subcommand)]
    pub command: KeyCommand,
}

#[derive(Debug, clap::Subcommand)]
pub enum KeyCommand {
    Generate(GenerateArgs),
}

/// Generate a minisign key pair for signing squads.
///
/// The secret key is encrypted with a password (asked twice on the terminal, or read from
/// standard input with --password-stdin) unless --unencrypted, for CI secret stores that
/// protect it themselves. Both files are created with mode 0600 (the public key 0644); an
/// existing file is never overwritten. The keys are minisign's own format: `minisign -S -s`
/// signs with the secret key and `minisign -V -p` verifies with the public key.
#[derive(Debug, clap::Args)]
#[command(after_help = concat!("Examples:
  squad key generate --secret-key ~/.squad/acme.key --public-key acme.pub
  echo \"$PASSWORD\" | squad key generate --secret-key acme.key --public-key acme.pub --password-stdin
  squad key generate --secret-key ci.key --public-key ci.pub --unencrypted --format json", exit_help!()))]
pub struct GenerateArgs {
    /// Where to write the secret key (must not exist).
    #[arg(long, value_name = "FILE")]
    pub secret_key: PathBuf,

    /// Where to write the public key (must not exist).
    #[arg(long, value_name = "FILE")]
    pub public_key: PathBuf,

    /// Read the password from standard input (its first line) instead of the terminal.
    #[arg(long, conflicts_with = "unencrypted")]
    pub password_stdin: bool,

    /// Write the secret key without a password.
    #[arg(long)]
    pub unencrypted: bool,

    /// Output format.
    #[arg(long, value_enum, default_value_t = DataFormat::Human)]
    pub format: DataFormat,
}

/// Sign a squad: its identity and package digest, not its archive bytes.
///
/// PKG is a package folder (validated first) or a `.zip` made by `squad pack`. The signature
/// covers the four-line statement `--statement` prints (docs/signatures.md), so `minisign -V`
/// checks it too. It is written to -o, by default `<id>-<version>.squad.minisig` in the current
/// directory, never over an existing file. `squad publish --sign` signs and attaches the
/// signature to the published manifest in one step.
#[derive(Debug, clap::Args)]
#[command(after_help = concat!("Examples:
  squad sign my-squad --key ~/.squad/acme.key
  squad sign review-expert-squad.zip --key ci.key -o review.minisig --format json
  squad sign my-squad --statement > statement.txt
  minisign -V -p acme.pub -m statement.txt -x review-2026.12.01.1.squad.minisig", exit_help!()))]
pub struct SignArgs {
    /// The package folder or `.zip` archive [default: the current directory].
    #[arg(value_name = "PKG", default_value = ".")]
    pub path: PathBuf,

    /// The minisign secret key.
    #[arg(long, value_name = "FILE", required_unless_present = "statement")]
    pub key: Option<PathBuf>,

    /// Where to write the signature [default: <id>-<version>.squad.minisig].
    #[arg(long, short, value_name = "SIG")]
    pub output: Option<PathBuf>,

    /// Print the statement that is signed, and sign nothing.
    #[arg(long, conflicts_with_all = ["key", "output"])]
    pub statement: bool,

    /// Read the key's password from standard input instead of the terminal.
    #[arg(long)]
    pub password_stdin: bool,

    /// Output format.
    #[arg(long, value_enum, default_value_t = DataFormat::Human)]
    pub format: DataFormat,
}

/// Manage the keys a project trusts to sign its squads.
#[derive(Debug, clap::Args)]
#[command(after_help = "Examples:
  squad trust add acme.pub --namespace acme
  squad trust add RWQf6LRCGA9i53mlYecO4IzT51TGPpvWucNSCh1CBM0QTaLn73Y7GFO3 --namespace '*' --require-signatures
  squad trust remove acme-2025.pub
  squad trust revoke 0A5B0BCCC0DEA6EC")]
pub struct TrustArgs {
    #[command(subcommand)]
    pub command: TrustCommand,
}

#[derive(Debug, clap::Subcommand)]
pub enum TrustCommand {
    Add(TrustAddArgs),
    Remove(TrustRemoveArgs),
    Revoke(TrustRevokeArgs),
}

/// Stop trusting a key in this project (for one namespace, or all).
///
/// Removes the key's entries from the `trust` lists of `.opencorvus/squads.jsonc` in place
/// (comments kept). Squads it signed are refused at the next sync unless another trusted key
/// signed them too. To refuse its signatures whatever `trust` says, use `squad trust revoke`.
#[derive(Debug, clap::Args)]
#[command(after_help = concat!("Examples:
  squad trust remove acme-2025.pub
  squad trust remove RWQ… --namespace acme --format json", exit_help!()))]
pub struct TrustRemoveArgs {
    /// A minisign public key: the `RW…` string, or a `.pub` file.
    #[arg(value_name = "KEY")]
    pub key: String,

    /// Only this namespace's list (default: every list that names the key).
    #[arg(long, value_name = "NS")]
    pub namespace: Option<String>,

    #[command(flatten)]
    pub project: ProjectArgs,

    /// Output format.
    #[arg(long, value_enum, default_value_t = DataFormat::Human)]
    pub format: DataFormat,
}

/// Refuse a key's signatures in this project, whatever `trust` says.
///
/// Adds the key's id to `revoked` in `.opencorvus/squads.jsonc` (comments kept; created if
/// absent). From then on `squad sync`, `add` and `install` into the project refuse squads
/// signed only by that key, including squads the lock already records as signed by it.
#[derive(Debug, clap::Args)]
#[command(after_help = concat!("Examples:
  squad trust revoke 0A5B0BCCC0DEA6EC
  squad trust revoke acme-2025.pub --format json", exit_help!()))]
pub struct TrustRevokeArgs {
    /// The key: its id (16 hex digits, as `squad verify` and refusals print it), the `RW…`
    /// public key, or a `.pub` file.
    #[arg(value_name = "KEY")]
    pub key: String,

    #[command(flatten)]
    pub project: ProjectArgs,

    /// Output format.
    #[arg(long, value_enum, default_value_t = DataFormat::Human)]
    pub format: DataFormat,
}

/// Trust a public key to sign a namespace's squads in this project.
///
/// Edits `.opencorvus/squads.jsonc` in place (comments kept; created if absent): the key is
/// added to `trust.<NAMESPACE>`. Once `require_signatures` is true (--require-signatures sets
/// it), `squad sync`, `add` and `install` into the project refuse squads not signed by a key
/// trusted for their namespace. --expires gives the last day (UTC) the key is trusted.
#[derive(Debug, clap::Args)]
#[command(after_help = concat!("Examples:
  squad trust add acme.pub --namespace acme
  squad trust add RWQ… --namespace '*' --expires 2027-12-31
  squad trust add acme.pub --namespace acme --require-signatures --format json", exit_help!()))]
pub struct TrustAddArgs {
    /// A minisign public key: the `RW…` string, or a `.pub` file.
    #[arg(value_name = "KEY")]
    pub key: String,

    /// The namespace whose squads the key may sign (`*`: every namespace).
    #[arg(long, value_name = "NS")]
    pub namespace: String,

    /// The last day (YYYY-MM-DD, UTC) signatures by this key are accepted.
    #[arg(long, value_name = "DATE")]
    pub expires: Option<String>,

    /// Also set `require_signatures: true`.
    #[arg(long)]
    pub require_signatures: bool,

    #[command(flatten)]
    pub project: ProjectArgs,

    /// Output format.
    #[arg(long, value_enum, default_value_t = DataFormat::Human)]
    pub format: DataFormat,
}

fn json(printer: &Printer, value: &serde_json::Value) {
    printer.data(&(serde_json::to_string_pretty(value).unwrap_or_default() + "\n"));
}

/// A key or signature file's text, bounded.
pub(super) fn read_small(path: &Path) -> Result<String, String> {
    let shown = path.display();
    let metadata =
        crate::fs::metadata(path).map_err(|error| format!("cannot read `{shown}`: {error}"))?;
    if metadata.len() > crate::sign::minisig::MAX_FILE_BYTES as u64 {
        return Err(format!(
            "`{shown}` is {} bytes: not a minisign key or signature",
            metadata.len()
        ));
    }
    let bytes = crate::fs::read(path).map_err(|error| format!("cannot read `{shown}`: {error}"))?;
    String::from_utf8(bytes).map_err(|_| format!("`{shown}` is not UTF-8 text"))
}

/// A public key given as `RW…` or as a file.
pub(super) fn public_key(given: &str) -> Result<PublicKey, (String, ExitStatus)> {
    let path = Path::new(given);
    if path.is_file() {
        let text = read_small(path).map_err(|message| (message, ExitStatus::Error))?;
        return PublicKey::parse(&text).map_err(|error| {
            (
                format!("`{given}` is not a minisign public key: {error}"),
                ExitStatus::Failure,
            )
        });
    }
    PublicKey::parse(given).map_err(|error| {
        let status = if given.starts_with("RW") || given.contains('\n') {
            ExitStatus::Failure
        } else {
            ExitStatus::Error
        };
        (
            format!("`{given}` is neither a public key file nor a minisign public key: {error}"),
            status,
        )
    })
}

/// A password: the first line of standard input, or asked on the terminal (twice when
/// `confirm`). Never echoed, never printed.
fn password(from_stdin: bool, prompt: &str, confirm: bool) -> Result<String, String> {
    if from_stdin {
        let mut text = String::new();
        std::io::stdin()
            .take(4096)
            .read_to_string(&mut text)
            .map_err(|error| format!("cannot read the password from standard input: {error}"))?;
        return Ok(text.lines().next().unwrap_or_default().to_owned());
    }
    let ask = |prompt: &str| {
        rpassword::prompt_password(prompt).map_err(|error| {
            format!("cannot ask for the password on the terminal ({error}); pass --password-stdin")
        })
    };
    let first = ask(prompt)?;
    if confirm && ask("Password (again): ")? != first {
        return Err("the two passwords differ; nothing was written".to_owned());
    }
    Ok(first)
}

/// Reads and unlocks a secret key; the error is reported already.
pub(super) fn unlock(
    path: &Path,
    password_stdin: bool,
    printer: &Printer,
) -> Result<SecretKey, ExitStatus> {
    let shown = path.display();
    let text = read_small(path).map_err(|message| {
        printer.error(&message, None);
        ExitStatus::Error
    })?;
    let file = SecretKeyFile::parse(&text).map_err(|error| {
        printer.error(
            &format!("`{shown}` is not a minisign secret key: {error}"),
            Some("`squad key generate` makes one; `minisign -G` keys work too"),
        );
        ExitStatus::Failure
    })?;
    let password = match file.is_encrypted() {
        true => Some(
            password(password_stdin, &format!("Password for {shown}: "), false).map_err(
                |message| {
                    printer.error(&message, None);
                    ExitStatus::Error
                },
            )?,
        ),
        false => None,
    };
    file.unlock(password.as_deref()).map_err(|error| {
        let hint = matches!(error, FormatError::WrongPassword)
            .then_some("the password is the one given to `squad key generate` (or `minisign -G`)");
        printer.error(&format!("`{shown}`: {error}"), hint);
        ExitStatus::Failure
    })
}

pub fn run_key(args: &KeyArgs, printer: &Printer) -> ExitStatus {
    match &args.command {
        KeyCommand::Generate(args) => run_generate(args, printer),
    }
}

fn run_generate(args: &GenerateArgs, printer: &Printer) -> ExitStatus {
    for path in [&args.secret_key, &args.public_key] {
        if crate::fs::symlink_metadata(path).is_ok() {
            printer.error(
                &format!("`{}` exists already; nothing was written", path.display()),
                Some("squad never overwrites a key: choose another path, or move the old key away"),
            );
            return ExitStatus::Error;
        }
    }
    if args.secret_key == args.public_key {
        printer.error("--secret-key and --public-key are the same file", None);
        return ExitStatus::Error;
    }
    let password = match args.unencrypted {
        true => None,
        false => {
            match password(args.password_stdin, "Password for the new key: ", true) {
                Ok(password) if password.is_empty() => {
                    printer.error(
                    "the password is empty; nothing was written",
                    Some("give a password, or pass --unencrypted for a key a secret store protects"),
                );
                    return ExitStatus::Failure;
                }
                Ok(password) => Some(password),
                Err(message) => {
                    printer.error(&message, None);
                    return ExitStatus::Error;
                }
            }
        }
    };
    let (public, secret) = match crate::sign::minisig::generate(password.as_deref()) {
        Ok(pair) => pair,
        Err(error) => {
            printer.error(&error.to_string(), None);
            return ExitStatus::Error;
        }
    };
    if let Err(error) = crate::sign::write_new(&args.secret_key, secret.as_bytes(), true) {
        printer.error(
            &format!(
                "cannot write `{}`: {error}; nothing was written",
                args.secret_key.display()
            ),
            None,
        );
        return ExitStatus::Error;
    }
    if let Err(error) =
        crate::sign::write_new(&args.public_key, public.file_text().as_bytes(), false)
    {
        let _ = crate::fs::remove_file(&args.secret_key);
        printer.error(
            &format!(
                "cannot write `{}`: {error}; nothing was written",
                args.public_key.display()
            ),
            None,
        );
        return ExitStatus::Error;
    }
    match args.format {
        DataFormat::Json => json(
            printer,
            &serde_json::json!({
                "schema_version": crate::diag::json::SCHEMA_VERSION,
                "type": "key-generate",
                "key_id": public.id.to_string(),
                "public_key": public.base64,
                "public_key_file": args.public_key,
                "secret_key_file": args.secret_key,
                "encrypted": password.is_some(),
            }),
        ),
        DataFormat::Human => {
            printer.status(
                "Generated",
                &format!(
                    "key {} (secret key `{}`{}, public key `{}`)",
                    public.id,
                    args.secret_key.display(),
                    if password.is_some() {
                        ", encrypted"
                    } else {
                        ", unencrypted"
                    },
                    args.public_key.display()
                ),
            );
            printer.data(&format!("{}\n", public.base64));
        }
    }
    ExitStatus::Success
}

pub fn run_sign(args: &SignArgs, printer: &Printer) -> ExitStatus {
    let statement = match crate::sign::statement_of(&args.path) {
        Ok(statement) => statement,
        Err(message) => {
            printer.error(&message, None);
            return if args.path.exists() {
                ExitStatus::Failure
            } else {
                ExitStatus::Error
            };
        }
    };
    if args.statement {
        match args.format {
            DataFormat::Json => json(
                printer,
                &serde_json::json!({
                    "schema_version": crate::diag::json::SCHEMA_VERSION,
                    "type": "statement",
                    "namespace": statement.namespace,
                    "id": statement.id,
                    "version": statement.version,
                    "package_digest": statement.package_digest.hex(),
                    "statement": statement.text(),
                }),
            ),
            DataFormat::Human => printer.data(&statement.text()),
        }
        return ExitStatus::Success;
    }
    let Some(key_path) = &args.key else {
        printer.error("--key is required to sign", None);
        return ExitStatus::Error;
    };
    let output = args.output.clone().unwrap_or_else(|| {
        PathBuf::from(crate::sign::default_signature_name(
            &statement.id,
            &statement.version,
        ))
    });
    if crate::fs::symlink_metadata(&output).is_ok() {
        printer.error(
            &format!("`{}` exists already; nothing was signed", output.display()),
            Some("pass -o with another path, or remove the old signature"),
        );
        return ExitStatus::Error;
    }
    let key = match unlock(key_path, args.password_stdin, printer) {
        Ok(key) => key,
        Err(status) => return status,
    };
    let signature = match crate::sign::minisig::sign(
        &key,
        statement.text().as_bytes(),
        &statement.trusted_comment(),
    ) {
        Ok(signature) => signature,
        Err(error) => {
            printer.error(&error.to_string(), None);
            return ExitStatus::Error;
        }
    };
    if let Err(error) = crate::sign::write_new(&output, signature.text().as_bytes(), false) {
        printer.error(
            &format!("cannot write `{}`: {error}", output.display()),
            None,
        );
        return ExitStatus::Error;
    }
    match args.format {
        DataFormat::Json => json(
            printer,
            &serde_json::json!({
                "schema_version": crate::diag::json::SCHEMA_VERSION,
                "type": "sign",
                "namespace": statement.namespace,
                "id": statement.id,
                "version": statement.version,
                "package_digest": statement.package_digest.hex(),
                "key_id": signature.key_id.to_string(),
                "signature_file": output,
                "statement": statement.text(),
            }),
        ),
        DataFormat::Human => printer.status(
            "Signed",
            &format!(
                "{} with key {} to `{}`",
                statement.identity(),
                signature.key_id,
                output.display()
            ),
        ),
    }
    ExitStatus::Success
}

/// The project a trust command edits, and the edit itself under the project lock; a failure is
/// reported in the command's format and becomes the exit status.
fn edit_policy<T>(
    args: &ProjectArgs,
    format: DataFormat,
    what: &str,
    printer: &Printer,
    edit: impl FnOnce(
        &crate::project::Project,
        &mut dyn FnMut(&Path),
    ) -> Result<T, crate::project::ProjectError>,
) -> Result<(crate::project::Project, T), ExitStatus> {
    let project = project_of(args, printer)?;
    match edit(&project, &mut waiting(printer)) {
        Ok(done) => Ok((project, done)),
        Err(error) => Err(report_error(printer, format.into(), what, &project, error)),
    }
}

pub fn run_trust(args: &TrustArgs, printer: &Printer) -> ExitStatus {
    match &args.command {
        TrustCommand::Add(args) => run_trust_add(args, printer),
        TrustCommand::Remove(args) => run_trust_remove(args, printer),
        TrustCommand::Revoke(args) => run_trust_revoke(args, printer),
    }
}

fn run_trust_remove(args: &TrustRemoveArgs, printer: &Printer) -> ExitStatus {
    let key = match public_key(&args.key) {
        Ok(key) => key,
        Err((message, status)) => {
            printer.error(&message, None);
            return status;
        }
    };
    let edited = edit_policy(
        &args.project,
        args.format,
        "trust remove",
        printer,
        |project, wait| {
            crate::project::change::untrust(project, key.id, args.namespace.as_deref(), wait)
        },
    );
    let (project, untrusted) = match edited {
        Ok(edited) => edited,
        Err(status) => return status,
    };
    let removed = untrusted.removed;
    match args.format {
        DataFormat::Json => json(
            printer,
            &serde_json::json!({
                "schema_version": crate::diag::json::SCHEMA_VERSION,
                "type": "untrust",
                "project": project.shown,
                "key_id": key.id.to_string(),
                "namespace": args.namespace,
                "removed": removed,
                "still_trusted_in": untrusted.still_trusted_in,
            }),
        ),
        DataFormat::Human if removed == 0 => printer.status(
            "Unchanged",
            &format!(
                "key {} is not trusted{} in {}",
                key.id,
                args.namespace
                    .as_deref()
                    .map(|namespace| format!(" for `{namespace}`"))
                    .unwrap_or_default(),
                project.display(crate::project::declared::FILE)
            ),
        ),
        DataFormat::Human => printer.status(
            "Removed",
            &format!(
                "key {} ({removed} entr{}) from {}",
                key.id,
                if removed == 1 { "y" } else { "ies" },
                project.display(crate::project::declared::FILE)
            ),
        ),
    }
    // What the file says now: a key removed for one namespace may still vouch for it.
    if args.format == DataFormat::Human && !untrusted.still_trusted_in.is_empty() {
        let lists: Vec<String> = untrusted
            .still_trusted_in
            .iter()
            .map(|namespace| format!("`trust.\"{namespace}\"`"))
            .collect();
        let vouches = match args.namespace.as_deref() {
            Some(namespace) if untrusted.still_trusted_in.iter().any(|n| n == "*") => {
                format!(" and still vouches for `{namespace}` through `*`")
            }
            _ => String::new(),
        };
        printer.human(&format!(
            "warning: key {} is still trusted in {}{vouches}; `squad trust remove {}` without --namespace removes it everywhere, `squad trust revoke` refuses it whatever `trust` says\n",
            key.id,
            lists.join(", "),
            args.key
        ));
    }
    ExitStatus::Success
}

fn run_trust_revoke(args: &TrustRevokeArgs, printer: &Printer) -> ExitStatus {
    let key_id = match crate::sign::KeyId::parse(&args.key) {
        Some(id) => id,
        None => match public_key(&args.key) {
            Ok(key) => key.id,
            Err((message, status)) => {
                printer.error(
                    &message,
                    Some("a key id is 16 hex digits, as refusals and `squad verify` print it"),
                );
                return status;
            }
        },
    };
    let edited = edit_policy(
        &args.project,
        args.format,
        "trust revoke",
        printer,
        |project, wait| crate::project::change::revoke(project, key_id, wait),
    );
    let (project, changed) = match edited {
        Ok(edited) => edited,
        Err(status) => return status,
    };
    match args.format {
        DataFormat::Json => json(
            printer,
            &serde_json::json!({
                "schema_version": crate::diag::json::SCHEMA_VERSION,
                "type": "revoke",
                "project": project.shown,
                "key_id": key_id.to_string(),
                "changed": changed,
            }),
        ),
        DataFormat::Human => printer.status(
            if changed { "Revoked" } else { "Unchanged" },
            &format!(
                "key {key_id} in {}",
                project.display(crate::project::declared::FILE)
            ),
        ),
    }
    ExitStatus::Success
}

fn run_trust_add(args: &TrustAddArgs, printer: &Printer) -> ExitStatus {
    let key = match public_key(&args.key) {
        Ok(key) => key,
        Err((message, status)) => {
            printer.error(&message, None);
            return status;
        }
    };
    let expires = match args.expires.as_deref() {
        None => None,
        Some(text) => match crate::version::Date::parse(text) {
            Some(date) => Some(date),
            None => {
                printer.error(
                    &format!("--expires `{text}` is not a YYYY-MM-DD date"),
                    None,
                );
                return ExitStatus::Error;
            }
        },
    };
    let edited = edit_policy(
        &args.project,
        args.format,
        "trust",
        printer,
        |project, wait| {
            crate::project::change::trust(
                project,
                &args.namespace,
                &key,
                expires,
                args.require_signatures,
                wait,
            )
        },
    );
    let (project, added) = match edited {
        Ok(edited) => edited,
        Err(status) => return status,
    };
    let changed = added.changed;
    if added.revoked && args.format == DataFormat::Human {
        printer.human(&format!(
            "warning: key {} is also in `revoked`, which wins: it vouches for no squad until it is taken out of `revoked`\n",
            key.id
        ));
    }
    match args.format {
        DataFormat::Json => json(
            printer,
            &serde_json::json!({
                "schema_version": crate::diag::json::SCHEMA_VERSION,
                "type": "trust",
                "revoked": added.revoked,
                "project": project.shown,
                "namespace": args.namespace,
                "key_id": key.id.to_string(),
                "public_key": key.base64,
                "expires": expires.map(|date| date.to_string()),
                "require_signatures": args.require_signatures,
                "changed": changed,
            }),
        ),
        DataFormat::Human => printer.status(
            if changed { "Trusted" } else { "Unchanged" },
            &format!(
                "key {} for {} in {}",
                key.id,
                if args.namespace == "*" {
                    "every namespace".to_owned()
                } else {
                    format!("namespace `{}`", args.namespace)
                },
                project.display(crate::project::declared::FILE)
            ),
        ),
    }
    ExitStatus::Success
}
