// A typed module as a whole: LLVM types of values, the shared memory layout,
// function signatures, the kernel's slot ABI, the device ABI of an entry that
// is not a kernel, and debug info.
#include "codegen_lower.hpp"
#include "llvm_support.hpp"

#include <cuforge/frontend/diagnostics.hpp>
#include <cuforge/runtime/error.hpp>

#include <llvm/BinaryFormat/Dwarf.h>
#include <llvm/IR/Constants.h>
#include <llvm/IR/DerivedTypes.h>

#include <algorithm>
#include <cstdlib>
#include <filesystem>

namespace cuforge::frontend::detail {

void fail(const std::string& what, const std::string& function) {
  throw internal_compiler_error("codegen: " + what, function);
}

scalar_info scalar_of(const type* t) {
  if (t == nullptr) fail("missing type");
  switch (t->kind) {
    case type_kind::boolean: return {scalar_info::kind::boolean, 1, false};
    case type_kind::integer: return {scalar_info::kind::integer, t->bits, t->is_signed};
    case type_kind::floating: return {scalar_info::kind::floating, t->bits, true};
    case type_kind::complex: return {scalar_info::kind::complex, t->bits / 2, true};
    default: fail("expected a scalar type, got " + t->str());
  }
}

// --- module_state -------------------------------------------------------------------

module_state::module_state(const typed_module& m, target& t, llvm::Module& module)
    : tm(m), opts(t.config()), tgt(t), mod(module), ctx(module.getContext()) {}

llvm::Type* module_state::float_type(int bits) {
  switch (bits) {
    case 16: return llvm::Type::getHalfTy(ctx);
    case 32: return llvm::Type::getFloatTy(ctx);
    case 64: return llvm::Type::getDoubleTy(ctx);
    default: fail("no float type of " + std::to_string(bits) + " bits");
  }
}

llvm::StructType* module_state::empty_struct() { return llvm::StructType::get(ctx); }

llvm::Value* module_state::none_value() { return llvm::ConstantAggregateZero::get(empty_struct()); }

llvm::Type* module_state::value_type(const type* t) {
  if (t == nullptr) fail("missing type");
  switch (t->kind) {
    case type_kind::none: return empty_struct();
    case type_kind::boolean: return llvm::Type::getInt1Ty(ctx);
    case type_kind::integer:
      if (t->bits != 8 && t->bits != 16 && t->bits != 32 && t->bits != 64) fail("integer of " + std::to_string(t->bits) + " bits");
      return llvm::IntegerType::get(ctx, static_cast<unsigned>(t->bits));
    case type_kind::floating: return float_type(t->bits);
    case type_kind::bfloat16: return llvm::Type::getBFloatTy(ctx);
    case type_kind::datetime:
    case type_kind::timedelta: return llvm::Type::getInt64Ty(ctx);  // a count of the unit; NaT is INT64_MIN
    case type_kind::complex: {
      if (t->bits != 64 && t->bits != 128) fail("complex of " + std::to_string(t->bits) + " bits");
      llvm::Type* f = float_type(t->bits / 2);
      return llvm::StructType::get(ctx, {f, f});
    }
    case type_kind::array: return array_struct(t);
    case type_kind::record: return llvm::PointerType::get(ctx, tgt.address_space(t->space));  // the address of its bytes
    case type_kind::optional: return llvm::StructType::get(ctx, {value_type(t->dtype), llvm::Type::getInt1Ty(ctx)});
    case type_kind::tuple:
    case type_kind::vector: {
      std::vector<llvm::Type*> elements;
      for (auto* e : t->elements) elements.push_back(value_type(e));
      return llvm::StructType::get(ctx, elements);
    }
    default: fail("type " + t->str() + " has no run-time value");
  }
}

llvm::Type* module_state::memory_type(const type* t) {
  if (t != nullptr && t->kind == type_kind::boolean) return llvm::Type::getInt8Ty(ctx);
  // A record in memory (an array's element) is its bytes.
  if (t != nullptr && t->kind == type_kind::record)
    return llvm::ArrayType::get(llvm::Type::getInt8Ty(ctx), static_cast<std::uint64_t>(t->size));
  if (t != nullptr && (t->kind == type_kind::tuple || t->kind == type_kind::vector)) {
    std::vector<llvm::Type*> elements;
    for (auto* e : t->elements) elements.push_back(memory_type(e));
    return llvm::StructType::get(ctx, elements);
  }
  if (t != nullptr && t->kind == type_kind::optional)
    return llvm::StructType::get(ctx, {memory_type(t->dtype), llvm::Type::getInt8Ty(ctx)});
  return value_type(t);
}

llvm::Type* module_state::return_type(const type* t) {
  if (t == nullptr || t->kind == type_kind::none) return llvm::Type::getVoidTy(ctx);
  return value_type(t);
}

llvm::StructType* module_state::array_struct(const type* t) {
  if (t->ndim < 0 || t->dtype == nullptr || !(t->dtype->is_scalar() || t->dtype->is_record() || t->dtype->is_time()))
    fail("malformed array type " + t->str());
  auto* i64 = llvm::Type::getInt64Ty(ctx);
  auto* dims = llvm::ArrayType::get(i64, static_cast<std::uint64_t>(t->ndim));
  return llvm::StructType::get(ctx, {llvm::PointerType::get(ctx, tgt.address_space(t->space)), dims, dims});
}

llvm::Function* module_state::helper(const std::string& name) const {
  auto it = helpers.find(name);
  return it == helpers.end() ? nullptr : it->second;
}

namespace {

std::uint64_t align_up(std::uint64_t v, std::uint64_t a) { return (v + a - 1) / a * a; }

bool is_dynamic_shared(const expr& e) { return e.attrs.size() == 1 && e.attrs[0] == 0; }

// Every static shared array of the module at a fixed offset of the block's
// buffer, 16-byte aligned, in the order of (function, op site); scratch
// areas lowering asks for (block_scratch) go after them.
void lay_out_shared(module_state& ms) {
  std::uint64_t offset = 0;
  for (std::size_t fi = 0; fi < ms.tm.functions.size(); ++fi) {
    const function& f = *ms.tm.functions[fi].ir;
    for (std::size_t ei = 0; ei < f.exprs.size(); ++ei) {
      const expr& e = f.exprs[ei];
      if (e.kind != expr_kind::op) continue;
      if (e.op != op_id::shared_array || is_dynamic_shared(e)) continue;
      if (e.ty == nullptr || !e.ty->is_array()) fail("shared_array without an array type in " + f.name);
      std::uint64_t count = 1;
      for (auto d : e.attrs) {
        if (d < 0) fail("shared array of negative extent in " + f.name);
        count *= static_cast<std::uint64_t>(d);
      }
      std::uint64_t itemsize = ms.layout().getTypeAllocSize(ms.memory_type(e.ty->dtype));
      offset = align_up(offset, 16);
      ms.shared_offsets[{fi, static_cast<expr_id>(ei)}] = offset;
      offset += count * itemsize;
    }
  }
  ms.static_shared_bytes = offset;
}

}  // namespace

std::uint64_t module_state::block_scratch(const std::string& name, std::uint64_t bytes) {
  if (auto it = scratch_offsets.find(name); it != scratch_offsets.end()) return it->second;
  std::uint64_t offset = align_up(static_shared_bytes, 16);
  scratch_offsets.emplace(name, offset);
  static_shared_bytes = offset + bytes;
  return offset;
}

namespace {

void set_up_debug_info(module_state& ms) {
  if (!ms.opts.line_tables()) return;
  const function& entry = *ms.tm.functions[0].ir;
  std::filesystem::path path(entry.filename.empty() ? std::string("<kernel>") : entry.filename);
  ms.dib = std::make_unique<llvm::DIBuilder>(ms.mod);
  llvm::DIFile* file = ms.dib->createFile(path.filename().string(), path.parent_path().string());
  auto kind = ms.opts.debug() ? llvm::DICompileUnit::FullDebug : ms.tgt.line_table_kind();
  ms.cu = ms.dib->createCompileUnit(llvm::dwarf::DW_LANG_Python, file, "cuforge", ms.opts.opt, "", 0, "", kind);
  ms.mod.addModuleFlag(llvm::Module::Warning, "Debug Info Version", llvm::DEBUG_METADATA_VERSION);
  ms.mod.addModuleFlag(llvm::Module::Warning, "Dwarf Version", ms.tgt.dwarf_version());
}

std::string symbol_of(const typed_function& tf, std::size_t index) {
  return tf.symbol.empty() ? "cuforge_function_" + std::to_string(index) : tf.symbol;
}

/// The device ABI's parameter types for a value of type t: scalars by value
/// (bool as i8), complex as its two parts, arrays as data pointer, extents and
/// strides, tuples as their elements.
void abi_types(module_state& ms, const type* t, std::vector<llvm::Type*>& out) {
  switch (t->kind) {
    case type_kind::none: return;
    case type_kind::complex: {
      llvm::Type* f = ms.float_type(t->bits / 2);
      out.push_back(f);
      out.push_back(f);
      return;
    }
    case type_kind::array: {
      out.push_back(llvm::PointerType::get(ms.ctx, ms.tgt.address_space(t->space)));
      for (int k = 0; k < 2 * t->ndim; ++k) out.push_back(llvm::Type::getInt64Ty(ms.ctx));
      return;
    }
    case type_kind::tuple:
    case type_kind::vector:
      for (auto* e : t->elements) abi_types(ms, e, out);
      return;
    case type_kind::record: out.push_back(ms.value_type(t)); return;
    case type_kind::optional:  // its value, then whether it is present
      abi_types(ms, t->dtype, out);
      out.push_back(llvm::Type::getInt8Ty(ms.ctx));
      return;
    default: out.push_back(ms.memory_type(t));
  }
}

llvm::Value* from_abi(function_lowering& fl, const type* t, llvm::Function::arg_iterator& arg) {
  auto& b = fl.b;
  switch (t->kind) {
    case type_kind::none: return fl.ms.none_value();
    case type_kind::boolean: return b.CreateICmpNE(&*arg++, b.getInt8(0));
    case type_kind::complex: {
      llvm::Value* r = &*arg++;
      llvm::Value* i = &*arg++;
      return fl.cmake(r, i);
    }
    case type_kind::array: {
      function_lowering::array_parts p;
      p.data = &*arg++;
      for (int k = 0; k < t->ndim; ++k) p.shape.push_back(&*arg++);
      for (int k = 0; k < t->ndim; ++k) p.strides.push_back(&*arg++);
      return fl.pack(t, p);
    }
    case type_kind::tuple:
    case type_kind::vector: {
      llvm::Value* v = llvm::PoisonValue::get(fl.ms.value_type(t));
      for (unsigned i = 0; i < t->elements.size(); ++i) v = b.CreateInsertValue(v, from_abi(fl, t->elements[i], arg), i);
      return v;
    }
    case type_kind::optional: {
      llvm::Value* v = llvm::PoisonValue::get(fl.ms.value_type(t));
      v = b.CreateInsertValue(v, from_abi(fl, t->dtype, arg), 0);
      return b.CreateInsertValue(v, b.CreateICmpNE(&*arg++, b.getInt8(0)), 1);
    }
    default: return &*arg++;
  }
}

llvm::DISubprogram* subprogram(module_state& ms, llvm::Function* fn, const std::string& name, int line) {
  if (!ms.dib) return nullptr;
  llvm::DIFile* file = ms.cu->getFile();
  auto* ty = ms.dib->createSubroutineType(ms.dib->getOrCreateTypeArray({}));
  auto flags = llvm::DISubprogram::SPFlagDefinition;
  if (ms.opts.opt) flags |= llvm::DISubprogram::SPFlagOptimized;
  auto* sp = ms.dib->createFunction(file, name, fn->getName(), file, static_cast<unsigned>(std::max(line, 0)), ty,
                                    static_cast<unsigned>(std::max(line, 0)), llvm::DINode::FlagPrototyped, flags);
  fn->setSubprogram(sp);
  return sp;
}

// A device function's entry point, wrapping its body: Numba's device ABI, `i32 name(T* ret, args...)`
// returning 0, or with `c_abi` the C ABI (numba-cuda's abi="c"), `T name(args...)` (scalars or nothing).
void emit_abi_wrapper(module_state& ms, std::size_t index, const std::string& name, bool c_abi) {
  const typed_function& tf = ms.tm.functions[index];
  llvm::Function* impl = ms.fns[index];
  const type* rt = tf.return_type;
  const bool returns = rt != nullptr && rt->kind != type_kind::none;
  if (c_abi && returns && !rt->is_scalar())
    fail("the C ABI returns a scalar or nothing; " + tf.ir->name + " returns " + rt->str() +
         " (compile it with abi=\"numba\")");
  std::vector<llvm::Type*> params;
  if (!c_abi) params.push_back(llvm::PointerType::get(ms.ctx, 0));  // where the result goes
  for (auto* t : tf.arg_types) abi_types(ms, t, params);
  llvm::Type* result_type = !c_abi ? llvm::Type::getInt32Ty(ms.ctx)
                            : returns ? ms.memory_type(rt)
                                      : llvm::Type::getVoidTy(ms.ctx);
  auto* fn = llvm::Function::Create(llvm::FunctionType::get(result_type, params, false),
                                    llvm::Function::ExternalLinkage, name, ms.mod);
  ms.tgt.set_attributes(*fn);
  function_lowering fl(ms, index, fn);
  if (auto* sp = subprogram(ms, fn, name, tf.ir->first_line))
    fl.b.SetCurrentDebugLocation(llvm::DILocation::get(ms.ctx, static_cast<unsigned>(std::max(tf.ir->first_line, 0)), 0, sp));
  auto arg = fn->arg_begin();
  llvm::Value* slot = c_abi ? nullptr : &*arg++;
  std::vector<llvm::Value*> args;
  if (ms.tgt.takes_context()) args.push_back(llvm::ConstantPointerNull::get(llvm::PointerType::get(ms.ctx, 0)));
  for (auto* t : tf.arg_types) args.push_back(from_abi(fl, t, arg));
  // Neither ABI has an error record: a raising thread only exits.
  if (ms.tm.may_raise())
    args.push_back(llvm::ConstantPointerNull::get(llvm::PointerType::get(ms.ctx, ms.tgt.address_space(address_space::global))));
  llvm::Value* result = fl.b.CreateCall(impl, args);
  if (c_abi) {
    if (returns)
      fl.b.CreateRet(fl.to_memory(result, rt));
    else
      fl.b.CreateRetVoid();
    return;
  }
  if (returns) {
    llvm::Value* m = fl.to_memory(result, rt);
    fl.b.CreateAlignedStore(m, slot, ms.layout().getABITypeAlign(m->getType()));
  }
  fl.b.CreateRet(fl.b.getInt32(0));
}

}  // namespace

void lower_module(module_state& ms) {
  const typed_module& m = ms.tm;
  if (m.functions.empty()) fail("empty typed module");
  for (std::size_t i = 0; i < m.functions.size(); ++i) {
    const typed_function& tf = m.functions[i];
    if (!tf.ir) fail("typed function " + std::to_string(i) + " has no IR");
    if (tf.ir->params.size() != tf.arg_types.size())
      fail(tf.ir->name + " has " + std::to_string(tf.ir->params.size()) + " parameters but " +
           std::to_string(tf.arg_types.size()) + " argument types");
    for (auto* t : tf.arg_types)
      if (t == nullptr || !t->is_runtime()) fail(tf.ir->name + " has an argument without a run-time type");
    if (i > 0 && tf.is_kernel) fail("a kernel (" + tf.ir->name + ") cannot be called as a device function");
  }
  ms.tgt.check_module(m);
  lay_out_shared(ms);
  set_up_debug_info(ms);

  const typed_function& entry = m.functions[0];
  const bool kernel = entry.is_kernel;
  const std::string entry_name = symbol_of(entry, 0);
  // A module that may raise takes its launch's error record: a hidden slot
  // after the kernel's arguments, a last parameter of each device function.
  const bool raises = m.may_raise();
  const kernel_layout layout = layout_of(entry.arg_types, raises);
  const std::size_t slots = layout.total_slots();
  llvm::Type* record_ptr = llvm::PointerType::get(ms.ctx, ms.tgt.address_space(address_space::global));

  // Declare everything first: bodies call each other.
  ms.fns.resize(m.functions.size());
  for (std::size_t i = 0; i < m.functions.size(); ++i) {
    const typed_function& tf = m.functions[i];
    if (i == 0 && kernel) {
      ms.fns[i] = ms.tgt.declare_kernel(ms, entry_name, slots);
    } else {
      std::vector<llvm::Type*> params;
      if (ms.tgt.takes_context()) params.push_back(llvm::PointerType::get(ms.ctx, 0));
      for (auto* t : tf.arg_types) params.push_back(ms.value_type(t));
      if (raises) params.push_back(record_ptr);
      auto* fty = llvm::FunctionType::get(ms.return_type(tf.return_type), params, false);
      std::string name = i == 0 ? entry_name + "_impl" : symbol_of(tf, i);
      ms.fns[i] = llvm::Function::Create(fty, llvm::Function::InternalLinkage, name, ms.mod);
    }
    ms.tgt.set_attributes(*ms.fns[i]);
  }

  for (std::size_t i = 0; i < m.functions.size(); ++i) {
    const typed_function& tf = m.functions[i];
    llvm::Function* fn = ms.fns[i];
    function_lowering fl(ms, i, fn);
    std::vector<llvm::Value*> params;
    if (i == 0 && kernel) {
      std::vector<llvm::Value*> slot_values = ms.tgt.load_slots(fl, slots);
      std::size_t pos = 0;
      for (auto* t : tf.arg_types) params.push_back(fl.from_slots(t, slot_values, pos));
      if (raises) fl.error_record = fl.b.CreateIntToPtr(slot_values.at(layout.error_record_slot()), record_ptr, "error_record");
    } else {
      auto arg = fn->arg_begin();
      if (ms.tgt.takes_context()) fl.ctx = &*arg++;
      for (std::size_t k = 0; k < tf.arg_types.size(); ++k, ++arg) params.push_back(&*arg);
      if (raises) fl.error_record = &*arg;
    }
    fl.emit(params);
    // The kernel once more as its block in regions, where the target runs it so (codegen_regions.cpp):
    // the first body stays each thread's own, for the fiber scheduler.
    if (i == 0 && kernel)
      if (llvm::Function* rf = ms.tgt.region_body()) {
        function_lowering rl(ms, i, rf);
        std::vector<llvm::Value*> slot_values = ms.tgt.load_slots(rl, slots);
        std::vector<llvm::Value*> rparams;
        std::size_t pos = 0;
        for (auto* t : tf.arg_types) rparams.push_back(rl.from_slots(t, slot_values, pos));
        if (raises) fail("a kernel that may raise has no block regions");
        rl.as_block_regions = true;
        rl.emit(rparams);
      }
  }
  if (!kernel) {
    const std::string name = ms.opts.abi_name.empty() ? entry_name : ms.opts.abi_name;
    emit_abi_wrapper(ms, 0, name, ms.opts.c_abi);
  }
  if (ms.dib) ms.dib->finalize();
  verify(ms.mod, "after lowering");
}

// --- function_lowering: construction, locations, allocas ------------------------------

function_lowering::function_lowering(module_state& s, std::size_t i, llvm::Function* f_)
    : ms(s), index(i), tf(s.tm.functions.at(i)), f(*tf.ir), fn(f_), b(s.ctx) {
  if (fn->empty()) llvm::BasicBlock::Create(ms.ctx, "entry", fn);
  b.SetInsertPoint(&fn->getEntryBlock());
  if (ms.opts.fastmath) {
    // Numba's fastmath, less nnan and ninf: isnan and isinf keep their meaning.
    llvm::FastMathFlags fmf;
    fmf.setAllowContract();
    fmf.setApproxFunc();
    fmf.setAllowReciprocal();
    fmf.setAllowReassoc();
    fmf.setNoSignedZeros();
    b.setFastMathFlags(fmf);
  }
}

void function_lowering::fail_at(const std::string& what, location loc) const {
  fail(what + " (line " + std::to_string(loc.line) + ")", f.display_name());
}

void function_lowering::set_location(location loc) {
  if (sp_ == nullptr) return;
  unsigned line = static_cast<unsigned>(loc.line > 0 ? loc.line : std::max(f.first_line, 0));
  b.SetCurrentDebugLocation(llvm::DILocation::get(ms.ctx, line, static_cast<unsigned>(std::max(loc.col, 0)) + 1, sp_));
}

namespace {

// The DWARF type of a variable of type `t`: scalars as base types a debugger
// prints (integers, floats, bool, complex), anything else as a structure of
// its size named by its type (an array's data pointer, extents and strides).
llvm::DIType* debug_type(module_state& ms, const type* t, llvm::Type* lt) {
  const std::uint64_t bits = ms.layout().getTypeAllocSizeInBits(lt);
  unsigned encoding = 0;
  switch (t->kind) {
    case type_kind::boolean: encoding = llvm::dwarf::DW_ATE_boolean; break;
    case type_kind::integer: encoding = t->is_signed ? llvm::dwarf::DW_ATE_signed : llvm::dwarf::DW_ATE_unsigned; break;
    case type_kind::floating: encoding = llvm::dwarf::DW_ATE_float; break;
    case type_kind::complex: encoding = llvm::dwarf::DW_ATE_complex_float; break;
    default: break;
  }
  if (encoding != 0) return ms.dib->createBasicType(t->str(), bits, encoding);
  return ms.dib->createStructType(ms.cu, t->str(), ms.cu->getFile(), 0, bits,
                                  static_cast<std::uint32_t>(ms.layout().getABITypeAlign(lt).value() * 8),
                                  llvm::DINode::FlagZero, nullptr, ms.dib->getOrCreateArray({}));
}

// Which variables a read may reach before any assignment on some path (Python's unbound
// local): they start at zero, as before; the others need no store at the entry. Zeroing every
// variable at the entry made each one live from there to its uses, and mem2reg's work grew with
// the square of a long kernel's size. A forward walk of the structured statements, conservative
// where paths join: after an if, what both arms assign (an arm that leaves assigns everything);
// after a loop, only what held before it (it may run no times, or leave by break).
class definite_assignment {
 public:
  explicit definite_assignment(const function& f) : f_(f), zero_(f.vars.size(), false), seen_(f.exprs.size(), 0) {}

