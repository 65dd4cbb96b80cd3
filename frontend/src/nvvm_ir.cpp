// LTO-IR for the GPU: our unoptimised NVPTX module, made legal for NVVM IR
// 2.0 and written in its dialect (LLVM 7.0.1's text: typed pointers), then
// compiled by libNVVM with -gen-lto (docs/interop_c.md).
//
// The writer is ours, not LLVM 19's: LLVM 19 prints opaque pointers (`ptr`),
// which libNVVM's reader refuses. Every pointer value is written as `i8*` of
// its address space, and each use that needs a typed pointer (load, store,
// getelementptr, atomics, indirect calls) gets a bitcast first; the types
// come from the instructions themselves (a load's type, a GEP's source
// element type). Constructs LLVM 7 does not have are rewritten first, in
// LLVM 19 IR (legalize): fneg, freeze, newer atomicrmw operations and
// intrinsics NVVM does not lower.
#include "llvm_support.hpp"
#include "nvvm_ir.hpp"

#include <cuforge/frontend/diagnostics.hpp>
#include <cuforge/frontend/toolkit.hpp>
#include <cuforge/runtime/error.hpp>

#include <llvm/ADT/StringExtras.h>
#include <llvm/CodeGen/AtomicExpandUtils.h>
#include <llvm/IR/Constants.h>
#include <llvm/IR/DebugInfo.h>
#include <llvm/IR/IRBuilder.h>
#include <llvm/IR/InlineAsm.h>
#include <llvm/IR/Instructions.h>
#include <llvm/IR/IntrinsicInst.h>
#include <llvm/IR/Intrinsics.h>
#include <llvm/IR/IntrinsicsNVPTX.h>
#include <llvm/IR/Operator.h>
#include <llvm/Support/MemoryBuffer.h>
#include <llvm/Support/raw_ostream.h>

#include <dlfcn.h>

#include <cmath>
#include <cstdint>
#include <cstring>
#include <map>
#include <mutex>
#include <set>
#include <sstream>
#include <vector>

