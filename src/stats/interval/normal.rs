//! The standard normal distribution: its quantile, its distribution function and the critical value of a confidence.

/// Horner's rule for c[0] + r·(c[1] + r·(c[2] + …)): the highest
/// coefficient first, each step `acc · r + c`, as the nested form evaluates.
fn horner(c: &[f64], r: f64) -> f64 {
    c.iter()
        .rev()
        .copied()
        .reduce(|acc, c| acc * r + c)
        .unwrap_or(0.0)
}

/// Wichura's AS 241 coefficients, lowest power first: numerator and
/// denominator near the centre (|p − ½| ≤ 0.425), then in the tail for
/// r = √(−ln min(p, 1 − p)) up to 5 and beyond.
const CENTRE: [[f64; 8]; 2] = [
    [
        3.387_132_872_796_366_5,
        133.141_667_891_784_38,
        1_971.590_950_306_551_3,
        13_731.693_765_509_46,
        45_921.953_931_549_87,
        67_265.770_927_008_7,
        33_430.575_583_588_13,
        2_509.080_928_730_122_7,
    ],
    [
        1.0,
        42.313_330_701_600_91,
        687.187_007_492_057_9,
        5_394.196_021_424_751,
        21_213.794_301_586_597,
        39_307.895_800_092_71,
        28_729.085_735_721_943,
        5_226.495_278_852_545,
    ],
];
const NEAR_TAIL: [[f64; 8]; 2] = [
    [
        1.423_437_110_749_683_5,
        4.630_337_846_156_546,
        5.769_497_221_460_691,
        3.647_848_324_763_204_5,
        1.270_458_252_452_368_4,
        0.241_780_725_177_450_6,
        0.022_723_844_989_269_184,
        7.745_450_142_783_414e-4,
    ],
    [
        1.0,
        2.053_191_626_637_759,
        1.676_384_830_183_803_8,
        0.689_767_334_985_1,
        0.148_103_976_427_480_07,
        0.015_198_666_563_616_457,
        5.475_938_084_995_345e-4,
        1.050_750_071_644_416_9e-9,
    ],
];
const FAR_TAIL: [[f64; 8]; 2] = [
    [
        6.657_904_643_501_103,
        5.463_784_911_164_114,
        1.784_826_539_917_291_3,
        0.296_560_571_828_504_9,
        0.026_532_189_526_576_124,
        0.001_242_660_947_388_078_4,
        2.711_555_568_743_487_6e-5,
        2.010_334_399_292_288e-7,
    ],
    [
        1.0,
        0.599_832_206_555_888,
        0.136_929_880_922_735_8,
        0.014_875_361_290_850_615,
        7.868_691_311_456_133e-4,
        1.846_318_317_510_054_8e-5,
        1.421_511_758_316_446e-7,
        2.044_263_103_389_939_7e-15,
    ],
];

/// The standard normal quantile Φ⁻¹(p) for 0 < p < 1 (Wichura's AS 241,
/// about 16 significant digits).
pub fn normal_quantile(p: f64) -> f64 {
    assert!(
        p > 0.0 && p < 1.0,
        "normal_quantile needs 0 < p < 1, got {p}"
    );
    let ratio = |[num, den]: &[[f64; 8]; 2], r: f64| horner(num, r) / horner(den, r);
    let q = p - 0.5;
    if q.abs() <= 0.425 {
        let r = 0.180625 - q * q;
        let [num, den] = &CENTRE;
        return q * horner(num, r) / horner(den, r);
    }
    let r = if q < 0.0 { p } else { 1.0 - p };
    let r = (-r.ln()).sqrt();
    let x = if r <= 5.0 {
        ratio(&NEAR_TAIL, r - 1.6)
    } else {
        ratio(&FAR_TAIL, r - 5.0)
    };
    if q < 0.0 { -x } else { x }
}

/// The standard normal distribution function Φ(x), via `erfc` (relative
/// error below 1.2e-7: used for planning figures only, never for a limit).
pub fn normal_cdf(x: f64) -> f64 {
    0.5 * erfc(-x / std::f64::consts::SQRT_2)
}

/// The Chebyshev coefficients of [`erfc`]'s exponent, lowest power of t first.
const ERFC: [f64; 9] = [
    1.000_023_68,
    0.374_091_96,
    0.096_784_18,
    -0.186_288_06,
    0.278_868_07,
    -1.135_203_98,
    1.488_515_87,
    -0.822_152_23,
    0.170_872_77,
];

/// Complementary error function: the Chebyshev fit of Numerical Recipes'
/// `erfcc`, fractional error below 1.2e-7 everywhere.
fn erfc(x: f64) -> f64 {
    let z = x.abs();
    let t = 1.0 / (1.0 + 0.5 * z);
    let r = t * (-z * z - 1.265_512_23 + t * horner(&ERFC, t)).exp();
    if x >= 0.0 { r } else { 2.0 - r }
}

/// The two-sided critical value z for a confidence, e.g. 1.96 for 0.95.
pub fn z_for(confidence: f64) -> f64 {
    assert!(
        confidence > 0.0 && confidence < 1.0,
        "a confidence is strictly between 0 and 1, got {confidence}"
    );
    normal_quantile(0.5 + confidence / 2.0)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::stats::interval::testing::close;

    #[test]
    fn normal_quantile_known_values() {
        assert!(close(normal_quantile(0.975), 1.959_963_984_540_054, 1e-12));
        assert!(close(normal_quantile(0.5), 0.0, 1e-15));
        assert!(close(normal_quantile(0.8), 0.841_621_233_572_914_3, 1e-12));
        assert!(close(normal_quantile(0.0005), -3.290_526_731_491_89, 1e-10));
        assert!(close(normal_quantile(1e-10), -6.361_340_902_404_056, 1e-9));
        assert!(close(z_for(0.99), 2.575_829_303_548_901, 1e-12));
    }

    #[test]
    fn normal_cdf_inverts_the_quantile() {
        for p in [0.001, 0.025, 0.2, 0.5, 0.8, 0.975, 0.999] {
            assert!(close(normal_cdf(normal_quantile(p)), p, 1e-6), "{p}");
        }
    }
}
