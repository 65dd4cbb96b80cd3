// The kernel parameter ABI (abi.hpp).
#include <cuforge/frontend/abi.hpp>

namespace cuforge::frontend {

std::size_t slot_count(const type* t) {
  switch (t->kind) {
    case type_kind::none: return 0;
    case type_kind::complex: return t->bits == 128 ? 2 : 1;
    case type_kind::array: return 1 + 2 * static_cast<std::size_t>(t->ndim);
    case type_kind::record: return 1;  // the address of its bytes
    case type_kind::tuple: {
      std::size_t n = 0;
      for (auto* e : t->elements) n += slot_count(e);
      return n;
    }
    default: return t->is_scalar() || t->is_time() ? 1 : 0;  // a datetime: its int64
  }
}

kernel_layout layout_of(const std::vector<const type*>& arg_types, bool error_record) {
  kernel_layout l;
  for (const type* t : arg_types) l.argument_slots += slot_count(t);
  l.error_record = error_record;
  return l;
}

std::string_view python_exception_of(kernel_error e) noexcept {
  switch (e) {
#define CUFORGE_KERNEL_ERROR_NAME(name, value, python) \
  case kernel_error::name:                             \
    return python;
    CUFORGE_KERNEL_ERRORS(CUFORGE_KERNEL_ERROR_NAME)
#undef CUFORGE_KERNEL_ERROR_NAME
  }
  return "";
}

}  // namespace cuforge::frontend
