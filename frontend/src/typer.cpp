// The typer's entry point: specialisation of device functions, symbols, and
// the typed module's assembly. The typing itself is function_typer's
// (typer_function.cpp and the files beside it).
#include "typer_impl.hpp"

#include <algorithm>
#include <cuforge/frontend/abi.hpp>

#include <cuforge/frontend/codegen.hpp>

#include <cuforge/runtime/error.hpp>

#include <cstdio>
#include <map>
#include <set>

namespace cuforge::frontend {

namespace detail {

const module_typer::frame* module_typer::find_frame(const function& callee,
                                                    const std::vector<const type*>& args) const {
  for (auto it = frames.rbegin(); it != frames.rend(); ++it)
    if (it->f == &callee && *it->args == args) return &*it;
  return nullptr;
}

int module_typer::specialize(const function& callee, const std::vector<const type*>& args, const function& caller,
                             location loc) {
  // A recursive call whose argument types keep changing (each level a new
  // specialisation) would never end.
  constexpr int max_open = 8;
  int open = 0;
  for (const auto& fr : frames) open += fr.f == &callee ? 1 : 0;
  if (open >= max_open) {
    std::string chain;
    for (const auto& fr : frames)
      if (fr.f == &callee) {
        chain += "(";
        for (std::size_t i = 0; i < fr.args->size(); ++i) chain += (i ? ", " : "") + (*fr.args)[i]->str();
        chain += ") -> ";
      }
    throw typing_error("Unsupported: the recursion of " + callee.display_name() +
                           " does not converge: each call has argument types of its own (" + chain + "...)",
                       caller, loc);
  }
  for (std::size_t i = 0; i < specs_.size(); ++i) {
    if (specs_[i].callee != &callee || specs_[i].args != args) continue;
    if (specs_[i].error) std::rethrow_exception(specs_[i].error);
    return static_cast<int>(i);
  }
  specs_.push_back({});
  std::size_t id = specs_.size() - 1;
  specs_[id].callee = &callee;
  specs_[id].args = args;
  try {
    function_typer ft(*this, callee, args, false, nullptr, static_cast<int>(id));
    specs_[id].tf = ft.run();
    specs_[id].return_roots = ft.return_roots();
  } catch (const typing_error&) {
    specs_[id].error = std::current_exception();
    throw;
  }
  return static_cast<int>(id);
}

namespace {

// The expressions reachable from a function's statements (typing leaves
// dead nodes behind: folded operands, abandoned conversions).
void reachable_exprs(const function& f, expr_id e, std::vector<bool>& seen) {
  if (e == no_id || static_cast<std::size_t>(e) >= f.exprs.size() || seen[static_cast<std::size_t>(e)]) return;
  seen[static_cast<std::size_t>(e)] = true;
  for (auto o : f.at(e).operands) reachable_exprs(f, o, seen);
}

void reachable_stmts(const function& f, const std::vector<stmt_id>& block, std::vector<bool>& seen) {
  for (auto id : block) {
    const stmt& s = f.at_stmt(id);
    for (auto e : {s.target, s.value, s.start, s.stop, s.step}) reachable_exprs(f, e, seen);
    reachable_stmts(f, s.body, seen);
    reachable_stmts(f, s.orelse, seen);
  }
}

}  // namespace

// What a GPU cannot run, refused at the user's line on every backend (the
// cpu backend would run it, but the same kernel must run on a GPU):
// - a thread's local arrays (every function of the module, each counted
//   once) beyond the 512 KiB of local memory CUDA gives a thread (the cpu
//   backend's thread stacks would overflow too);
// - static shared arrays beyond the 48 KiB a kernel may declare statically
//   (more needs dynamic shared memory: `cuda.shared.array(0, ...)`);
// - kernel parameters beyond the 4352 bytes of the PTX ISA we emit.
void check_local_memory(const typed_module& m) {
  struct limit {
    op_id op;
    std::uint64_t bytes;
    const char* what;
  };
  static constexpr limit limits[] = {
      {op_id::local_array, 512 * 1024,
       "local arrays of {} bytes per thread (a thread has at most 512 KiB of local memory; use a global or shared array)"},
      {op_id::shared_array, 48 * 1024,
       "static shared arrays of {} bytes (a kernel declares at most 48 KiB statically; use dynamic shared memory, "
       "cuda.shared.array(0, dtype), sized at launch)"},
  };
  for (const auto& lim : limits) {
    std::uint64_t total = 0;
    for (const auto& tf : m.functions) {
      const function& f = *tf.ir;
      std::vector<bool> live(f.exprs.size(), false);
      reachable_stmts(f, f.body, live);
      for (std::size_t i = 0; i < f.exprs.size(); ++i) {
        const expr& e = f.exprs[i];
        if (!live[i] || e.kind != expr_kind::op || e.op != lim.op || !e.ty || !e.ty->is_array()) continue;
        std::uint64_t bytes = static_cast<std::uint64_t>(e.ty->dtype->itemsize());
        for (auto d : e.attrs)
          if (d < 0 || __builtin_mul_overflow(bytes, static_cast<std::uint64_t>(d), &bytes)) bytes = UINT64_MAX;
        if (__builtin_add_overflow(total, bytes, &total)) total = UINT64_MAX;
        if (total > lim.bytes) {
          std::string what = lim.what;
          what.replace(what.find("{}"), 2, total == UINT64_MAX ? std::string("more than 2**64") : std::to_string(total));
          throw typing_error("Unsupported: " + what, f, e.loc);
        }
      }
    }
  }
  const typed_function& entry = m.functions.front();
  if (!entry.is_kernel) return;
  // The parameter block as the launcher packs it (the error record's slot included).
  const std::size_t bytes = layout_of(entry.arg_types, m.may_raise()).total_slots() * 8;
  if (bytes > max_parameter_bytes)
    throw typing_error("Unsupported: the kernel's arguments take " + std::to_string(bytes) +
                           " bytes of parameters (8 per scalar, 8 + 16 per array dimension); a kernel takes at most " +
                           std::to_string(max_parameter_bytes) + ": pass fewer or lower-dimensional arrays",
                       *entry.ir, location{entry.ir->first_line, 0});
}

typed_module module_typer::assemble(typed_function entry) {
  typed_module m;
  m.raise_sites = sites_;
  m.strings = strings_;
  m.externals = externals_;
  m.uses_overloads = !kept_.empty();
  for (const type* e : externals_)
    for (const auto& file : e->bits >= 2 ? std::vector<std::string>{} : e->names)  // (an intrinsic's: its body)
      if (std::find(m.link.begin(), m.link.end(), file) == m.link.end()) m.link.push_back(file);
  m.functions.push_back(std::move(entry));
  std::map<int, int> index{{-1, 0}};  // specialisation id (-1: the entry, called recursively) -> position
  for (std::size_t k = 0; k < m.functions.size(); ++k) {
    function& f = *m.functions[k].ir;
    std::vector<bool> live(f.exprs.size(), false);
    reachable_stmts(f, f.body, live);
    for (std::size_t e = 0; e < f.exprs.size(); ++e) {
      expr& x = f.exprs[e];
      if (x.kind == expr_kind::op && x.op == op_id::call_external) {
        // An intrinsic's host implementation (attrs[1], a specialisation id, or -1).
        if (x.attrs.size() < 2 || x.attrs[1] < 0) continue;
        int sid = static_cast<int>(x.attrs[1]);
        auto it = index.find(sid);
        if (it == index.end()) {
          it = index.emplace(sid, static_cast<int>(m.functions.size())).first;
          m.functions.push_back(specs_[static_cast<std::size_t>(sid)].tf);
        }
        x.attrs[1] = it->second;
        continue;
      }
      if (x.kind != expr_kind::op || x.op != op_id::call_device) continue;
      if (!live[e]) {
        // A dead call must not name a function the module lacks.
        x.kind = expr_kind::constant;
        x.value = constant_value{};
        x.ty = tc.none();
        x.operands.clear();
        x.attrs.clear();
        continue;
      }
      int sid = static_cast<int>(x.attrs.at(0));
      auto it = index.find(sid);
      if (it == index.end()) {
        it = index.emplace(sid, static_cast<int>(m.functions.size())).first;
        m.functions.push_back(specs_[static_cast<std::size_t>(sid)].tf);
      }
      x.attrs[0] = it->second;
    }
  }
  // Symbols are unique per module even for two functions that look alike
  // (the same function object jitted twice, say).
  std::set<std::string> used;
  for (std::size_t k = 0; k < m.functions.size(); ++k) {
    std::string& s = m.functions[k].symbol;
    if (!used.insert(s).second) {
      s += "_" + std::to_string(k);
      used.insert(s);
    }
  }
  return m;
}

std::string make_symbol(const function& f, const std::vector<const type*>& args) {
  const std::string& qual = f.display_name();
  std::string key = f.filename + "\n" + qual + "\n" + f.fingerprint + "\n";
  for (auto* t : args) key += t->str() + ";";
  std::uint64_t h = 14695981039346656037ull;  // FNV-1a: stable across runs and platforms
  for (unsigned char c : key) {
    h ^= c;
    h *= 1099511628211ull;
  }
  std::string name;
  for (char c : qual) {
    bool ok = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '_';
    name += ok ? c : '_';
  }
  char hex[17];
  std::snprintf(hex, sizeof hex, "%016llx", static_cast<unsigned long long>(h));
  return "cuforge_" + name + "_" + hex;
}

}  // namespace detail

typed_module infer(type_context& tc, std::shared_ptr<const function> entry, const signature& sig, bool is_kernel,
                   const typer_options& opts) {
  if (!entry) throw cuforge::logic_error("infer: no function to type");
  const type* ret = sig.ret;
  if (is_kernel && ret && ret->kind != type_kind::none)
    throw typing_error("kernels cannot return a value (the signature returns " + ret->str() + ")", *entry,
                       location{entry->first_line, 0});
  detail::module_typer m(tc, opts);
  detail::function_typer ft(m, *entry, sig.args, is_kernel, is_kernel ? tc.none() : ret);
  typed_function tf = ft.run();
  typed_module out = m.assemble(std::move(tf));
  detail::check_local_memory(out);
  return out;
}

}  // namespace cuforge::frontend
