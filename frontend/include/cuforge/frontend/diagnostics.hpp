#pragma once

/// @file
/// Compile errors that point at the user's source: the message, then the
/// file, line and function, the source line and a caret under the column.
/// Python maps typing_error to cuforge.cuda.TypingError (a TypeError).

#include <cuforge/frontend/ir.hpp>
#include <cuforge/runtime/error.hpp>
#include <cuforge/runtime/export.hpp>

#include <string>

namespace cuforge::frontend {

class CUFORGE_API compile_error : public cuforge::logic_error {
 public:
  /// `message` is the first line; `where` says which function.
  compile_error(std::string message, const function& where, location loc);
  const std::string& message() const noexcept { return message_; }
  const std::string& filename() const noexcept { return filename_; }
  std::int32_t line() const noexcept { return loc_.line; }
  std::int32_t column() const noexcept { return loc_.col; }
  /// The offending source line ("" when the source is not known).
  const std::string& source_line() const noexcept { return source_line_; }

 private:
  std::string message_;
  std::string filename_;
  std::string source_line_;
  location loc_;
};

/// A construct or a type the compiler cannot handle: "Unsupported: try/except"
/// or "No implementation of math.sin for (array(float32, 1d, C),)".
class CUFORGE_API typing_error : public compile_error {
 public:
  using compile_error::compile_error;
};

/// A failure inside the compiler: an inconsistency codegen found in the
/// typed IR it was given, invalid LLVM IR, an LLVM error. Never the user's
/// fault, and the message says so, with the function being compiled.
/// Python maps it to cuforge.cuda.InternalCompilerError (a RuntimeError).
class CUFORGE_API internal_compiler_error : public cuforge::logic_error {
 public:
  /// `function`: the Python function being compiled ("" when not known).
  internal_compiler_error(const std::string& detail, std::string function = {});
  const std::string& function() const noexcept { return function_; }
  const std::string& detail() const noexcept { return detail_; }

 private:
  std::string function_;
  std::string detail_;
};

/// Formats "<message>\n\nFile "f.py", line 12, in kernel:\n    x = a + b\n        ^"
CUFORGE_API std::string format_diagnostic(const std::string& message, const function& where, location loc);

}  // namespace cuforge::frontend
