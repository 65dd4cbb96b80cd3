// The registry's cuda.libdevice.* rows: libdevice's functions called by
// name, as numba-cuda's cuda.libdevice has them. Every row is typed and
// lowered from its C prototype (libdevice_functions.def): the arguments
// convert to the parameters' types, results written through pointers come
// back after the return value as a tuple, and the call is a call of
// __nv_<name>, which the NVPTX target links from libdevice and the host JIT
// binds to the cpu backend's own implementation (libdevice_host.cpp).
#include "codegen_lower.hpp"
#include "intrinsic_registry.hpp"

#include <string>

namespace cuforge::frontend::detail {

namespace {

std::string symbol_of(const intrinsic& self) {
  std::string_view n = self.info.name;
  return "__nv_" + std::string(n.substr(n.rfind('.') + 1));
}

llvm::Value* lower_libdevice(function_lowering& fl, const intrinsic& self, const expr& e) {
  auto& b = fl.b;
  parsed_proto p = parse_proto(self.proto);
  auto llvm_type = [&](char c) -> llvm::Type* {  // the prototype's letters (proto_letter_type)
    switch (c) {
      case 'f': return b.getFloatTy();
      case 'd': return b.getDoubleTy();
      case 'h': return b.getInt16Ty();
      case 'i': return b.getInt32Ty();
      case 'l': return b.getInt64Ty();
      default: return b.getVoidTy();
    }
  };
  std::vector<llvm::Type*> params;
  for (const proto_param& q : p.params) params.push_back(q.out ? b.getPtrTy() : llvm_type(q.ty));
  auto* fty = llvm::FunctionType::get(llvm_type(p.ret), params, false);
  llvm::FunctionCallee callee = fl.ms.mod.getOrInsertFunction(symbol_of(self), fty);
  std::vector<llvm::Value*> args;
  std::vector<std::pair<llvm::AllocaInst*, llvm::Type*>> slots;
  std::size_t next = 0;
  for (const proto_param& q : p.params) {
    if (q.out) {
      llvm::Type* t = llvm_type(q.ty);
      llvm::AllocaInst* slot = fl.entry_alloca(t, "libdevice.out");
      b.CreateStore(llvm::Constant::getNullValue(t), slot);
      slots.emplace_back(slot, t);
      args.push_back(slot);
    } else {
      if (next >= e.operands.size()) fl.fail_at(std::string(self.info.name) + ": too few operands", e.loc);
      args.push_back(fl.expr(e.operands[next++]));
    }
  }
  llvm::Value* r = b.CreateCall(callee, args);
  std::vector<llvm::Value*> results;
  if (p.ret != 'v') results.push_back(r);
  for (auto& [slot, t] : slots) results.push_back(b.CreateLoad(t, slot));
  if (results.size() == 1) return results[0];
  llvm::Value* t = llvm::PoisonValue::get(fl.ms.value_type(e.ty));
  for (std::size_t i = 0; i < results.size(); ++i) t = b.CreateInsertValue(t, results[i], static_cast<unsigned>(i));
  return t;
}

constexpr intrinsic row(std::string_view name, std::string_view proto, std::string_view params, std::string_view doc) {
  intrinsic e = lowered_by(function_entry(name, params, doc, type_by_prototype), lower_libdevice);
  e.proto = proto;
  return e;
}

constexpr intrinsic table[] = {
    module_entry("cuda.libdevice", "libdevice's functions by name (without their __nv_ prefix), as numba-cuda's "
                                   "cuda.libdevice; the arguments convert to the C parameters' types."),
#define CUFORGE_LIBDEVICE(name, proto, params, doc) row("cuda.libdevice." #name, proto, params, doc),
#include "libdevice_functions.def"
#undef CUFORGE_LIBDEVICE
};

}  // namespace

std::span<const intrinsic> libdevice_intrinsics() { return table; }

}  // namespace cuforge::frontend::detail
