//! The parser's unit tests.

use super::*;

fn parse(s: &str) -> Program {
    parse_program(s, &ParseOptions::default()).unwrap()
}

fn parse_file(s: &str) -> Result<Program, CompileError> {
    parse_program(
        s,
        &ParseOptions {
            pspec: false,
            is_file: true,
            ..Default::default()
        },
    )
}

fn clause(p: &Program, n: usize) -> &Clause {
    p.items
        .iter()
        .filter_map(|i| match i {
            Item::Clause(c) => Some(c),
            _ => None,
        })
        .nth(n)
        .unwrap()
}

#[test]
fn parses_clauses_with_predicates_and_bodies() {
    let p = parse("syscall::read:entry, syscall::write:entry /pid == 1/ { x = 1; trace(x) }");
    let c = clause(&p, 0);
    assert_eq!(c.probes.len(), 2);
    assert_eq!(c.probes[1].text, "syscall::write:entry");
    assert!(c.predicate.is_some());
    assert_eq!(c.body.as_ref().unwrap().len(), 2);
}

#[test]
fn division_inside_predicate_is_not_the_end() {
    let p = parse("BEGIN /(10 / 2) == 5 && 4 / 2 == 2/ { }");
    let c = clause(&p, 0);
    match &c.predicate.as_ref().unwrap().kind {
        ExprKind::Binary(BinOp::LogAnd, _, r) => {
            assert!(matches!(r.kind, ExprKind::Binary(BinOp::Eq, _, _)));
        }
        other => panic!("unexpected {:?}", other),
    }
}

#[test]
fn bare_descriptions_are_allowed_on_the_command_line_only() {
    let p = parse("BEGIN");
    assert!(clause(&p, 0).body.is_none());
    let e = parse_file("BEGIN\n").unwrap_err();
    assert_eq!(e.tag, Tag::D_SYNTAX);
    assert!(e.msg.contains("expected predicate and/or actions"));
}

#[test]
fn precedence_follows_c_and_d() {
    let p = parse("BEGIN { x = 1 + 2 * 3 << 1 == 14 || 0 ^^ 1 && 1; }");
    let body = clause(&p, 0).body.as_ref().unwrap();
    let Stmt::Expr(Expr {
        kind: ExprKind::Assign(None, _, rhs),
        ..
    }) = &body[0]
    else {
        panic!()
    };
    assert!(matches!(rhs.kind, ExprKind::Binary(BinOp::LogOr, _, _)));
}

#[test]
fn parses_aggregations_variables_and_casts() {
    let p = parse("BEGIN { @a[execname, pid] = count(); self->t = (unsigned long)arg0; this->x = args[1]; @ = sum(1) }");
    let body = clause(&p, 0).body.as_ref().unwrap();
    assert_eq!(body.len(), 4);
    let Stmt::Expr(Expr {
        kind: ExprKind::Assign(None, lhs, _),
        ..
    }) = &body[1]
    else {
        panic!()
    };
    assert!(matches!(lhs.kind, ExprKind::SelfVar(_)));
}

#[test]
fn reports_syntax_errors_with_the_token_and_line() {
    let e = parse_program("BEGIN\n{\n x = ;\n}", &ParseOptions::default()).unwrap_err();
    assert_eq!(e.line, Some(3));
    assert_eq!(e.msg, "syntax error near \";\"");
    let e = parse_program("BEGIN { x = 1", &ParseOptions::default()).unwrap_err();
    assert_eq!(e.msg, "syntax error near end of input");
}

#[test]
fn reads_pragmas_declarations_and_shebang() {
    let p = parse("#!/usr/sbin/dtrace -s\n#pragma D option quiet\n#pragma D option bufsize=4m\nint x; self string s;\nBEGIN { }");
    assert!(matches!(&p.items[0], Item::Option { name, value: None, line: 2 } if name == "quiet"));
    assert!(matches!(&p.items[1], Item::Option { value: Some(v), .. } if v == "4m"));
    assert!(matches!(
        &p.items[2],
        Item::Decl(Decl {
            scope: DeclScope::Global,
            ..
        })
    ));
    assert!(matches!(
        &p.items[3],
        Item::Decl(Decl {
            scope: DeclScope::Thread,
            ..
        })
    ));
}

