//! Limits, run through the real binary: deep and large programs compile
//! (`-e`) and run against the kernel, and beyond the limits dtrace says
//! which limit in DTrace's form instead of crashing.

use std::process::{Command, Output, Stdio};

fn text(b: &[u8]) -> String {
    String::from_utf8_lossy(b).into_owned()
}

/// Runs dtrace on `script` (written to a file named `name`) with `flags`.
fn run_script(name: &str, script: &str, flags: &[&str]) -> Output {
    let dir = std::env::temp_dir().join(format!("dtrace-limits-{}", std::process::id()));
    std::fs::create_dir_all(&dir).expect("temp dir");
    let path = dir.join(name);
    std::fs::write(&path, script).expect("write script");
    let o = Command::new(env!("CARGO_BIN_EXE_dtrace"))
        .args(flags)
        .arg("-s")
        .arg(name)
        .current_dir(&dir)
        .stdin(Stdio::null())
        .output()
        .expect("run dtrace");
    let _ = std::fs::remove_file(&path);
    o
}

fn assert_ok(o: &Output, stdout: &str) {
    assert_eq!(o.status.code(), Some(0), "stderr: {}", text(&o.stderr));
    assert_eq!(text(&o.stdout), stdout);
}

/// Compiles with -e, then runs, expecting `out`.
fn compiles_and_runs(name: &str, script: &str, out: &str) {
    assert_ok(&run_script(name, script, &["-e"]), "");
    assert_ok(&run_script(name, script, &["-q"]), out);
}

#[test]
fn a_sum_of_ten_thousand_terms_runs() {
    let ones = vec!["1"; 10_000].join("+");
    compiles_and_runs(
        "sum.d",
        &format!("BEGIN {{ trace({}); exit(0); }}\n", ones),
        "10000\n",
    );
    let xs = vec!["x"; 10_000].join("+");
    compiles_and_runs(
        "xsum.d",
        &format!("BEGIN {{ x = 2; trace({}); exit(0); }}\n", xs),
        "20000\n",
    );
}

#[test]
fn deep_nesting_is_a_compile_error() {
    let o = run_script(
        "x.d",
        &format!(
            "BEGIN {{ trace({}1{}); exit(0); }}\n",
            "(".repeat(5000),
            ")".repeat(5000)
        ),
        &["-e"],
    );
    assert_eq!(o.status.code(), Some(1));
    assert_eq!(
        text(&o.stderr),
        "dtrace: failed to compile script x.d: line 1: program too complex: constructs nested more than 5000 levels deep\n"
    );
    compiles_and_runs(
        "p.d",
        &format!(
            "BEGIN {{ trace({}1{}); exit(0); }}\n",
            "(".repeat(4000),
            ")".repeat(4000)
        ),
        "1\n",
    );
}

#[test]
fn deep_types_are_a_compile_error() {
    // 200,000 pointer levels once overflowed the stack when the type was
    // dropped; a type is as deep as nesting may be.
    for decl in [
        format!("int {}x; BEGIN {{ exit(0); }}\n", "*".repeat(200_000)),
        format!(
            "BEGIN {{ trace((int {})0); exit(0); }}\n",
            "*".repeat(200_000)
        ),
        format!("int x{}; BEGIN {{ exit(0); }}\n", "[1]".repeat(100_000)),
    ] {
        let o = run_script("t.d", &decl, &["-e"]);
        assert_eq!(o.status.code(), Some(1), "{}", text(&o.stderr));
        assert!(
            text(&o.stderr)
                .contains("program too complex: constructs nested more than 5000 levels deep"),
            "{}",
            text(&o.stderr)
        );
    }
    compiles_and_runs(
        "ok.d",
        &format!(
            "BEGIN {{ x = (int {})0; trace(x + 1); exit(0); }}\n",
            "*".repeat(5000)
        ),
        "8\n",
    );
}

