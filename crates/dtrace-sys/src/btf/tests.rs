use super::*;

// Kind numbers, as in the kernel's btf.h.
const INT: u32 = 1;
const PTR: u32 = 2;
const ARRAY: u32 = 3;
const STRUCT: u32 = 4;
const UNION: u32 = 5;
const ENUM: u32 = 6;
const FWD: u32 = 7;
const TYPEDEF: u32 = 8;
const VOLATILE: u32 = 9;
const CONST: u32 = 10;
const RESTRICT: u32 = 11;
const FUNC: u32 = 12;
const FUNC_PROTO: u32 = 13;
const VAR: u32 = 14;
const DATASEC: u32 = 15;
const FLOAT: u32 = 16;
const DECL_TAG: u32 = 17;
const TYPE_TAG: u32 = 18;
const ENUM64: u32 = 19;

/// Builds BTF blobs by hand: type records and a string section.
struct B {
    t: Vec<u8>,
    s: Vec<u8>,
    str_base: u32,
    next_id: u32,
}

impl B {
    fn new() -> B {
        B {
            t: Vec::new(),
            s: vec![0],
            str_base: 0,
            next_id: 1,
        }
    }

    /// Split BTF over `base`: no leading empty string of its own.
    fn split(base: &Btf) -> B {
        B {
            t: Vec::new(),
            s: Vec::new(),
            str_base: base.str_end(),
            next_id: base.type_count(),
        }
    }

    fn s(&mut self, name: &str) -> u32 {
        if name.is_empty() {
            return 0;
        }
        let off = self.str_base + self.s.len() as u32;
        self.s.extend_from_slice(name.as_bytes());
        self.s.push(0);
        off
    }

    fn w(&mut self, v: u32) -> &mut Self {
        self.t.extend_from_slice(&v.to_le_bytes());
        self
    }

    /// Starts a type record; returns its id.
    fn ty(&mut self, name: &str, kind: u32, vlen: u32, kflag: bool, st: u32) -> u32 {
        let n = self.s(name);
        self.w(n).w((kflag as u32) << 31 | kind << 24 | vlen).w(st);
        self.next_id += 1;
        self.next_id - 1
    }

    fn int(&mut self, name: &str, size: u32, enc: u32, bits: u32) -> u32 {
        let id = self.ty(name, INT, 0, false, size);
        self.w(enc << 24 | bits);
        id
    }

    fn member(&mut self, name: &str, ty: u32, off: u32) {
        let n = self.s(name);
        self.w(n).w(ty).w(off);
    }

    fn blob(&self) -> Vec<u8> {
        let mut out = Vec::new();
        out.extend_from_slice(&BTF_MAGIC.to_le_bytes());
        out.extend_from_slice(&[1, 0]);
        for v in [
            24u32,
            0,
            self.t.len() as u32,
            self.t.len() as u32,
            self.s.len() as u32,
        ] {
            out.extend_from_slice(&v.to_le_bytes());
        }
        out.extend_from_slice(&self.t);
        out.extend_from_slice(&self.s);
        out
    }
}