  std::vector<bool> run() {
    std::vector<bool> assigned(f_.vars.size(), false);
    for (var_id p : f_.params) mark(assigned, p);
    block(f_.body, assigned);
    return zero_;
  }

 private:
  void mark(std::vector<bool>& assigned, var_id v) {
    if (v >= 0 && static_cast<std::size_t>(v) < assigned.size()) assigned[static_cast<std::size_t>(v)] = true;
  }

  // Malformed IR (an id out of range) is the lowering's to report: the walk skips it.
  const expr* expr_at(expr_id id) const {
    return id >= 0 && static_cast<std::size_t>(id) < f_.exprs.size() ? &f_.exprs[static_cast<std::size_t>(id)] : nullptr;
  }

  // Each expression once per question (they form a DAG, shared operands too; a malformed cycle
  // ends the walk instead of looping).
  void reads(expr_id id, const std::vector<bool>& assigned) {
    ++generation_;
    std::vector<expr_id> todo{id};
    while (!todo.empty()) {
      const expr_id at = todo.back();
      const expr* x = expr_at(at);
      todo.pop_back();
      if (x == nullptr || seen_[static_cast<std::size_t>(at)] == generation_) continue;
      seen_[static_cast<std::size_t>(at)] = generation_;
      const expr& e = *x;
      if (e.kind == expr_kind::variable && e.var >= 0 && static_cast<std::size_t>(e.var) < zero_.size() &&
          !assigned[static_cast<std::size_t>(e.var)])
        zero_[static_cast<std::size_t>(e.var)] = true;
      for (expr_id o : e.operands) todo.push_back(o);
    }
  }

