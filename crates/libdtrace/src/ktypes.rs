//! The kernel's types and symbols for D: the type table's external source
//! (`dtrace_lang::types::ExtTypes`) over the kernel's BTF (vmlinux and,
//! on demand, modules) and `/proc/kallsyms`. Nothing is read until a
//! program names a kernel type or symbol (`curthread`, `struct
//! task_struct`, `` `jiffies ``), and what is read is kept for the life of
//! the handle.
//!
//! A kernel variable (`` `max_pfn ``) is its kallsyms address typed by its
//! BTF VAR; a per-CPU one (`` `cpu_number ``) is this CPU's copy
//! (`CKind::PerCpuAddr`, lowered to the variable's BTF id and
//! `bpf_this_cpu_ptr`). Where kallsyms lists no variables
//! (`CONFIG_KALLSYMS_ALL` off) both are refused with that reason, never
//! read from a wrong address.

use std::sync::OnceLock;

use dtrace_lang::types::{ExtId, ExtSymbol, ExtType, ExtTypes, PerCpu, SymbolError, TagKind};
use dtrace_sys::btf::{Btf, KernelTypes, Kind, TypeData, TypeRef};
use dtrace_sys::ksyms::{Kallsyms, KsymError};

/// BTF and kallsyms, each loaded on first use.
#[derive(Default)]
pub struct Kernel {
    types: OnceLock<Option<KernelTypes>>,
    syms: OnceLock<Result<Kallsyms, String>>,
}

fn ext_id(r: TypeRef) -> ExtId {
    (u64::from(r.btf) << 32) | u64::from(r.id)
}

fn type_ref(id: ExtId) -> TypeRef {
    TypeRef {
        btf: (id >> 32) as u16,
        id: id as u32,
    }
}

impl Kernel {
    /// A kernel of the given BTF and kallsyms (for tests).
    #[cfg(test)]
    fn of(types: KernelTypes, syms: Kallsyms) -> Kernel {
        Kernel {
            types: OnceLock::from(Some(types)),
            syms: OnceLock::from(Ok(syms)),
        }
    }

    fn types(&self) -> Option<&KernelTypes> {
        self.types.get_or_init(|| KernelTypes::load().ok()).as_ref()
    }

    fn kallsyms(&self) -> Result<&Kallsyms, SymbolError> {
        self.syms
            .get_or_init(|| Kallsyms::load().map_err(|e| e.to_string()))
            .as_ref()
            .map_err(|e| SymbolError::Unavailable(format!("cannot read /proc/kallsyms: {}", e)))
    }

    fn find(&self, module: Option<&str>, f: impl Fn(&Btf) -> Option<u32>) -> Option<ExtId> {
        let kt = self.types()?;
        kt.find_with(module, f).ok().flatten().map(ext_id)
    }
}

impl ExtTypes for Kernel {
    fn tagged(&self, kind: TagKind, name: &str, module: Option<&str>) -> Option<ExtId> {
        match kind {
            TagKind::Struct => self.find(module, |b| {
                b.find(name, Kind::Struct)
                    .filter(|&id| b.kind(id) == Some(Kind::Struct))
            }),
            TagKind::Union => self.find(module, |b| b.find(name, Kind::Union)),
            TagKind::Enum => self.find(module, |b| b.find(name, Kind::Enum)),
        }
    }

    fn typedef(&self, name: &str, module: Option<&str>) -> Option<ExtId> {
        self.find(module, |b| b.find_typedef(name))
    }