/// A blob with every kind. Returns it and the ids by name.
fn every_kind() -> (Vec<u8>, HashMap<&'static str, u32>) {
    let mut b = B::new();
    let mut ids = HashMap::new();
    ids.insert("int", b.int("int", 4, 1, 32));
    ids.insert("char", b.int("char", 1, 2, 8));
    ids.insert("_Bool", b.int("_Bool", 1, 4, 1));
    ids.insert("unsigned int", b.int("unsigned int", 4, 0, 32));
    ids.insert("u64", b.int("long long unsigned int", 8, 0, 64));
    // An old-style bitfield int: 3 bits at offset 5.
    let oddbits = b.ty("oddbits", INT, 0, false, 1);
    b.w(5 << 16 | 3);
    ids.insert("oddbits", oddbits);
    ids.insert("double", b.ty("double", FLOAT, 0, false, 8));
    ids.insert("ptr", b.ty("", PTR, 0, false, 0));
    let int = ids["int"];
    ids.insert("pid_t", b.ty("pid_t", TYPEDEF, 0, false, int));
    ids.insert("const", b.ty("", CONST, 0, false, ids["pid_t"]));
    ids.insert("volatile", b.ty("", VOLATILE, 0, false, ids["const"]));
    ids.insert("restrict", b.ty("", RESTRICT, 0, false, ids["volatile"]));
    ids.insert("tag", b.ty("user", TYPE_TAG, 0, false, ids["restrict"]));
    ids.insert("fwd_s", b.ty("opaque", FWD, 0, false, 0));
    ids.insert("fwd_u", b.ty("uopaque", FWD, 0, true, 0));
    let arr = b.ty("", ARRAY, 0, false, 0);
    b.w(ids["char"]).w(int).w(16);
    ids.insert("char[16]", arr);
    // struct task { char comm[16]; pid_t pid; unsigned int a:3, b:5;
    //               union { int u1; unsigned int u2; }; struct task *next; }
    let task = b.ty("task", STRUCT, 6, true, 40);
    ids.insert("task", task);
    let anon_union = task + 1;
    let ptr_task = task + 2;
    b.member("comm", arr, 0);
    b.member("pid", ids["pid_t"], 128);
    b.member("a", ids["unsigned int"], 3 << 24 | 160);
    b.member("b", ids["unsigned int"], 5 << 24 | 163);
    b.member("", anon_union, 192);
    b.member("next", ptr_task, 256);
    let u = b.ty("", UNION, 2, false, 4);
    assert_eq!(u, anon_union);
    b.member("u1", int, 0);
    b.member("u2", ids["unsigned int"], 0);
    let p = b.ty("", PTR, 0, false, task);
    assert_eq!(p, ptr_task);
    ids.insert("union", u);
    let e = b.ty("state", ENUM, 2, true, 4);
    let n = b.s("RUNNING");
    b.w(n).w(0);
    let n = b.s("DEAD");
    b.w(n).w(-1i32 as u32);
    ids.insert("state", e);
    let e = b.ty("flags", ENUM, 1, false, 4);
    let n = b.s("BIG");
    b.w(n).w(0xffff_fff0);
    ids.insert("flags", e);
    let e = b.ty("wide", ENUM64, 2, false, 8);
    let n = b.s("HUGE");
    b.w(n).w(1).w(0xffff_ffff);
    let n = b.s("SMALL");
    b.w(n).w(2).w(0);
    ids.insert("wide", e);
    let e = b.ty("swide", ENUM64, 1, true, 8);
    let n = b.s("NEG");
    b.w(n).w(0xffff_fffe).w(0xffff_ffff);
    ids.insert("swide", e);
    // int printk(const char *fmt, ...)
    let pc = b.ty("", PTR, 0, false, ids["char"]);
    let proto = b.ty("", FUNC_PROTO, 2, false, int);
    let n = b.s("fmt");
    b.w(n).w(pc).w(0).w(0);
    ids.insert("proto", proto);
    ids.insert("printk", b.ty("printk", FUNC, 1, false, proto));
    let proto0 = b.ty("", FUNC_PROTO, 0, false, 0);
    ids.insert("proto0", proto0);
    ids.insert("idle", b.ty("idle", FUNC, 0, false, proto0));
    let var = b.ty("runqueues", VAR, 0, false, task);
    b.w(1);
    ids.insert("runqueues", var);
    let var2 = b.ty("jiffies", VAR, 0, false, ids["u64"]);
    b.w(0);
    ids.insert("jiffies", var2);
    let ds = b.ty(".data..percpu", DATASEC, 2, false, 4096);
    b.w(var2).w(8).w(8).w(var).w(64).w(40);
    ids.insert("datasec", ds);
    let dt = b.ty("kfunc", DECL_TAG, 0, false, ids["printk"]);
    b.w(-1i32 as u32);
    ids.insert("decl_tag", dt);
    let dt = b.ty("member_tag", DECL_TAG, 0, false, task);
    b.w(1);
    ids.insert("decl_tag1", dt);
    (b.blob(), ids)
}

