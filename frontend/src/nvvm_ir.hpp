#pragma once

// LTO-IR through libNVVM (nvvm_ir.cpp): an NVPTX module written as NVVM IR
// 2.0 (LLVM 7's dialect, typed pointers), and libNVVM loaded at run time.

#include <llvm/IR/Module.h>

#include <string>
#include <vector>

namespace cuforge::frontend::detail {

/// `m` (an NVPTX module as lowering leaves it, before libdevice is linked)
/// as NVVM IR text. Rewrites `m` first: constructs LLVM 7 lacks become ones
/// it has, debug information is dropped.
/// @throws logic_error naming a construct with no NVVM IR form.
std::string print_nvvm_ir(llvm::Module& m);

/// libNVVM's compilation of `ir` (with libdevice added lazily) under
/// `options` ("-arch=compute_90", "-gen-lto", ...): its result's bytes.
/// @throws logic_error when libNVVM is not found; internal_compiler_error
/// with libNVVM's log when it refuses the module.
std::string nvvm_compile(const std::string& ir, const std::string& name, const std::vector<std::string>& options);

}  // namespace cuforge::frontend::detail