    fn get(&self, id: ExtId) -> Option<ExtType> {
        let kt = self.types()?;
        let r = type_ref(id);
        let btf = kt.btf(r.btf).ok()?;
        let t = btf.get(r.id)?;
        let refer = |to: u32| ext_id(kt.type_ref(r.btf, to));
        let name = btf.str(t.name).to_string();
        let opt_name = if name.is_empty() {
            None
        } else {
            Some(name.clone())
        };
        Some(match &t.data {
            TypeData::Void => ExtType::Void,
            TypeData::Int { size, encoding, .. } => ExtType::Int {
                name,
                size: (*size).min(16) as u8,
                signed: encoding.signed,
            },
            TypeData::Float { size } => ExtType::Float {
                size: (*size).min(16) as u8,
            },
            TypeData::Ptr(to) => ExtType::Ptr(refer(*to)),
            TypeData::Typedef(to) => ExtType::Typedef {
                name,
                target: refer(*to),
            },
            TypeData::Const(to) => ExtType::Const(refer(*to)),
            TypeData::Volatile(to) | TypeData::Restrict(to) | TypeData::TypeTag(to) => {
                ExtType::Qualified(refer(*to))
            }
            TypeData::Fwd { union } => ExtType::Fwd {
                union: *union,
                name,
            },
            TypeData::Array { elem, nelems, .. } => ExtType::Array {
                elem: refer(*elem),
                len: *nelems,
            },
            TypeData::Struct { size, members } | TypeData::Union { size, members } => {
                let union = matches!(t.data, TypeData::Union { .. });
                let members = members
                    .iter()
                    .map(|m| {
                        let mname = btf.str(m.name);
                        let mut bit_offset = u64::from(m.bit_offset);
                        let mut bits = (m.bitfield_size > 0).then_some(m.bitfield_size);
                        // Without the struct's kind flag a bit-field's
                        // width and offset are in its int type.
                        if bits.is_none() {
                            if let Some(TypeData::Int {
                                size,
                                bit_offset: ib,
                                bits: ibits,
                                ..
                            }) = btf.resolve(m.ty).and_then(|i| btf.get(i)).map(|x| &x.data)
                            {
                                if u32::from(*ibits) < size * 8 && *ibits > 0 {
                                    bits = Some(u32::from(*ibits));
                                    bit_offset += u64::from(*ib);
                                }
                            }
                        }
                        (
                            (!mname.is_empty()).then(|| mname.to_string()),
                            refer(m.ty),
                            bit_offset,
                            bits,
                        )
                    })
                    .collect();
                let members = with_renamed(btf.str(t.name), members, |path| {
                    let mut id = r.id;
                    let mut bits = 0u64;
                    for part in path.split('.') {
                        let m = btf.member(id, part)?;
                        bits = bits.checked_add(m.bit_offset)?;
                        id = m.ty;
                    }
                    Some((bits, refer(id)))
                });
                ExtType::Record {
                    union,
                    name: opt_name,
                    size: u64::from(*size),
                    members,
                }
            }
            TypeData::Enum {
                size,
                signed,
                values,
                ..
            } => ExtType::Enum {
                name: opt_name,
                size: (*size).min(8) as u8,
                signed: *signed,
                values: values
                    .iter()
                    .map(|v| (btf.str(v.name).to_string(), v.value as i64))
                    .collect(),
            },
            TypeData::FuncProto {
                ret,
                params,
                variadic,
            } => ExtType::Func {
                ret: refer(*ret),
                params: params.iter().map(|p| refer(p.ty)).collect(),
                variadic: *variadic,
            },
            // A function's type is its prototype's.
            TypeData::Func { proto, .. } => return self.get(refer(*proto)),
            TypeData::Var { ty, .. } => ExtType::Qualified(refer(*ty)),
            TypeData::Datasec { .. } | TypeData::DeclTag { .. } => return None,
        })
    }

