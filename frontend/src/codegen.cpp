// The entry points of code generation (codegen.hpp): run the pipeline's
// stages for the configuration's target (codegen_lower.hpp lists them, one
// file each), then the emitter the entry point needs.
#include "codegen_lower.hpp"
#include "codegen_target.hpp"
#include "llvm_support.hpp"
#include "nvvm_ir.hpp"

#include <cuforge/frontend/codegen.hpp>
#include <cuforge/frontend/cuda_c.hpp>
#include <cuforge/frontend/diagnostics.hpp>
#include <cuforge/runtime/error.hpp>

#include <llvm/AsmParser/Parser.h>
#include <llvm/IR/Verifier.h>
#include <llvm/Support/SourceMgr.h>
#include <llvm/Support/raw_ostream.h>

#include <llvm/IR/LLVMContext.h>
#include <llvm/IR/Module.h>

namespace cuforge::frontend {

namespace detail {

lowered run_pipeline(const typed_module& m, const compile_config& cfg) {
  if (m.functions.empty()) fail("empty typed module");
  initialize_llvm();
  lowered r;
  r.entry = m.functions[0].symbol.empty() ? "cuforge_function_0" : m.functions[0].symbol;
  r.ctx = std::make_unique<llvm::LLVMContext>();
  r.tgt = make_target(cfg);
  r.mod = std::make_unique<llvm::Module>(r.entry, *r.ctx);
  llvm::TargetMachine& tm = r.tgt->machine();
  r.mod->setTargetTriple(tm.getTargetTriple().str());
  r.mod->setDataLayout(tm.createDataLayout());
  {
    module_state ms(m, *r.tgt, *r.mod);
    lower_module(ms);  // 1. lower
    r.static_shared_bytes = ms.static_shared_bytes;
  }
  r.tgt->finish_module(*r.mod);  // 2. finish
  r.tgt->optimize(*r.mod);       // 3. optimize
  return r;
}

std::string block_entry_of(const llvm::Module& m, const std::string& entry) {
  std::string name = entry + "_block";
  return m.getFunction(name) != nullptr ? name : std::string();
}

namespace {

// Runs `f`, naming the module's entry function in an internal compiler
// error that does not name one yet (a failure below the function level).
template <class F>
auto naming_entry(const typed_module& m, F&& f) {
  try {
    return f();
  } catch (const internal_compiler_error& e) {
    if (!e.function().empty() || m.functions.empty() || !m.functions[0].ir) throw;
    const function& entry = *m.functions[0].ir;
    throw internal_compiler_error(e.detail(), entry.display_name());
  }
}

void expect_target(const compile_config& cfg, target_kind want, const char* entry_point) {
  if (cfg.target != want)
    throw logic_error(std::string("codegen: ") + entry_point + " compiles for the " + std::string(to_string(want)) +
                      " target, not " + std::string(to_string(cfg.target)));
}

}  // namespace

}  // namespace detail

using detail::lowered;
using detail::naming_entry;
using detail::run_pipeline;

std::string emit_llvm_ir(const typed_module& m, const compile_config& cfg) {
  return naming_entry(m, [&] {
    lowered r = run_pipeline(m, cfg);
    return detail::print(*r.mod);
  });
}

ptx_result compile_ptx(const typed_module& m, const compile_config& cfg) {
  detail::expect_target(cfg, target_kind::nvptx, "compile_ptx");
  return naming_entry(m, [&] {
    lowered r = run_pipeline(m, cfg);
    ptx_result out;
    out.ptx = detail::emit_ptx(r.mod, r.ctx, r.tgt->machine());  // 4. emit
    out.entry = r.entry;
    return out;
  });
}

namespace {

// The module as NVVM IR: lowered for NVPTX and written in NVVM's dialect, before libdevice is
// linked and before LLVM 19 optimises it (libNVVM links libdevice and optimises itself).
std::string nvvm_ir_of(const typed_module& m, const compile_config& cfg, bool forceinline, std::string* entry) {
  if (m.functions.empty()) detail::fail("empty typed module");
  detail::initialize_llvm();
  llvm::LLVMContext ctx;
  std::unique_ptr<detail::target> tgt = detail::make_target(cfg);
  const std::string name = m.functions[0].symbol.empty() ? "cuforge_function_0" : m.functions[0].symbol;
  llvm::Module mod(name, ctx);
  mod.setTargetTriple(tgt->machine().getTargetTriple().str());
  mod.setDataLayout(tgt->machine().createDataLayout());
  {
    detail::module_state ms(m, *tgt, mod);
    detail::lower_module(ms);
  }
  for (llvm::Function& f : mod)
    if (!f.isDeclaration()) f.addFnAttr(llvm::Attribute::NoUnwind);
  // forceinline: the device function (its C-ABI wrapper included) inlines wherever it is called.
  if (forceinline && !m.functions[0].is_kernel)
    for (llvm::Function& f : mod)
      if (!f.isDeclaration()) {
        f.removeFnAttr(llvm::Attribute::NoInline);
        f.addFnAttr(llvm::Attribute::AlwaysInline);
      }
  if (entry != nullptr) *entry = name;
  return detail::print_nvvm_ir(mod);
}

// libNVVM's options for `cfg`: the architecture, the optimisation level, and fastmath's four
// switches (libdevice's flush-to-zero included).
std::vector<std::string> nvvm_options(const compile_config& cfg) {
  std::vector<std::string> o{"-arch=compute_" + std::to_string(cfg.cc.major * 10 + cfg.cc.minor), "-gen-lto",
                             cfg.opt ? "-opt=3" : "-opt=0"};
  if (cfg.fastmath)
    o.insert(o.end(), {"-ftz=1", "-prec-div=0", "-prec-sqrt=0", "-fma=1"});
  else
    o.insert(o.end(), {"-ftz=0", "-prec-div=1", "-prec-sqrt=1", "-fma=1"});
  return o;
}

}  // namespace

std::string emit_nvvm_ir(const typed_module& m, const compile_config& cfg, bool forceinline) {
  detail::expect_target(cfg, target_kind::nvptx, "emit_nvvm_ir");
  return naming_entry(m, [&] { return nvvm_ir_of(m, cfg, forceinline, nullptr); });
}

ltoir_result compile_ltoir(const typed_module& m, const compile_config& cfg, bool forceinline) {
  detail::expect_target(cfg, target_kind::nvptx, "compile_ltoir");
  return naming_entry(m, [&] {
    ltoir_result out;
    const std::string ir = nvvm_ir_of(m, cfg, forceinline, &out.entry);
    out.ltoir = detail::nvvm_compile(ir, out.entry, nvvm_options(cfg));
    return out;
  });
}

host_kernel compile_host(const typed_module& m, const compile_config& cfg) {
  detail::expect_target(cfg, target_kind::host, "compile_host");
  if (m.functions.empty() || !m.functions[0].is_kernel)
    throw logic_error("codegen: compile_host compiles kernels; a device function runs inside the kernel that calls it");
  // Code linking C/C++ goes through an object, whose loader looks its symbols up in their library.
  if (!m.link.empty()) return load_host_object(compile_host_object(m, cfg));
  return naming_entry(m, [&] {
    lowered r = run_pipeline(m, cfg);
    const std::string block = detail::block_entry_of(*r.mod, r.entry);
    // 4. emit, into the JIT
    detail::jit_result jit =
        detail::jit_compile(std::move(r.mod), std::move(r.ctx), r.entry, detail::host_symbols(), cfg.opt, block);
    host_kernel k;
    k.name = r.entry;
    k.fn = reinterpret_cast<cpu::kernel_fn>(jit.address);
    k.block_fn = reinterpret_cast<cpu::kernel_fn>(jit.second);
    k.static_shared_bytes = r.static_shared_bytes;
    k.uses_barrier = m.functions[0].uses_barrier;
    k.param_sizes.assign(layout_of(m.functions[0].arg_types, m.may_raise()).total_slots(), 8);
    k.arrays = array_params_of(m);
    k.session = std::move(jit.session);
    return k;
  });
}

host_object compile_host_object(const typed_module& m, const compile_config& cfg) {
  detail::expect_target(cfg, target_kind::host, "compile_host_object");
  if (m.functions.empty() || !m.functions[0].is_kernel)
    throw logic_error("codegen: compile_host_object compiles kernels, not device functions");
  return naming_entry(m, [&] {
    lowered r = run_pipeline(m, cfg);
    host_object obj;
    obj.static_shared_bytes = r.static_shared_bytes;
    obj.object = detail::emit_object(*r.mod, r.tgt->machine());  // 4. emit, as an object file
    obj.name = r.entry;
    obj.block_name = detail::block_entry_of(*r.mod, r.entry);
    obj.uses_barrier = m.functions[0].uses_barrier;
    obj.slots = layout_of(m.functions[0].arg_types, m.may_raise()).total_slots();
    obj.arrays = array_params_of(m);
    if (!m.link.empty()) obj.libraries.push_back(host_library(m.link, declarations_of(m.externals)));
    return obj;
  });
}

void check_intrinsic_ir(const std::string& ir, const std::string& symbol, const std::vector<const type*>& params,
                        const type* ret) {
  llvm::LLVMContext ctx;
  auto scalar = [&](const type* t) -> llvm::Type* {
    if (t == nullptr || t->kind == type_kind::none) return llvm::Type::getVoidTy(ctx);
    if (t->kind == type_kind::boolean) return llvm::Type::getInt8Ty(ctx);
    if (t->kind == type_kind::integer) return llvm::IntegerType::get(ctx, static_cast<unsigned>(t->bits));
    if (t->kind == type_kind::floating)
      return t->bits == 16 ? llvm::Type::getHalfTy(ctx) : t->bits == 32 ? llvm::Type::getFloatTy(ctx)
                                                          : llvm::Type::getDoubleTy(ctx);
    throw logic_error("the intrinsic " + symbol + " takes or returns " + t->str() + ": intrinsics take scalars");
  };
  std::vector<llvm::Type*> ps;
  for (const type* p : params) ps.push_back(scalar(p));
  llvm::FunctionType* want = llvm::FunctionType::get(scalar(ret), ps, false);
  llvm::SMDiagnostic diag;
  std::unique_ptr<llvm::Module> m = llvm::parseAssemblyString(ir, diag, ctx);
  if (!m) {
    std::string text;
    llvm::raw_string_ostream os(text);
    diag.print(symbol.c_str(), os);
    throw logic_error("the intrinsic " + symbol + "'s LLVM IR does not parse: " + text);
  }
  llvm::Function* fn = m->getFunction(symbol);
  if (fn == nullptr || fn->isDeclaration())
    throw logic_error("the intrinsic " + symbol + "'s LLVM IR does not define @" + symbol);
  auto str = [](llvm::Type* t) {
    std::string s;
    llvm::raw_string_ostream os(s);
    t->print(os);
    return s;
  };
  if (fn->getFunctionType() != want)
    throw logic_error("the intrinsic " + symbol + "'s LLVM function @" + symbol + " is " + str(fn->getFunctionType()) +
                      "; its signature makes it " + str(want));
  std::string broken;
  llvm::raw_string_ostream os(broken);
  if (llvm::verifyModule(*m, &os)) throw logic_error("the intrinsic " + symbol + "'s LLVM IR is invalid: " + broken);
}

}  // namespace cuforge::frontend
