//! `squad`: a package manager for expert-squad packages.
//!
//! Module map:
//! - [`jsonc`]: JSONC parsing with byte spans.
//! - [`source`]: file texts and line/column mapping.
//! - [`diag`]: diagnostics as data, with human and JSON rendering.
//! - [`manifest`]: the `expert-squad.jsonc` schema and its model.
//! - [`package`]: validation of a package folder (files, resources, references, tools).
//! - [`interop`]: the neighbouring formats (plays, router contracts, Open Floor, handoffs,
//!   collaborations).
//! - [`version`]: `YYYY.MM.DD.N` versions.
//! - [`tables`]: the reference runtime's tool and role tables.
//! - [`text`]: JavaScript-compatible whitespace, ids and string order.
//! - [`env`]: environment lookups.
//! - [`http`]: the HTTP client every network access goes through (transport rules, limits).
//! - [`oci`]: OCI registries: references, manifests, credentials, the distribution API.
//! - [`share`]: how squads travel: OCI artifacts (publish, fetch, versions), exact HTTPS
//!   archives and the OpenCorvus install link.
//! - [`project`]: a project's squads: `squads.jsonc`, `squads.lock`, add, remove, sync, update.
//! - [`cache`]: the content-addressed download cache.
//! - [`cli`]: the command-line interface.

pub mod archive;
pub mod cache;
pub mod cli;
pub mod diag;
pub mod digest;
pub mod env;
pub mod fs;
pub mod http;
pub mod install;
pub mod interop;
pub mod jsonc;
pub mod manifest;
pub mod oci;
pub mod output;
pub mod pack;
pub mod package;
pub mod project;
pub mod scaffold;
pub mod share;
pub mod source;
pub mod tables;
pub mod text;
pub mod verify;
pub mod version;
