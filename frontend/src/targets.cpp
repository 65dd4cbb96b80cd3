// The targets codegen has, chosen from the compile configuration, and the
// defaults of the target hooks.
#include "codegen_lower.hpp"
#include "codegen_target.hpp"
#include "gpu_conversions.hpp"
#include "llvm_support.hpp"

#include <cuforge/runtime/error.hpp>

namespace cuforge::frontend::detail {

namespace {

struct target_row {
  target_kind kind;
  std::unique_ptr<target> (*make)(const compile_config&);
};

// One row per target: adding a target is a file target_<name>.cpp and a row here.
constexpr target_row targets[] = {
    {target_kind::nvptx, &make_nvptx_target},
    {target_kind::host, &make_host_target},
};

}  // namespace

std::unique_ptr<target> make_target(const compile_config& cfg) {
  cfg.validate();
  for (const auto& row : targets)
    if (row.kind == cfg.target) return row.make(cfg);
  throw logic_error("codegen: no target " + std::string(to_string(cfg.target)));
}

void target::check_module(const typed_module&) const {}

void target::finish_module(llvm::Module&) {}

bool target::has_approx_f32() const noexcept { return false; }

llvm::Value* target::float_to_int(function_lowering& fl, llvm::Value* v, unsigned bits, bool is_signed) const {
  auto* to = fl.b.getIntNTy(bits);
  llvm::Value* r = fl.intrinsic(is_signed ? llvm::Intrinsic::fptosi_sat : llvm::Intrinsic::fptoui_sat,
                                {to, v->getType()}, {v});
  // nan: 0 (fptosi.sat's) where the GPU gives 0 too, else the sign bit alone.
  if (!nan_converts_to_sign_bit(static_cast<int>(bits), v->getType()->isDoubleTy())) return r;
  llvm::Value* nan = fl.b.CreateFCmpUNO(v, v);
  return fl.b.CreateSelect(nan, llvm::ConstantInt::get(to, llvm::APInt::getSignMask(bits)), r);
}

llvm::Value* target::ptx_instruction(function_lowering&, const std::string&, int, llvm::Type*,
                                     const std::vector<llvm::Value*>&) const {
  return nullptr;
}

llvm::Value* target::approx_f32(function_lowering&, approx_fn fn, llvm::Value*) const {
  fail("approximate float32 function " + std::to_string(static_cast<int>(fn)) + " on a target without them");
}

void target::optimize(llvm::Module& m) { detail::optimize(m, machine(), cfg_.opt); }

}  // namespace cuforge::frontend::detail
