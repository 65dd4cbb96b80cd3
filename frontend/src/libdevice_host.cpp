// The cpu backend's libdevice: one function per row of
// libdevice_functions.def, with __nv_<name>'s C prototype, which the host JIT
// binds where a kernel calls __nv_<name> (cuda.libdevice.*). Each computes
// what libdevice documents: the math functions through libm (correctly
// rounded where libm is, libm's accuracy otherwise, also for the GPU's
// approximate fast_* functions), the directed-rounding arithmetic and
// conversions in the rounding mode they name, the float-to-integer
// conversions saturating with nan giving the sign bit as the GPU's cvt does, and the
// integer functions bit for bit.
//
// The rounding-mode functions set the thread's mode around their one
// operation, whose operands pass through volatile memory so that neither
// the compiler's folding nor its scheduling moves the operation out of the
// mode; this file is compiled with -frounding-math (frontend/CMakeLists.txt).
#include "codegen_target.hpp"
#include "gpu_conversions.hpp"

#include <bit>
#include <cfenv>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <limits>

namespace {

using std::int16_t;
using std::int32_t;
using std::int64_t;
using std::uint32_t;
using std::uint64_t;
__extension__ typedef __int128 i128;
__extension__ typedef unsigned __int128 u128;

template <class To, class From>
To bits(From x) {
  static_assert(sizeof(To) == sizeof(From));
  To r;
  std::memcpy(&r, &x, sizeof r);
  return r;
}

// --- the rounding modes ------------------------------------------------------------------------

enum mode : int { rn = FE_TONEAREST, rz = FE_TOWARDZERO, ru = FE_UPWARD, rd = FE_DOWNWARD };

// f() computed with the thread's rounding mode set to m.
template <class T, class F>
T in_mode(int m, F f) {
  const int old = std::fegetround();
  std::fesetround(m);
  volatile T r = f();
  std::fesetround(old);
  return r;
}

template <class T>
T add(int m, T x, T y) {
  return in_mode<T>(m, [&] {
    volatile T a = x, b = y;
    return a + b;
  });
}
template <class T>
T sub(int m, T x, T y) {
  return in_mode<T>(m, [&] {
    volatile T a = x, b = y;
    return a - b;
  });
}
template <class T>
T mul(int m, T x, T y) {
  return in_mode<T>(m, [&] {
    volatile T a = x, b = y;
    return a * b;
  });
}
template <class T>
T div(int m, T x, T y) {
  return in_mode<T>(m, [&] {
    volatile T a = x, b = y;
    return a / b;
  });
}
template <class T>
T sqrt_in(int m, T x) {
  return in_mode<T>(m, [&] {
    volatile T a = x;
    return std::sqrt(static_cast<T>(a));
  });
}
template <class T>
T fma_in(int m, T x, T y, T z) {
  return in_mode<T>(m, [&] {
    volatile T a = x, b = y, c = z;
    return std::fma(static_cast<T>(a), static_cast<T>(b), static_cast<T>(c));
  });
}
// An exact value (every 64-bit integer is one in long double) rounded once to T in mode m.
template <class T>
T convert(int m, long double x) {
  return in_mode<T>(m, [&] {
    volatile long double a = x;
    return static_cast<T>(a);
  });
}

// x rounded to an integer as mode m says, then to I saturating, as the GPU's cvt: nan gives the
// sign bit alone (INT_MIN's bits; for unsigned results too) at 64 bits and at 32 from a double,
// else 0, as seen on an H200.
template <class I, class F>
I to_int(int m, F from) {
  double x = from;
  if (std::isnan(x))
    return static_cast<I>(cuforge::frontend::detail::nan_int_bits(8 * sizeof(I), sizeof(F) == 8));
  switch (m) {
    case rz: x = std::trunc(x); break;
    case ru: x = std::ceil(x); break;
    case rd: x = std::floor(x); break;
    default: x = std::nearbyint(x); break;  // the default mode: to nearest, ties to even
  }
  constexpr long double lo = static_cast<long double>(std::numeric_limits<I>::min());
  constexpr long double hi = static_cast<long double>(std::numeric_limits<I>::max());
  if (x <= lo) return std::numeric_limits<I>::min();
  if (x >= hi) return std::numeric_limits<I>::max();
  return static_cast<I>(x);
}

// --- functions libm lacks -----------------------------------------------------------------------

constexpr double k_pi = 3.14159265358979323846;
constexpr double k_sqrt_pi = 1.77245385090551602730;
constexpr double k_sqrt2 = 1.41421356237309504880;

// sin(pi x) and cos(pi x) with the argument reduced exactly: x = n/2 + r, |r| <= 1/4.
void sincospi_of(double x, double* s, double* c) {
  if (!std::isfinite(x)) {
    *s = *c = std::numeric_limits<double>::quiet_NaN();
    return;
  }
  const double n = std::nearbyint(2.0 * x);
  const double r = x - 0.5 * n;
  const double sr = std::sin(k_pi * r), cr = std::cos(k_pi * r);
  double q = std::fmod(n, 4.0);
  if (q < 0) q += 4.0;
  switch (static_cast<int>(q)) {
    case 0: *s = sr, *c = cr; break;
    case 1: *s = cr, *c = -sr; break;
    case 2: *s = -sr, *c = -cr; break;
    default: *s = -cr, *c = sr; break;
  }
  if (r == 0.0) {  // exact zeros: sinpi(n) keeps x's sign, cospi(n + 1/2) is +0
    if (*s == 0.0) *s = std::copysign(0.0, x);
    if (*c == 0.0) *c = 0.0;
  }
}

// exp(x * x) without the error of rounding x * x first.
double exp_square(double x) {
  const double hi = x * x;
  const double lo = std::fma(x, x, -hi);
  return std::exp(hi) * (1.0 + lo);
}

// exp(x^2) erfc(x).
double erfcx_of(double x) {
  if (std::isnan(x)) return x;
  if (x < 0) {
    if (x < -26.7) return std::numeric_limits<double>::infinity();
    return 2.0 * exp_square(x) - erfcx_of(-x);
  }
  if (x < 26.0) return exp_square(x) * std::erfc(x);
  if (std::isinf(x)) return 0.0;
  // The asymptotic series 1/(x sqrt(pi)) (1 - 1/(2x^2) + 3/(2x^2)^2 - 15/(2x^2)^3 ...).
  const double t = 1.0 / (2.0 * x * x);
  double sum = 1.0, term = 1.0;
  for (int k = 1; k <= 8; ++k) {
    term *= -(2.0 * k - 1.0) * t;
    sum += term;
  }
  return sum / (x * k_sqrt_pi);
}

// The inverse of the standard normal distribution: Acklam's rational approximation (relative
// error under 1.2e-9), then a Newton step on erfc, which makes it accurate to a few ulps.
double normcdfinv_of(double p) {
  if (std::isnan(p) || p < 0.0 || p > 1.0) return std::numeric_limits<double>::quiet_NaN();
  if (p == 0.0) return -std::numeric_limits<double>::infinity();
  if (p == 1.0) return std::numeric_limits<double>::infinity();
  static constexpr double a[] = {-3.969683028665376e+01, 2.209460984245205e+02, -2.759285104469687e+02,
                                 1.383577518672690e+02,  -3.066479806614716e+01, 2.506628277459239e+00};
  static constexpr double b[] = {-5.447609879822406e+01, 1.615858368580409e+02, -1.556989798598866e+02,
                                 6.680131188771972e+01,  -1.328068155288572e+01};
  static constexpr double c[] = {-7.784894002430293e-03, -3.223964580411365e-01, -2.400758277161838e+00,
                                 -2.549732539343734e+00, 4.374664141464968e+00,  2.938163982698783e+00};
  static constexpr double d[] = {7.784695709041462e-03, 3.224671290700398e-01, 2.445134137142996e+00,
                                 3.754408661907416e+00};
  const double lo = 0.02425, hi = 1.0 - lo;
  double x;
  if (p < lo || p > hi) {
    const double q = std::sqrt(-2.0 * std::log(p < lo ? p : 1.0 - p));
    x = (((((c[0] * q + c[1]) * q + c[2]) * q + c[3]) * q + c[4]) * q + c[5]) /
        ((((d[0] * q + d[1]) * q + d[2]) * q + d[3]) * q + 1.0);
    if (p > hi) x = -x;
  } else {
    const double q = p - 0.5, r = q * q;
    x = (((((a[0] * r + a[1]) * r + a[2]) * r + a[3]) * r + a[4]) * r + a[5]) * q /
        (((((b[0] * r + b[1]) * r + b[2]) * r + b[3]) * r + b[4]) * r + 1.0);
  }
  // Halley's step on 0.5 erfc(-x / sqrt 2) = p, relative to p where p is small.
  for (int i = 0; i < 2; ++i) {
    const double e = 0.5 * std::erfc(-x / k_sqrt2) - p;
    const double u = e * std::sqrt(2.0 * k_pi) * std::exp(x * x / 2.0);
    if (!std::isfinite(u)) break;
    x = x - u / (1.0 + x * u / 2.0);
  }
  return x;
}

// erfc^-1(y), y in [0, 2]: Newton on log erfc(x) = log erfcx(x) - x^2, which stays well
// conditioned where y is tiny.
double erfcinv_of(double y) {
  if (std::isnan(y) || y < 0.0 || y > 2.0) return std::numeric_limits<double>::quiet_NaN();
  if (y == 0.0) return std::numeric_limits<double>::infinity();
  if (y == 2.0) return -std::numeric_limits<double>::infinity();
  if (y > 1.0) return -erfcinv_of(2.0 - y);
  double x = -normcdfinv_of(0.5 * y) / k_sqrt2;
  const double log_y = std::log(y);
  for (int i = 0; i < 3; ++i) {
    const double cx = erfcx_of(x);
    const double g = std::log(cx) - x * x - log_y;
    x += g * cx * k_sqrt_pi / 2.0;
  }
  return x;
}

double erfinv_of(double y) {
  if (std::isnan(y) || y < -1.0 || y > 1.0) return std::numeric_limits<double>::quiet_NaN();
  if (std::fabs(y) > 0.5) return std::copysign(erfcinv_of(1.0 - std::fabs(y)), y);  // 1 - |y| exact
  if (y == 0.0) return y;
  double x = -normcdfinv_of(0.5 - 0.5 * y) / k_sqrt2;
  for (int i = 0; i < 2; ++i) x -= (std::erf(x) - y) / (2.0 / k_sqrt_pi * std::exp(-x * x));
  return x;
}

double lgamma_of(double x) {
  int sign = 0;
  return ::lgamma_r(x, &sign);
}
float lgammaf_of(float x) {
  int sign = 0;
  return ::lgammaf_r(x, &sign);
}

// --- integers -----------------------------------------------------------------------------------

template <class U>
U reverse_bits(U x) {
  U r = 0;
  for (unsigned i = 0; i < sizeof(U) * 8; ++i, x >>= 1) r = (r << 1) | (x & 1);
  return r;
}

int32_t byte_perm_of(int32_t x, int32_t y, int32_t s) {
  const uint64_t bytes = (static_cast<uint64_t>(static_cast<uint32_t>(y)) << 32) | static_cast<uint32_t>(x);
  uint32_t r = 0;
  for (int i = 0; i < 4; ++i) {
    const unsigned sel = (static_cast<uint32_t>(s) >> (4 * i)) & 7;
    r |= static_cast<uint32_t>((bytes >> (8 * sel)) & 0xff) << (8 * i);
  }
  return static_cast<int32_t>(r);
}

int32_t wrap32(int64_t v) { return static_cast<int32_t>(static_cast<uint32_t>(static_cast<uint64_t>(v))); }
int32_t wrap32u(uint64_t v) { return static_cast<int32_t>(static_cast<uint32_t>(v)); }
uint32_t u32(int32_t v) { return static_cast<uint32_t>(v); }
uint64_t u64(int64_t v) { return static_cast<uint64_t>(v); }

}  // namespace