#[test]
fn decodes_every_kind() {
    let (blob, ids) = every_kind();
    let btf = Btf::parse(&blob).unwrap();
    let data = |n: &str| btf.get(ids[n]).unwrap().data.clone();
    assert_eq!(btf.get(0).unwrap().data, TypeData::Void);
    assert_eq!(
        data("int"),
        TypeData::Int {
            size: 4,
            encoding: IntEncoding {
                signed: true,
                ..Default::default()
            },
            bit_offset: 0,
            bits: 32
        }
    );
    assert!(matches!(
        data("char"),
        TypeData::Int {
            encoding: IntEncoding {
                char: true,
                signed: false,
                ..
            },
            bits: 8,
            size: 1,
            ..
        }
    ));
    assert!(matches!(
        data("_Bool"),
        TypeData::Int {
            encoding: IntEncoding { bool: true, .. },
            bits: 1,
            ..
        }
    ));
    assert!(matches!(
        data("oddbits"),
        TypeData::Int {
            bit_offset: 5,
            bits: 3,
            size: 1,
            ..
        }
    ));
    assert_eq!(data("double"), TypeData::Float { size: 8 });
    assert_eq!(data("ptr"), TypeData::Ptr(0));
    assert_eq!(data("pid_t"), TypeData::Typedef(ids["int"]));
    assert_eq!(data("const"), TypeData::Const(ids["pid_t"]));
    assert_eq!(data("volatile"), TypeData::Volatile(ids["const"]));
    assert_eq!(data("restrict"), TypeData::Restrict(ids["volatile"]));
    assert_eq!(data("tag"), TypeData::TypeTag(ids["restrict"]));
    assert_eq!(btf.type_name(ids["tag"]), "user");
    assert_eq!(data("fwd_s"), TypeData::Fwd { union: false });
    assert_eq!(data("fwd_u"), TypeData::Fwd { union: true });
    assert_eq!(
        data("char[16]"),
        TypeData::Array {
            elem: ids["char"],
            index: ids["int"],
            nelems: 16
        }
    );
    let TypeData::Struct { size, members } = data("task") else {
        panic!("not a struct")
    };
    assert_eq!(size, 40);
    let names: Vec<_> = members.iter().map(|m| btf.str(m.name)).collect();
    assert_eq!(names, ["comm", "pid", "a", "b", "", "next"]);
    assert_eq!((members[2].bit_offset, members[2].bitfield_size), (160, 3));
    assert_eq!((members[3].bit_offset, members[3].bitfield_size), (163, 5));
    assert_eq!((members[1].bit_offset, members[1].bitfield_size), (128, 0));
    assert_eq!(btf.kind(ids["union"]), Some(Kind::Union));
    assert_eq!(btf.get(ids["union"]).unwrap().members().len(), 2);
    let TypeData::Enum {
        size,
        signed,
        wide,
        values,
    } = data("state")
    else {
        panic!()
    };
    assert_eq!((size, signed, wide), (4, true, false));
    assert_eq!(
        values
            .iter()
            .map(|v| (btf.str(v.name), v.value))
            .collect::<Vec<_>>(),
        [("RUNNING", 0), ("DEAD", -1)]
    );
    let TypeData::Enum { signed, values, .. } = data("flags") else {
        panic!()
    };
    assert!(!signed);
    assert_eq!(values[0].value, 0xffff_fff0);
    let TypeData::Enum {
        size,
        wide,
        signed,
        values,
    } = data("wide")
    else {
        panic!()
    };
    assert_eq!((size, wide, signed), (8, true, false));
    assert_eq!(values[0].value, 0xffff_ffff_0000_0001);
    assert_eq!(values[1].value, 2);
    assert_eq!(btf.kind(ids["wide"]), Some(Kind::Enum64));
    let TypeData::Enum { values, .. } = data("swide") else {
        panic!()
    };
    assert_eq!(values[0].value, -2);
    let TypeData::FuncProto {
        ret,
        params,
        variadic,
    } = data("proto")
    else {
        panic!()
    };
    assert_eq!(ret, ids["int"]);
    assert!(variadic);
    assert_eq!(params.len(), 1);
    assert_eq!(btf.str(params[0].name), "fmt");
    assert_eq!(btf.kind(params[0].ty), Some(Kind::Ptr));
    assert_eq!(
        data("proto0"),
        TypeData::FuncProto {
            ret: 0,
            params: vec![],
            variadic: false
        }
    );
    assert_eq!(
        data("printk"),
        TypeData::Func {
            proto: ids["proto"],
            linkage: Linkage::Global
        }
    );
    assert_eq!(
        data("idle"),
        TypeData::Func {
            proto: ids["proto0"],
            linkage: Linkage::Static
        }
    );
    assert_eq!(
        data("runqueues"),
        TypeData::Var {
            ty: ids["task"],
            linkage: Linkage::Global
        }
    );
    assert_eq!(
        data("jiffies"),
        TypeData::Var {
            ty: ids["u64"],
            linkage: Linkage::Static
        }
    );
    let TypeData::Datasec { size, vars } = data("datasec") else {
        panic!()
    };
    assert_eq!(size, 4096);
    assert_eq!(
        vars[1],
        VarSecInfo {
            ty: ids["runqueues"],
            offset: 64,
            size: 40
        }
    );
    assert_eq!(
        data("decl_tag"),
        TypeData::DeclTag {
            ty: ids["printk"],
            component_idx: -1
        }
    );
    assert_eq!(
        data("decl_tag1"),
        TypeData::DeclTag {
            ty: ids["task"],
            component_idx: 1
        }
    );
    let counts = kind_counts(&btf);
    for k in [
        Kind::Void,
        Kind::Int,
        Kind::Ptr,
        Kind::Array,
        Kind::Struct,
        Kind::Union,
        Kind::Enum,
        Kind::Fwd,
        Kind::Typedef,
        Kind::Volatile,
        Kind::Const,
        Kind::Restrict,
        Kind::Func,
        Kind::FuncProto,
        Kind::Var,
        Kind::Datasec,
        Kind::Float,
        Kind::DeclTag,
        Kind::TypeTag,
        Kind::Enum64,
    ] {
        assert!(counts.contains_key(&k), "{:?} missing", k);
    }
}

#[test]
fn lookups_by_name_and_kind() {
    let (blob, ids) = every_kind();
    let btf = Btf::parse(&blob).unwrap();
    assert_eq!(btf.find_struct("task"), Some(ids["task"]));
    assert_eq!(btf.find("task", Kind::Struct), Some(ids["task"]));
    assert_eq!(btf.find("task", Kind::Union), None);
    assert_eq!(btf.find("opaque", Kind::Fwd), Some(ids["fwd_s"]));
    assert_eq!(btf.find_struct("opaque"), None);
    assert_eq!(btf.find_enum("state"), Some(ids["state"]));
    assert_eq!(btf.find_enum("wide"), Some(ids["wide"]));
    assert_eq!(btf.find_typedef("pid_t"), Some(ids["pid_t"]));
    assert_eq!(btf.find_int("unsigned int"), Some(ids["unsigned int"]));
    assert_eq!(btf.find_var("runqueues"), Some(ids["runqueues"]));
    assert_eq!(btf.find_func("printk"), Some(ids["printk"]));
    assert_eq!(btf.find_func("nothing"), None);
    assert_eq!(btf.find_all("task"), vec![ids["task"]]);
    assert_eq!(btf.find_all(""), Vec::<u32>::new());
    assert_eq!(btf.find_enumerator("DEAD"), Some((ids["state"], -1)));
    assert_eq!(
        btf.find_enumerator("HUGE"),
        Some((ids["wide"], 0xffff_ffff_0000_0001))
    );
    assert_eq!(btf.find_enumerator("task"), None);
    let (sec, info) = btf.var_section(ids["runqueues"]).unwrap();
    assert_eq!(btf.type_name(sec), ".data..percpu");
    assert_eq!(info.offset, 64);
    assert_eq!(btf.var_section(ids["task"]), None);
}

