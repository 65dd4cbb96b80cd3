#include <cuforge/frontend/diagnostics.hpp>

namespace cuforge::frontend {

std::string format_diagnostic(const std::string& message, const function& where, location loc) {
  std::string s = message + "\n\nFile \"" + where.filename + "\", line " + std::to_string(loc.line) + ", in " +
                  where.display_name() + ":";
  if (loc.line >= 1 && static_cast<std::size_t>(loc.line) <= where.source_lines.size()) {
    std::string text = where.source_lines[static_cast<std::size_t>(loc.line - 1)];
    while (!text.empty() && (text.back() == '\n' || text.back() == '\r')) text.pop_back();
    s += "\n    " + text + "\n    " + std::string(static_cast<std::size_t>(std::max(loc.col, 0)), ' ') + "^";
  }
  return s;
}

namespace {
std::string line_text(const function& f, location loc) {
  if (loc.line < 1 || static_cast<std::size_t>(loc.line) > f.source_lines.size()) return {};
  std::string t = f.source_lines[static_cast<std::size_t>(loc.line - 1)];
  while (!t.empty() && (t.back() == '\n' || t.back() == '\r')) t.pop_back();
  return t;
}
}  // namespace

compile_error::compile_error(std::string message, const function& where, location loc)
    : cuforge::logic_error(format_diagnostic(message, where, loc)),
      message_(std::move(message)),
      filename_(where.filename),
      source_line_(line_text(where, loc)),
      loc_(loc) {}

namespace {
std::string ice_text(const std::string& detail, const std::string& function) {
  return "cuforge internal compiler error" + (function.empty() ? std::string() : " in '" + function + "'") + ": " +
         detail + ". This is a bug in cuforge, not in your kernel: please report it with the kernel's source.";
}
}  // namespace

internal_compiler_error::internal_compiler_error(const std::string& detail, std::string function)
    : cuforge::logic_error(ice_text(detail, function)), function_(std::move(function)), detail_(detail) {}

}  // namespace cuforge::frontend
