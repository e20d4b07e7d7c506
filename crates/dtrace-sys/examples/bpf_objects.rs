//! Lists the BPF programs and maps loaded in the system and counts the
//! links: a leak check after dtrace exits (`cargo run --example
//! bpf_objects -p dtrace-sys`).

fn main() {
    match (
        dtrace_sys::bpf::list_programs(),
        dtrace_sys::bpf::list_maps(),
        dtrace_sys::bpf::count_links(),
    ) {
        (Ok(p), Ok(m), Ok(l)) => {
            for p in p {
                println!("prog {:>6} type {:>2} {}", p.id, p.prog_type, p.name);
            }
            for m in m {
                println!("map  {:>6} type {:>2} {}", m.id, m.map_type, m.name);
            }
            println!("links {}", l);
        }
        (p, m, l) => {
            eprintln!("bpf_objects: {:?} {:?} {:?}", p.err(), m.err(), l.err());
            std::process::exit(1);
        }
    }
}
