//! User-level statically defined probes for Rust programs, the user
//! space counterpart of a kernel subsystem's `SDT_PROBE_DEFINE`: a
//! provider and its typed probes, each a function that costs a `nop`
//! and a test of its semaphore while nobody traces it, found by
//! dtrace's usdt provider (`myapp$target:::request-start`) with no
//! registration and no extra build step.
//!
//! ```
//! dtrace_usdt::provider! {
//!     /// The probes of a small server.
//!     pub provider myapp {
//!         probe request__start(id: u64, path: &core::ffi::CStr);
//!         probe request__done(id: u64, status: i32);
//!     }
//! }
//!
//! let path = c"/index.html";
//! myapp::request__start(7, path);
//! if myapp::request__done(7, 200) {
//!     // The probe is enabled: dtrace saw it.
//! }
//! ```
//!
//! A probe's name is written as in a D provider definition: each `__`
//! is a `-` to D (`request__start` is `request-start`). The same
//! invocation is what `dtrace -h -s provider.d -o provider.rs` writes for
//! a D provider definition, so one definition serves C and Rust.
//!
//! Probes are written by the [`probe`] crate: each is a `nop` and a
//! `stapsdt` ELF note naming the provider, the probe and where its
//! arguments are, with a semaphore (in the `.probes` section) that the
//! kernel raises while a tracer has the probe enabled; the probe
//! function returns whether it was. Every argument is passed as a 64-bit
//! integer ([`Arg`]): integers as their value, pointers, `&CStr` and
//! slices as the address of their first byte (read with `copyin()` or
//! `copyinstr()`). The declared types are recorded beside the notes (a
//! `.note.dtrace` note of type 3), so that D's `args[]` have them: the
//! integers' sizes and signs, D's `string` for a `&CStr` (read from the
//! program: `args[1]` is the string), `char *` for a pointer to C
//! characters, `void *` for other pointers and slices.
//!
//! A probe runs where no page fault can be taken: `copyinstr()` of a
//! string in a page the program has not touched yet (a literal in a part
//! of the binary not read so far) fails with `invalid address`. Strings
//! the program has just built or read are resident.
//!
//! The semaphores' section (`.probes`) is made to start a page. The
//! kernel raises the semaphore of a process that starts after the probe
//! was enabled (`dtrace -c`) in the first writable mapping of the
//! semaphore's file page; lld lays out segments so that the page holding
//! the start of `.data` is also mapped at the end of the RELRO segment,
//! whose copy would then be raised instead (and later made read-only),
//! leaving the probe disabled in the program.

#![deny(unsafe_code)]

#[doc(hidden)]
pub use probe;

/// A value a probe passes: as a 64-bit integer (`isize`), which is what
/// the probe's note says its arguments are.
pub trait Arg {
    fn into_arg(self) -> isize;
}

macro_rules! int_args {
    ($($t:ty),*) => {
        $(impl Arg for $t {
            #[inline(always)]
            fn into_arg(self) -> isize {
                self as isize
            }
        })*
    };
}

int_args!(i8, i16, i32, i64, isize, u8, u16, u32, u64, usize);

impl Arg for bool {
    #[inline(always)]
    fn into_arg(self) -> isize {
        isize::from(self)
    }
}

impl Arg for char {
    #[inline(always)]
    fn into_arg(self) -> isize {
        self as isize
    }
}

impl<T> Arg for *const T {
    #[inline(always)]
    fn into_arg(self) -> isize {
        self as isize
    }
}

impl<T> Arg for *mut T {
    #[inline(always)]
    fn into_arg(self) -> isize {
        self as isize
    }
}

/// A C string: its address (`copyinstr(arg0)` reads it).
impl Arg for &core::ffi::CStr {
    #[inline(always)]
    fn into_arg(self) -> isize {
        self.as_ptr() as isize
    }
}