namespace cuforge::frontend::detail {

namespace {

[[noreturn]] void unsupported(const std::string& what) {
  throw logic_error("output='ltoir': " + what +
                    " has no form in NVVM IR (LLVM 7's dialect) yet; compile to PTX instead (output='ptx')");
}

// --- legalize: LLVM 19 constructs rewritten in ones LLVM 7 has ------------------------------------

// Whether NVVM takes this atomicrmw as it is (printed as written, or as NVVM's float add).
bool nvvm_has(const llvm::AtomicRMWInst& a) {
  using Op = llvm::AtomicRMWInst;
  llvm::Type* t = a.getValOperand()->getType();
  switch (a.getOperation()) {
    case Op::Xchg:
    case Op::Add:
    case Op::Sub:
    case Op::And:
    case Op::Nand:
    case Op::Or:
    case Op::Xor:
    case Op::Max:
    case Op::Min:
    case Op::UMax:
    case Op::UMin: return t->isIntegerTy();
    case Op::FAdd: return t->isFloatTy() || t->isDoubleTy();
    case Op::UIncWrap:
    case Op::UDecWrap: return t->isIntegerTy(32);
    default: return false;
  }
}

// The compare-and-swap LLVM's expansion asks for, on the value's bits (NVVM's cmpxchg takes integers).
void bits_cmpxchg(llvm::IRBuilderBase& b, llvm::Value* addr, llvm::Value* loaded, llvm::Value* desired,
                  llvm::Align align, llvm::AtomicOrdering order, llvm::SyncScope::ID scope, llvm::Value*& success,
                  llvm::Value*& new_loaded) {
  llvm::Type* t = loaded->getType();
  llvm::Type* it = b.getIntNTy(static_cast<unsigned>(t->getPrimitiveSizeInBits().getFixedValue()));
  auto* pair = b.CreateAtomicCmpXchg(addr, b.CreateBitCast(loaded, it), b.CreateBitCast(desired, it), align, order,
                                     llvm::AtomicCmpXchgInst::getStrongestFailureOrdering(order), scope);
  success = b.CreateExtractValue(pair, 1);
  new_loaded = b.CreateBitCast(b.CreateExtractValue(pair, 0), t);
}

llvm::Value* float_bits_minmax(llvm::IRBuilder<>& b, llvm::Value* x, llvm::Value* y, bool is_max) {
  // IEEE maximum/minimum: nan wins, +0 > -0.
  llvm::Type* t = x->getType();
  llvm::Type* it = b.getIntNTy(static_cast<unsigned>(t->getPrimitiveSizeInBits().getFixedValue()));
  llvm::Value* further = is_max ? b.CreateFCmpOGT(x, y) : b.CreateFCmpOLT(x, y);
  llvm::Value* pick = b.CreateSelect(further, x, y);
  llvm::Value* xb = b.CreateBitCast(x, it);
  llvm::Value* yb = b.CreateBitCast(y, it);
  llvm::Value* zeros = b.CreateBitCast(is_max ? b.CreateAnd(xb, yb) : b.CreateOr(xb, yb), t);
  pick = b.CreateSelect(b.CreateFCmpOEQ(x, y), zeros, pick);
  return b.CreateSelect(b.CreateFCmpUNO(x, y), b.CreateFAdd(x, y), pick);
}

// fptosi/fptoui saturating: nan is 0, out-of-range values clamp.
llvm::Value* saturating_convert(llvm::IRBuilder<>& b, llvm::Value* x, llvm::Type* rt, bool is_signed) {
  const unsigned bits = rt->getIntegerBitWidth();
  llvm::Type* ft = x->getType();
  llvm::APInt lo = is_signed ? llvm::APInt::getSignedMinValue(bits) : llvm::APInt::getMinValue(bits);
  llvm::APInt hi = is_signed ? llvm::APInt::getSignedMaxValue(bits) : llvm::APInt::getMaxValue(bits);
  // The range's ends as floats: -2^(n-1) is exact; the bound above is 2^(n-1) (2^n unsigned), exclusive.
  const double below = is_signed ? -std::ldexp(1.0, static_cast<int>(bits) - 1) : -1.0;
  const double above = std::ldexp(1.0, static_cast<int>(bits) - (is_signed ? 1 : 0));
  llvm::Value* v = is_signed ? b.CreateFPToSI(x, rt) : b.CreateFPToUI(x, rt);
  llvm::Value* too_low = is_signed ? b.CreateFCmpOLT(x, llvm::ConstantFP::get(ft, below))
                                   : b.CreateFCmpOLE(x, llvm::ConstantFP::get(ft, below));
  v = b.CreateSelect(too_low, llvm::ConstantInt::get(rt, lo), v);
  v = b.CreateSelect(b.CreateFCmpOGE(x, llvm::ConstantFP::get(ft, above)), llvm::ConstantInt::get(rt, hi), v);
  return b.CreateSelect(b.CreateFCmpUNO(x, x), llvm::ConstantInt::get(rt, 0), v);
}

// The replacement of an intrinsic call NVVM would leave as an external function, or null.
llvm::Value* expand_intrinsic(llvm::IRBuilder<>& b, llvm::IntrinsicInst& call) {
  namespace I = llvm::Intrinsic;
  auto arg = [&](unsigned i) { return call.getArgOperand(i); };
  switch (call.getIntrinsicID()) {
    case I::abs: {
      llvm::Value* x = arg(0);
      return b.CreateSelect(b.CreateICmpSLT(x, llvm::ConstantInt::get(x->getType(), 0)), b.CreateNeg(x), x);
    }
    case I::smax: return b.CreateSelect(b.CreateICmpSGT(arg(0), arg(1)), arg(0), arg(1));
    case I::smin: return b.CreateSelect(b.CreateICmpSLT(arg(0), arg(1)), arg(0), arg(1));
    case I::umax: return b.CreateSelect(b.CreateICmpUGT(arg(0), arg(1)), arg(0), arg(1));
    case I::umin: return b.CreateSelect(b.CreateICmpULT(arg(0), arg(1)), arg(0), arg(1));
    case I::maximum: return float_bits_minmax(b, arg(0), arg(1), true);
    case I::minimum: return float_bits_minmax(b, arg(0), arg(1), false);
    case I::fptosi_sat: return saturating_convert(b, arg(0), call.getType(), true);
    case I::fptoui_sat: return saturating_convert(b, arg(0), call.getType(), false);
    case I::nvvm_activemask: {
      auto* ty = llvm::FunctionType::get(b.getInt32Ty(), false);
      return b.CreateCall(ty, llvm::InlineAsm::get(ty, "activemask.b32 $0;", "=r", true));
    }
    case I::nvvm_nanosleep: {
      auto* ty = llvm::FunctionType::get(b.getVoidTy(), {b.getInt32Ty()}, false);
      return b.CreateCall(ty, llvm::InlineAsm::get(ty, "nanosleep.u32 $0;", "r", true), {arg(0)});
    }
    default: return nullptr;
  }
}

void legalize(llvm::Module& m) {
  llvm::StripDebugInfo(m);
  std::vector<llvm::Instruction*> work;
  for (llvm::Function& f : m)
    for (llvm::BasicBlock& bb : f)
      for (llvm::Instruction& i : bb) work.push_back(&i);
  for (llvm::Instruction* i : work) {
    llvm::IRBuilder<> b(i);
    llvm::Value* with = nullptr;
    if (auto* neg = llvm::dyn_cast<llvm::UnaryOperator>(i); neg != nullptr && neg->getOpcode() == llvm::Instruction::FNeg) {
      llvm::Value* x = neg->getOperand(0);
      with = b.CreateFSub(llvm::ConstantFP::getNegativeZero(x->getType()), x);
      if (auto* fi = llvm::dyn_cast<llvm::Instruction>(with)) fi->setFastMathFlags(neg->getFastMathFlags());
    } else if (auto* fr = llvm::dyn_cast<llvm::FreezeInst>(i)) {
      with = fr->getOperand(0);
    } else if (auto* call = llvm::dyn_cast<llvm::IntrinsicInst>(i)) {
      with = expand_intrinsic(b, *call);
    } else if (auto* rmw = llvm::dyn_cast<llvm::AtomicRMWInst>(i)) {
      if (!nvvm_has(*rmw)) {
        // Float exchange as an integer exchange of the bits; the rest as a compare-and-swap loop.
        llvm::Type* t = rmw->getValOperand()->getType();
        if (rmw->getOperation() == llvm::AtomicRMWInst::Xchg && t->isFloatingPointTy()) {
          llvm::Type* it = b.getIntNTy(static_cast<unsigned>(t->getPrimitiveSizeInBits().getFixedValue()));
          auto* x = b.CreateAtomicRMW(llvm::AtomicRMWInst::Xchg, rmw->getPointerOperand(),
                                      b.CreateBitCast(rmw->getValOperand(), it), rmw->getAlign(),
                                      rmw->getOrdering(), rmw->getSyncScopeID());
          with = b.CreateBitCast(x, t);
        } else {
          llvm::expandAtomicRMWToCmpXchg(rmw, bits_cmpxchg);
          continue;  // replaced and erased by the expansion
        }
      }
    } else if (auto* ld = llvm::dyn_cast<llvm::LoadInst>(i); ld != nullptr && ld->isAtomic() && !ld->getType()->isIntegerTy()) {
      llvm::Type* t = ld->getType();
      llvm::Type* it = b.getIntNTy(static_cast<unsigned>(m.getDataLayout().getTypeSizeInBits(t)));
      auto* x = b.CreateAlignedLoad(it, ld->getPointerOperand(), ld->getAlign(), ld->isVolatile());
      x->setAtomic(ld->getOrdering(), ld->getSyncScopeID());
      with = t->isPointerTy() ? b.CreateIntToPtr(x, t) : b.CreateBitCast(x, t);
    } else if (auto* st = llvm::dyn_cast<llvm::StoreInst>(i);
               st != nullptr && st->isAtomic() && !st->getValueOperand()->getType()->isIntegerTy()) {
      llvm::Value* v = st->getValueOperand();
      llvm::Type* it = b.getIntNTy(static_cast<unsigned>(m.getDataLayout().getTypeSizeInBits(v->getType())));
      auto* x = b.CreateAlignedStore(v->getType()->isPointerTy() ? b.CreatePtrToInt(v, it) : b.CreateBitCast(v, it),
                                     st->getPointerOperand(), st->getAlign(), st->isVolatile());
      x->setAtomic(st->getOrdering(), st->getSyncScopeID());
      st->eraseFromParent();
      continue;
    }
    if (with != nullptr) {
      i->replaceAllUsesWith(with);
      i->eraseFromParent();
    }
  }
  // Declarations nothing calls any more (the expanded intrinsics).
  std::vector<llvm::Function*> unused;
  for (llvm::Function& f : m)
    if (f.isDeclaration() && f.use_empty()) unused.push_back(&f);
  for (llvm::Function* f : unused) f->eraseFromParent();
}

// --- the writer ---------------------------------------------------------------------------------

bool plain_name_char(char c, bool first) {
  return std::isalpha(static_cast<unsigned char>(c)) || c == '-' || c == '$' || c == '.' || c == '_' ||
         (!first && std::isdigit(static_cast<unsigned char>(c)));
}

// Text inside an LLVM string: `"`, `\\` and what is not printable as \XX (LLVM's own escaping, which
// LLVM 7's reader reads).
std::string escaped(llvm::StringRef text) {
  std::string out;
  llvm::raw_string_ostream os(out);
  llvm::printEscapedString(text, os);
  return os.str();
}

std::string quoted_name(llvm::StringRef name) {
  bool plain = !name.empty();
  for (std::size_t i = 0; i < name.size() && plain; ++i) plain = plain_name_char(name[i], i == 0);
  if (plain) return name.str();
  return "\"" + escaped(name) + "\"";
}

// Intrinsic names as LLVM 7 mangles them: an opaque pointer "p1" is "p1i8" (our pointers are all
// i8*); a few intrinsics lost their pointer suffix in between.
std::string callee_name(const llvm::Function& f) {
  std::string name = f.getName().str();
  if (!f.isIntrinsic()) return name;
  if (name == "llvm.stacksave.p0") return "llvm.stacksave";
  if (name == "llvm.stackrestore.p0") return "llvm.stackrestore";
  std::string out;
  std::size_t start = 0;
  while (start <= name.size()) {
    std::size_t dot = name.find('.', start);
    std::string part = name.substr(start, dot == std::string::npos ? std::string::npos : dot - start);
    bool pointer = part.size() >= 2 && part[0] == 'p';
    for (std::size_t i = 1; i < part.size() && pointer; ++i) pointer = std::isdigit(static_cast<unsigned char>(part[i]));
    if (!out.empty()) out += '.';
    out += pointer ? part + "i8" : part;
    if (dot == std::string::npos) break;
    start = dot + 1;
  }
  return out;
}

class writer {
 public:
  explicit writer(const llvm::Module& m) : m_(m), os_(text_) {}