    fn symbol(&self, name: &str, module: Option<&str>) -> Result<ExtSymbol, SymbolError> {
        // Its type: a variable or a function of that name in BTF.
        let typed = |want_func: bool| {
            self.find(module, |b| {
                if want_func {
                    b.find_func(name)
                } else {
                    b.find_var(name)
                }
            })
        };
        let per_cpu_var = || -> Option<(ExtId, PerCpu)> {
            let kt = self.types()?;
            let r = kt.find_with(module, |b| b.find_var(name)).ok().flatten()?;
            let btf = kt.btf(r.btf).ok()?;
            let (sec, _) = btf.var_section(r.id)?;
            let secname = btf.type_name(sec);
            let TypeData::Var { ty, .. } = &btf.get(r.id)?.data else {
                return None;
            };
            let c = kt.canonical(r);
            let how = if c.btf == 0 {
                PerCpu::Vmlinux(c.id)
            } else {
                PerCpu::Module
            };
            (secname == ".data..percpu").then(|| (ext_id(kt.type_ref(r.btf, *ty)), how))
        };
        let ks = self.kallsyms()?;
        let scoped;
        let key = match module {
            Some(m) => {
                scoped = format!("{}`{}", m, name);
                scoped.as_str()
            }
            None => name,
        };
        match ks.lookup(key) {
            Ok(s) if s.is_text() => Ok(ExtSymbol {
                addr: s.addr,
                module: s.module.to_string(),
                ty: typed(true),
                per_cpu: None,
            }),
            // A variable: its BTF VAR gives its type (through Qualified),
            // and says whether it is per-CPU (its address is then an
            // offset into each CPU's area, and the kernel finds this
            // CPU's copy by the same name in kallsyms).
            Ok(s) => Ok(match per_cpu_var() {
                Some((ty, how)) => ExtSymbol {
                    addr: s.addr,
                    module: s.module.to_string(),
                    ty: Some(ty),
                    per_cpu: Some(how),
                },
                None => ExtSymbol {
                    addr: s.addr,
                    module: s.module.to_string(),
                    ty: typed(false),
                    per_cpu: None,
                },
            }),
            Err(KsymError::Hidden) => Err(SymbolError::Hidden),
            Err(_) if per_cpu_var().is_some() => Err(SymbolError::Unavailable(
                "a per-CPU variable, whose address this kernel does not export (/proc/kallsyms lists functions only: CONFIG_KALLSYMS_ALL is off)".into(),
            )),
            Err(_) if !ks.lists_data() && typed(false).is_some() => Err(SymbolError::Unavailable(
                "a variable, whose address this kernel does not export (/proc/kallsyms lists functions only: CONFIG_KALLSYMS_ALL is off)".into(),
            )),
            Err(_) if !ks.lists_data() => Err(SymbolError::Unavailable(
                "Unknown symbol name (this kernel's /proc/kallsyms lists functions only: CONFIG_KALLSYMS_ALL is off)".into(),
            )),
            Err(_) => Err(SymbolError::NotFound),
        }
    }
}

/// Members the kernel renamed or moved between the versions dtrace runs
/// on, as (struct, a member it may lack, the member or member path that
/// holds the same in other kernels): a struct from BTF that lacks the
/// first answers to it with the second, so the D library and users'
/// scripts work on every kernel, whichever name they use.
const RENAMED_MEMBERS: &[(&str, &str, &str)] = &[
    // Linux 5.14 renamed the task's run state.
    ("task_struct", "__state", "state"),
    ("task_struct", "state", "__state"),
    // Linux 5.16 moved the task's CPU into its thread_info.
    ("task_struct", "cpu", "thread_info.cpu"),
];

type RecordMember = (Option<String>, ExtId, u64, Option<u32>);