#[test]
fn resolve_size_and_members() {
    let (blob, ids) = every_kind();
    let btf = Btf::parse(&blob).unwrap();
    assert_eq!(btf.resolve(ids["tag"]), Some(ids["int"]));
    assert_eq!(btf.resolve(ids["task"]), Some(ids["task"]));
    assert_eq!(btf.resolve(9999), None);
    assert_eq!(btf.size_of(ids["tag"]), Some(4));
    assert_eq!(btf.size_of(ids["char[16]"]), Some(16));
    assert_eq!(btf.size_of(ids["task"]), Some(40));
    assert_eq!(btf.size_of(ids["ptr"]), Some(8));
    assert_eq!(btf.size_of(ids["double"]), Some(8));
    assert_eq!(btf.size_of(ids["wide"]), Some(8));
    assert_eq!(btf.size_of(ids["runqueues"]), Some(40));
    assert_eq!(btf.size_of(ids["datasec"]), Some(4096));
    for unsized_ in ["fwd_s", "printk", "proto"] {
        assert_eq!(btf.size_of(ids[unsized_]), None, "{}", unsized_);
    }
    assert_eq!(btf.size_of(0), None);
    let task = ids["task"];
    let m = btf.member(task, "comm").unwrap();
    assert_eq!((m.bit_offset, m.ty), (0, ids["char[16]"]));
    let m = btf.member(task, "b").unwrap();
    assert_eq!(
        (m.bit_offset, m.bitfield_size, m.byte_offset()),
        (163, 5, 20)
    );
    // Through the anonymous union, and through a typedef'd struct id.
    let m = btf.member(task, "u2").unwrap();
    assert_eq!((m.bit_offset, m.ty), (192, ids["unsigned int"]));
    assert_eq!(btf.member(task, "nope"), None);
    assert_eq!(btf.member(ids["int"], "x"), None);
    assert_eq!(btf.member_path("task", "pid"), Some((16, ids["pid_t"])));
    assert_eq!(btf.member_path("task", "u1"), Some((24, ids["int"])));
}

#[test]
fn sizes_that_overflow_or_cycle_are_none() {
    let mut b = B::new();
    let int = b.int("int", 4, 1, 32);
    let big = b.ty("", ARRAY, 0, false, 0);
    b.w(int).w(int).w(u32::MAX);
    let bigger = b.ty("", ARRAY, 0, false, 0);
    b.w(big).w(int).w(1 << 30);
    let huge = b.ty("", ARRAY, 0, false, 0);
    b.w(bigger).w(int).w(u32::MAX);
    // An array of itself, and two typedefs of each other.
    let selfish = b.ty("", ARRAY, 0, false, 0);
    b.w(selfish).w(int).w(2);
    let t1 = b.ty("t1", TYPEDEF, 0, false, 0);
    b.ty("t2", TYPEDEF, 0, false, t1);
    // Patch t1 to point at t2: records are 12 bytes, t1 the 6th type.
    let btf0 = Btf::parse(&b.blob()).unwrap();
    assert_eq!(btf0.size_of(big), Some(4 * u32::MAX as u64));
    assert_eq!(btf0.size_of(bigger), Some((4 * u32::MAX as u64) << 30));
    assert_eq!(btf0.size_of(huge), None);
    assert_eq!(btf0.size_of(selfish), None);
    let mut blob = b.blob();
    let t1_rec = 24 + 16 + 4 * 24;
    assert_eq!(
        &blob[t1_rec + 4..t1_rec + 8],
        &((TYPEDEF << 24).to_le_bytes())
    );
    blob[t1_rec + 8..t1_rec + 12].copy_from_slice(&(t1 + 1).to_le_bytes());
    let btf = Btf::parse(&blob).unwrap();
    assert_eq!(btf.resolve(t1), None);
    assert_eq!(btf.size_of(t1), None);
    assert_eq!(btf.member(t1, "x"), None);
}

/// Builds a small struct for the split tests.
fn base_blob() -> Vec<u8> {
    let mut b = B::new();
    let int = b.int("int", 4, 1, 32);
    let s = b.ty("list_head", STRUCT, 1, false, 8);
    b.member("next", int, 0);
    let _ = s;
    b.ty("shared", STRUCT, 0, false, 0);
    b.blob()
}

fn module_blob(base: &Btf) -> (Vec<u8>, u32) {
    let mut b = B::split(base);
    let int = base.find_int("int").unwrap();
    let lh = base.find_struct("list_head").unwrap();
    // struct mod_state { int x; struct list_head list; int flag:1; }
    let ms = b.ty("mod_state", STRUCT, 3, true, 16);
    b.member("x", int, 0);
    b.member("list", lh, 32);
    b.member("flag", int, 1 << 24 | 96);
    // A module struct of the same name as a base one.
    b.ty("shared", STRUCT, 0, false, 4);
    // A name taken from the base's strings: "int" as a typedef name.
    let n = base.find_all("int");
    assert_eq!(n.len(), 1);
    let name_off = base.get(n[0]).unwrap().name.offset();
    b.w(name_off).w(TYPEDEF << 24).w(int);
    b.next_id += 1;
    (b.blob(), ms)
}