  std::string run() {
    os_ << "target datalayout = \"" << kDataLayout << "\"\n";
    os_ << "target triple = \"nvptx64-nvidia-cuda\"\n\n";
    named_types();
    for (const llvm::GlobalVariable& g : m_.globals()) global(g);
    if (!m_.global_empty()) os_ << "\n";
    for (const llvm::Function& f : m_) function(f);
    for (const auto& d : extra_declarations_) os_ << d << "\n";
    metadata();
    os_.flush();
    return text_;
  }

  static constexpr const char* kDataLayout =
      "e-p:64:64:64-i1:8:8-i8:8:8-i16:16:16-i32:32:32-i64:64:64-i128:128:128-f32:32:32-f64:64:64-v16:16:16-"
      "v32:32:32-v64:64:64-v128:128:128-n16:32:64";

 private:
  const llvm::Module& m_;
  std::string text_;
  llvm::raw_string_ostream os_;
  std::map<const llvm::Value*, std::string> locals_;
  unsigned next_temp_ = 0;
  std::set<std::string> extra_declarations_;
  std::map<const llvm::StructType*, std::string> struct_names_;

  // -- types --
  static std::string space(unsigned as) { return as == 0 ? std::string() : " addrspace(" + std::to_string(as) + ")"; }

  std::string type(llvm::Type* t) {
    switch (t->getTypeID()) {
      case llvm::Type::VoidTyID: return "void";
      case llvm::Type::HalfTyID: return "half";
      case llvm::Type::BFloatTyID: return "i16";  // NVVM IR has no bfloat: its bits (our codegen's bfloat16 is bit work)
      case llvm::Type::FloatTyID: return "float";
      case llvm::Type::DoubleTyID: return "double";
      case llvm::Type::LabelTyID: return "label";
      case llvm::Type::IntegerTyID: return "i" + std::to_string(t->getIntegerBitWidth());
      case llvm::Type::PointerTyID: return "i8" + space(t->getPointerAddressSpace()) + "*";
      case llvm::Type::ArrayTyID:
        return "[" + std::to_string(t->getArrayNumElements()) + " x " + type(t->getArrayElementType()) + "]";
      case llvm::Type::FixedVectorTyID: {
        auto* v = llvm::cast<llvm::FixedVectorType>(t);
        return "<" + std::to_string(v->getNumElements()) + " x " + type(v->getElementType()) + ">";
      }
      case llvm::Type::StructTyID: {
        auto* s = llvm::cast<llvm::StructType>(t);
        if (auto it = struct_names_.find(s); it != struct_names_.end()) return it->second;
        return struct_body(s);
      }
      case llvm::Type::FunctionTyID: {
        auto* f = llvm::cast<llvm::FunctionType>(t);
        std::string s = type(f->getReturnType()) + " (";
        for (unsigned i = 0; i < f->getNumParams(); ++i) s += (i ? ", " : "") + type(f->getParamType(i));
        if (f->isVarArg()) s += f->getNumParams() ? ", ..." : "...";
        return s + ")";
      }
      default: {
        std::string s;
        llvm::raw_string_ostream o(s);
        t->print(o);
        unsupported("the type " + o.str());
      }
    }
  }

  // A typed pointer to `pointee` in the address space of pointer type `ptr`.
  std::string pointer_to(llvm::Type* pointee, llvm::Type* ptr) {
    return type(pointee) + space(ptr->getPointerAddressSpace()) + "*";
  }

  std::string struct_body(llvm::StructType* s) {
    if (s->isOpaque()) return "opaque";
    std::string body = s->isPacked() ? "<{ " : "{ ";
    for (unsigned i = 0; i < s->getNumElements(); ++i) body += (i ? ", " : "") + type(s->getElementType(i));
    if (s->getNumElements() == 0) body.pop_back();
    return body + (s->getNumElements() ? " }" : "}") + (s->isPacked() ? ">" : "");
  }

  void named_types() {
    std::vector<llvm::StructType*> named = m_.getIdentifiedStructTypes();
    unsigned n = 0;
    for (llvm::StructType* s : named) struct_names_[s] = "%T" + std::to_string(n++);
    for (llvm::StructType* s : named) os_ << struct_names_[s] << " = type " << struct_body(s) << "\n";
    if (!named.empty()) os_ << "\n";
  }