// The functions, by their rows' names (cuforge_nv_<name>; the JIT binds __nv_<name> to them).
// libdevice's powi: square and multiply, each product rounded, then 1/r for a negative exponent
// (bit for bit what the GPU computes; less accurate than pow for large exponents).
template <class F>
F powi_steps(F a, int32_t n) {
  std::uint32_t e = n >= 0 ? static_cast<std::uint32_t>(n) : 0u - static_cast<std::uint32_t>(n);
  F r = 1;
  for (;;) {
    if (e & 1u) r = r * a;
    e >>= 1;
    if (e == 0) return n < 0 ? F(1) / r : r;
    a = a * a;
  }
}
extern "C" {

#define F1(name) \
  double cuforge_nv_##name(double x) { return ::name(x); } \
  float cuforge_nv_##name##f(float x) { return ::name##f(x); }
#define F2(name) \
  double cuforge_nv_##name(double x, double y) { return ::name(x, y); } \
  float cuforge_nv_##name##f(float x, float y) { return ::name##f(x, y); }

F1(acos) F1(acosh) F1(asin) F1(asinh) F1(atan)
F1(atanh) F1(cbrt) F1(ceil) F1(cos) F1(cosh)
F1(erf) F1(erfc) F1(exp) F1(exp10) F1(exp2)
F1(expm1) F1(fabs) F1(floor) F1(j0) F1(j1) F1(log)
F1(log10) F1(log1p) F1(log2) F1(logb) F1(nearbyint)
F1(rint) F1(round) F1(sin) F1(sinh) F1(sqrt) F1(tan)
F1(tanh) F1(tgamma) F1(trunc) F1(y0) F1(y1)
F2(atan2) F2(copysign) F2(fdim) F2(fmax) F2(fmin)
F2(fmod) F2(hypot) F2(nextafter) F2(pow)
F2(remainder)
#undef F1
#undef F2

double cuforge_nv_fma(double x, double y, double z) { return std::fma(x, y, z); }
float cuforge_nv_fmaf(float x, float y, float z) { return std::fma(x, y, z); }
double cuforge_nv_lgamma(double x) { return lgamma_of(x); }
float cuforge_nv_lgammaf(float x) { return lgammaf_of(x); }
double cuforge_nv_jn(int32_t n, double x) { return ::jn(n, x); }
float cuforge_nv_jnf(int32_t n, float x) { return ::jnf(n, x); }
double cuforge_nv_yn(int32_t n, double x) { return ::yn(n, x); }
float cuforge_nv_ynf(int32_t n, float x) { return ::ynf(n, x); }
double cuforge_nv_ldexp(double x, int32_t e) { return std::ldexp(x, e); }
float cuforge_nv_ldexpf(float x, int32_t e) { return std::ldexp(x, e); }
double cuforge_nv_scalbn(double x, int32_t e) { return std::scalbn(x, e); }
float cuforge_nv_scalbnf(float x, int32_t e) { return std::scalbn(x, e); }
double cuforge_nv_powi(double x, int32_t e) { return powi_steps(x, e); }
float cuforge_nv_powif(float x, int32_t e) { return powi_steps(x, e); }
int32_t cuforge_nv_ilogb(double x) { return std::ilogb(x); }
int32_t cuforge_nv_ilogbf(float x) { return std::ilogb(x); }
int64_t cuforge_nv_llrint(double x) { return to_int<int64_t>(rn, x); }
int64_t cuforge_nv_llrintf(float x) { return to_int<int64_t>(rn, x); }
int64_t cuforge_nv_llround(double x) { return std::isnan(x) ? 0 : to_int<int64_t>(rz, std::round(x)); }
int64_t cuforge_nv_llroundf(float x) { return std::isnan(x) ? 0 : to_int<int64_t>(rz, std::round(x)); }
double cuforge_nv_frexp(double x, int32_t* e) { return std::frexp(x, e); }
float cuforge_nv_frexpf(float x, int32_t* e) { return std::frexp(x, e); }
double cuforge_nv_modf(double x, double* i) { return std::modf(x, i); }
float cuforge_nv_modff(float x, float* i) { return std::modf(x, i); }
double cuforge_nv_remquo(double x, double y, int32_t* q) { return std::remquo(x, y, q); }
float cuforge_nv_remquof(float x, float y, int32_t* q) { return std::remquo(x, y, q); }
void cuforge_nv_sincos(double x, double* s, double* c) { *s = std::sin(x), *c = std::cos(x); }
void cuforge_nv_sincosf(float x, float* s, float* c) { *s = std::sin(x), *c = std::cos(x); }
void cuforge_nv_sincospi(double x, double* s, double* c) { sincospi_of(x, s, c); }
void cuforge_nv_sincospif(float x, float* s, float* c) {
  double ds = 0, dc = 0;
  sincospi_of(x, &ds, &dc);
  *s = static_cast<float>(ds), *c = static_cast<float>(dc);
}
double cuforge_nv_sinpi(double x) {
  double s = 0, c = 0;
  sincospi_of(x, &s, &c);
  return s;
}
float cuforge_nv_sinpif(float x) { return static_cast<float>(cuforge_nv_sinpi(x)); }
double cuforge_nv_cospi(double x) {
  double s = 0, c = 0;
  sincospi_of(x, &s, &c);
  return c;
}
float cuforge_nv_cospif(float x) { return static_cast<float>(cuforge_nv_cospi(x)); }
double cuforge_nv_rcbrt(double x) { return 1.0 / std::cbrt(x); }
float cuforge_nv_rcbrtf(float x) { return static_cast<float>(1.0 / std::cbrt(static_cast<double>(x))); }
double cuforge_nv_rsqrt(double x) { return 1.0 / std::sqrt(x); }
float cuforge_nv_rsqrtf(float x) { return static_cast<float>(1.0 / std::sqrt(static_cast<double>(x))); }
float cuforge_nv_frsqrt_rn(float x) { return static_cast<float>(1.0 / std::sqrt(static_cast<double>(x))); }
double cuforge_nv_erfinv(double x) { return erfinv_of(x); }
float cuforge_nv_erfinvf(float x) { return static_cast<float>(erfinv_of(x)); }
double cuforge_nv_erfcinv(double x) { return erfcinv_of(x); }
float cuforge_nv_erfcinvf(float x) { return static_cast<float>(erfcinv_of(x)); }
double cuforge_nv_erfcx(double x) { return erfcx_of(x); }
float cuforge_nv_erfcxf(float x) { return static_cast<float>(erfcx_of(x)); }
double cuforge_nv_normcdf(double x) { return 0.5 * std::erfc(-x / k_sqrt2); }
float cuforge_nv_normcdff(float x) { return static_cast<float>(0.5 * std::erfc(-static_cast<double>(x) / k_sqrt2)); }
double cuforge_nv_normcdfinv(double x) { return normcdfinv_of(x); }
float cuforge_nv_normcdfinvf(float x) { return static_cast<float>(normcdfinv_of(x)); }
float cuforge_nv_saturatef(float x) { return x > 0.0f ? (x < 1.0f ? x : 1.0f) : 0.0f; }  // nan gives 0

// The GPU's approximate float32 functions: libm's, more accurate than the GPU's.
float cuforge_nv_fast_cosf(float x) { return std::cos(x); }
float cuforge_nv_fast_sinf(float x) { return std::sin(x); }
float cuforge_nv_fast_tanf(float x) { return std::tan(x); }
float cuforge_nv_fast_expf(float x) { return std::exp(x); }
float cuforge_nv_fast_exp10f(float x) { return ::exp10f(x); }
float cuforge_nv_fast_logf(float x) { return std::log(x); }
float cuforge_nv_fast_log2f(float x) { return std::log2(x); }
float cuforge_nv_fast_log10f(float x) { return std::log10(x); }
// exp2(y * log2(x)), as libdevice builds it on the approximate instructions: nan for a negative
// base and for 0 ** 0, as on the GPU (libm's digits otherwise).
float cuforge_nv_fast_powf(float x, float y) { return std::exp2(y * std::log2(x)); }
float cuforge_nv_fast_fdividef(float x, float y) { return x / y; }
void cuforge_nv_fast_sincosf(float x, float* s, float* c) { *s = std::sin(x), *c = std::cos(x); }

// Classification: 1 or 0.
int32_t cuforge_nv_isnand(double x) { return std::isnan(x) ? 1 : 0; }
int32_t cuforge_nv_isnanf(float x) { return std::isnan(x) ? 1 : 0; }
int32_t cuforge_nv_isinfd(double x) { return std::isinf(x) ? 1 : 0; }
int32_t cuforge_nv_isinff(float x) { return std::isinf(x) ? 1 : 0; }
int32_t cuforge_nv_isfinited(double x) { return std::isfinite(x) ? 1 : 0; }
int32_t cuforge_nv_finitef(float x) { return std::isfinite(x) ? 1 : 0; }
int32_t cuforge_nv_signbitd(double x) { return std::signbit(x) ? 1 : 0; }
int32_t cuforge_nv_signbitf(float x) { return std::signbit(x) ? 1 : 0; }

// Arithmetic in a named rounding mode.
#define ROUNDED(suffix, m)                                                                      \
  double cuforge_nv_dadd_##suffix(double x, double y) { return add(m, x, y); }                  \
  double cuforge_nv_dmul_##suffix(double x, double y) { return mul(m, x, y); }                  \
  double cuforge_nv_ddiv_##suffix(double x, double y) { return div(m, x, y); }                  \
  double cuforge_nv_drcp_##suffix(double x) { return div(m, 1.0, x); }                          \
  double cuforge_nv_dsqrt_##suffix(double x) { return sqrt_in(m, x); }                          \
  double cuforge_nv_fma_##suffix(double x, double y, double z) { return fma_in(m, x, y, z); }   \
  float cuforge_nv_fadd_##suffix(float x, float y) { return add(m, x, y); }                     \
  float cuforge_nv_fsub_##suffix(float x, float y) { return sub(m, x, y); }                     \
  float cuforge_nv_fmul_##suffix(float x, float y) { return mul(m, x, y); }                     \
  float cuforge_nv_fdiv_##suffix(float x, float y) { return div(m, x, y); }                     \
  float cuforge_nv_frcp_##suffix(float x) { return div(m, 1.0f, x); }                           \
  float cuforge_nv_fsqrt_##suffix(float x) { return sqrt_in(m, x); }                            \
  float cuforge_nv_fmaf_##suffix(float x, float y, float z) { return fma_in(m, x, y, z); }      \
  float cuforge_nv_double2float_##suffix(double x) { return convert<float>(m, x); }             \
  int32_t cuforge_nv_double2int_##suffix(double x) { return to_int<int32_t>(m, x); }            \
  int32_t cuforge_nv_double2uint_##suffix(double x) { return static_cast<int32_t>(to_int<uint32_t>(m, x)); } \
  int64_t cuforge_nv_double2ll_##suffix(double x) { return to_int<int64_t>(m, x); }             \
  int64_t cuforge_nv_double2ull_##suffix(double x) { return static_cast<int64_t>(to_int<uint64_t>(m, x)); }  \
  int32_t cuforge_nv_float2int_##suffix(float x) { return to_int<int32_t>(m, x); }              \
  int32_t cuforge_nv_float2uint_##suffix(float x) { return static_cast<int32_t>(to_int<uint32_t>(m, x)); }   \
  int64_t cuforge_nv_float2ll_##suffix(float x) { return to_int<int64_t>(m, x); }               \
  int64_t cuforge_nv_float2ull_##suffix(float x) { return static_cast<int64_t>(to_int<uint64_t>(m, x)); }    \
  float cuforge_nv_int2float_##suffix(int32_t x) { return convert<float>(m, x); }               \
  float cuforge_nv_uint2float_##suffix(int32_t x) { return convert<float>(m, u32(x)); }         \
  double cuforge_nv_ll2double_##suffix(int64_t x) { return convert<double>(m, x); }             \
  float cuforge_nv_ll2float_##suffix(int64_t x) { return convert<float>(m, x); }                \
  double cuforge_nv_ull2double_##suffix(int64_t x) { return convert<double>(m, u64(x)); }       \
  float cuforge_nv_ull2float_##suffix(int64_t x) { return convert<float>(m, u64(x)); }
ROUNDED(rn, rn) ROUNDED(rz, rz) ROUNDED(ru, ru) ROUNDED(rd, rd)
#undef ROUNDED
double cuforge_nv_int2double_rn(int32_t x) { return x; }
double cuforge_nv_uint2double_rn(int32_t x) { return u32(x); }

// Bits.
int32_t cuforge_nv_double2hiint(double x) { return static_cast<int32_t>(bits<uint64_t>(x) >> 32); }
int32_t cuforge_nv_double2loint(double x) { return static_cast<int32_t>(static_cast<uint32_t>(bits<uint64_t>(x))); }
double cuforge_nv_hiloint2double(int32_t hi, int32_t lo) {
  return bits<double>((static_cast<uint64_t>(u32(hi)) << 32) | u32(lo));
}
int64_t cuforge_nv_double_as_longlong(double x) { return bits<int64_t>(x); }
double cuforge_nv_longlong_as_double(int64_t x) { return bits<double>(x); }
int32_t cuforge_nv_float_as_int(float x) { return bits<int32_t>(x); }
float cuforge_nv_int_as_float(int32_t x) { return bits<float>(x); }
int16_t cuforge_nv_float2half_rn(float x) {
  if (std::isnan(x)) return 0x7FFF;  // the GPU's canonical half nan (cvt.rn.f16.f32)
  return static_cast<int16_t>(cuforge::frontend::detail::half_bits_of(static_cast<double>(x)));
}
float cuforge_nv_half2float(int16_t x) {
  return cuforge::frontend::detail::float_of_half_bits(static_cast<std::uint16_t>(x));
}

// Integers (unsigned ones in signed types of their width, as the rows have them).
int32_t cuforge_nv_abs(int32_t x) { return x < 0 ? static_cast<int32_t>(0u - u32(x)) : x; }
int64_t cuforge_nv_llabs(int64_t x) { return x < 0 ? static_cast<int64_t>(uint64_t{0} - u64(x)) : x; }
int32_t cuforge_nv_brev(int32_t x) { return static_cast<int32_t>(reverse_bits(u32(x))); }
int64_t cuforge_nv_brevll(int64_t x) { return static_cast<int64_t>(reverse_bits(u64(x))); }
int32_t cuforge_nv_byte_perm(int32_t x, int32_t y, int32_t s) { return byte_perm_of(x, y, s); }
int32_t cuforge_nv_clz(int32_t x) { return std::countl_zero(u32(x)); }
int32_t cuforge_nv_clzll(int64_t x) { return std::countl_zero(u64(x)); }
int32_t cuforge_nv_ffs(int32_t x) { return x == 0 ? 0 : std::countr_zero(u32(x)) + 1; }
int32_t cuforge_nv_ffsll(int64_t x) { return x == 0 ? 0 : std::countr_zero(u64(x)) + 1; }
int32_t cuforge_nv_popc(int32_t x) { return std::popcount(u32(x)); }
int32_t cuforge_nv_popcll(int64_t x) { return std::popcount(u64(x)); }
int32_t cuforge_nv_hadd(int32_t x, int32_t y) { return wrap32((int64_t{x} + y) >> 1); }
int32_t cuforge_nv_rhadd(int32_t x, int32_t y) { return wrap32((int64_t{x} + y + 1) >> 1); }
int32_t cuforge_nv_uhadd(int32_t x, int32_t y) { return wrap32u((uint64_t{u32(x)} + u32(y)) >> 1); }
int32_t cuforge_nv_urhadd(int32_t x, int32_t y) { return wrap32u((uint64_t{u32(x)} + u32(y) + 1) >> 1); }
int32_t cuforge_nv_max(int32_t x, int32_t y) { return x > y ? x : y; }
int32_t cuforge_nv_min(int32_t x, int32_t y) { return x < y ? x : y; }
int32_t cuforge_nv_umax(int32_t x, int32_t y) { return u32(x) > u32(y) ? x : y; }
int32_t cuforge_nv_umin(int32_t x, int32_t y) { return u32(x) < u32(y) ? x : y; }
int64_t cuforge_nv_llmax(int64_t x, int64_t y) { return x > y ? x : y; }
int64_t cuforge_nv_llmin(int64_t x, int64_t y) { return x < y ? x : y; }
int64_t cuforge_nv_ullmax(int64_t x, int64_t y) { return u64(x) > u64(y) ? x : y; }
int64_t cuforge_nv_ullmin(int64_t x, int64_t y) { return u64(x) < u64(y) ? x : y; }
int32_t cuforge_nv_mul24(int32_t x, int32_t y) {
  const int64_t a = static_cast<int32_t>(u32(x) << 8) >> 8, b = static_cast<int32_t>(u32(y) << 8) >> 8;
  return wrap32(a * b);
}
int32_t cuforge_nv_umul24(int32_t x, int32_t y) { return wrap32u(uint64_t{u32(x) & 0xffffffu} * (u32(y) & 0xffffffu)); }
int32_t cuforge_nv_mulhi(int32_t x, int32_t y) { return wrap32((int64_t{x} * y) >> 32); }
int32_t cuforge_nv_umulhi(int32_t x, int32_t y) { return wrap32u((uint64_t{u32(x)} * u32(y)) >> 32); }
int64_t cuforge_nv_mul64hi(int64_t x, int64_t y) { return static_cast<int64_t>((i128{x} * i128{y}) >> 64); }
int64_t cuforge_nv_umul64hi(int64_t x, int64_t y) { return static_cast<int64_t>(static_cast<uint64_t>((u128{u64(x)} * u64(y)) >> 64)); }
int32_t cuforge_nv_sad(int32_t x, int32_t y, int32_t z) {
  const int64_t d = int64_t{x} - y;
  return wrap32u(static_cast<uint64_t>(d < 0 ? -d : d) + u32(z));
}
int32_t cuforge_nv_usad(int32_t x, int32_t y, int32_t z) {
  const uint32_t a = u32(x), b = u32(y);
  return wrap32u(uint64_t{a > b ? a - b : b - a} + u32(z));
}

}  // extern "C"

namespace cuforge::frontend::detail {

std::vector<host_symbol> libdevice_host_symbols() {
  return {
#define CUFORGE_LIBDEVICE(name, proto, params, doc) {"__nv_" #name, reinterpret_cast<void*>(&cuforge_nv_##name)},
#include "libdevice_functions.def"
#undef CUFORGE_LIBDEVICE
  };
}

}  // namespace cuforge::frontend::detail