#[test]
fn split_btf_continues_the_base() {
    let base = Arc::new(Btf::parse(&base_blob()).unwrap());
    assert_eq!(base.type_count(), 4);
    let (blob, ms) = module_blob(&base);
    assert_eq!(ms, 4);
    let m = Btf::parse_split(&blob, base.clone()).unwrap();
    assert_eq!(m.first_id(), 4);
    assert_eq!(m.type_count(), 7);
    assert_eq!(m.find_struct("mod_state"), Some(4));
    assert_eq!(m.find_struct("list_head"), Some(2));
    assert_eq!(m.type_name(2), "list_head");
    // Own before base.
    assert_eq!(m.find_all("shared"), vec![5, 3]);
    assert_eq!(m.find_struct("shared"), Some(5));
    assert_eq!(m.find_typedef("int"), Some(6));
    assert_eq!(m.find_int("int"), Some(1));
    let f = m.member(4, "flag").unwrap();
    assert_eq!((f.bit_offset, f.bitfield_size), (96, 1));
    assert_eq!(m.member_path("mod_state", "list.next"), Some((4, 1)));
    assert_eq!(m.size_of(6), Some(4));
    // The base alone knows nothing of the module.
    assert_eq!(base.find_struct("mod_state"), None);
    assert!(base.get(4).is_none());
    // The split blob is not base BTF on its own (no leading empty name,
    // ids beyond its own).
    assert!(Btf::parse(&blob).is_err());
}

#[test]
fn split_btf_refuses_ids_and_names_beyond_the_combined_space() {
    let base = Arc::new(Btf::parse(&base_blob()).unwrap());
    let mut b = B::split(&base);
    b.ty("p", PTR, 0, false, 9);
    assert!(Btf::parse_split(&b.blob(), base.clone()).is_err());
    let mut b = B::split(&base);
    b.ty("", PTR, 0, false, 1);
    let end = base.str_end();
    b.t[0..4].copy_from_slice(&(end + 100).to_le_bytes());
    assert!(Btf::parse_split(&b.blob(), base.clone()).is_err());
    // An offset into the middle of a base string is a name (C strings
    // share tails), but past the base's end without module strings it is
    // out of range.
    let mut b = B::split(&base);
    b.ty("", PTR, 0, false, 1);
    b.t[0..4].copy_from_slice(&2u32.to_le_bytes());
    let m = Btf::parse_split(&b.blob(), base.clone()).unwrap();
    assert_eq!(m.type_name(4), "nt");
}

fn temp_dir(tag: &str) -> PathBuf {
    let d = std::env::temp_dir().join(format!("dtrace-btf-{}-{}", tag, std::process::id()));
    let _ = std::fs::remove_dir_all(&d);
    std::fs::create_dir_all(&d).unwrap();
    d
}

#[test]
fn kernel_types_load_modules_on_demand() {
    let dir = temp_dir("kt");
    std::fs::write(dir.join("vmlinux"), base_blob()).unwrap();
    let base = Btf::parse(&base_blob()).unwrap();
    let (blob, ms) = module_blob(&base);
    std::fs::write(dir.join("good"), &blob).unwrap();
    std::fs::write(dir.join("broken"), b"not btf").unwrap();
    let kt = KernelTypes::load_from(&dir).unwrap();
    assert_eq!(kt.modules().collect::<Vec<_>>(), ["broken", "good"]);
    assert_eq!(kt.module_index("vmlinux"), Some(0));
    assert_eq!(kt.module_index("good"), Some(2));
    assert_eq!(kt.module_index("absent"), None);
    // Nothing parsed yet.
    assert!(kt.module_list().iter().all(|m| m.btf.get().is_none()));
    // Found in vmlinux without touching modules.
    assert_eq!(
        kt.find(None, "list_head", Kind::Struct).unwrap(),
        Some(TypeRef { btf: 0, id: 2 })
    );
    assert!(kt.module_list().iter().all(|m| m.btf.get().is_none()));
    // Found in a module: the broken one is passed over.
    let r = kt.find(None, "mod_state", Kind::Struct).unwrap().unwrap();
    assert_eq!(r, TypeRef { btf: 2, id: ms });
    assert_eq!(kt.btf(r.btf).unwrap().type_name(r.id), "mod_state");
    assert_eq!(kt.get(r).unwrap().kind(), Kind::Struct);
    // A module-scoped lookup of a vmlinux type gives a canonical ref.
    assert_eq!(
        kt.find(Some("good"), "list_head", Kind::Struct).unwrap(),
        Some(TypeRef { btf: 0, id: 2 })
    );
    assert_eq!(
        kt.find(Some("good"), "shared", Kind::Struct).unwrap(),
        Some(TypeRef { btf: 2, id: 5 })
    );
    assert_eq!(
        kt.find(None, "shared", Kind::Struct).unwrap(),
        Some(TypeRef { btf: 0, id: 3 })
    );
    assert_eq!(
        kt.find(Some("vmlinux"), "mod_state", Kind::Struct).unwrap(),
        None
    );
    assert!(kt.find(Some("broken"), "x", Kind::Struct).is_err());
    assert_eq!(
        kt.find(Some("absent"), "x", Kind::Struct)
            .unwrap_err()
            .kind(),
        io::ErrorKind::NotFound
    );
    assert!(kt.find(Some("../etc"), "x", Kind::Struct).is_err());
    assert_eq!(kt.find(None, "nowhere", Kind::Struct).unwrap(), None);
    assert_eq!(
        kt.canonical(TypeRef { btf: 2, id: 1 }),
        TypeRef { btf: 0, id: 1 }
    );
    assert!(kt.btf(9).is_err());
    std::fs::remove_dir_all(&dir).unwrap();
}