#[test]
fn too_many_temporaries_are_refused_naming_the_limit() {
    let mut e = "x".to_string();
    for _ in 0..64 {
        e = format!("(x+{})", e);
    }
    let o = run_script(
        "t.d",
        &format!("BEGIN {{ x = 1; trace({}); exit(0); }}\n", e),
        &["-q"],
    );
    assert_eq!(o.status.code(), Some(1));
    let err = text(&o.stderr);
    assert!(
        err.starts_with("dtrace: could not enable tracing: expression too complex")
            && err.contains("512 bytes"),
        "{}",
        err
    );
    let mut e = "x".to_string();
    for _ in 0..60 {
        e = format!("(x+{})", e);
    }
    compiles_and_runs(
        "t60.d",
        &format!("BEGIN {{ x = 1; trace({}); exit(0); }}\n", e),
        "61\n",
    );
}

#[test]
fn large_programs_run() {
    compiles_and_runs(
        "stmts.d",
        &format!(
            "BEGIN {{ x = 0; {} trace(x); exit(0); }}\n",
            "x = x + 1; ".repeat(5000)
        ),
        "5000\n",
    );
    compiles_and_runs(
        "clauses.d",
        &format!(
            "int x;\n{}BEGIN {{ trace(x); exit(0); }}\n",
            "BEGIN { x = x + 1; }\n".repeat(3000)
        ),
        "3000\n",
    );
    let mut elif = "BEGIN { x = 1999; if (x == 0) { trace(0); }".to_string();
    for i in 1..2000 {
        elif.push_str(&format!(" else if (x == {}) {{ trace({}); }}", i, i));
    }
    elif.push_str(" exit(0); }\n");
    compiles_and_runs("elif.d", &elif, "1999\n");
    // Divisions grow when the verifier patches them; long jumps leave room.
    compiles_and_runs(
        "div.d",
        &format!(
            "BEGIN {{ x = 1; y = 0; {} trace(y); exit(0); }}\n",
            "y = y + 6 / x; ".repeat(3000)
        ),
        "18000\n",
    );
}

#[test]
fn a_program_near_the_kernel_limit_runs_and_beyond_it_is_refused() {
    compiles_and_runs(
        "big.d",
        &format!(
            "BEGIN {{ x = 0; {} trace(x); exit(0); }}\n",
            "x = x + 1; ".repeat(55_000)
        ),
        "55000\n",
    );
    let o = run_script(
        "huge.d",
        &format!(
            "BEGIN {{ x = 0; {} trace(x); exit(0); }}\n",
            "x = x + 1; ".repeat(60_000)
        ),
        &["-q"],
    );
    assert_eq!(o.status.code(), Some(1));
    let err = text(&o.stderr);
    assert!(
        err.starts_with("dtrace: could not enable tracing: program for dt_BEGIN too large:")
            && err.contains("exceed the kernel's limit of 1000000"),
        "{}",
        err
    );
}

#[test]
fn printf_widths_are_bounded() {
    let o = run_script(
        "w.d",
        "BEGIN { printf(\"%*d|\\n\", 500000000, 1); printf(\"%d\\n\", 2); exit(0); }\n",
        &["-q"],
    );
    assert_ok(&o, "2\n\n");
    assert_eq!(
        text(&o.stderr),
        "dtrace: error on enabled probe ID 1 (ID 1: dtrace:::BEGIN): printf( ) width or precision 500000000 exceeds the limit of 65535 in action #1\n"
    );
    let o = run_script("p.d", "BEGIN { printf(\"%.4000000d\", 1); }\n", &["-e"]);
    assert_eq!(o.status.code(), Some(1));
    assert_eq!(
        text(&o.stderr),
        "dtrace: failed to compile script p.d: line 1: printf( ) argument #1 is invalid: width or precision of \"%.4000000d\" exceeds the limit of 65535\n"
    );
    let o = run_script(
        "q.d",
        "BEGIN { printf(\"%.65535d|\\n\", 1); exit(0); }\n",
        &["-q"],
    );
    assert_eq!(o.status.code(), Some(0));
    assert_eq!(o.stdout.len(), 65538);
}
