//! The kernel's types and symbols for D: the type table's external source
//! (`dtrace_lang::types::ExtTypes`) over the kernel's BTF (vmlinux and,
//! on demand, modules) and `/proc/kallsyms`. Nothing is read until a
//! program names a kernel type or symbol (`curthread`, `struct
//! task_struct`, `` `jiffies ``), and what is read is kept for the life of
//! the handle.

use std::sync::OnceLock;

use dtrace_lang::types::{ExtId, ExtSymbol, ExtType, ExtTypes, SymbolError, TagKind};
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
            TypeData::Volatile(to)
            | TypeData::Const(to)
            | TypeData::Restrict(to)
            | TypeData::TypeTag(to) => ExtType::Qualified(refer(*to)),
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
        let per_cpu_var = || -> Option<(ExtId, u64)> {
            let kt = self.types()?;
            let r = kt.find_with(module, |b| b.find_var(name)).ok().flatten()?;
            let btf = kt.btf(r.btf).ok()?;
            let (sec, info) = btf.var_section(r.id)?;
            let secname = btf.type_name(sec);
            let TypeData::Var { ty, .. } = &btf.get(r.id)?.data else {
                return None;
            };
            (secname == ".data..percpu")
                .then(|| (ext_id(kt.type_ref(r.btf, *ty)), u64::from(info.offset)))
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
            Ok(s) => {
                let is_text = matches!(s.ty, 'T' | 't' | 'W' | 'w');
                let ty = if is_text { typed(true) } else { typed(false) };
                // A variable's BTF VAR gives its type through Qualified.
                Ok(ExtSymbol {
                    addr: s.addr,
                    module: s.module.to_string(),
                    ty,
                    per_cpu: false,
                })
            }
            Err(KsymError::Hidden) => Err(SymbolError::Hidden),
            Err(_) => match per_cpu_var() {
                Some((ty, off)) => Ok(ExtSymbol {
                    addr: off,
                    module: module.unwrap_or("vmlinux").to_string(),
                    ty: Some(ty),
                    per_cpu: true,
                }),
                None => Err(SymbolError::NotFound),
            },
        }
    }
}
