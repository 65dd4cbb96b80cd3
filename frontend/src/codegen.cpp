// The entry points of code generation (codegen.hpp): lower a typed module
// for a target, optimise it, then emit PTX or JIT-compile it for the host.
#include "codegen_lower.hpp"
#include "codegen_target.hpp"
#include "llvm_support.hpp"

#include <cuforge/frontend/codegen.hpp>
#include <cuforge/runtime/error.hpp>

#include <llvm/IR/LLVMContext.h>
#include <llvm/IR/Module.h>

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

namespace detail {

lowered lower_and_optimize(const typed_module& m, const codegen_options& opts, bool gpu) {
  if (m.functions.empty()) throw logic_error("codegen: empty typed module");
  detail::initialize_llvm();
  lowered r;
  r.entry = m.functions[0].symbol.empty() ? "cuforge_function_0" : m.functions[0].symbol;
  r.ctx = std::make_unique<llvm::LLVMContext>();
  r.tgt = gpu ? detail::make_nvptx_target(opts) : detail::make_host_target(opts);
  r.mod = std::make_unique<llvm::Module>(r.entry, *r.ctx);
  llvm::TargetMachine& tm = r.tgt->machine();
  r.mod->setTargetTriple(tm.getTargetTriple().str());
  r.mod->setDataLayout(tm.createDataLayout());
  {
    detail::module_state ms(m, opts, *r.tgt, *r.mod);
    detail::lower_module(ms);
    r.static_shared_bytes = ms.static_shared_bytes;
  }
  if (gpu) {
    // libdevice asks NVVMReflect whether denormals flush (__CUDA_FTZ).
    r.mod->addModuleFlag(llvm::Module::Override, "nvvm-reflect-ftz", opts.fastmath ? 1 : 0);
    detail::link_libdevice(*r.mod);
    // The inliner ANDs "unsafe-fp-math" across callee and caller: libdevice's
    // own attributes would switch fastmath off in every kernel that uses it.
    for (llvm::Function& f : *r.mod)
      if (!f.isDeclaration()) r.tgt->set_attributes(f);
  }
  detail::optimize(*r.mod, tm, opts.opt);
  return r;
}

}  // namespace detail

using detail::lower_and_optimize;
using detail::lowered;

std::string emit_llvm_ir(const typed_module& m, bool for_gpu, const codegen_options& opts) {
  lowered r = lower_and_optimize(m, opts, for_gpu);
  return detail::print(*r.mod);
}

ptx_result compile_ptx(const typed_module& m, const codegen_options& opts) {
  lowered r = lower_and_optimize(m, opts, true);
  ptx_result out;
  out.ptx = detail::emit_ptx(*r.mod, r.tgt->machine());
  out.entry = r.entry;
  return out;
}

host_kernel compile_host(const typed_module& m, const codegen_options& opts) {
  if (m.functions.empty() || !m.functions[0].is_kernel)
    throw logic_error("codegen: compile_host compiles kernels; a device function runs inside the kernel that calls it");
  lowered r = lower_and_optimize(m, opts, false);
  std::size_t slots = 0;
  for (auto* t : m.functions[0].arg_types) slots += slot_count(t);
  detail::jit_result jit = detail::jit_compile(std::move(r.mod), std::move(r.ctx), r.entry, detail::host_symbols(), opts.opt);
  host_kernel k;
  k.name = r.entry;
  k.fn = reinterpret_cast<cpu::kernel_fn>(jit.address);
  k.static_shared_bytes = r.static_shared_bytes;
  k.uses_barrier = m.functions[0].uses_barrier;
  k.param_sizes.assign(slots, 8);
  k.session = std::move(jit.session);
  return k;
}

}  // namespace cuforge::frontend
