//! The three functions of the C maths library that the binary calls, `log`, `log2` and `pow`,
//! defined here (from the `libm` crate) so that `libm.so.6` is not loaded at all.
//!
//! They are called on no short path: `log` by the hand-over prediction of strong minimisation
//! (`agentpi_lts`), `log2` by num-bigint's estimate of a number's digits, `pow` by tokio's
//! average of task poll times. Yet the dynamic loader maps and relocates the whole library on
//! every start and runs its resolvers for those three symbols: 340 KB of its pages resident in
//! every run, a twelfth of a short `agentpi minimize` and the difference between it and merc's
//! on the smallest inputs (docs/minimize.md, *Start-up memory*). glibc's `log`, `log2` and
//! `pow` (since 2.28) and musl's, which the `libm` crate ports, are the same code (Arm's
//! optimized-routines), so results do not change (`tests::same_as_the_c_library`).

// SAFETY (the module): `no_mangle` puts these functions under the C library's names, where
// the linker binds every call of the binary to `log`, `log2` and `pow` (the standard
// library's `f64::ln`, `log2` and `powf` among them). Each has the C signature and contract
// of the function it replaces (`double f(double)`, `double pow(double, double)`), is total
// and pure (no `errno` is set: nothing in the binary reads it), and calls safe Rust only.
#![allow(unsafe_code)]

/// The natural logarithm, C's `log`.
#[unsafe(no_mangle)]
pub extern "C" fn log(x: f64) -> f64 {
    libm::log(x)
}

/// The binary logarithm, C's `log2`.
#[unsafe(no_mangle)]
pub extern "C" fn log2(x: f64) -> f64 {
    libm::log2(x)
}

/// `x` to the power `y`, C's `pow`.
#[unsafe(no_mangle)]
pub extern "C" fn pow(x: f64, y: f64) -> f64 {
    libm::pow(x, y)
}

#[cfg(test)]
mod tests {
    /// `log`, `log2` and `pow(x, 0.37)` of each `x` as glibc 2.36's `libm.so.6` gives them
    /// (printed by a C program linked against it), bit for bit: the standard library's calls
    /// now land in this module.
    #[test]
    fn same_as_the_c_library() {
        let cases: [(f64, u64, u64, u64); 9] = [
            (
                0.1,
                0xc0026bb1bbb55515,
                0xc00a934f0979a371,
                0x3fdb4d142e995c49,
            ),
            (
                0.5,
                0xbfe62e42fefa39ef,
                0xbff0000000000000,
                0x3fe8c2d382bb2f2b,
            ),
            (
                1.0,
                0x0000000000000000,
                0x0000000000000000,
                0x3ff0000000000000,
            ),
            (
                2.0,
                0x3fe62e42fefa39ef,
                0x3ff0000000000000,
                0x3ff4ad7a2967b268,
            ),
            (
                5.0,
                0x3ff9c041f7ed8d33,
                0x4002934f0979a371,
                0x3ffd05d45c3ed713,
            ),
            (
                10.0,
                0x40026bb1bbb55516,
                0x400a934f0979a371,
                0x4002c0fb09811e7e,
            ),
            (
                1e-300,
                0xc085963447f87fb5,
                0xc08f24a09f1a8b89,
                0x28e33d4032c2c805,
            ),
            (
                3.7e15,
                0x4041ec6e132256ef,
                0x4049dbb4867823f0,
                0x4121920dd5359c76,
            ),
            (
                123456.789,
                0x40277281cad8a844,
                0x4030e9e4bf2a1cb2,
                0x4053223ec0f7e31d,
            ),
        ];
        for (x, ln, log2, pow) in cases {
            let x = std::hint::black_box(x);
            assert_eq!(x.ln().to_bits(), ln, "log({x})");
            assert_eq!(x.log2().to_bits(), log2, "log2({x})");
            assert_eq!(x.powf(0.37).to_bits(), pow, "pow({x}, 0.37)");
        }
    }
}
