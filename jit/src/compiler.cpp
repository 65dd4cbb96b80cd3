#include <cuforge/jit/compiler.hpp>

namespace cuforge::jit {

frontend::type_context& types() {
  static auto* tc = new frontend::type_context;  // never destroyed: type pointers outlive everything
  return *tc;
}

std::mutex& compile_lock() {
  static auto* m = new std::mutex;
  return *m;
}

const frontend::type* parse_type(const std::string& spec) {
  std::lock_guard lock(compile_lock());
  return frontend::parse_type(types(), spec);
}

}  // namespace cuforge::jit