#[test]
fn bad_names_are_refused() {
    let mut b = B::new();
    b.int("int", 4, 1, 32);
    let good = b.blob();
    assert!(Btf::parse(&good).is_ok());
    // Out of range.
    let mut bad1 = good.clone();
    bad1[24..28].copy_from_slice(&100u32.to_le_bytes());
    assert!(Btf::parse(&bad1).is_err());
    // Not UTF-8.
    let mut bad2 = good.clone();
    let n = bad2.len();
    bad2[n - 2] = 0xff;
    assert!(Btf::parse(&bad2).is_err());
    // Not terminated.
    let mut bad3 = good.clone();
    bad3[n - 1] = b'x';
    assert!(Btf::parse(&bad3).is_err());
    // A string section that does not start with the empty name.
    let mut bad4 = good;
    bad4[n - 5] = b'x';
    assert!(Btf::parse(&bad4).is_err());
}

#[test]
fn huge_counts_allocate_nothing_before_failing() {
    for kind in [STRUCT, UNION, ENUM, ENUM64, FUNC_PROTO, DATASEC] {
        let mut b = B::new();
        b.ty("x", kind, 0xffff, false, 4);
        assert!(Btf::parse(&b.blob()).is_err(), "kind {}", kind);
    }
}

#[test]
fn unknown_and_void_kinds_and_dangling_ids_are_refused() {
    for kind in [0, 20, 31] {
        let mut b = B::new();
        b.ty("x", kind, 0, false, 4);
        assert!(Btf::parse(&b.blob()).is_err(), "kind {}", kind);
    }
    let mut b = B::new();
    let int = b.int("int", 4, 1, 32);
    let s = b.ty("s", STRUCT, 1, false, 4);
    b.member("m", s + 5, 0);
    let _ = int;
    assert!(Btf::parse(&b.blob()).is_err());
    // A void parameter that is not the last ("...").
    let mut b = B::new();
    let int = b.int("int", 4, 1, 32);
    b.ty("", FUNC_PROTO, 2, false, int);
    b.w(0).w(0).w(0).w(int);
    assert!(Btf::parse(&b.blob()).is_err());
}

#[test]
fn every_truncation_of_every_kind_is_an_error() {
    let (full, _) = every_kind();
    for len in 0..full.len() {
        assert!(Btf::parse(&full[..len]).is_err(), "{} bytes accepted", len);
    }
    // Type sections cut anywhere but between records.
    let tlen = u32::from_le_bytes(full[12..16].try_into().unwrap());
    let mut ok_cuts = 0;
    for cut in 1..tlen {
        let mut b = full.clone();
        b[12..16].copy_from_slice(&(tlen - cut).to_le_bytes());
        if Btf::parse(&b).is_ok() {
            ok_cuts += 1;
        }
    }
    // Only cuts at record boundaries parse (the types kept refer only to
    // earlier ones): at most one per type.
    let types = Btf::parse(&full).unwrap().type_count();
    assert!(ok_cuts < types, "{} cuts parsed", ok_cuts);
}

/// Exercises every query on every id of a parsed blob.
fn exercise(btf: &Btf) {
    for id in 0..btf.type_count() + 2 {
        let _ = btf.resolve_kind(id);
        let _ = btf.pointee(id);
        let _ = btf.func_in_place(id);
        if let Some(sig) = btf.signature(id) {
            let _ = sig.param_types().count();
        }
        let _ = btf.resolve(id);
        let _ = btf.size_of(id);
        let _ = btf.member(id, "comm");
        let _ = btf.member(id, "");
        let _ = btf.var_section(id);
        let name = btf.type_name(id).to_string();
        let _ = btf.find_all(&name);
        if let Some(t) = btf.get(id) {
            if let TypeData::Enum { values, .. } = &t.data {
                for v in values {
                    let _ = btf.find_enumerator(btf.str(v.name));
                }
            }
        }
    }
}

#[test]
fn mutated_blobs_never_panic() {
    let (full, _) = every_kind();
    let base = Arc::new(Btf::parse(&base_blob()).unwrap());
    let (split, _) = module_blob(&base);
    // A fixed pseudo-random sequence (xorshift), so failures repeat.
    let mut x: u64 = 0x9e37_79b9_7f4a_7c15;
    let mut next = || {
        x ^= x << 13;
        x ^= x >> 7;
        x ^= x << 17;
        x
    };
    let mut parsed = 0;
    for round in 0..4000 {
        let src = if round % 2 == 0 { &full } else { &split };
        let mut b = src.clone();
        for _ in 0..1 + next() % 4 {
            let i = (next() as usize) % b.len();
            match next() % 3 {
                0 => b[i] ^= 1 << (next() % 8),
                1 => b[i] = next() as u8,
                _ => b[i] = 0xff,
            }
        }
        let r = if round % 2 == 0 {
            Btf::parse(&b)
        } else {
            Btf::parse_split(&b, base.clone())
        };
        if let Ok(btf) = r {
            parsed += 1;
            exercise(&btf);
        }
    }
    assert!(parsed > 100, "only {} mutants parsed", parsed);
}

