// The registry put together from the areas' tables (intrinsic_registry.hpp),
// its public listing (intrinsics.hpp), and the helpers typing functions
// share.
#include "intrinsic_registry.hpp"

#include <cuforge/frontend/diagnostics.hpp>
#include <cuforge/runtime/error.hpp>

#include <string>
#include <unordered_map>

namespace cuforge::frontend {

std::string_view to_string(cpu_needs c) noexcept {
  switch (c) {
    case cpu_needs::nothing: return "nothing";
    case cpu_needs::warp_sync: return "warp_sync";
    case cpu_needs::block_sync: return "block_sync";
    case cpu_needs::grid_sync: return "grid_sync";
  }
  return "?";
}

std::string_view to_string(intrinsic_kind k) noexcept {
  switch (k) {
    case intrinsic_kind::module: return "module";
    case intrinsic_kind::function: return "function";
    case intrinsic_kind::value: return "value";
  }
  return "?";
}

namespace detail {

namespace {

struct tables {
  std::vector<const intrinsic*> entries;
  std::unordered_map<std::string_view, const intrinsic*> by_name;
  std::unordered_map<const intrinsic*, std::int64_t> index;
  std::vector<intrinsic_info> infos;
};

const tables& all_tables() {
  static const tables t = [] {
    tables r;
    for (auto area : {cuda_intrinsics(), fp16_intrinsics(), bf16_intrinsics(), vector_intrinsics(), atomic_intrinsics(), math_intrinsics(), libdevice_intrinsics(),
                      builtin_intrinsics(), host_array_intrinsics()})
      for (const intrinsic& e : area) {
        if (!r.by_name.emplace(e.info.name, &e).second)
          throw logic_error("intrinsic registry: '" + std::string(e.info.name) + "' is listed twice");
        r.index.emplace(&e, static_cast<std::int64_t>(r.entries.size()));
        r.entries.push_back(&e);
        r.infos.push_back(e.info);
      }
    return r;
  }();
  return t;
}

}  // namespace

std::span<const intrinsic* const> registry() { return all_tables().entries; }

const intrinsic* find_entry(std::string_view name) noexcept {
  const auto& m = all_tables().by_name;
  auto it = m.find(name);
  return it == m.end() ? nullptr : it->second;
}

const intrinsic& entry(std::string_view name) {
  const intrinsic* e = find_entry(name);
  if (e == nullptr) throw logic_error("intrinsic registry: no entry '" + std::string(name) + "'");
  return *e;
}

std::int64_t index_of(const intrinsic& e) { return all_tables().index.at(&e); }

const intrinsic& entry_of(const expr& e) {
  const auto& all = all_tables().entries;
  if (e.op != op_id::intrinsic || e.attrs.empty() || e.attrs[0] < 0 ||
      static_cast<std::size_t>(e.attrs[0]) >= all.size())
    throw internal_compiler_error("codegen: an intrinsic op without a registry index");
  return *all[static_cast<std::size_t>(e.attrs[0])];
}

// --- helpers for typing functions ----------------------------------------------------------

void expect_args(const function_typer& ft, const call_args& c, std::size_t lo, std::size_t hi) {
  if (c.args.size() < lo || c.args.size() > hi || !c.kwargs.empty()) {
    std::string n = lo == hi ? std::to_string(lo) : std::to_string(lo) + " to " + std::to_string(hi);
    ft.no_impl(c, "it takes " + n + " positional argument" + (hi == 1 ? "" : "s"));
  }
}

const value& scalar_arg(const function_typer& ft, const call_args& c, std::size_t i) {
  const value& x = c.args[i];
  if (!x.runtime() || !x.ty->is_scalar()) ft.no_impl(c);
  return x;
}

numba_resolved numba_resolve(function_typer& ft, const intrinsic& self, call_args& c, const std::string& why) {
  std::vector<const type*> tys;
  for (std::size_t i = 0; i < c.args.size(); ++i) tys.push_back(scalar_arg(ft, c, i).ty);
  numba_resolved r{numba_call(ft.tc_, self.info.name, tys), {}};
  if (!r.sig) ft.no_impl(c, why);
  for (std::size_t i = 0; i < c.args.size(); ++i) r.args.push_back(ft.cast(c.args[i], r.sig.params[i], c.loc));
  return r;
}

parsed_proto parse_proto(std::string_view p) {
  parsed_proto r{p.empty() ? '?' : p[0], {}};
  for (std::size_t i = 2; i < p.size(); ++i) {
    if (p[i] == ',') continue;
    bool out = p[i] == '*';
    if (out) ++i;
    if (i < p.size()) r.params.push_back({p[i], out});
  }
  return r;
}

const type* proto_letter_type(type_context& tc, char c) {
  switch (c) {
    case '?': return tc.boolean();
    case 'b': return tc.int8();
    case 'B': return tc.uint8();
    case 'h': return tc.int16();
    case 'H': return tc.uint16();
    case 'i': return tc.int32();
    case 'I': return tc.uint32();
    case 'l': return tc.int64();
    case 'L': return tc.uint64();
    case 'e': return tc.float16();
    case 'E': return tc.bfloat16();
    case 'f': return tc.float32();
    case 'd': return tc.float64();
    default: throw logic_error("intrinsic registry: malformed prototype letter '" + std::string(1, c) + "'");
  }
}

value type_by_prototype(function_typer& ft, const intrinsic& self, call_args& c) {
  if (!c.kwargs.empty()) ft.no_impl(c, "it takes no keyword arguments");
  parsed_proto p = parse_proto(self.proto);
  std::vector<const type*> ins, outs;
  if (p.ret != 'v') outs.push_back(proto_letter_type(ft.tc_, p.ret));
  for (const proto_param& q : p.params) (q.out ? outs : ins).push_back(proto_letter_type(ft.tc_, q.ty));
  if (c.args.size() != ins.size())
    ft.no_impl(c, "it takes " + std::string(self.info.params) + ", " + std::to_string(ins.size()) + " argument" +
                      (ins.size() == 1 ? "" : "s"));
  std::vector<value> args;
  for (std::size_t i = 0; i < ins.size(); ++i) {
    const value& a = c.args[i];
    if (!a.runtime() || !(a.ty->is_scalar() || a.ty->is_bfloat16()) || a.ty->is_complex())
      ft.no_impl(c, "argument " + std::to_string(i + 1) + " is " + a.ty->str() + ", not a real number for its " +
                        ins[i]->str() + " parameter");
    args.push_back(ft.cast(a, ins[i], c.loc));
  }
  const type* result = outs.size() == 1 ? outs[0] : ft.tc_.tuple(outs);
  return ft.intrinsic_op(self, result, std::move(args), c.loc);
}

const value& real_arg(const function_typer& ft, const call_args& c, std::size_t i) {
  const value& x = c.args[i];
  if (!x.runtime() || !x.ty->is_scalar() || x.ty->is_complex()) ft.no_impl(c);
  return x;
}

const value& int_arg(const function_typer& ft, const call_args& c, std::size_t i) {
  const value& x = c.args[i];
  if (!x.runtime() || !x.ty->is_int()) ft.no_impl(c, "it takes an integer");
  return x;
}

const type* real_float(type_context& tc, const type* t) {
  if (t->kind == type_kind::boolean || t->is_int()) return tc.float64();
  if (t->is_float()) return t->bits == 16 ? tc.float32() : t;
  return nullptr;
}

const type* complex_for(type_context& tc, const type* t) {
  if (t->is_complex()) return t;
  if (t->is_float() && t->bits <= 32) return tc.complex64();
  return tc.complex128();
}

}  // namespace detail

const std::vector<intrinsic_info>& intrinsics() { return detail::all_tables().infos; }

const intrinsic_info* find_intrinsic(std::string_view name) noexcept {
  const detail::intrinsic* e = detail::find_entry(name);
  return e == nullptr ? nullptr : &e->info;
}

const intrinsic_info* intrinsic_at(std::int64_t index) noexcept {
  const auto& all = detail::all_tables().entries;
  if (index < 0 || static_cast<std::size_t>(index) >= all.size()) return nullptr;
  return &all[static_cast<std::size_t>(index)]->info;
}

std::int64_t intrinsic_index(std::string_view name) noexcept {
  const detail::intrinsic* e = detail::find_entry(name);
  return e == nullptr ? -1 : detail::index_of(*e);
}

}  // namespace cuforge::frontend