  // -- values --
  std::string temp() { return "%t" + std::to_string(next_temp_++); }

  std::string local(const llvm::Value* v) {
    auto it = locals_.find(v);
    if (it != locals_.end()) return it->second;
    std::string name = (llvm::isa<llvm::BasicBlock>(v) ? "%L" : "%v") + std::to_string(locals_.size());
    locals_.emplace(v, name);
    return name;
  }

  std::string fp_constant(const llvm::ConstantFP* c) {
    const llvm::APFloat& f = c->getValueAPF();
    llvm::Type* t = c->getType();
    std::ostringstream s;
    s << std::hex << std::uppercase;
    if (t->isBFloatTy()) return std::to_string(f.bitcastToAPInt().getZExtValue());  // as i16
    if (t->isHalfTy()) {
      s << "0xH";
      s.width(4);
      s.fill('0');
      s << f.bitcastToAPInt().getZExtValue();
      return s.str();
    }
    double d = t->isFloatTy() ? static_cast<double>(f.convertToFloat()) : f.convertToDouble();
    if (!t->isFloatTy() && !t->isDoubleTy()) unsupported("a floating-point constant of this type");
    std::uint64_t bits;
    std::memcpy(&bits, &d, sizeof bits);
    s << "0x";
    s.width(16);
    s.fill('0');
    s << bits;
    return s.str();
  }

  std::string global_ref(const llvm::GlobalValue* g) {
    const std::string name = "@" + quoted_name(g->getName());
    llvm::Type* vt = g->getValueType();
    if (vt->isIntegerTy(8)) return name;
    return "bitcast (" + pointer_to(vt, g->getType()) + " " + name + " to " + type(g->getType()) + ")";
  }

  std::string constant(const llvm::Constant* c) {
    if (auto* i = llvm::dyn_cast<llvm::ConstantInt>(c)) {
      if (i->getBitWidth() == 1) return i->isZero() ? "false" : "true";
      return llvm::toString(i->getValue(), 10, /*Signed=*/true);
    }
    if (auto* f = llvm::dyn_cast<llvm::ConstantFP>(c)) return fp_constant(f);
    if (llvm::isa<llvm::ConstantPointerNull>(c)) return "null";
    if (llvm::isa<llvm::UndefValue>(c)) return "undef";  // poison too
    if (llvm::isa<llvm::ConstantAggregateZero>(c)) return "zeroinitializer";
    if (auto* g = llvm::dyn_cast<llvm::GlobalValue>(c)) return global_ref(g);
    if (auto* s = llvm::dyn_cast<llvm::ConstantDataSequential>(c)) {
      if (s->isString()) return "c\"" + escaped(s->getAsString()) + "\"";
      std::string out = llvm::isa<llvm::ConstantDataVector>(s) ? "<" : "[";
      for (unsigned i = 0; i < s->getNumElements(); ++i) out += (i ? ", " : "") + typed(s->getElementAsConstant(i));
      return out + (llvm::isa<llvm::ConstantDataVector>(s) ? ">" : "]");
    }
    if (llvm::isa<llvm::ConstantArray>(c) || llvm::isa<llvm::ConstantVector>(c) || llvm::isa<llvm::ConstantStruct>(c)) {
      const bool vec = llvm::isa<llvm::ConstantVector>(c);
      const bool st = llvm::isa<llvm::ConstantStruct>(c);
      const bool packed = st && llvm::cast<llvm::StructType>(c->getType())->isPacked();
      std::string out = vec ? "<" : st ? (packed ? "<{ " : "{ ") : "[";
      for (unsigned i = 0; i < c->getNumOperands(); ++i) out += (i ? ", " : "") + typed(c->getOperand(i));
      return out + (vec ? ">" : st ? (packed ? " }>" : " }") : "]");
    }
    if (auto* e = llvm::dyn_cast<llvm::ConstantExpr>(c)) return constant_expr(e);
    std::string s;
    llvm::raw_string_ostream o(s);
    c->print(o);
    unsupported("the constant " + o.str());
  }

  std::string constant_expr(const llvm::ConstantExpr* e) {
    if (auto* gep = llvm::dyn_cast<llvm::GEPOperator>(e)) {
      llvm::Type* pt = gep->getPointerOperandType();
      llvm::Type* src = gep->getSourceElementType();
      std::string base = typed(gep->getPointerOperand());
      std::string typed_base = "bitcast (" + base + " to " + pointer_to(src, pt) + ")";
      std::string g = std::string("getelementptr ") + (gep->isInBounds() ? "inbounds " : "") + "(" + type(src) + ", " +
          (src->isIntegerTy(8) ? base : pointer_to(src, pt) + " " + typed_base);
      for (auto it = gep->idx_begin(); it != gep->idx_end(); ++it) g += ", " + typed(llvm::cast<llvm::Constant>(*it));
      g += ")";
      llvm::Type* res = gep->getResultElementType();
      if (res->isIntegerTy(8)) return g;
      return "bitcast (" + pointer_to(res, pt) + " " + g + " to " + type(pt) + ")";
    }
    if (e->isCast()) {
      if (e->getOpcode() == llvm::Instruction::BitCast && e->getType()->isPointerTy()) return constant(e->getOperand(0));
      return std::string(e->getOpcodeName()) + " (" + typed(e->getOperand(0)) + " to " + type(e->getType()) + ")";
    }
    if (llvm::Instruction::isBinaryOp(e->getOpcode()))
      return std::string(e->getOpcodeName()) + " (" + typed(e->getOperand(0)) + ", " + typed(e->getOperand(1)) + ")";
    unsupported(std::string("the constant expression ") + e->getOpcodeName());
  }

  std::string value(const llvm::Value* v) {
    if (auto* c = llvm::dyn_cast<llvm::Constant>(v)) return constant(c);
    if (llvm::isa<llvm::Argument>(v) || llvm::isa<llvm::Instruction>(v) || llvm::isa<llvm::BasicBlock>(v))
      return local(v);
    if (llvm::isa<llvm::InlineAsm>(v)) unsupported("inline assembly used as a value");
    unsupported("an operand of this kind (metadata?)");
  }

  std::string typed(const llvm::Value* v) { return type(v->getType()) + " " + value(v); }

  // `i` is `v` written differently (a no-op cast): uses of `i` name `v`, unless an earlier line (a
  // phi of a later block) named `i` already; then `i` is defined as a same-type bitcast.
  void alias(const llvm::Instruction& i, const llvm::Value* v) {
    if (locals_.count(&i) == 0) {
      locals_[&i] = value(v);
      return;
    }
    os_ << "  " << local(&i) << " = bitcast " << typed(v) << " to " << type(v->getType()) << "\n";
  }

