#include <cuforge/jit/error_record.hpp>

#include <filesystem>

namespace cuforge::jit {

std::string message_of(const frontend::kernel_error_record& r, const frontend::raise_site& site) {
  const auto code = static_cast<frontend::kernel_error>(r.code);
  // NumPy's words for an axis= out of bounds: the axis as written, the array's dimensions.
  if (code == frontend::kernel_error::axis)
    return "axis " + std::to_string(r.index) + " is out of bounds for array of dimension " + std::to_string(r.extent);
  if (code != frontend::kernel_error::index) return site.message;
  // NumPy's words for the index, then the array the site names.
  std::string text = "index " + std::to_string(r.index) + " is out of bounds for axis " + std::to_string(r.axis) +
                     " with size " + std::to_string(r.extent);
  if (!site.message.empty()) text += " (" + site.message + ")";
  return text;
}

std::string describe(const frontend::kernel_error_record& r, const frontend::raise_site& site, bool thread_prefix) {
  const std::string message = message_of(r, site);
  if (!thread_prefix) return message;
  auto zyx = [](const std::uint32_t (&v)[3]) {
    return "[" + std::to_string(v[2]) + ", " + std::to_string(v[1]) + ", " + std::to_string(v[0]) + "]";
  };
  std::string file = site.filename;
  if (!file.empty() && file.front() != '<') {
    std::error_code ec;
    auto abs = std::filesystem::absolute(file, ec);
    if (!ec) file = abs.string();
  }
  std::string text = "In function '" + site.function + "', file " + file + ", line " + std::to_string(r.line) +
                     ", tid=" + zyx(r.thread) + " ctaid=" + zyx(r.block);
  if (!message.empty()) text += ": " + message;
  return text;
}

kernel_exception::kernel_exception(const frontend::kernel_error_record& r, const frontend::raise_site& site,
                                   bool thread_prefix)
    : cuforge::logic_error(describe(r, site, thread_prefix)),
      python_exception_(site.exception.empty() ? std::string(frontend::python_exception_of(
                                                     static_cast<frontend::kernel_error>(r.code)))
                                               : site.exception),
      message_(message_of(r, site)),
      function_(site.function),
      filename_(site.filename),
      code_(static_cast<frontend::kernel_error>(r.code)),
      line_(r.line),
      block_{r.block[0], r.block[1], r.block[2]},
      thread_{r.thread[0], r.thread[1], r.thread[2]} {}

}  // namespace cuforge::jit