#[test]
fn expands_macros_in_probe_descriptions() {
    let opts = ParseOptions {
        pspec: false,
        macros: vec![("target".into(), "42".into())],
        ..Default::default()
    };
    let p = parse_program("pid$target::malloc:entry { }", &opts).unwrap();
    assert_eq!(clause(&p, 0).probes[0].text, "pid42::malloc:entry");
}

#[test]
fn parses_several_clauses_and_if_statements() {
    let p = parse("BEGIN { if (x) { y = 1; } else y = 2; } END { }");
    assert!(matches!(
        clause(&p, 0).body.as_ref().unwrap()[0],
        Stmt::If { .. }
    ));
    assert_eq!(clause(&p, 1).probes[0].text, "END");
}

// ---- declarations and types ----

/// A type as a short string: the base, then each derivation from the
/// base outward (`int *[4]` is "int * [4]").
fn show(t: &TypeName) -> String {
    let mut out = match &t.spec {
        TypeSpec::Named { name, module } => match module {
            Some(m) => format!("{}`{}", m, name),
            None => name.clone(),
        },
        TypeSpec::Struct {
            union,
            name,
            module,
            ..
        } => format!(
            "{} {}{}",
            if *union { "union" } else { "struct" },
            module
                .as_ref()
                .map(|m| format!("{}`", m))
                .unwrap_or_default(),
            name.as_deref().unwrap_or("(anon)")
        ),
        TypeSpec::Enum { name, .. } => format!("enum {}", name.as_deref().unwrap_or("(anon)")),
    };
    if t.is_const {
        out = format!("const {}", out);
    }
    for d in &t.derived {
        out.push(' ');
        match d {
            Derived::Ptr { is_const: false } => out.push('*'),
            Derived::Ptr { is_const: true } => out.push_str("*const"),
            Derived::Array(None) => out.push_str("[]"),
            Derived::Array(Some(e)) => match e.kind {
                ExprKind::Int { value, .. } => out.push_str(&format!("[{}]", value)),
                _ => out.push_str("[expr]"),
            },
            Derived::Func { params, variadic } => {
                let mut ps: Vec<String> = params.iter().map(show).collect();
                if *variadic {
                    ps.push("...".into());
                }
                out.push_str(&format!("({})", ps.join(", ")));
            }
        }
    }
    out
}

fn decls(p: &Program) -> Vec<&Decl> {
    p.items
        .iter()
        .filter_map(|i| match i {
            Item::Decl(d) => Some(d),
            _ => None,
        })
        .collect()
}

fn decl_shapes(src: &str) -> Vec<(String, String)> {
    let p = parse(src);
    decls(&p)
        .iter()
        .map(|d| (d.name.clone(), show(&d.ty)))
        .collect()
}

fn err_of(src: &str) -> CompileError {
    parse_program(src, &ParseOptions::default()).unwrap_err()
}

fn with_hook(names: &'static [&'static str]) -> ParseOptions {
    ParseOptions {
        pspec: false,
        type_names: Some(Arc::new(move |w: &str| names.contains(&w))),
        ..Default::default()
    }
}

/// The first statement's expression of the first clause.
fn first_expr(p: &Program) -> &Expr {
    match &clause(p, 0).body.as_ref().unwrap()[0] {
        Stmt::Expr(e) => e,
        other => panic!("not an expression: {:?}", other),
    }
}

#[test]
fn declarators_apply_in_c_order() {
    let cases: &[(&str, &str, &str)] = &[
        ("int *a[4];", "a", "int * [4]"),
        ("int (*fp)(int);", "fp", "int (int) *"),
        ("char **p;", "p", "char * *"),
        ("int m[2][3];", "m", "int [3] [2]"),
        ("int (*pa)[4];", "pa", "int [4] *"),
        ("int *(*g)(char *, ...);", "g", "int * (char *, ...) *"),
        ("const char * const cp;", "cp", "const char *const"),
        ("int (*fa[3])(void);", "fa", "int (void) * [3]"),
        ("int ((x));", "x", "int"),
        ("int *(*(*h)(int))[5];", "h", "int * [5] * (int) *"),
        ("int z[];", "z", "int []"),
        ("long unsigned int lu;", "lu", "unsigned long"),
        ("unsigned u;", "u", "unsigned int"),
        ("signed char sc;", "sc", "signed char"),
        ("short int si;", "si", "short"),
        ("long long ll;", "ll", "long long"),
        ("long double ld;", "ld", "long double"),
        ("uint64_t q;", "q", "uint64_t"),
        (
            "struct vmlinux`task_struct *t;",
            "t",
            "struct vmlinux`task_struct *",
        ),
        ("int n[4 * 2];", "n", "int [expr]"),
    ];
    for (src, name, shape) in cases {
        let got = decl_shapes(src);
        assert_eq!(got, vec![(name.to_string(), shape.to_string())], "{}", src);
    }
}