  // `p` as a pointer to `pointee`: a bitcast line first unless `pointee` is i8. Returns "T* %x".
  std::string cast_pointer(const llvm::Value* p, llvm::Type* pointee) {
    if (pointee->isIntegerTy(8)) return typed(p);
    std::string t = temp();
    const std::string to = pointer_to(pointee, p->getType());
    os_ << "  " << t << " = bitcast " << typed(p) << " to " << to << "\n";
    return to + " " + t;
  }

  static std::string ordering(llvm::AtomicOrdering o) {
    switch (o) {
      case llvm::AtomicOrdering::Unordered: return "unordered";
      case llvm::AtomicOrdering::Monotonic: return "monotonic";
      case llvm::AtomicOrdering::Acquire: return "acquire";
      case llvm::AtomicOrdering::Release: return "release";
      case llvm::AtomicOrdering::AcquireRelease: return "acq_rel";
      case llvm::AtomicOrdering::SequentiallyConsistent: return "seq_cst";
      default: return "monotonic";
    }
  }

  std::string scope(const llvm::Instruction& i, llvm::SyncScope::ID id) {
    if (id == llvm::SyncScope::System) return "";
    if (id == llvm::SyncScope::SingleThread) return "syncscope(\"singlethread\") ";
    llvm::SmallVector<llvm::StringRef, 8> names;
    i.getContext().getSyncScopeNames(names);
    return "syncscope(\"" + names[id].str() + "\") ";
  }

  static std::string fast_math(const llvm::Instruction& i) {
    if (!llvm::isa<llvm::FPMathOperator>(i)) return "";
    llvm::FastMathFlags f = i.getFastMathFlags();
    if (f.isFast()) return "fast ";
    std::string s;
    if (f.allowReassoc()) s += "reassoc ";
    if (f.noNaNs()) s += "nnan ";
    if (f.noInfs()) s += "ninf ";
    if (f.noSignedZeros()) s += "nsz ";
    if (f.allowReciprocal()) s += "arcp ";
    if (f.allowContract()) s += "contract ";
    if (f.approxFunc()) s += "afn ";
    return s;
  }

  static std::string align(llvm::Align a) { return ", align " + std::to_string(a.value()); }

  // -- globals, functions --
  static std::string linkage(const llvm::GlobalValue& g) {
    switch (g.getLinkage()) {
      case llvm::GlobalValue::ExternalLinkage: return "";
      case llvm::GlobalValue::InternalLinkage: return "internal ";
      case llvm::GlobalValue::PrivateLinkage: return "private ";
      case llvm::GlobalValue::LinkOnceODRLinkage: return "linkonce_odr ";
      case llvm::GlobalValue::LinkOnceAnyLinkage: return "linkonce ";
      case llvm::GlobalValue::WeakODRLinkage: return "weak_odr ";
      case llvm::GlobalValue::WeakAnyLinkage: return "weak ";
      case llvm::GlobalValue::CommonLinkage: return "common ";
      case llvm::GlobalValue::ExternalWeakLinkage: return "extern_weak ";
      default: return "";
    }
  }

  void global(const llvm::GlobalVariable& g) {
    if (g.getName().starts_with("llvm.")) return;  // llvm.used and friends: nothing NVVM needs
    os_ << "@" << quoted_name(g.getName()) << " = ";
    if (g.isDeclaration())
      os_ << "external ";
    else
      os_ << linkage(g);
    if (g.getAddressSpace() != 0) os_ << "addrspace(" << g.getAddressSpace() << ") ";
    os_ << (g.isConstant() ? "constant " : "global ") << type(g.getValueType());
    if (!g.isDeclaration()) os_ << " " << constant(g.getInitializer());
    if (g.getAlign()) os_ << align(*g.getAlign());
    os_ << "\n";
  }

  void function(const llvm::Function& f) {
    locals_.clear();
    next_temp_ = 0;
    if (f.isDeclaration()) {
      if (f.getName().starts_with("llvm.dbg.")) return;
      os_ << "declare " << type(f.getReturnType()) << " @" << quoted_name(callee_name(f)) << "(";
      for (unsigned i = 0; i < f.arg_size(); ++i) os_ << (i ? ", " : "") << type(f.getArg(i)->getType());
      if (f.isVarArg()) os_ << (f.arg_size() ? ", ..." : "...");
      os_ << ")" << attributes(f) << "\n\n";
      return;
    }
    os_ << "define " << linkage(f) << type(f.getReturnType()) << " @" << quoted_name(f.getName()) << "(";
    for (unsigned i = 0; i < f.arg_size(); ++i) os_ << (i ? ", " : "") << typed(f.getArg(i));
    os_ << ")" << attributes(f) << " {\n";
    for (const llvm::BasicBlock& bb : f) local(&bb);  // labels first, so forward branches name them
    bool first = true;
    for (const llvm::BasicBlock& bb : f) {
      if (!first) os_ << "\n";
      first = false;
      os_ << local(&bb).substr(1) << ":\n";
      for (const llvm::Instruction& i : bb) instruction(i);
    }
    os_ << "}\n\n";
  }

  static std::string attributes(const llvm::Function& f) {
    std::string s;
    if (f.hasFnAttribute(llvm::Attribute::NoUnwind)) s += " nounwind";
    if (f.hasFnAttribute(llvm::Attribute::AlwaysInline)) s += " alwaysinline";
    if (f.hasFnAttribute(llvm::Attribute::NoInline)) s += " noinline";
    // LLVM 19 says memory(none) where LLVM 7 said readnone: kept for intrinsics only (their
    // declarations are all that carry it here).
    if (f.isIntrinsic() && f.getMemoryEffects().doesNotAccessMemory()) s += " readnone";
    return s;
  }

