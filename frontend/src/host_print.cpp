// print() in host code (the cpu backend's kernels, the host jit): the
// format the typer built (intrinsics_builtins.cpp, type_print) and its
// values, written to the process's stdout as one whole line.
#include <charconv>
#include <cmath>
#include <cstdarg>
#include <cstdio>
#include <cstring>
#include <mutex>
#include <string>

namespace {

std::mutex& print_lock() {
  static std::mutex m;
  return m;
}

// Python's repr() of a float: the shortest digits that read back the same,
// fixed notation for decimal exponents -4..15 (with ".0" for an integral
// value), else d.ddde+XX; nan, inf, -inf.
void python_repr(std::string& out, double v) {
  if (std::isnan(v)) {
    out += "nan";
    return;
  }
  if (std::isinf(v)) {
    out += v < 0 ? "-inf" : "inf";
    return;
  }
  char buf[64];
  auto [end, ec] = std::to_chars(buf, buf + sizeof buf, v, std::chars_format::scientific);
  if (ec != std::errc()) {
    out += "?";
    return;
  }
  const std::string sci(buf, end);  // [-]d[.ddd]e(+|-)XX
  const std::size_t e_at = sci.find('e');
  const int exponent = std::atoi(sci.c_str() + e_at + 1);
  if (exponent < -4 || exponent >= 16) {
    out += sci;
    return;
  }
  std::string digits;
  bool negative = false;
  for (std::size_t i = 0; i < e_at; ++i) {
    if (sci[i] == '-') negative = true;
    else if (sci[i] != '.') digits += sci[i];
  }
  if (negative) out += '-';
  const int point = exponent + 1;  // digits before the decimal point
  if (point <= 0) {
    out += "0." + std::string(static_cast<std::size_t>(-point), '0') + digits;
  } else if (static_cast<std::size_t>(point) >= digits.size()) {
    out += digits + std::string(static_cast<std::size_t>(point) - digits.size(), '0') + ".0";
  } else {
    out += digits.substr(0, static_cast<std::size_t>(point)) + "." + digits.substr(static_cast<std::size_t>(point));
  }
}

}  // namespace

/// Formats `fmt` with the arguments after it and writes the line to C's
/// stdout in one piece, so lines of threads running at once never
/// interleave. The conversions the typer emits: %lld, %llu, %f (a double,
/// as C's printf: numba-cuda's), %R (a double as Python's repr: the host
/// jit's, as Numba's CPU print), %s, and %% for a percent sign.
extern "C" void cuforge_host_print(const char* fmt, ...) {
  std::string out;
  std::va_list args;
  va_start(args, fmt);
  char buf[512];
  for (const char* p = fmt; *p != '\0'; ++p) {
    if (*p != '%') {
      out += *p;
      continue;
    }
    if (std::strncmp(p, "%lld", 4) == 0) {
      std::snprintf(buf, sizeof buf, "%lld", va_arg(args, long long));
      out += buf;
      p += 3;
    } else if (std::strncmp(p, "%llu", 4) == 0) {
      std::snprintf(buf, sizeof buf, "%llu", va_arg(args, unsigned long long));
      out += buf;
      p += 3;
    } else if (p[1] == 'f') {
      const double v = va_arg(args, double);
      const int n = std::snprintf(buf, sizeof buf, "%f", v);
      if (n >= static_cast<int>(sizeof buf)) {  // 1e308 has 309 digits before the point
        std::string big(static_cast<std::size_t>(n) + 1, '\0');
        std::snprintf(big.data(), big.size(), "%f", v);
        out += big.c_str();
      } else {
        out += buf;
      }
      ++p;
    } else if (p[1] == 'R') {
      python_repr(out, va_arg(args, double));
      ++p;
    } else if (p[1] == 's') {
      const char* s = va_arg(args, const char*);
      out += s != nullptr ? s : "(null)";
      ++p;
    } else if (p[1] == '%') {
      out += '%';
      ++p;
    } else {
      out += *p;  // not one of ours: as written
    }
  }
  va_end(args);
  std::lock_guard lock(print_lock());
  std::fwrite(out.data(), 1, out.size(), stdout);
  std::fflush(stdout);
}
