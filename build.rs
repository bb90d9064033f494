//! Embeds `templates/` in the binary, so `squad new` works from any directory after
//! `cargo install`.

// A build script, not the library: it reads its inputs with the standard library.
#![allow(clippy::disallowed_methods)]

use std::fmt::Write as _;
use std::path::{Path, PathBuf};

fn files(dir: &Path, out: &mut Vec<PathBuf>) {
    let mut entries: Vec<PathBuf> = std::fs::read_dir(dir)
        .expect("templates/ is readable")
        .map(|entry| entry.expect("templates/ entry").path())
        .collect();
    entries.sort();
    for path in entries {
        if path.is_dir() {
            files(&path, out);
        } else {
            out.push(path);
        }
    }
}

fn main() {
    let root = PathBuf::from(std::env::var("CARGO_MANIFEST_DIR").expect("cargo sets it"))
        .join("templates");
    println!("cargo:rerun-if-changed=templates");
    let mut names: Vec<PathBuf> = std::fs::read_dir(&root)
        .expect("templates/ exists")
        .map(|entry| entry.expect("templates/ entry").path())
        .filter(|path| path.is_dir())
        .collect();
    names.sort();
    let mut code = String::from(
        "/// Embedded templates: (name, [(relative path, bytes)]).\npub static TEMPLATES: &[(&str, TemplateFiles)] = &[\n",
    );
    for template in &names {
        println!("cargo:rerun-if-changed={}", template.display());
        let name = template.file_name().unwrap().to_string_lossy();
        let _ = writeln!(code, "    ({name:?}, &[");
        let mut list = Vec::new();
        files(template, &mut list);
        for file in list {
            println!("cargo:rerun-if-changed={}", file.display());
            let relative = file
                .strip_prefix(template)
                .unwrap()
                .to_string_lossy()
                .replace('\\', "/");
            let _ = writeln!(
                code,
                "        ({relative:?}, include_bytes!({:?})),",
                file.display().to_string()
            );
        }
        code.push_str("    ]),\n");
    }
    code.push_str("];\n");
    let out_dir = PathBuf::from(std::env::var("OUT_DIR").expect("cargo sets it"));
    std::fs::write(out_dir.join("templates.rs"), code).expect("OUT_DIR is writable");
    embed_explain_pages(&out_dir);
}

/// Embeds `docs/explain/<code>.md`, the pages of `squad explain`.
fn embed_explain_pages(out_dir: &Path) {
    let root = PathBuf::from(std::env::var("CARGO_MANIFEST_DIR").expect("cargo sets it"))
        .join("docs/explain");
    println!("cargo:rerun-if-changed=docs/explain");
    let mut pages: Vec<PathBuf> = std::fs::read_dir(&root)
        .map(|entries| {
            entries
                .map(|entry| entry.expect("docs/explain entry").path())
                .collect()
        })
        .unwrap_or_default();
    pages.retain(|path| path.extension().is_some_and(|extension| extension == "md"));
    pages.sort();
    let mut code = String::from(
        "/// Explain pages: (code, markdown).\npub static PAGES: &[(&str, &str)] = &[\n",
    );
    for page in pages {
        println!("cargo:rerun-if-changed={}", page.display());
        let name = page.file_stem().unwrap().to_string_lossy();
        let _ = writeln!(
            code,
            "    ({name:?}, include_str!({:?})),",
            page.display().to_string()
        );
    }
    code.push_str("];\n");
    std::fs::write(out_dir.join("explain.rs"), code).expect("OUT_DIR is writable");
}
