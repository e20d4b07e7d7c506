//! The floor: the least a tracer can do for `@[execname] = count()` on
//! getpid entry, written by hand. One BPF program on the
//! syscalls:sys_enter_getpid tracepoint reads the task's comm and bumps
//! a per-CPU hash map counter under it.

use std::io;
use std::os::fd::{AsRawFd, OwnedFd};

use dtrace_bpf::asm::{Asm, MapId};
use dtrace_bpf::insn::*;
use dtrace_sys::bpf::{self, Map, MapType, ProgType};

pub struct Floor {
    map: Map,
    _prog: OwnedFd,
    _event: OwnedFd,
}

const KEY: u32 = 16;

impl Floor {
    pub fn attach() -> io::Result<Floor> {
        let map = Map::create(MapType::PercpuHash, KEY, 8, 1024, 0, "floor_counts")?;
        let mut a = Asm::new();
        // key = comm, zero-padded, at fp-16
        a.emit(st_imm(Size::DW, FP, -16, 0));
        a.emit(st_imm(Size::DW, FP, -8, 0));
        a.emit(mov64_reg(R1, FP));
        a.emit(alu64_imm(Alu::Add, R1, -16));
        a.emit(mov64_imm(R2, KEY as i32));
        a.emit(call(Helper::GetCurrentComm));
        a.ld_map_fd(R1, MapId(0));
        a.emit(mov64_reg(R2, FP));
        a.emit(alu64_imm(Alu::Add, R2, -16));
        a.emit(call(Helper::MapLookupElem));
        let insert = a.new_label();
        a.jmp_imm_to(Cond::Eq, R0, 0, insert);
        // per-CPU value: a plain add is enough
        a.emit(ldx(Size::DW, R1, R0, 0));
        a.emit(alu64_imm(Alu::Add, R1, 1));
        a.emit(stx(Size::DW, R0, 0, R1));
        a.emit(mov64_imm(R0, 0));
        a.emit(exit());
        a.bind(insert);
        a.emit(st_imm(Size::DW, FP, -24, 1));
        a.ld_map_fd(R1, MapId(0));
        a.emit(mov64_reg(R2, FP));
        a.emit(alu64_imm(Alu::Add, R2, -16));
        a.emit(mov64_reg(R3, FP));
        a.emit(alu64_imm(Alu::Add, R3, -24));
        // BPF_ANY: when two CPUs miss at once, the second sets its own
        // CPU's value in the element the first made (BPF_NOEXIST would
        // fail and lose its count).
        a.emit(mov64_imm(R4, bpf::BPF_ANY as i32));
        a.emit(call(Helper::MapUpdateElem));
        a.emit(mov64_imm(R0, 0));
        a.emit(exit());
        let code = a
            .finish()
            .map_err(|e| io::Error::other(format!("{:?}", e)))?;
        let fd = map.as_raw_fd();
        let bytes: Vec<u8> = code.link(|_| fd).iter().flat_map(|i| i.encode()).collect();
        let prog = bpf::prog_load(ProgType::Tracepoint, &bytes, "floor_getpid", 0)
            .map_err(|e| io::Error::other(format!("floor program refused: {}", e.error)))?;
        let root = dtrace_sys::tracefs::root()?;
        let id = dtrace_sys::tracefs::event_id(&root, "syscalls", "sys_enter_getpid")?;
        let event = dtrace_sys::perf::open_tracepoint(id)?;
        dtrace_sys::perf::attach_bpf(&event, &prog)?;
        Ok(Floor {
            map,
            _prog: prog,
            _event: event,
        })
    }

    /// The total count, over all CPUs, for a process name.
    pub fn count(&self, comm: &str) -> u64 {
        let mut key = [0u8; KEY as usize];
        for (d, s) in key.iter_mut().zip(comm.bytes().take(KEY as usize - 1)) {
            *d = s;
        }
        let Ok(mut vals) = self.map.percpu_values() else {
            return 0;
        };
        match self.map.lookup_percpu(&key, &mut vals) {
            Ok(true) => vals
                .iter()
                .map(|c| u64::from_ne_bytes(c.try_into().unwrap_or([0; 8])))
                .sum(),
            _ => 0,
        }
    }
}
