//! Registers: perf's sample register bits (`arch/*/include/uapi/asm/perf_regs.h`, the order of
//! `sample_regs_user`) against DWARF register numbers (the numbers CFI uses, which are also
//! libunwind's `UNW_*` numbers on both architectures).

use perfdata_core::sample::Regs;

/// The architecture whose registers and CFI conventions apply.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Arch {
    /// x86_64 (System V psABI DWARF numbering).
    X86_64,
    /// AArch64 (DWARF for the Arm 64-bit architecture).
    Aarch64,
}

impl Arch {
    /// From perf's ARCH feature (`uname -m`): `x86_64`, `aarch64`/`arm64`.
    pub fn from_uname(machine: &str) -> Option<Arch> {
        match machine {
            "x86_64" | "amd64" => Some(Arch::X86_64),
            "aarch64" | "arm64" => Some(Arch::Aarch64),
            _ => None,
        }
    }

    /// From an ELF `e_machine`.
    pub fn from_elf_machine(machine: u16) -> Option<Arch> {
        match machine {
            crate::binary::machine::X86_64 => Some(Arch::X86_64),
            crate::binary::machine::AARCH64 => Some(Arch::Aarch64),
            _ => None,
        }
    }

    /// libunwind's `DWARF_NUM_PRESERVED_REGS`: CFI naming a register at or above this is an error.
    pub fn num_regs(self) -> u16 {
        match self {
            Arch::X86_64 => 17,
            Arch::Aarch64 => 97,
        }
    }

    /// DWARF number of the stack pointer (rsp 7, sp 31).
    pub fn sp(self) -> u16 {
        match self {
            Arch::X86_64 => 7,
            Arch::Aarch64 => 31,
        }
    }

    /// DWARF number of the frame pointer (rbp 6, x29).
    pub fn fp(self) -> u16 {
        match self {
            Arch::X86_64 => 6,
            Arch::Aarch64 => 29,
        }
    }

    /// Register holding the program counter in libunwind's numbering (rip 16, pc 32).
    pub fn ip(self) -> u16 {
        match self {
            Arch::X86_64 => 16,
            Arch::Aarch64 => 32,
        }
    }

    /// The link register (x30); x86_64 has none.
    pub fn lr(self) -> Option<u16> {
        match self {
            Arch::X86_64 => None,
            Arch::Aarch64 => Some(30),
        }
    }

    /// perf's register bit for DWARF/libunwind register `dwarf` (perf's `LIBUNWIND__ARCH_REG_ID`).
    pub fn perf_bit(self, dwarf: u16) -> Option<u32> {
        match self {
            // rax rdx rcx rbx rsi rdi rbp rsp r8..r15 rip
            Arch::X86_64 => {
                const BITS: [u32; 17] = [0, 3, 2, 1, 4, 5, 6, 7, 16, 17, 18, 19, 20, 21, 22, 23, 8];
                BITS.get(usize::from(dwarf)).copied()
            }
            // x0..x28, x29, lr (x30), sp, pc: the same numbers in both schemes.
            Arch::Aarch64 => (dwarf <= 32).then_some(u32::from(dwarf)),
        }
    }

    /// perf's bit for the sampled instruction pointer (`PERF_REG_X86_IP` 8, `PERF_REG_ARM64_PC` 32).
    pub fn perf_ip_bit(self) -> u32 {
        match self {
            Arch::X86_64 => 8,
            Arch::Aarch64 => 32,
        }
    }

    /// perf's bit for the sampled stack pointer (`PERF_REG_X86_SP` 7, `PERF_REG_ARM64_SP` 31).
    pub fn perf_sp_bit(self) -> u32 {
        match self {
            Arch::X86_64 => 7,
            Arch::Aarch64 => 31,
        }
    }
}

/// The sampled user registers, read by DWARF number.
#[derive(Clone, Copy, Debug)]
pub struct UserRegs<'a> {
    /// The architecture.
    pub arch: Arch,
    /// The REGS_USER field.
    pub regs: Regs<'a>,
}

impl UserRegs<'_> {
    /// Register `dwarf`'s sampled value (perf's `perf_reg_value`); `None` if not sampled.
    pub fn get(&self, dwarf: u16) -> Option<u64> {
        self.regs.get(self.arch.perf_bit(dwarf)?)
    }

    /// The sampled instruction pointer.
    pub fn ip(&self) -> Option<u64> {
        self.regs.get(self.arch.perf_ip_bit())
    }

    /// The sampled stack pointer.
    pub fn sp(&self) -> Option<u64> {
        self.regs.get(self.arch.perf_sp_bit())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn x86_64_dwarf_numbers_map_to_perf_bits() {
        let a = Arch::X86_64;
        // rbx is DWARF 3 and perf bit 1; rsp 7/7; r15 15/23; rip 16/8.
        assert_eq!(a.perf_bit(3), Some(1));
        assert_eq!(a.perf_bit(7), Some(a.perf_sp_bit()));
        assert_eq!(a.perf_bit(15), Some(23));
        assert_eq!(a.perf_bit(16), Some(a.perf_ip_bit()));
        assert_eq!(a.perf_bit(17), None);
        assert_eq!(perfdata_core::sample::x86_64_reg_name(a.perf_bit(1).unwrap_or(99)), Some("dx"));
    }

    #[test]
    fn aarch64_numbers_are_shared() {
        let a = Arch::Aarch64;
        assert_eq!(perfdata_core::sample::aarch64_reg_name(a.perf_bit(30).unwrap_or(99)), Some("lr"));
        assert_eq!(perfdata_core::sample::aarch64_reg_name(a.perf_sp_bit()), Some("sp"));
        assert_eq!(perfdata_core::sample::aarch64_reg_name(a.perf_ip_bit()), Some("pc"));
        assert_eq!(a.perf_bit(33), None);
    }
}