/// `members` of struct `record` with the aliases of [`RENAMED_MEMBERS`]
/// it lacks; `resolve` finds a member path's bit offset and type.
fn with_renamed(
    record: &str,
    mut members: Vec<RecordMember>,
    resolve: impl Fn(&str) -> Option<(u64, ExtId)>,
) -> Vec<RecordMember> {
    for &(s, want, from) in RENAMED_MEMBERS {
        if s != record || members.iter().any(|m| m.0.as_deref() == Some(want)) {
            continue;
        }
        if let Some((bit_offset, ty)) = resolve(from) {
            members.push((Some(want.to_string()), ty, bit_offset, None));
        }
    }
    members
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::sync::Arc;

    /// BTF of two ints and two variables: `max_pfn` (an `unsigned long`
    /// in `.data`) and `cpu_number` (an `int` in `.data..percpu`, VAR
    /// id 4).
    fn btf() -> KernelTypes {
        let mut strs = b"\0".to_vec();
        let mut name = |s: &str| {
            let at = strs.len() as u32;
            strs.extend_from_slice(s.as_bytes());
            strs.push(0);
            at
        };
        let words: Vec<u32> = vec![
            // [1] unsigned long, [2] int
            name("unsigned long"),
            1 << 24,
            8,
            64,
            name("int"),
            1 << 24,
            4,
            (1 << 24) | 32,
            // [3] VAR max_pfn, [4] VAR cpu_number (global linkage)
            name("max_pfn"),
            14 << 24,
            1,
            1,
            name("cpu_number"),
            14 << 24,
            2,
            1,
            // [5] DATASEC .data { max_pfn }, [6] .data..percpu { cpu_number }
            name(".data"),
            (15 << 24) | 1,
            4096,
            3,
            0,
            8,
            name(".data..percpu"),
            (15 << 24) | 1,
            4096,
            4,
            0x30,
            4,
        ];
        let types: Vec<u8> = words.iter().flat_map(|w| w.to_le_bytes()).collect();
        let mut blob = Vec::new();
        blob.extend_from_slice(&0xeb9fu16.to_le_bytes());
        blob.extend_from_slice(&[1, 0]);
        for w in [
            24u32,
            0,
            types.len() as u32,
            types.len() as u32,
            strs.len() as u32,
        ] {
            blob.extend_from_slice(&w.to_le_bytes());
        }
        blob.extend_from_slice(&types);
        blob.extend_from_slice(&strs);
        let vmlinux = Btf::parse(&blob).expect("fixture BTF parses");
        KernelTypes::with_vmlinux(std::path::Path::new("/nonexistent"), Arc::new(vmlinux))
    }

    /// kallsyms with the functions, and with the variables too when
    /// `all` (CONFIG_KALLSYMS_ALL: thousands of data symbols).
    fn kallsyms(all: bool) -> Kallsyms {
        let mut text = String::from("ffffffff81000000 T vfs_read\n");
        if all {
            text.push_str("ffffffff83001000 D max_pfn\n0000000000020030 D cpu_number\n");
            for i in 0..2000 {
                text.push_str(&format!("ffffffff8400{:04x} d filler_{}\n", i, i));
            }
        }
        Kallsyms::parse(text)
    }

    #[test]
    fn a_renamed_member_answers_to_both_names() {
        let id: ExtId = 7;
        let m = |n: &str| (Some(n.to_string()), id, 64, None);
        let resolve = |ms: Vec<RecordMember>| {
            move |p: &str| {
                ms.iter()
                    .find(|x| x.0.as_deref() == Some(p))
                    .map(|x| (x.2, x.1))
            }
        };
        let old = vec![m("state"), m("pid")];
        let old = with_renamed("task_struct", old.clone(), resolve(old));
        assert!(old
            .iter()
            .any(|x| x.0.as_deref() == Some("__state") && x.2 == 64));
        let new = vec![m("__state")];
        let new = with_renamed("task_struct", new.clone(), resolve(new));
        assert!(new.iter().any(|x| x.0.as_deref() == Some("state")));
        let both = vec![m("state"), m("__state")];
        assert_eq!(
            with_renamed("task_struct", both.clone(), resolve(both)).len(),
            2
        );
        let other = vec![m("state")];
        assert_eq!(
            with_renamed("mm_struct", other.clone(), resolve(other)).len(),
            1
        );
        // A moved member: found by its path.
        let moved = with_renamed("task_struct", vec![], |p: &str| {
            (p == "thread_info.cpu").then_some((32, id))
        });
        assert!(moved
            .iter()
            .any(|x| x.0.as_deref() == Some("cpu") && x.2 == 32));
    }

    #[test]
    fn variables_of_a_kernel_that_lists_them() {
        let k = Kernel::of(btf(), kallsyms(true));
        let s = k.symbol("max_pfn", None).unwrap();
        assert_eq!((s.addr, s.per_cpu), (0xffff_ffff_8300_1000, None));
        let ty = k.get(s.ty.expect("typed by its VAR")).unwrap();
        assert!(matches!(ty, ExtType::Qualified(_)));
        // Per-CPU: the kernel is given the VAR's id.
        let s = k.symbol("cpu_number", None).unwrap();
        assert_eq!(s.per_cpu, Some(PerCpu::Vmlinux(4)));
        assert_eq!(k.symbol("nope", None), Err(SymbolError::NotFound));
        let f = k.symbol("vfs_read", None).unwrap();
        assert_eq!((f.addr, f.per_cpu), (0xffff_ffff_8100_0000, None));
    }

    #[test]
    fn variables_of_a_kernel_that_hides_them_say_why() {
        let k = Kernel::of(btf(), kallsyms(false));
        let why = |name| match k.symbol(name, None) {
            Err(SymbolError::Unavailable(w)) => w,
            other => panic!("{}: {:?}", name, other),
        };
        assert!(why("max_pfn").starts_with("a variable, whose address"));
        assert!(why("cpu_number").starts_with("a per-CPU variable"));
        assert!(why("nope").starts_with("Unknown symbol name (this kernel"));
        assert!(why("nope").contains("CONFIG_KALLSYMS_ALL is off"));
    }
}
