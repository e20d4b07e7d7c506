//! Every program we have, compiled through the whole compile path without
//! the kernel (`libdtrace::offline`): the inputs the fuzzer found or that
//! were picked by hand (fuzz/regressions), and every program of the D test
//! suite. Each must compile or fail with a proper error, never panic or
//! overflow the stack. Then the limits: programs as deep or as large as
//! allowed compile, and beyond that the errors say which limit.

use std::path::{Path, PathBuf};

use libdtrace::{offline, Error};

fn root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../..")
}

fn files(dir: &Path, out: &mut Vec<PathBuf>) {
    let Ok(rd) = std::fs::read_dir(dir) else {
        return;
    };
    for e in rd.flatten() {
        let p = e.path();
        if p.is_dir() {
            files(&p, out);
        } else if p.extension().is_some_and(|x| x == "d") {
            out.push(p);
        }
    }
}

#[test]
fn every_known_program_compiles_or_fails_cleanly() {
    let mut all = Vec::new();
    files(&root().join("fuzz/regressions"), &mut all);
    let regressions = all.len();
    files(&root().join("test/unittest"), &mut all);
    assert!(regressions > 0 && all.len() > regressions);
    let mut bad = Vec::new();
    for f in &all {
        let bytes = std::fs::read(f).expect("read");
        let text = String::from_utf8_lossy(&bytes).into_owned();
        let r = std::panic::catch_unwind(|| offline::compile(&text, false));
        if r.is_err() {
            bad.push(f.display().to_string());
        }
    }
    assert!(bad.is_empty(), "panicked: {:?}", bad);
}

fn compile_err(text: &str) -> String {
    match offline::compile(text, false) {
        Ok(s) => panic!("compiled: {:?}", s),
        Err(Error::Compile(e)) => e.render(true),
        Err(e) => e.to_string(),
    }
}

#[test]
fn long_flat_sums_compile() {
    let sum = vec!["x"; 10_000].join("+");
    offline::compile(&format!("BEGIN {{ x = 1; trace({}); }}", sum), false).unwrap();
    let sum = vec!["1"; 10_000].join("+");
    offline::compile(&format!("BEGIN {{ trace({}); }}", sum), false).unwrap();
}

#[test]
fn nesting_beyond_the_limits_is_a_compile_error() {
    let e = compile_err(&format!(
        "BEGIN\n{{ trace({}1{}); }}",
        "(".repeat(6000),
        ")".repeat(6000)
    ));
    assert_eq!(
        e,
        "[D_SYNTAX] line 2: program too complex: constructs nested more than 5000 levels deep"
    );
    let e = compile_err(&format!(
        "BEGIN {{ x = 1; trace({}); }}",
        vec!["x"; 13_000].join("+")
    ));
    assert_eq!(
        e,
        "[D_SYNTAX] line 1: program too complex: expression or statement more than 12000 levels deep"
    );
    let e = compile_err(&format!("BEGIN {{ trace({}1); }}", "!".repeat(5001)));
    assert!(e.contains("nested more than 5000 levels"), "{}", e);
}

#[test]
fn too_many_temporaries_name_the_stack_limit() {
    let mut s = "x".to_string();
    for _ in 0..64 {
        s = format!("(x+{})", s);
    }
    let e = compile_err(&format!("BEGIN {{ x = 1; trace({}); }}", s));
    assert!(
        e.contains("expression too complex") && e.contains("512 bytes"),
        "{}",
        e
    );
    let mut s = "x".to_string();
    for _ in 0..40 {
        s = format!("(x+{})", s);
    }
    offline::compile(&format!("BEGIN {{ x = 1; trace({}); }}", s), false).unwrap();
}

#[test]
fn large_programs_assemble_with_long_jumps() {
    let stmts = "x = x + 1; ".repeat(5000);
    offline::compile(&format!("BEGIN {{ x = 0; {} trace(x); }}", stmts), false).unwrap();
    let clauses = "BEGIN { x = x + 1; }\n".repeat(3000);
    offline::compile(&format!("int x;\n{}", clauses), false).unwrap();
    let mut elif = "BEGIN { x = 1999; if (x == 0) { trace(0); }".to_string();
    for i in 1..2000 {
        elif.push_str(&format!(" else if (x == {}) {{ trace({}); }}", i, i));
    }
    elif.push_str(" }");
    offline::compile(&elif, false).unwrap();
}

#[test]
fn programs_beyond_the_kernel_limit_are_refused_clearly() {
    let stmts = "x = x + 1; ".repeat(60_000);
    let e = compile_err(&format!("BEGIN {{ x = 0; {} }}", stmts));
    assert!(
        e.contains("too large") && e.contains("limit of 1000000"),
        "{}",
        e
    );
}

#[test]
fn printf_widths_are_bounded_at_compile_time() {
    let e = compile_err("BEGIN { printf(\"%.4000000d\", 1); }");
    assert!(e.contains("exceeds the limit of 65535"), "{}", e);
    let e = compile_err("BEGIN { printf(\"%500000000d\", 1); }");
    assert!(e.contains("exceeds the limit of 65535"), "{}", e);
}
