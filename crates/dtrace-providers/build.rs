//! Builds the list of providers described by data: every
//! `providers/*.tp` file, in name order, included in the binary (see
//! `table.rs`). Adding such a provider is adding its file.

use std::fmt::Write as _;
use std::path::Path;

fn main() {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("providers");
    println!("cargo:rerun-if-changed={}", dir.display());
    let mut files: Vec<_> = std::fs::read_dir(&dir)
        .expect("providers/ is readable")
        .filter_map(|e| e.ok().map(|e| e.path()))
        .filter(|p| p.extension().is_some_and(|x| x == "tp"))
        .collect();
    files.sort();
    let mut out = String::from("&[\n");
    for f in &files {
        println!("cargo:rerun-if-changed={}", f.display());
        let name = f
            .file_name()
            .and_then(|n| n.to_str())
            .expect("a provider file's name is UTF-8");
        writeln!(
            out,
            "    ({:?}, include_str!({:?})),",
            name,
            f.display().to_string()
        )
        .expect("writing to a String");
    }
    out.push_str("]\n");
    let dest = Path::new(&std::env::var("OUT_DIR").expect("cargo sets OUT_DIR")).join("tables.rs");
    std::fs::write(dest, out).expect("OUT_DIR is writable");
}