  void metadata() {
    std::vector<std::string> nodes;
    std::string annotations;
    if (const llvm::NamedMDNode* md = m_.getNamedMetadata("nvvm.annotations")) {
      for (const llvm::MDNode* node : md->operands()) {
        std::string s = "!{";
        for (unsigned i = 0; i < node->getNumOperands(); ++i) {
          const llvm::Metadata* op = node->getOperand(i).get();
          s += i ? ", " : "";
          if (auto* str = llvm::dyn_cast_or_null<llvm::MDString>(op)) {
            s += "!\"" + str->getString().str() + "\"";
          } else if (auto* v = llvm::dyn_cast_or_null<llvm::ValueAsMetadata>(op)) {
            const llvm::Value* val = v->getValue();
            if (auto* fn = llvm::dyn_cast<llvm::Function>(val))
              s += type(fn->getFunctionType()) + "* @" + quoted_name(fn->getName());
            else if (auto* c = llvm::dyn_cast<llvm::Constant>(val))
              s += typed(c);
            else
              unsupported("an nvvm.annotations operand");
          } else {
            unsupported("an nvvm.annotations operand");
          }
        }
        nodes.push_back(s + "}");
      }
    }
    // The kernels in llvm.used: without it nvJitLink's link-time optimisation drops them (nothing
    // in the link calls a kernel), as it keeps what numba-cuda's NVVM IR lists there.
    std::vector<const llvm::Function*> kernels;
    if (const llvm::NamedMDNode* md = m_.getNamedMetadata("nvvm.annotations"))
      for (const llvm::MDNode* node : md->operands())
        if (node->getNumOperands() >= 2)
          if (auto* key = llvm::dyn_cast_or_null<llvm::MDString>(node->getOperand(1).get());
              key != nullptr && key->getString() == "kernel")
            if (auto* v = llvm::dyn_cast_or_null<llvm::ValueAsMetadata>(node->getOperand(0).get()))
              if (auto* fn = llvm::dyn_cast<llvm::Function>(v->getValue())) kernels.push_back(fn);
    if (!kernels.empty()) {
      os_ << "\n@llvm.used = appending global [" << kernels.size() << " x i8*] [";
      for (std::size_t i = 0; i < kernels.size(); ++i)
        os_ << (i ? ", " : "") << "i8* bitcast (" << type(kernels[i]->getFunctionType()) << "* @"
            << quoted_name(kernels[i]->getName()) << " to i8*)";
      os_ << "], section \"llvm.metadata\"\n";
    }
    const std::size_t version = nodes.size();
    nodes.push_back("!{i32 2, i32 0, i32 3, i32 1}");
    os_ << "\n";
    if (version > 0) {
      os_ << "!nvvm.annotations = !{";
      for (std::size_t i = 0; i < version; ++i) os_ << (i ? ", " : "") << "!" << i;
      os_ << "}\n";
    }
    os_ << "!nvvmir.version = !{!" << version << "}\n";
    for (std::size_t i = 0; i < nodes.size(); ++i) os_ << "!" << i << " = " << nodes[i] << "\n";
  }

