//! Times reading, parsing and indexing the kernel's BTF and kallsyms
//! (`cargo run --release -p dtrace-sys --example btf_time`).
use std::time::Instant;

fn main() -> std::io::Result<()> {
    let t = Instant::now();
    let data = std::fs::read("/sys/kernel/btf/vmlinux")?;
    let read = t.elapsed();
    let t = Instant::now();
    let btf = dtrace_sys::btf::Btf::parse(&data)?;
    let parse = t.elapsed();
    println!(
        "vmlinux BTF: {} bytes read in {:?}, {} types checked and indexed in {:?}",
        data.len(),
        read,
        btf.type_count(),
        parse
    );
    // As dtrace loads it: mapped where the kernel allows, then checked and
    // indexed (types are decoded as they are asked for).
    let t = Instant::now();
    let btf = dtrace_sys::btf::Btf::load_vmlinux()?;
    println!(
        "vmlinux BTF as loaded (mapped, checked, indexed): {} types in {:?}",
        btf.type_count(),
        t.elapsed()
    );
    let text = std::fs::read_to_string(dtrace_sys::ksyms::PROC_KALLSYMS)?;
    let read = t.elapsed();
    let t = Instant::now();
    let k = dtrace_sys::ksyms::Kallsyms::parse(text);
    let parse = t.elapsed();
    let t = Instant::now();
    let found = k.lookup("schedule").is_ok();
    let by_name = t.elapsed();
    let t = Instant::now();
    let _ = k.symbolize(0xffff_ffff_8100_0000);
    let by_addr = t.elapsed();
    println!(
        "kallsyms: read in {:?}, {} symbols parsed in {:?}; name index and lookup \
         ({}) {:?}, address index and lookup {:?}",
        read,
        k.len(),
        parse,
        found,
        by_name,
        by_addr
    );
    Ok(())
}
