//! Feeds arbitrary bytes to the kernel-table parsers of dtrace-sys: BTF
//! (as base BTF, and as split BTF over a small fixed base, the way module
//! BTF is read) and kallsyms text, then asks every query of what parsed.
//! A panic, a hang or an unbounded allocation is a finding; a parse error
//! is not. The first byte chooses the parser.

#![no_main]

use dtrace_sys::btf::{Btf, TypeData};
use dtrace_sys::ksyms::Kallsyms;
use libfuzzer_sys::fuzz_target;
use std::sync::{Arc, OnceLock};

/// A base BTF of `int` and `struct s { int a; }`, built by hand.
fn base() -> Arc<Btf> {
    static B: OnceLock<Arc<Btf>> = OnceLock::new();
    B.get_or_init(|| {
        let strs = b"\0int\0s\0a\0";
        let words: [u32; 10] = [1, 1 << 24, 4, (1 << 24) | 32, 5, (4 << 24) | 1, 4, 7, 1, 0];
        let types: Vec<u8> = words.iter().flat_map(|w| w.to_le_bytes()).collect();
        let mut blob = vec![0x9f, 0xeb, 1, 0];
        for v in [24u32, 0, types.len() as u32, types.len() as u32, strs.len() as u32] {
            blob.extend_from_slice(&v.to_le_bytes());
        }
        blob.extend_from_slice(&types);
        blob.extend_from_slice(strs);
        Arc::new(Btf::parse(&blob).expect("the fixed base parses"))
    })
    .clone()
}

fn exercise(btf: &Btf) {
    for id in 0..btf.type_count().saturating_add(2) {
        let _ = btf.resolve(id);
        let _ = btf.size_of(id);
        let _ = btf.member(id, "a");
        let _ = btf.member(id, "");
        let _ = btf.var_section(id);
        let name = btf.type_name(id).to_string();
        for id in btf.find_all(&name) {
            let _ = btf.kind(id);
        }
        if let Some(TypeData::Enum { values, .. }) = btf.get(id).map(|t| &t.data) {
            for v in values {
                let _ = btf.find_enumerator(btf.str(v.name));
            }
        }
    }
    let _ = btf.member_path("s", "a.b");
}

fuzz_target!(|data: &[u8]| {
    let Some((&mode, rest)) = data.split_first() else {
        return;
    };
    match mode % 3 {
        0 => {
            if let Ok(btf) = Btf::parse(rest) {
                exercise(&btf);
            }
        }
        1 => {
            if let Ok(btf) = Btf::parse_split(rest, base()) {
                exercise(&btf);
            }
        }
        _ => {
            let k = Kallsyms::parse(String::from_utf8_lossy(rest).into_owned());
            let _ = k.lookup("a");
            let _ = k.lookup("m`a");
            for addr in [0, 1, 0xffff_ffff_8100_0000, u64::MAX] {
                let _ = k.symbolize(addr);
            }
        }
    }
});
