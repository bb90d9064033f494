//! `squad key generate`: a minisign key pair for signing squads.

use std::path::PathBuf;

use super::documents::{self, KeyGenerated};
use super::{DataFormat, ExitStatus};
use crate::output::Printer;

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
  squad key generate --secret-key ci.key --public-key ci.pub --unencrypted --format json", signing_exit_help!()))]
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
            match crate::sign::keys::password(
                args.password_stdin,
                "Password for the new key: ",
                true,
            ) {
                Ok(password) if password.is_empty() => {
                    printer.error(
                    "the password is empty; nothing was written",
                    Some("give a password, or pass --unencrypted for a key a secret store protects"),
                );
                    return ExitStatus::Failure;
                }
                Ok(password) => Some(password),
                Err(error) => return super::failures::key_error(printer, &error),
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
        DataFormat::Json => documents::print(
            printer,
            "key-generate",
            KeyGenerated {
                key_id: public.id.to_string(),
                public_key: &public.base64,
                public_key_file: &args.public_key,
                secret_key_file: &args.secret_key,
                encrypted: password.is_some(),
            },
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