// The tests that follow predate the split-BTF model; kept as they were.

#[test]
fn rejects_garbage() {
    assert!(Btf::parse(b"hello world, not btf at all").is_err());
}

#[test]
fn huge_header_offsets_are_refused() {
    let (mut b, _) = every_kind();
    for field in [4usize, 8, 12, 16, 20] {
        let mut c = b.clone();
        c[field..field + 4].copy_from_slice(&u32::MAX.to_le_bytes());
        assert!(Btf::parse(&c).is_err(), "field at {}", field);
    }
    b[4..8].copy_from_slice(&4u32.to_le_bytes());
    assert!(Btf::parse(&b).is_err());
}

#[test]
fn cyclic_anonymous_members_end() {
    // struct loop { <anonymous> struct loop; }: a member search must give
    // up rather than recurse forever.
    let mut b = B::new();
    let l = b.ty("loop", STRUCT, 1, false, 4);
    b.member("", l, 0);
    let btf = Btf::parse(&b.blob()).expect("well-formed, if odd");
    assert_eq!(btf.member_path("loop", "nothing"), None);
}

/// The running kernel's BTF, or `None` (and a visible note) without it.
fn vmlinux() -> Option<Btf> {
    if !Path::new("/sys/kernel/btf/vmlinux").exists() {
        eprintln!("skipped: needs /sys/kernel/btf/vmlinux");
        return None;
    }
    let t = std::time::Instant::now();
    let btf = Btf::load_vmlinux().expect("the kernel's BTF parses");
    eprintln!(
        "vmlinux BTF: {} types loaded and indexed in {:?}",
        btf.type_count(),
        t.elapsed()
    );
    Some(btf)
}

#[test]
fn real_kernel_task_struct() {
    let Some(btf) = vmlinux() else { return };
    let task = btf.find_struct("task_struct").unwrap();
    assert_eq!(btf.find("task_struct", Kind::Struct), Some(task));
    let comm = btf.member(task, "comm").unwrap();
    assert_eq!(comm.bitfield_size, 0);
    assert!(comm.bit_offset > 0 && comm.bit_offset % 8 == 0);
    match btf.get(btf.resolve(comm.ty).unwrap()).unwrap().data {
        TypeData::Array { elem, nelems, .. } => {
            assert_eq!(nelems, 16);
            assert_eq!(btf.type_name(btf.resolve(elem).unwrap()), "char");
            assert!(matches!(
                btf.get(btf.resolve(elem).unwrap()).unwrap().data,
                TypeData::Int { size: 1, .. }
            ));
        }
        ref d => panic!("comm is {:?}", d),
    }
    assert_eq!(btf.size_of(comm.ty), Some(16));
    let pid = btf.member(task, "pid").unwrap();
    assert_eq!(btf.type_name(pid.ty), "pid_t");
    assert_eq!(btf.kind(pid.ty), Some(Kind::Typedef));
    let int = btf.resolve(pid.ty).unwrap();
    assert_eq!(btf.type_name(int), "int");
    assert!(matches!(
        btf.get(int).unwrap().data,
        TypeData::Int {
            size: 4,
            encoding: IntEncoding { signed: true, .. },
            ..
        }
    ));
    let parent = btf.member(task, "real_parent").unwrap();
    let TypeData::Ptr(to) = btf.get(btf.resolve(parent.ty).unwrap()).unwrap().data else {
        panic!("real_parent is not a pointer")
    };
    assert_eq!(btf.resolve(to), Some(task));
    // Through anonymous members, as load.rs uses it.
    assert!(btf
        .member_path("task_struct", "se.sum_exec_runtime")
        .is_some());
    assert!(btf.size_of(task).unwrap() > 1000);
}

#[test]
fn real_kernel_enums_funcs_and_percpu_vars() {
    let Some(btf) = vmlinux() else { return };
    let e = btf.find_enum("bpf_prog_type").unwrap();
    let (owner, v) = btf.find_enumerator("BPF_PROG_TYPE_KPROBE").unwrap();
    assert_eq!(owner, e);
    assert_eq!(v, 2);
    let f = btf.find_func("schedule").unwrap();
    let TypeData::Func { proto, .. } = btf.get(f).unwrap().data else {
        panic!()
    };
    assert_eq!(btf.kind(proto), Some(Kind::FuncProto));
    let rq = btf.find_var("runqueues").unwrap();
    let TypeData::Var { ty, .. } = btf.get(rq).unwrap().data else {
        panic!()
    };
    assert_eq!(btf.type_name(ty), "rq");
    let (sec, info) = btf.var_section(rq).unwrap();
    assert_eq!(btf.type_name(sec), ".data..percpu");
    assert_eq!(info.size as u64, btf.size_of(ty).unwrap());
    let kt = KernelTypes::with_vmlinux(Path::new(SYSFS_BTF), Arc::new(btf));
    assert!(kt
        .find(None, "task_struct", Kind::Struct)
        .unwrap()
        .is_some());
    assert_eq!(
        kt.find(None, "no_such_type_anywhere", Kind::Struct)
            .unwrap(),
        None
    );
}