#[test]
fn declarations_give_one_item_per_declarator_with_scope_and_keys() {
    let p = parse(
        "int a, *b; self int t; this string s; extern int max_pfn;\n\
         int f(int); static int g(void);\nint aa[string, int]; int *pb[int];",
    );
    let d = decls(&p);
    let got: Vec<(&str, DeclScope, String, Option<Vec<String>>)> = d
        .iter()
        .map(|d| {
            (
                d.name.as_str(),
                d.scope,
                show(&d.ty),
                d.keys.as_ref().map(|k| k.iter().map(show).collect()),
            )
        })
        .collect();
    assert_eq!(
        got,
        vec![
            ("a", DeclScope::Global, "int".into(), None),
            ("b", DeclScope::Global, "int *".into(), None),
            ("t", DeclScope::Thread, "int".into(), None),
            ("s", DeclScope::Clause, "string".into(), None),
            ("max_pfn", DeclScope::Extern, "int".into(), None),
            ("f", DeclScope::Extern, "int (int)".into(), None),
            ("g", DeclScope::Extern, "int (void)".into(), None),
            (
                "aa",
                DeclScope::Global,
                "int".into(),
                Some(vec!["string".into(), "int".into()])
            ),
            (
                "pb",
                DeclScope::Global,
                "int *".into(),
                Some(vec!["int".into()])
            ),
        ]
    );
    assert_eq!(d[4].line, 1);
    assert_eq!(d[8].line, 3);
}

#[test]
fn parses_structs_with_bitfields_and_anonymous_unions() {
    let p = parse(
        "struct foo {\n int a : 3, : 2;\n unsigned b;\n union { int x; char *y; };\n \
         struct bar { int z; } inner, *pinner;\n};\nstruct fwd;\nunion u { long l; } uv;",
    );
    let Item::TypeDecl { ty, line: 1 } = &p.items[0] else {
        panic!("{:?}", p.items[0])
    };
    let TypeSpec::Struct {
        union: false,
        name: Some(n),
        module: None,
        members: Some(ms),
    } = &ty.spec
    else {
        panic!("{:?}", ty.spec)
    };
    assert_eq!(n, "foo");
    let summary: Vec<(Option<&str>, String, Option<u64>, u32)> = ms
        .iter()
        .map(|m| {
            (
                m.name.as_deref(),
                show(&m.ty),
                m.bits.as_ref().map(|b| match b.kind {
                    ExprKind::Int { value, .. } => value,
                    _ => panic!(),
                }),
                m.line,
            )
        })
        .collect();
    assert_eq!(
        summary,
        vec![
            (Some("a"), "int".into(), Some(3), 2),
            (None, "int".into(), Some(2), 2),
            (Some("b"), "unsigned int".into(), None, 3),
            (None, "union (anon)".into(), None, 4),
            (Some("inner"), "struct bar".into(), None, 5),
            (Some("pinner"), "struct bar *".into(), None, 5),
        ]
    );
    let TypeSpec::Struct {
        union: true,
        members: Some(um),
        ..
    } = &ms[3].ty.spec
    else {
        panic!()
    };
    assert_eq!(um.len(), 2);
    assert_eq!(show(&um[1].ty), "char *");
    assert!(matches!(
        &p.items[1],
        Item::TypeDecl { ty: TypeName { spec: TypeSpec::Struct { members: None, name: Some(n), .. }, .. }, .. } if n == "fwd"
    ));
    // A definition with a declarator declares both.
    let d = decls(&p);
    assert_eq!(d[0].name, "uv");
    assert!(
        matches!(&d[0].ty.spec, TypeSpec::Struct { union: true, members: Some(m), .. } if m.len() == 1)
    );
}

