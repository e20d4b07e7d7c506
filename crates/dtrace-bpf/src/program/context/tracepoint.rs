//! A perf tracepoint: the probe's arguments are its record's fields.

use super::*;

impl ProgGen<'_, '_> {
    /// A tracepoint's fields as arguments. The record is the context
    /// (r6); its address is also taken as a plain number (through
    /// scratch), so that a variable `__data_loc` offset may be added.
    pub(crate) fn load_tp_args(&mut self, fields: &[TpArg]) {
        let n = fields.len().min(10) as u32;
        if fields.iter().any(|f| f.load != TpLoad::Value) {
            self.a.emit(stx(Size::DW, R9, scratch::TMP as i16, R6));
        }
        for (i, f) in fields.iter().take(10).enumerate() {
            let off = i32::from(f.offset);
            let aligned = matches!(f.size, 1 | 2 | 4 | 8) && f.offset % f.size == 0;
            match f.load {
                TpLoad::Value if aligned => {
                    let size = Size::of_bytes(u32::from(f.size));
                    self.a.emit(ldx(size, R1, R6, f.offset as i16));
                    if f.signed && f.size < 8 {
                        // Sign-extended by shifts: context loads are
                        // zero-extending.
                        let bits = 64 - 8 * i32::from(f.size);
                        self.a.emit(alu64_imm(Alu::Lsh, R1, bits));
                        self.a.emit(alu64_imm(Alu::Arsh, R1, bits));
                    }
                }
                TpLoad::DataLoc => {
                    self.a.emit(ldx(Size::W, R1, R6, f.offset as i16));
                    self.a.emit(alu64_imm(Alu::And, R1, 0xffff));
                    self.a.emit(ldx(Size::DW, R2, R9, scratch::TMP as i16));
                    self.a.emit(alu64_reg(Alu::Add, R1, R2));
                }
                _ => {
                    self.a.emit(ldx(Size::DW, R1, R9, scratch::TMP as i16));
                    self.a.emit(alu64_imm(Alu::Add, R1, off));
                }
            }
            self.store_arg(i as u32, R1);
        }
        self.zero_args(n);
    }
}