  // An assignment's target: variables become assigned; a subscript's parts are read.
  void target(expr_id id, std::vector<bool>& assigned) {
    const expr* x = expr_at(id);
    if (x == nullptr) return;
    const expr& e = *x;
    if (e.kind == expr_kind::variable) {
      mark(assigned, e.var);
    } else if (e.kind == expr_kind::tuple) {
      for (expr_id o : e.operands) target(o, assigned);
    } else {
      reads(id, assigned);
    }
  }

  // Returns true when the block always leaves (break, continue, return, raise): what follows it
  // in the enclosing block is reached only around it.
  bool block(const std::vector<stmt_id>& body, std::vector<bool>& assigned) {
    for (stmt_id id : body)
      if (id >= 0 && static_cast<std::size_t>(id) < f_.stmts.size() &&
          statement(f_.stmts[static_cast<std::size_t>(id)], assigned)) {
        std::fill(assigned.begin(), assigned.end(), true);  // the merge's neutral element
        return true;
      }
    return false;
  }

  bool statement(const stmt& s, std::vector<bool>& assigned) {
    switch (s.kind) {
      case stmt_kind::assign:
        reads(s.value, assigned);
        target(s.target, assigned);
        return false;
      case stmt_kind::expression:
      case stmt_kind::assert_:
        reads(s.value, assigned);
        return false;
      case stmt_kind::if_: {
        reads(s.value, assigned);
        std::vector<bool> then_ = assigned, else_ = assigned;
        block(s.body, then_);
        block(s.orelse, else_);
        for (std::size_t v = 0; v < assigned.size(); ++v) assigned[v] = then_[v] && else_[v];
        return false;
      }
      case stmt_kind::while_:
      case stmt_kind::for_range: {
        for (expr_id e : {s.value, s.start, s.stop, s.step}) reads(e, assigned);
        std::vector<bool> inside = assigned, after = assigned;
        if (s.kind == stmt_kind::for_range) mark(inside, s.var);
        block(s.body, inside);
        block(s.orelse, after);
        return false;  // assigned: what held before the loop
      }
      case stmt_kind::return_:
      case stmt_kind::raise_:
        reads(s.value, assigned);
        return true;
      case stmt_kind::break_:
      case stmt_kind::continue_:
        return true;
      case stmt_kind::pass: return false;
    }
    return false;
  }