#[test]
fn parses_enums_with_values() {
    let p = parse("enum color { RED, GREEN = 5, BLUE = GREEN + 1 };\nenum color c;");
    let Item::TypeDecl { ty, .. } = &p.items[0] else {
        panic!()
    };
    let TypeSpec::Enum {
        name: Some(n),
        values: Some(v),
        ..
    } = &ty.spec
    else {
        panic!()
    };
    assert_eq!(n, "color");
    let names: Vec<_> = v
        .iter()
        .map(|e| (e.name.as_str(), e.value.is_some()))
        .collect();
    assert_eq!(names, vec![("RED", false), ("GREEN", true), ("BLUE", true)]);
    assert!(matches!(
        v[2].value.as_ref().unwrap().kind,
        ExprKind::Binary(BinOp::Add, _, _)
    ));
    assert_eq!(
        decl_shapes("enum color c;"),
        vec![("c".into(), "enum color".into())]
    );
}

#[test]
fn typedefs_name_types_for_the_rest_of_the_program() {
    let p = parse(
        "typedef int (*handler_t)(int, char *);\ntypedef unsigned long ul_t, *ulp_t;\n\
         handler_t h;\nul_t *x;\nBEGIN { y = (ulp_t)0; z = (ul_t) - 1; }",
    );
    let tds: Vec<(&str, String)> = p
        .items
        .iter()
        .filter_map(|i| match i {
            Item::Typedef { ty, name, .. } => Some((name.as_str(), show(ty))),
            _ => None,
        })
        .collect();
    assert_eq!(
        tds,
        vec![
            ("handler_t", "int (int, char *) *".into()),
            ("ul_t", "unsigned long".into()),
            ("ulp_t", "unsigned long *".into()),
        ]
    );
    assert_eq!(
        p.typedef_names().collect::<Vec<_>>(),
        vec!["handler_t", "ul_t", "ulp_t"]
    );
    let d = decls(&p);
    assert_eq!(show(&d[0].ty), "handler_t");
    assert_eq!(show(&d[1].ty), "ul_t *");
    let body = clause(&p, 0).body.as_ref().unwrap();
    let Stmt::Expr(Expr {
        kind: ExprKind::Assign(None, _, rhs),
        ..
    }) = &body[1]
    else {
        panic!()
    };
    // (ul_t) - 1 is a cast of -1, not a subtraction.
    let ExprKind::Cast(t, e) = &rhs.kind else {
        panic!("{:?}", rhs)
    };
    assert_eq!(show(t), "ul_t");
    assert!(matches!(e.kind, ExprKind::Unary(UnOp::Neg, _)));
}

#[test]
fn a_parenthesised_name_is_a_cast_only_if_it_names_a_type() {
    let rhs_of = |p: &Program| match &first_expr(p).kind {
        ExprKind::Assign(None, _, rhs) => rhs.kind.clone(),
        other => panic!("{:?}", other),
    };
    // Unknown: a parenthesised variable minus x.
    let p = parse("BEGIN { y = (foo_t) - x; }");
    assert!(matches!(rhs_of(&p), ExprKind::Binary(BinOp::Sub, _, _)));
    // Declared by the program.
    let p = parse("typedef int foo_t;\nBEGIN { y = (foo_t) - x; }");
    assert!(matches!(rhs_of(&p), ExprKind::Cast(..)));
    // Known to the hook (a kernel typedef), scoped or not.
    let opts = with_hook(&["foo_t", "vmlinux`pid_t"]);
    let p = parse_program("BEGIN { y = (foo_t) - x; }", &opts).unwrap();
    assert!(matches!(rhs_of(&p), ExprKind::Cast(..)));
    let p = parse_program("BEGIN { y = (vmlinux`pid_t *)x; }", &opts).unwrap();
    let ExprKind::Cast(t, _) = rhs_of(&p) else {
        panic!()
    };
    assert_eq!(
        t.spec,
        TypeSpec::Named {
            name: "pid_t".into(),
            module: Some("vmlinux".into())
        }
    );
    assert_eq!(show(&t), "vmlinux`pid_t *");
    // The hook is not asked about keywords, and a type name followed
    // by `=` is a variable being assigned (DTrace's rule).
    let opts = with_hook(&["foo_t", "sizeof", "if"]);
    let p = parse_program("BEGIN { y = (foo_t = 3); }", &opts).unwrap();
    assert!(matches!(rhs_of(&p), ExprKind::Assign(..)));
    let p = parse_program("BEGIN { y = sizeof (x); }", &opts).unwrap();
    assert!(matches!(rhs_of(&p), ExprKind::SizeofExpr(_)));
    // A kernel typedef starts an outer-level declaration, but not a
    // probe description with a colon.
    let p = parse_program("foo_t v;\nfoo_t:::entry { }", &opts).unwrap();
    assert_eq!(decls(&p)[0].name, "v");
    assert_eq!(clause(&p, 0).probes[0].text, "foo_t:::entry");
    // A variable may take a type's name once the type is complete.
    assert_eq!(
        decl_shapes("int pid_t;"),
        vec![("pid_t".into(), "int".into())]
    );
}