/// A slice: the address of its first element (with its length passed
/// beside it, `copyin(arg0, arg1)` reads it).
impl<T> Arg for &[T] {
    #[inline(always)]
    fn into_arg(self) -> isize {
        self.as_ptr() as isize
    }
}

/// Declares a provider: a module of that name with a function for each
/// probe, taking the probe's typed arguments and returning whether the
/// probe is enabled (the arguments are evaluated by the caller either
/// way; test a cheap probe first to skip costly ones).
#[macro_export]
macro_rules! provider {
    (
        $(#[$meta:meta])*
        $vis:vis provider $provider:ident {
            $(
                $(#[$pmeta:meta])*
                probe $name:ident ( $($arg:ident : $ty:ty),* $(,)? );
            )*
        }
    ) => {
        $(#[$meta])*
        #[allow(non_snake_case)]
        $vis mod $provider {
            #[allow(unused_imports)]
            use super::*;
            // The semaphores' section starts a page: see the crate's
            // documentation.
            #[cfg(any(target_arch = "x86_64", target_arch = "x86"))]
            ::core::arch::global_asm!(
                ".pushsection .probes,\"aw\",@progbits",
                ".balign 4096",
                ".popsection",
                options(att_syntax)
            );
            $(
                // The probe's argument types, for dtrace's `args[]`: a
                // note of dtrace's (`.note.dtrace`, owner `dtrace`, type
                // 3: the provider, the probe, each argument's Rust type).
                #[cfg(any(target_arch = "x86_64", target_arch = "x86"))]
                ::core::arch::global_asm!(
                    ".pushsection .note.dtrace,\"\",@note",
                    ".balign 4",
                    ".4byte 992f-991f, 994f-993f, 3",
                    "991: .asciz \"dtrace\"",
                    "992: .balign 4",
                    concat!("993: .asciz \"", stringify!($provider), "\""),
                    concat!(".asciz \"", stringify!($name), "\""),
                    $(concat!(".asciz \"", stringify!($ty), "\""),)*
                    "994: .balign 4",
                    ".popsection",
                    options(att_syntax)
                );
                $(#[$pmeta])*
                #[inline(always)]
                #[allow(non_snake_case, clippy::too_many_arguments)]
                pub fn $name($($arg: $ty),*) -> bool {
                    $crate::probe::probe_lazy!(
                        $provider,
                        $name
                        $(, $crate::Arg::into_arg($arg))*
                    )
                }
            )*
        }
    };
}

// The tests expand `provider!` here, and with it the `global_asm!`
// (one alignment directive: no code, no symbol) that the lint counts as
// unsafe code; programs that use the crate expand it from outside.
#[cfg(test)]
#[allow(unsafe_code)]
mod tests {
    use super::Arg;

    crate::provider! {
        provider unit {
            probe nothing();
            probe three(a: u8, b: i64, c: &core::ffi::CStr);
        }
    }

    #[test]
    fn probes_are_functions_that_say_whether_they_are_enabled() {
        // Nobody traces this test.
        assert!(!unit::nothing());
        assert!(!unit::three(1, -2, c"x"));
    }

    #[test]
    fn the_semaphores_start_a_page() {
        use object::{Object, ObjectSection};
        let exe = std::fs::read("/proc/self/exe").expect("this test's executable");
        let file = object::File::parse(&exe[..]).expect("an ELF file");
        let probes = file.section_by_name(".probes").expect("semaphores");
        assert_eq!(probes.address() % 4096, 0);
        let (offset, _) = probes.file_range().expect("in the file");
        assert_eq!(offset % 4096, 0);
    }

    #[test]
    fn arguments_are_words() {
        assert_eq!((-3i8).into_arg(), -3);
        assert_eq!(u64::MAX.into_arg(), -1);
        assert_eq!(true.into_arg(), 1);
        let s = c"abc";
        assert_eq!(s.into_arg(), s.as_ptr() as isize);
        let v = [1u32, 2];
        assert_eq!(v[..].into_arg(), v.as_ptr() as isize);
    }
}