  const function& f_;
  std::vector<bool> zero_;
  std::vector<std::uint32_t> seen_;  // the generation of the last question that visited each expression
  std::uint32_t generation_ = 0;
};

}  // namespace

llvm::AllocaInst* function_lowering::entry_alloca(llvm::Type* t, const llvm::Twine& name) {
  llvm::BasicBlock& entry = fn->getEntryBlock();
  llvm::IRBuilder<> eb(&entry, entry.getFirstInsertionPt());
  return eb.CreateAlloca(t, nullptr, name);
}

void function_lowering::emit(const std::vector<llvm::Value*>& params) {
  sp_ = subprogram(ms, fn, f.name, f.first_line);
  set_location(location{f.first_line, 0});
  // Variables live in allocas; mem2reg makes them registers. Those a read may reach unassigned
  // start at zero (all of them under debug=True, for the debugger's view).
  vars_.assign(f.vars.size(), nullptr);
  const std::vector<bool> zeroed = definite_assignment(f).run();
  for (std::size_t v = 0; v < f.vars.size(); ++v) {
    const type* t = f.vars[v].ty;
    if (t == nullptr || !t->is_runtime()) continue;
    llvm::Type* lt = ms.value_type(t);
    vars_[v] = entry_alloca(lt, f.vars[v].name.empty() ? "tmp" : f.vars[v].name);
    if (zeroed[v] || ms.opts.debug()) b.CreateStore(llvm::Constant::getNullValue(lt), vars_[v]);
    if (ms.opts.debug() && sp_ != nullptr && !f.vars[v].name.empty()) {
      // debug=True: each Python variable is a DWARF variable (arguments numbered from 1), so a
      // debugger shows it by its name at the lines it is live.
      const auto line = static_cast<unsigned>(std::max(f.vars[v].first.line > 0 ? f.vars[v].first.line : f.first_line, 0));
      unsigned arg_no = 0;
      for (std::size_t i = 0; i < f.params.size(); ++i)
        if (f.params[i] == static_cast<var_id>(v)) arg_no = static_cast<unsigned>(i + 1);
      llvm::DIType* dt = debug_type(ms, t, lt);
      llvm::DILocalVariable* var =
          arg_no != 0 ? ms.dib->createParameterVariable(sp_, f.vars[v].name, arg_no, sp_->getFile(), line, dt, true)
                      : ms.dib->createAutoVariable(sp_, f.vars[v].name, sp_->getFile(), line, dt, true);
      ms.dib->insertDeclare(vars_[v], var, ms.dib->createExpression(), llvm::DILocation::get(ms.ctx, line, 0, sp_),
                            b.GetInsertBlock());
    }
  }
  if (params.size() != f.params.size()) fail_at("parameter count mismatch", location{f.first_line, 0});
  for (std::size_t i = 0; i < params.size(); ++i) {
    var_id v = f.params[i];
    if (v < 0 || static_cast<std::size_t>(v) >= vars_.size() || vars_[static_cast<std::size_t>(v)] == nullptr)
      fail_at("parameter " + std::to_string(i) + " has no typed variable", location{f.first_line, 0});
    b.CreateStore(cast(params[i], tf.arg_types[i], f.vars[static_cast<std::size_t>(v)].ty),
                  vars_[static_cast<std::size_t>(v)]);
  }
  if (as_block_regions) {
    emit_block_regions(zeroed, ms.tgt.block_regions_context());
    return;
  }
  block(f.body);
  if (!terminated()) ret_default();
}

void function_lowering::ret_default() {
  llvm::Type* rt = fn->getReturnType();
  if (rt->isVoidTy())
    b.CreateRetVoid();
  else
    b.CreateRet(llvm::Constant::getNullValue(rt));
}

}  // namespace cuforge::frontend::detail