#[test]
fn parses_abstract_declarators_in_casts_and_sizeof() {
    let cases: &[(&str, &str)] = &[
        ("(int *)x", "int *"),
        ("(char (*)[4])x", "char [4] *"),
        ("(int (*)(int, long))x", "int (int, long) *"),
        ("(const unsigned char **)x", "const unsigned char * *"),
        (
            "(struct vmlinux`task_struct *)x",
            "struct vmlinux`task_struct *",
        ),
        ("(union u)x", "union u"),
        ("(enum e)x", "enum e"),
        ("(void (*[2])(void))x", "void (void) * [2]"),
        ("(string)x", "string"),
    ];
    for (src, shape) in cases {
        let p = parse(&format!("BEGIN {{ {}; }}", src));
        let ExprKind::Cast(t, _) = &first_expr(&p).kind else {
            panic!("{}: {:?}", src, first_expr(&p))
        };
        assert_eq!(show(t), *shape, "{}", src);
    }
    let p = parse("BEGIN { sizeof (struct foo); }");
    let ExprKind::SizeofType(t) = &first_expr(&p).kind else {
        panic!()
    };
    assert_eq!(show(t), "struct foo");
    // Inside a predicate, a division in an array size is not its end.
    let p = parse("BEGIN /sizeof (char [8 / 2]) == 4/ { }");
    assert!(clause(&p, 0).predicate.is_some());
}

#[test]
fn parses_inline_definitions() {
    let p = parse("inline int NCPUS = 2;\ninline string s = \"x\";\ninline char *p = (char *)0;");
    let got: Vec<(&str, String, u32)> = p
        .items
        .iter()
        .map(|i| match i {
            Item::Inline { ty, name, line, .. } => (name.as_str(), show(ty), *line),
            other => panic!("{:?}", other),
        })
        .collect();
    assert_eq!(
        got,
        vec![
            ("NCPUS", "int".into(), 1),
            ("s", "string".into(), 2),
            ("p", "char *".into(), 3)
        ]
    );
    let Item::Inline { value, .. } = &p.items[0] else {
        panic!()
    };
    assert!(matches!(value.kind, ExprKind::Int { value: 2, .. }));
}

#[test]
fn parses_translators() {
    let opts = with_hook(&["psinfo_t"]);
    let p = parse_program(
        "translator psinfo_t < struct task_struct *T > {\n pr_pid = T->tgid;\n pr_fname = stringof(T->comm);\n};\n\
         translator psinfo_t < int I > { };",
        &opts,
    )
    .unwrap();
    let Item::Translator {
        to,
        from,
        param,
        members,
        line: 1,
        ..
    } = &p.items[0]
    else {
        panic!("{:?}", p.items[0])
    };
    assert_eq!(show(to), "psinfo_t");
    assert_eq!(show(from), "struct task_struct *");
    assert_eq!(param, "T");
    let ms: Vec<(&str, u32)> = members.iter().map(|(n, _, l)| (n.as_str(), *l)).collect();
    assert_eq!(ms, vec![("pr_pid", 2), ("pr_fname", 3)]);
    assert!(matches!(members[0].1.kind, ExprKind::Arrow(_, ref m) if m == "tgid"));
    assert!(matches!(&p.items[1], Item::Translator { members, .. } if members.is_empty()));
}