  // -- instructions --
  void instruction(const llvm::Instruction& i) {
    using llvm::Instruction;
    if (auto* cast = llvm::dyn_cast<llvm::CastInst>(&i)) {
      llvm::Type* from = cast->getSrcTy();
      if (cast->getDestTy()->isBFloatTy() || from->isBFloatTy()) {
        // bfloat is written as i16: its bitcasts from and to i16 are no-ops; nothing else is expected.
        if (i.getOpcode() != llvm::Instruction::BitCast ||
            (!cast->getDestTy()->isIntegerTy(16) && !from->isIntegerTy(16)))
          unsupported(std::string("the bfloat16 conversion ") + i.getOpcodeName());
        alias(i, i.getOperand(0));
        return;
      }
      if (i.getOpcode() == llvm::Instruction::BitCast && i.getType()->isPointerTy()) {  // a no-op between opaque pointers
        alias(i, i.getOperand(0));
        return;
      }
    }
    const std::string result = i.getType()->isVoidTy() ? std::string() : local(&i) + " = ";
    const unsigned op = i.getOpcode();
    if (auto* bin = llvm::dyn_cast<llvm::BinaryOperator>(&i)) {
      std::string flags;
      if (llvm::isa<llvm::OverflowingBinaryOperator>(bin)) {
        if (bin->hasNoUnsignedWrap()) flags += "nuw ";
        if (bin->hasNoSignedWrap()) flags += "nsw ";
      }
      if (llvm::isa<llvm::PossiblyExactOperator>(bin) && bin->isExact()) flags += "exact ";
      os_ << "  " << result << i.getOpcodeName() << " " << flags << fast_math(i) << typed(i.getOperand(0)) << ", "
          << value(i.getOperand(1)) << "\n";
      return;
    }
    if (auto* cast = llvm::dyn_cast<llvm::CastInst>(&i)) {
      os_ << "  " << result << i.getOpcodeName() << " " << typed(cast->getOperand(0)) << " to " << type(i.getType())
          << "\n";
      return;
    }
    if (auto* cmp = llvm::dyn_cast<llvm::CmpInst>(&i)) {
      os_ << "  " << result << (llvm::isa<llvm::ICmpInst>(cmp) ? "icmp " : "fcmp ") << fast_math(i)
          << llvm::CmpInst::getPredicateName(cmp->getPredicate()).str() << " " << typed(i.getOperand(0)) << ", "
          << value(i.getOperand(1)) << "\n";
      return;
    }
    switch (op) {
      case Instruction::Ret:
        os_ << "  ret " << (i.getNumOperands() ? typed(i.getOperand(0)) : std::string("void")) << "\n";
        return;
      case Instruction::Br: {
        auto* br = llvm::cast<llvm::BranchInst>(&i);
        if (br->isUnconditional())
          os_ << "  br label " << local(br->getSuccessor(0)) << "\n";
        else
          os_ << "  br " << typed(br->getCondition()) << ", label " << local(br->getSuccessor(0)) << ", label "
              << local(br->getSuccessor(1)) << "\n";
        return;
      }
      case Instruction::Switch: {
        auto* sw = llvm::cast<llvm::SwitchInst>(&i);
        os_ << "  switch " << typed(sw->getCondition()) << ", label " << local(sw->getDefaultDest()) << " [";
        for (auto& c : sw->cases()) os_ << "\n    " << typed(c.getCaseValue()) << ", label " << local(c.getCaseSuccessor());
        os_ << "\n  ]\n";
        return;
      }
      case Instruction::Unreachable: os_ << "  unreachable\n"; return;
      case Instruction::Select:
        // (no fast-math flags: LLVM 7's select and phi take none)
        os_ << "  " << result << "select " << typed(i.getOperand(0)) << ", " << typed(i.getOperand(1)) << ", "
            << typed(i.getOperand(2)) << "\n";
        return;
      case Instruction::PHI: {
        auto* phi = llvm::cast<llvm::PHINode>(&i);
        os_ << "  " << result << "phi " << type(i.getType());
        for (unsigned k = 0; k < phi->getNumIncomingValues(); ++k)
          os_ << (k ? ", " : " ") << "[ " << value(phi->getIncomingValue(k)) << ", " << local(phi->getIncomingBlock(k))
              << " ]";
        os_ << "\n";
        return;
      }
      case Instruction::ExtractValue: {
        auto* ev = llvm::cast<llvm::ExtractValueInst>(&i);
        os_ << "  " << result << "extractvalue " << typed(ev->getAggregateOperand());
        for (unsigned idx : ev->indices()) os_ << ", " << idx;
        os_ << "\n";
        return;
      }
      case Instruction::InsertValue: {
        auto* iv = llvm::cast<llvm::InsertValueInst>(&i);
        os_ << "  " << result << "insertvalue " << typed(iv->getAggregateOperand()) << ", "
            << typed(iv->getInsertedValueOperand());
        for (unsigned idx : iv->indices()) os_ << ", " << idx;
        os_ << "\n";
        return;
      }
      case Instruction::ExtractElement:
        os_ << "  " << result << "extractelement " << typed(i.getOperand(0)) << ", " << typed(i.getOperand(1)) << "\n";
        return;
      case Instruction::InsertElement:
        os_ << "  " << result << "insertelement " << typed(i.getOperand(0)) << ", " << typed(i.getOperand(1)) << ", "
            << typed(i.getOperand(2)) << "\n";
        return;
      case Instruction::ShuffleVector: {
        auto* sv = llvm::cast<llvm::ShuffleVectorInst>(&i);
        os_ << "  " << result << "shufflevector " << typed(i.getOperand(0)) << ", " << typed(i.getOperand(1)) << ", <"
            << sv->getShuffleMask().size() << " x i32> <";
        bool first = true;
        for (int k : sv->getShuffleMask()) {
          os_ << (first ? "" : ", ") << "i32 " << (k < 0 ? std::string("undef") : std::to_string(k));
          first = false;
        }
        os_ << ">\n";
        return;
      }
      case Instruction::Alloca: {
        auto* a = llvm::cast<llvm::AllocaInst>(&i);
        if (a->getAddressSpace() != 0) unsupported("an alloca outside address space 0");
        std::string t = temp();
        os_ << "  " << t << " = alloca " << type(a->getAllocatedType());
        if (a->isArrayAllocation()) os_ << ", " << typed(a->getArraySize());
        os_ << align(a->getAlign()) << "\n";
        os_ << "  " << result << "bitcast " << type(a->getAllocatedType()) << "* " << t << " to i8*\n";
        return;
      }
      case Instruction::Load: {
        auto* ld = llvm::cast<llvm::LoadInst>(&i);
        std::string p = cast_pointer(ld->getPointerOperand(), ld->getType());
        os_ << "  " << result << "load " << (ld->isAtomic() ? "atomic " : "") << (ld->isVolatile() ? "volatile " : "")
            << type(ld->getType()) << ", " << p;
        if (ld->isAtomic()) os_ << " " << scope(i, ld->getSyncScopeID()) << ordering(ld->getOrdering());
        os_ << align(ld->getAlign()) << "\n";
        return;
      }
      case Instruction::Store: {
        auto* st = llvm::cast<llvm::StoreInst>(&i);
        std::string p = cast_pointer(st->getPointerOperand(), st->getValueOperand()->getType());
        os_ << "  store " << (st->isAtomic() ? "atomic " : "") << (st->isVolatile() ? "volatile " : "")
            << typed(st->getValueOperand()) << ", " << p;
        if (st->isAtomic()) os_ << " " << scope(i, st->getSyncScopeID()) << ordering(st->getOrdering());
        os_ << align(st->getAlign()) << "\n";
        return;
      }
      case Instruction::GetElementPtr: {
        auto* gep = llvm::cast<llvm::GetElementPtrInst>(&i);
        if (gep->getType()->isVectorTy()) unsupported("a vector getelementptr");
        llvm::Type* src = gep->getSourceElementType();
        std::string p = cast_pointer(gep->getPointerOperand(), src);
        llvm::Type* res = gep->getResultElementType();
        std::string g = res->isIntegerTy(8) ? local(&i) : temp();
        os_ << "  " << g << " = getelementptr " << (gep->isInBounds() ? "inbounds " : "") << type(src) << ", " << p;
        for (auto it = gep->idx_begin(); it != gep->idx_end(); ++it) os_ << ", " << typed(*it);
        os_ << "\n";
        if (!res->isIntegerTy(8))
          os_ << "  " << result << "bitcast " << pointer_to(res, gep->getType()) << " " << g << " to "
              << type(gep->getType()) << "\n";
        return;
      }
      case Instruction::AtomicRMW: {
        auto* a = llvm::cast<llvm::AtomicRMWInst>(&i);
        llvm::Type* vt = a->getValOperand()->getType();
        std::string p = cast_pointer(a->getPointerOperand(), vt);
        const unsigned as = a->getPointerAddressSpace();
        if (a->getOperation() == llvm::AtomicRMWInst::FAdd || a->getOperation() == llvm::AtomicRMWInst::UIncWrap ||
            a->getOperation() == llvm::AtomicRMWInst::UDecWrap) {
          // NVVM's atomic intrinsics (relaxed, at the GPU's scope: CUDA's atomicAdd, atomicInc, atomicDec).
          std::string kind = a->getOperation() == llvm::AtomicRMWInst::FAdd
                                 ? "add." + std::string(vt->isFloatTy() ? "f32" : "f64")
                                 : (a->getOperation() == llvm::AtomicRMWInst::UIncWrap ? "inc.32" : "dec.32");
          std::string tn = type(vt);
          std::string name = "llvm.nvvm.atomic.load." + kind + ".p" + std::to_string(as) + (vt->isFloatTy() ? "f32" : vt->isDoubleTy() ? "f64" : "i32");
          std::string ptr = pointer_to(vt, a->getPointerOperand()->getType());
          extra_declarations_.insert("declare " + tn + " @" + name + "(" + ptr + ", " + tn + ")");
          os_ << "  " << result << "call " << tn << " @" << name << "(" << p << ", " << typed(a->getValOperand())
              << ")\n";
          return;
        }
        os_ << "  " << result << "atomicrmw " << (a->isVolatile() ? "volatile " : "")
            << llvm::AtomicRMWInst::getOperationName(a->getOperation()).str() << " " << p << ", "
            << typed(a->getValOperand()) << " " << scope(i, a->getSyncScopeID()) << ordering(a->getOrdering()) << "\n";
        return;
      }
      case Instruction::AtomicCmpXchg: {
        auto* x = llvm::cast<llvm::AtomicCmpXchgInst>(&i);
        std::string p = cast_pointer(x->getPointerOperand(), x->getCompareOperand()->getType());
        os_ << "  " << result << "cmpxchg " << (x->isWeak() ? "weak " : "") << (x->isVolatile() ? "volatile " : "") << p
            << ", " << typed(x->getCompareOperand()) << ", " << typed(x->getNewValOperand()) << " "
            << scope(i, x->getSyncScopeID()) << ordering(x->getSuccessOrdering()) << " "
            << ordering(x->getFailureOrdering()) << "\n";
        return;
      }
      case Instruction::Fence: {
        auto* f = llvm::cast<llvm::FenceInst>(&i);
        os_ << "  fence " << scope(i, f->getSyncScopeID()) << ordering(f->getOrdering()) << "\n";
        return;
      }
      case Instruction::Call: call(llvm::cast<llvm::CallInst>(i), result); return;
      default: unsupported(std::string("the instruction ") + i.getOpcodeName());
    }
  }