#[test]
fn types_are_named_as_c_writes_them() {
    let (blob, ids) = every_kind();
    let btf = Btf::parse(&blob).unwrap();
    let name = |k: &str| btf.c_type_name(ids[k]);
    assert_eq!(name("int").as_deref(), Some("int"));
    assert_eq!(name("pid_t").as_deref(), Some("pid_t"));
    assert_eq!(name("const").as_deref(), Some("const pid_t"));
    assert_eq!(name("volatile").as_deref(), Some("volatile const pid_t"));
    assert_eq!(name("tag").as_deref(), Some("volatile const pid_t"));
    assert_eq!(name("ptr").as_deref(), Some("void *"));
    assert_eq!(name("task").as_deref(), Some("struct task"));
    assert_eq!(
        btf.c_type_name(ids["task"] + 2).as_deref(),
        Some("struct task *")
    );
    assert_eq!(name("fwd_u").as_deref(), Some("union uopaque"));
    assert_eq!(name("state").as_deref(), Some("enum state"));
    // Arrays, anonymous unions and functions cannot be named again.
    assert_eq!(name("char[16]"), None);
    assert_eq!(name("union"), None);
    assert_eq!(name("proto"), None);
    assert_eq!(btf.c_type_name(9999), None);
}

#[test]
fn name_index_grows_and_finds_every_id() {
    // Starts small, so it grows several times; one hash shared by many
    // ids (a run of collisions) and many distinct hashes.
    let mut ix = NameIndex::with_room(1);
    let shared = 0xdead_beef_0000_0001u64;
    for id in 0..5000u32 {
        let h = if id % 5 == 0 {
            shared
        } else {
            u64::from(id).wrapping_mul(0x9e37_79b9_7f4a_7c15)
        };
        ix.insert(h, id);
    }
    let mut same: Vec<u32> = ix.candidates(shared).collect();
    same.sort_unstable();
    assert_eq!(same, (0..5000).step_by(5).collect::<Vec<u32>>());
    let one: Vec<u32> = ix
        .candidates(7u64.wrapping_mul(0x9e37_79b9_7f4a_7c15))
        .collect();
    assert!(one.contains(&7));
    assert!(ix.candidates(0x1234_5678_9abc_def0).all(|id| id % 5 != 0));
    assert_eq!(NameIndex::default().candidates(shared).count(), 0);
}

/// The readings in place (for scans of every function) agree with the
/// decoded types, for every type of `btf`.
fn in_place_agrees_with_decoded(btf: &Btf) {
    let own: Vec<TypeId> = btf.own_func_ids().collect();
    let decoded: Vec<TypeId> = btf.own_funcs().map(|(id, _)| id).collect();
    assert_eq!(own, decoded);
    for id in 0..btf.type_count() + 1 {
        let resolved = btf.resolve(id);
        assert_eq!(
            btf.resolve_kind(id).map(|(r, _)| r),
            resolved,
            "type {}",
            id
        );
        if let Some(r) = resolved {
            assert_eq!(btf.resolve_kind(id).map(|(_, k)| k), btf.kind(r));
        }
        let data = btf.get(id).map(|t| &t.data);
        let want = match data {
            Some(TypeData::Ptr(to)) => Some(*to),
            _ => None,
        };
        assert_eq!(btf.pointee(id), want);
        match data {
            Some(TypeData::Func { proto, .. }) if id >= btf.first_id() => {
                let name = btf.str(btf.get(id).unwrap().name);
                assert_eq!(btf.func_in_place(id), Some((name, *proto)));
            }
            _ => assert_eq!(btf.func_in_place(id), None, "type {}", id),
        }
        match data {
            Some(TypeData::FuncProto {
                ret,
                params,
                variadic,
            }) => {
                let sig = btf.signature(id).unwrap();
                assert_eq!(sig.ret, *ret);
                assert_eq!(sig.variadic, *variadic);
                assert_eq!(sig.len(), params.len());
                assert_eq!(
                    sig.param_types().collect::<Vec<_>>(),
                    params.iter().map(|p| p.ty).collect::<Vec<_>>()
                );
            }
            _ => assert!(btf.signature(id).is_none(), "type {}", id),
        }
    }
}

#[test]
fn functions_and_types_read_in_place_are_the_decoded_ones() {
    let (blob, ids) = every_kind();
    let btf = Btf::parse(&blob).unwrap();
    in_place_agrees_with_decoded(&btf);
    let sig = btf.signature(ids["proto"]).unwrap();
    assert!(sig.variadic);
    assert_eq!(sig.len(), 1);
    assert_eq!(
        btf.func_in_place(ids["printk"]),
        Some(("printk", ids["proto"]))
    );
    assert_eq!(btf.resolve_kind(ids["tag"]), Some((ids["int"], Kind::Int)));
    let base = Arc::new(Btf::parse(&base_blob()).unwrap());
    let (blob, _) = module_blob(&base);
    in_place_agrees_with_decoded(&Btf::parse_split(&blob, base).unwrap());
    // And the running kernel's, where it can be read.
    if let Ok(k) = Btf::load_vmlinux() {
        in_place_agrees_with_decoded(&k);
    }
}