#[test]
fn parses_offsetof_xlate_and_backquoted_symbols() {
    let opts = with_hook(&["psinfo_t"]);
    let p = parse_program(
        "BEGIN { offsetof(struct foo, a.b); xlate<psinfo_t *>(curthread)->pr_pid; \
         `max_pfn + vmlinux`jiffies; }",
        &opts,
    )
    .unwrap();
    let body = clause(&p, 0).body.as_ref().unwrap();
    let Stmt::Expr(Expr {
        kind: ExprKind::Offsetof(t, path),
        ..
    }) = &body[0]
    else {
        panic!("{:?}", body[0])
    };
    assert_eq!(show(t), "struct foo");
    assert_eq!(path, &vec!["a".to_string(), "b".to_string()]);
    let Stmt::Expr(Expr {
        kind: ExprKind::Arrow(x, m),
        ..
    }) = &body[1]
    else {
        panic!("{:?}", body[1])
    };
    assert_eq!(m, "pr_pid");
    let ExprKind::Xlate(t, e) = &x.kind else {
        panic!()
    };
    assert_eq!(show(t), "psinfo_t *");
    assert!(matches!(&e.kind, ExprKind::Ident(n) if n == "curthread"));
    let Stmt::Expr(Expr {
        kind: ExprKind::Binary(BinOp::Add, a, b),
        ..
    }) = &body[2]
    else {
        panic!()
    };
    assert_eq!(
        a.kind,
        ExprKind::Symbol {
            module: None,
            name: "max_pfn".into()
        }
    );
    assert_eq!(
        b.kind,
        ExprKind::Symbol {
            module: Some("vmlinux".into()),
            name: "jiffies".into()
        }
    );
}

#[test]
fn malformed_declarations_are_refused_in_dtrace_words() {
    let cases: &[(&str, Tag, &str)] = &[
        ("int int x;", Tag::D_DECL_COMBO, "invalid type combination"),
        ("struct s int x;", Tag::D_DECL_COMBO, "invalid type combination"),
        (
            "long long long x;",
            Tag::D_DECL_COMBO,
            "the attribute 'long' may only be used at most twice in a declaration",
        ),
        (
            "short short x;",
            Tag::D_DECL_COMBO,
            "the attribute 'short' may only be used at most once in a declaration",
        ),
        (
            "static int x;",
            Tag::D_DECL_BADCLASS,
            "specified storage class not appropriate in D",
        ),
        (
            "self static int x;",
            Tag::D_DECL_CLASS,
            "only one storage class allowed in a declaration",
        ),
        (
            "char long c;",
            Tag::D_DECL_CHARATTR,
            "invalid type declaration: short and long may not be used with char type",
        ),
        (
            "unsigned void v;",
            Tag::D_DECL_VOIDATTR,
            "invalid type declaration: attributes may not be used with void type",
        ),
        (
            "unsigned string s;",
            Tag::D_DECL_SIGNINT,
            "invalid type declaration: signed and unsigned may only be used with integer type",
        ),
        (
            "long struct s x;",
            Tag::D_DECL_LONGINT,
            "invalid type declaration: long and long long may only be used with integer or floating-point type",
        ),
        ("int;", Tag::D_DECL_USELESS, "useless declaration"),
        ("extern int;", Tag::D_DECL_USELESS, "useless declaration"),
        (
            "struct s { int; };",
            Tag::D_DECL_MNAME,
            "member declaration requires a name",
        ),
        (
            "int a[4][string];",
            Tag::D_DECL_DYNOBJ,
            "cannot declare array of associative arrays",
        ),
        (
            "int vmlinux`x;",
            Tag::D_DECL_SCOPE,
            "D scoping operator may not be used in a declaration name (vmlinux`x)",
        ),
        (
            "struct s { int a`b; };",
            Tag::D_DECL_SCOPE,
            "D scoping operator may not be used in a member name (a`b)",
        ),
        (
            "int f(static int);",
            Tag::D_DECL_PARMCLASS,
            "inappropriate storage class for function or associative array parameter",
        ),
        (
            "typedef int a_t;\ntypedef int a_t;",
            Tag::D_DECL_IDRED,
            "typedef redeclared: a_t",
        ),
        ("struct s { };", Tag::D_SYNTAX, "syntax error near \"}\""),
        ("enum e { A, };", Tag::D_SYNTAX, "syntax error near \"}\""),
        ("struct;", Tag::D_SYNTAX, "syntax error near \";\""),
        ("int x = 1;", Tag::D_SYNTAX, "syntax error near \"=\""),
        ("int *;", Tag::D_SYNTAX, "syntax error near \";\""),
        ("int (x;", Tag::D_SYNTAX, "syntax error near \";\""),
        ("typedef int t[string];", Tag::D_SYNTAX, "syntax error near \"[\""),
        ("inline int = 3;", Tag::D_SYNTAX, "syntax error near \"=\""),
        ("inline int x;", Tag::D_SYNTAX, "syntax error near \";\""),
        ("translator int < int > { };", Tag::D_SYNTAX, "syntax error near \">\""),
        // At an identifier, the rest of its line (DTrace's lexer leaves it
        // in the identifier's text).
        ("BEGIN { (int *x; }", Tag::D_SYNTAX, "syntax error near \"x; }\""),
        ("BEGIN { xlate<int>(x; }", Tag::D_SYNTAX, "syntax error near \";\""),
        ("BEGIN { offsetof(struct foo); }", Tag::D_SYNTAX, "syntax error near \")\""),
        (
            "BEGIN { self->a`b = 1; }",
            Tag::D_SYNTAX,
            "syntax error near \"a`b = 1; }\"",
        ),
    ];
    for (src, tag, msg) in cases {
        let e = err_of(src);
        assert_eq!((e.tag, e.msg.as_str()), (*tag, *msg), "{}", src);
    }
    assert_eq!(err_of("\n\nint int x;").line, Some(3));
}

