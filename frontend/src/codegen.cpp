// Placeholder until code generation lands: every entry point fails clearly.
#include <cuforge/frontend/codegen.hpp>
#include <cuforge/runtime/error.hpp>

namespace cuforge::frontend {

std::size_t slot_count(const type* t) {
  switch (t->kind) {
    case type_kind::none: return 0;
    case type_kind::complex: return t->bits == 128 ? 2 : 1;
    case type_kind::array: return 1 + 2 * static_cast<std::size_t>(t->ndim);
    case type_kind::tuple: {
      std::size_t n = 0;
      for (auto* e : t->elements) n += slot_count(e);
      return n;
    }
    default: return t->is_scalar() ? 1 : 0;
  }
}

std::string emit_llvm_ir(const typed_module&, bool, const codegen_options&) {
  throw logic_error("code generation is not built yet");
}
ptx_result compile_ptx(const typed_module&, const codegen_options&) {
  throw logic_error("code generation is not built yet");
}
host_kernel compile_host(const typed_module&, const codegen_options&) {
  throw logic_error("code generation is not built yet");
}

}  // namespace cuforge::frontend
