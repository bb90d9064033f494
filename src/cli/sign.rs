//! `squad sign`: a minisign signature over a squad's statement (docs/signatures.md).
//! `squad verify --signature` checks one.

use std::path::PathBuf;

use super::documents::{self, SignatureWritten, StatementShown};
use super::{DataFormat, ExitStatus};
use crate::output::Printer;

/// Sign a squad: its identity and package digest, not its archive bytes.
///
/// PKG is a package folder (validated first) or a `.zip` made by `squad pack`. The signature
/// covers the four-line statement `--statement` prints (docs/signatures.md), so `minisign -V`
/// checks it too. It is written to -o, by default beside PKG where `squad add`, `squad install`
/// and `squad sync` look for it (`<archive>.minisig`, `<folder>.minisig`), never over an
/// existing file. `squad publish --sign` signs and attaches the
/// signature to the published manifest in one step.
#[derive(Debug, clap::Args)]
#[command(after_help = concat!("Examples:
  squad sign my-squad --key ~/.squad/acme.key                    writes my-squad.minisig
  squad sign review-expert-squad.zip --key ci.key               writes review-expert-squad.zip.minisig
  squad sign review-expert-squad.zip --key ci.key -o review.minisig --format json
  squad sign my-squad --statement > statement.txt
  minisign -V -p acme.pub -m statement.txt -x my-squad.minisig", signing_exit_help!()))]
pub struct SignArgs {
    /// The package folder or `.zip` archive [default: the current directory].
    #[arg(value_name = "PKG", default_value = ".")]
    pub path: PathBuf,

    /// The minisign secret key.
    #[arg(long, value_name = "FILE", required_unless_present = "statement")]
    pub key: Option<PathBuf>,

    /// Where to write the signature [default: `<PKG>.minisig`, beside PKG, where `squad add`
    /// and `squad install` look for it].
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

pub fn run_sign(args: &SignArgs, printer: &Printer) -> ExitStatus {
    let statement = match crate::sign::statement_of(&args.path) {
        Ok(statement) => statement,
        Err(error) => {
            printer.failure(&error, None);
            return error.class().into();
        }
    };
    if args.statement {
        match args.format {
            DataFormat::Json => documents::print(
                printer,
                "statement",
                StatementShown {
                    signed: (&statement).into(),
                    statement: statement.text(),
                },
            ),
            DataFormat::Human => printer.data(&statement.text()),
        }
        return ExitStatus::Success;
    }
    let Some(key_path) = &args.key else {
        printer.error("--key is required to sign", None);
        return ExitStatus::Error;
    };
    let output = args
        .output
        .clone()
        .unwrap_or_else(|| crate::sign::beside(&args.path));
    if crate::fs::symlink_metadata(&output).is_ok() {
        printer.error(
            &format!("`{}` exists already; nothing was signed", output.display()),
            Some("pass -o with another path, or remove the old signature"),
        );
        return ExitStatus::Error;
    }
    let key = match crate::sign::keys::unlock(key_path, args.password_stdin) {
        Ok(key) => key,
        Err(error) => return super::failures::key_error(printer, &error),
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
        DataFormat::Json => documents::print(
            printer,
            "sign",
            SignatureWritten {
                signed: (&statement).into(),
                key_id: signature.key_id.to_string(),
                signature_file: &output,
                statement: statement.text(),
            },
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