  void call(const llvm::CallInst& c, const std::string& result) {
    const llvm::Function* f = c.getCalledFunction();
    if (f != nullptr && f->getName().starts_with("llvm.dbg.")) return;
    llvm::FunctionType* fty = c.getFunctionType();
    std::string args = "(";
    for (unsigned k = 0; k < c.arg_size(); ++k) args += (k ? ", " : "") + typed(c.getArgOperand(k));
    args += ")";
    const std::string ret = fty->isVarArg() ? type(fty) : type(fty->getReturnType());
    if (auto* asm_ = llvm::dyn_cast<llvm::InlineAsm>(c.getCalledOperand())) {
      os_ << "  " << result << "call " << ret << " asm " << (asm_->hasSideEffects() ? "sideeffect " : "")
          << (asm_->isAlignStack() ? "alignstack " : "") << "\"" << escaped(asm_->getAsmString()) << "\", \"" << asm_->getConstraintString()
          << "\"" << args << "\n";
      return;
    }
    std::string callee;
    if (f != nullptr) {
      callee = "@" + quoted_name(callee_name(*f));
    } else {
      callee = temp();
      os_ << "  " << callee << " = bitcast " << typed(c.getCalledOperand()) << " to " << type(fty)
          << space(c.getCalledOperand()->getType()->getPointerAddressSpace()) << "*\n";
    }
    os_ << "  " << result << (c.isTailCall() ? "tail " : "") << "call " << fast_math(c) << ret << " " << callee << args
        << "\n";
  }
};

// --- libNVVM ------------------------------------------------------------------------------------

struct nvvm_api {
  using program = void*;
  int (*create)(program*) = nullptr;
  int (*destroy)(program*) = nullptr;
  int (*add)(program, const char*, std::size_t, const char*) = nullptr;
  int (*lazy_add)(program, const char*, std::size_t, const char*) = nullptr;
  int (*compile)(program, int, const char**) = nullptr;
  int (*result_size)(program, std::size_t*) = nullptr;
  int (*result)(program, char*) = nullptr;
  int (*log_size)(program, std::size_t*) = nullptr;
  int (*log)(program, char*) = nullptr;
  std::string error;
};

const nvvm_api& nvvm() {
  static const nvvm_api api = [] {
    nvvm_api a;
    const toolkit_library& lib = open_toolkit_library(toolkit_part::nvvm);
    if (lib.handle == nullptr) {
      a.error = "output='ltoir' needs libNVVM: " + lib.error;
      return a;
    }
    void* h = lib.handle;
    auto sym = [&](auto& fp, const char* name) {
      fp = reinterpret_cast<std::remove_reference_t<decltype(fp)>>(::dlsym(h, name));
      if (fp == nullptr && a.error.empty()) a.error = std::string("libNVVM has no ") + name;
    };
    sym(a.create, "nvvmCreateProgram");
    sym(a.destroy, "nvvmDestroyProgram");
    sym(a.add, "nvvmAddModuleToProgram");
    sym(a.lazy_add, "nvvmLazyAddModuleToProgram");
    sym(a.compile, "nvvmCompileProgram");
    sym(a.result_size, "nvvmGetCompiledResultSize");
    sym(a.result, "nvvmGetCompiledResult");
    sym(a.log_size, "nvvmGetProgramLogSize");
    sym(a.log, "nvvmGetProgramLog");
    return a;
  }();
  return api;
}

}  // namespace

std::string print_nvvm_ir(llvm::Module& m) {
  legalize(m);
  return writer(m).run();
}

std::string nvvm_compile(const std::string& ir, const std::string& name, const std::vector<std::string>& options) {
  const nvvm_api& api = nvvm();
  if (!api.error.empty()) throw logic_error(api.error);
  nvvm_api::program p = nullptr;
  if (api.create(&p) != 0) throw logic_error("libNVVM: nvvmCreateProgram failed");
  struct guard {
    const nvvm_api& api;
    nvvm_api::program& p;
    ~guard() { api.destroy(&p); }
  } g{api, p};
  if (api.add(p, ir.data(), ir.size(), name.c_str()) != 0) throw logic_error("libNVVM refused the module of " + name);
  const llvm::MemoryBuffer& ld = libdevice();
  if (api.lazy_add(p, ld.getBufferStart(), ld.getBufferSize(), "libdevice") != 0)
    throw logic_error("libNVVM refused libdevice");
  std::vector<const char*> opts;
  for (const auto& o : options) opts.push_back(o.c_str());
  const int rc = api.compile(p, static_cast<int>(opts.size()), opts.data());
  if (rc != 0) {
    std::size_t n = 0;
    std::string log;
    if (api.log_size(p, &n) == 0 && n > 0) {
      log.resize(n);
      api.log(p, log.data());
      while (!log.empty() && (log.back() == '\0' || log.back() == '\n')) log.pop_back();
    }
    throw internal_compiler_error("codegen: libNVVM did not compile " + name + " to LTO-IR (error " +
                                      std::to_string(rc) + "):\n" + log,
                                  name);
  }
  std::size_t n = 0;
  api.result_size(p, &n);
  std::string out(n, '\0');
  api.result(p, out.data());
  return out;
}

}  // namespace cuforge::frontend::detail