#[test]
fn deep_declarators_and_structs_are_bounded() {
    crate::on_compile_stack(deep_declarators_and_structs);
}

fn deep_declarators_and_structs() {
    let n = 6000;
    let src = format!("int {}x{};", "(".repeat(n), ")".repeat(n));
    let e = err_of(&src);
    assert!(e.msg.starts_with("program too complex"), "{}", e.msg);
    let src = format!("{}int a;{}", "struct { ".repeat(n), " } m;".repeat(n));
    let e = err_of(&src);
    assert!(e.msg.starts_with("program too complex"), "{}", e.msg);
    // Every derivation makes the type one level deeper.
    let src = format!("int x{};", "[1]".repeat(20_000));
    assert!(err_of(&src).msg.starts_with("program too complex"));
    let src = format!("BEGIN {{ (int {}){}0; }}", "*".repeat(20_000), "");
    assert!(parse_program(&src, &ParseOptions::default()).is_err());
    let src = format!("BEGIN {{ (int {}){}0; }}", "*".repeat(5_000), "");
    assert!(parse_program(&src, &ParseOptions::default()).is_ok());
}

#[test]
fn standalone_type_names() {
    let any = ParseOptions {
        pspec: false,
        type_names: Some(Arc::new(|_: &str| true)),
        ..Default::default()
    };
    let shown =
        |t: &str| show(&parse_type_name(t, &any).unwrap_or_else(|e| panic!("{}: {}", t, e)));
    assert_eq!(shown("const char *"), "const char *");
    assert_eq!(shown("umode_t"), "umode_t");
    assert_eq!(shown("unsigned long"), "unsigned long");
    assert_eq!(shown("struct stat *"), "struct stat *");
    assert_eq!(shown("const char *const *"), "const char *const *");
    for bad in ["int x", "char *)", "", "int; int"] {
        assert!(parse_type_name(bad, &any).is_err(), "{}", bad);
    }
    // Without the hook an unknown name is not a type.
    assert!(parse_type_name("umode_t", &ParseOptions::default()).is_err());
}

#[test]
fn huge_programs_are_refused_as_they_are_parsed() {
    // Two million terms: the chain is refused at MAX_DEPTH terms, not
    // after a tree of millions of nodes is built.
    let src = format!("BEGIN {{ trace({}); }}", vec!["1"; 2_000_000].join("+"));
    let e = err_of(&src);
    assert!(e.msg.contains("levels deep"), "{}", e.msg);
    // Flat, but more statements than any program can be.
    let src = format!("BEGIN {{ {} }}", "x = 1; ".repeat(400_000));
    let e = err_of(&src);
    assert!(
        e.msg.contains("operands, operators and statements"),
        "{}",
        e.msg
    );
    // A long program within the bounds still parses.
    let src = format!("BEGIN {{ {} }}", "x = 1; ".repeat(10_000));
    assert_eq!(parse(&src).items.len(), 1);
}
