//! When a package's version must move. `squad version check` compares a package with what was
//! published under its version (CD-1: the content, with the version literal blanked, must not
//! change without a new version) and refuses versions dated in the future; `squad version bump`
//! stamps the next version ([`bump`]); over a tree of squads, `--changed` stamps exactly the
//! packages whose content moved under their baseline's version, a registry's or the tree's
//! versions record's ([`changed`], [`record`]). What a package is to versioning, its version
//! and its two digests, is read once by [`content`].

pub mod bump;
pub mod changed;
pub mod content;
pub mod record;
