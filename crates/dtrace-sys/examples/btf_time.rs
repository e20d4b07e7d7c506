//! Times reading, parsing and indexing the kernel's BTF and kallsyms.
use std::time::Instant;

fn main() -> std::io::Result<()> {
    let t = Instant::now();
    let data = std::fs::read("/sys/kernel/btf/vmlinux")?;
    let read = t.elapsed();
    let t = Instant::now();
    let btf = dtrace_sys::btf::Btf::parse(&data)?;
    let parse = t.elapsed();
    println!(
        "vmlinux BTF: {} bytes read in {:?}, {} types parsed and indexed in {:?}",
        data.len(),
        read,
        btf.type_count(),
        parse
    );
    Ok(())
}
