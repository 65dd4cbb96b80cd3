// Barriers without fibers (docs/cpu_execution.md, "Regions"): on the host
// target, a kernel whose barriers are all `cuda.syncthreads()` statements of
// its own body is lowered as the whole block in one call. The body is cut at
// its barriers into segments; each segment runs as a loop over the block's
// threads, one thread after another, so every thread has finished it before
// any starts the next: that is what the barrier asks. Statements holding a
// barrier (an if, a while, a for over a range) are run once for the block,
// their condition or range read in the first live thread: CUDA requires the
// threads of a block to reach a barrier together, so a condition guarding
// one is the same in all of them. Variables whose values pass from one
// segment to another are kept per thread, in arrays indexed by the thread;
// the rest stay scalars that each thread's turn starts afresh. A thread that
// returns is marked ended and skipped by later segments (a barrier waits
// only for live threads, as on a GPU).
//
// Grid-stride loops (docs/cpu_execution.md, "Grid-stride loops"): a top-level `for i in
// range(start, stop, step)` whose start depends on the thread and whose stop and step are the
// block's (`for i in range(cuda.grid(1), n, cuda.gridsize(1))`) runs interchanged, its iterations
// outermost and the block's threads inside each, so that one iteration of all threads walks
// memory contiguously and vectorises, where each thread's own loop walked it a grid apart. The
// threads of a block meet nowhere inside such a loop, so any order of their iterations is one a
// GPU could give. A barrier-free kernel with one runs in regions too.
//
// The thread loops walk threadIdx.x innermost (it vectorises), unless the kernel's arrays are
// indexed contiguously along threadIdx.y and not along x (numba's tiled matmul writes
// `sA[tx, ty]` and reads `sB[j, ty]`): then y is innermost, so that its loads and stores are
// contiguous vectors instead of gathers (inner_thread_axis). Threads that meet at no barrier may
// run in any order.
//
// Kernels this does not fit keep the fiber engine: barriers in device
// functions, syncthreads_count/and/or, warp and grid synchronisation, local
// arrays (one per thread would be needed), kernels that may raise (a raise
// ends one thread by unwinding), break or continue leaving a loop that holds
// a barrier, debug information.
#include "codegen_lower.hpp"
#include "intrinsic_registry.hpp"

#include <llvm/IR/Constants.h>

#include <complex>
#include <cstddef>
#include <functional>
#include <map>
#include <optional>
#include <set>
#include <string_view>

namespace cuforge::frontend::detail {

namespace {

bool pure_group(std::string_view g) {
  for (std::string_view p : {"arith", "powi", "neg", "invert", "not_", "abs", "compare", "math1", "math2", "ldexp",
                             "fma", "fclass", "complex_make", "complex_part", "complex_fn", "tuple_get", "optional"})
    if (g == p) return true;
  return false;
}

bool is_syncthreads(const function& f, expr_id id) {
  if (id < 0 || static_cast<std::size_t>(id) >= f.exprs.size()) return false;
  const expr& e = f.exprs[static_cast<std::size_t>(id)];
  if (e.kind != expr_kind::op || e.op != op_id::intrinsic || e.attrs.empty()) return false;
  return entry_of(e).info.name == "cuda.syncthreads";
}

const stmt& stmt_at(const function& f, stmt_id id) { return f.stmts[static_cast<std::size_t>(id)]; }

bool holds_barrier(const function& f, stmt_id id) {
  const stmt& s = stmt_at(f, id);
  if (s.kind == stmt_kind::expression) return is_syncthreads(f, s.value);
  for (const auto* list : {&s.body, &s.orelse})
    for (stmt_id c : *list)
      if (holds_barrier(f, c)) return true;
  return false;
}

// Every variable an expression tree reads or writes.
void vars_of_expr(const function& f, expr_id id, std::set<var_id>& out) {
  if (id < 0 || static_cast<std::size_t>(id) >= f.exprs.size()) return;
  const expr& e = f.exprs[static_cast<std::size_t>(id)];
  if (e.kind == expr_kind::variable && e.var != no_id) out.insert(e.var);
  for (expr_id o : e.operands) vars_of_expr(f, o, out);
}

void vars_of_stmt(const function& f, stmt_id id, std::set<var_id>& out) {
  const stmt& s = stmt_at(f, id);
  for (expr_id e : {s.target, s.value, s.start, s.stop, s.step}) vars_of_expr(f, e, out);
  if (s.var != no_id) out.insert(s.var);
  for (const auto* list : {&s.body, &s.orelse})
    for (stmt_id c : *list) vars_of_stmt(f, c, out);
}

// Whether a statement of a segment (no barrier inside) has a break or continue that would leave
// the segment (one not inside a loop of its own).
bool leaves_segment(const function& f, stmt_id id, int loop_depth) {
  const stmt& s = stmt_at(f, id);
  if ((s.kind == stmt_kind::break_ || s.kind == stmt_kind::continue_) && loop_depth == 0) return true;
  const int inner = (s.kind == stmt_kind::while_ || s.kind == stmt_kind::for_range) ? loop_depth + 1 : loop_depth;
  for (stmt_id c : s.body)
    if (leaves_segment(f, c, inner)) return true;
  for (stmt_id c : s.orelse)  // a loop's else runs outside it
    if (leaves_segment(f, c, loop_depth)) return true;
  return false;
}

// The op groups whose value depends on their operands alone (no memory, no thread).
bool pure_op(op_id op) {
  switch (op) {
#define CUFORGE_PURE_GROUP(name, group) \
  case op_id::name:                    \
    return pure_group(#group);
    CUFORGE_FRONTEND_OPS(CUFORGE_PURE_GROUP)
#undef CUFORGE_PURE_GROUP
  }
  return false;
}

// Variables whose value is the same in every thread of the block: a parameter never assigned, a
// uniform range's variable, or one assigned only at the top level of the regions (not inside a
// segment's own control flow) from values every thread has (constants, uniform variables, the
// block's coordinates and shape, arithmetic on them). Such an assignment runs once for the block.
class uniformity {
 public:
  // `block_x_varies`: the regions run a row of blocks along x (a barrier-free kernel), so
  // blockIdx.x is a coordinate like threadIdx, not the block's.
  uniformity(const function& f, std::function<bool(stmt_id)> has_barrier, bool block_x_varies)
      : f_(f), has_barrier_(std::move(has_barrier)), block_x_varies_(block_x_varies) {
    uniform_.assign(f.vars.size(), true);
    // Assignments found nested in a segment's control flow, or to a tuple, make a variable varying.
    nested(f.body, false);
    for (bool changed = true; changed;) {
      changed = false;
      for (std::size_t v = 0; v < f.vars.size(); ++v) {
        if (!uniform_[v]) continue;
        for (const auto& [value, _] : assignments_[v])
          if (value != no_id && !uniform_expr(value)) {
            uniform_[v] = false;
            changed = true;
            break;
          }
      }
    }
  }

  bool var(var_id v) const { return v >= 0 && static_cast<std::size_t>(v) < uniform_.size() && uniform_[static_cast<std::size_t>(v)]; }

  bool uniform_expr(expr_id id) const {
    if (id == no_id) return true;
    if (id < 0 || static_cast<std::size_t>(id) >= f_.exprs.size()) return false;
    const expr& e = f_.exprs[static_cast<std::size_t>(id)];
    switch (e.kind) {
      case expr_kind::constant: return true;
      case expr_kind::variable: return var(e.var);
      case expr_kind::tuple:
      case expr_kind::conditional:
      case expr_kind::logical:
      case expr_kind::cast: break;
      case expr_kind::op:
        if (e.op == op_id::intrinsic) {
          if (e.attrs.empty()) return false;
          const std::string_view n = entry_of(e).info.name;
          if (!(n.starts_with("cuda.blockDim.") || n.starts_with("cuda.gridDim.") || n.starts_with("cuda.blockIdx.") ||
                n == "cuda.warpsize"))
            return false;
          if (block_x_varies_ && n == "cuda.blockIdx.x") return false;
          break;
        }
        // The block's shared arrays (and constant, global ones) are the same memory for every thread.
        if (!pure_op(e.op) && e.op != op_id::array_shape && e.op != op_id::array_stride && e.op != op_id::array_size &&
            e.op != op_id::shared_array && e.op != op_id::const_array && e.op != op_id::global_array &&
            e.op != op_id::array_view)
          return false;
        break;
      default: return false;
    }
    for (expr_id o : e.operands)
      if (!uniform_expr(o)) return false;
    return true;
  }

  // Whether a value depends on nothing but uniform values and the thread's coordinates: it can be
  // computed again in each thread's turn instead of kept per thread.
  bool thread_pure(expr_id id) const {
    if (id == no_id) return true;
    if (id < 0 || static_cast<std::size_t>(id) >= f_.exprs.size()) return false;
    const expr& e = f_.exprs[static_cast<std::size_t>(id)];
    if (e.kind == expr_kind::variable) {
      // A uniform value it reads must not change later (the value is computed again then).
      if (recomputed_.count(e.var) != 0) return true;
      if (!var(e.var)) return false;
      auto it = assignments_.find(static_cast<std::size_t>(e.var));
      return it == assignments_.end() || it->second.size() <= 1;
    }
    if (e.kind == expr_kind::op && e.op == op_id::intrinsic && !e.attrs.empty() &&
        (entry_of(e).info.name.starts_with("cuda.threadIdx.") ||
         (block_x_varies_ && entry_of(e).info.name == "cuda.blockIdx.x")))
      return true;
    if (e.kind == expr_kind::op && e.op == op_id::intrinsic) return uniform_expr(id);
    switch (e.kind) {
      case expr_kind::constant: return true;
      case expr_kind::tuple:
      case expr_kind::conditional:
      case expr_kind::logical:
      case expr_kind::cast: break;
      case expr_kind::op:
        if (!pure_op(e.op)) return uniform_expr(id);
        break;
      default: return false;
    }
    for (expr_id o : e.operands)
      if (!thread_pure(o)) return false;
    return true;
  }

  // The variables computed again in each thread's turn, in the order of their one assignment:
  // assigned once, at the top level of the regions, from a thread-pure value.
  std::vector<std::pair<var_id, expr_id>> recomputed(const std::set<var_id>& params, const std::vector<bool>& zeroed) {
    std::vector<std::pair<var_id, expr_id>> out;
    for (bool changed = true; changed;) {
      changed = false;
      for (std::size_t v = 0; v < f_.vars.size(); ++v) {
        const auto id = static_cast<var_id>(v);
        // (A variable a read may reach unassigned is not one: its zero there would be lost.)
        if (uniform_[v] || recomputed_.count(id) != 0 || params.count(id) != 0 || zeroed[v]) continue;
        auto it = assignments_.find(v);
        if (it == assignments_.end() || it->second.size() != 1 || it->second[0].second || varying_target_.count(id) != 0)
          continue;
        if (!thread_pure(it->second[0].first)) continue;
        recomputed_.insert(id);
        out.push_back({id, it->second[0].first});
        changed = true;
      }
    }
    return out;
  }

  // Whether statement `id` (at the top level of a region list) assigns a uniform variable from a
  // uniform value: it runs once for the block.
  bool uniform_statement(stmt_id id) const {
    const stmt& s = f_.stmts[static_cast<std::size_t>(id)];
    if (s.kind != stmt_kind::assign || s.target == no_id) return false;
    const expr& t = f_.exprs[static_cast<std::size_t>(s.target)];
    return t.kind == expr_kind::variable && var(t.var) && uniform_expr(s.value);
  }

 private:
  const function& f_;
  std::function<bool(stmt_id)> has_barrier_;
  bool block_x_varies_;
  std::vector<bool> uniform_;
  std::map<std::size_t, std::vector<std::pair<expr_id, bool>>> assignments_;
  std::set<var_id> recomputed_;
  std::set<var_id> varying_target_;  // assigned through a tuple target or a for loop of a thread

  void assigned(expr_id target, expr_id value, bool in_segment_flow) {
    const expr& t = f_.exprs[static_cast<std::size_t>(target)];
    if (t.kind == expr_kind::variable) {
      if (in_segment_flow) uniform_[static_cast<std::size_t>(t.var)] = false;
      assignments_[static_cast<std::size_t>(t.var)].push_back({value, in_segment_flow});
      return;
    }
    std::set<var_id> vs;
    vars_of_expr(f_, target, vs);
    for (var_id v : vs) {
      uniform_[static_cast<std::size_t>(v)] = false;  // tuple targets, subscripts' indices
      varying_target_.insert(v);
    }
  }

  // `inside`: within a segment statement's own control flow (an if or loop without a barrier).
  void nested(const std::vector<stmt_id>& ids, bool inside) {
    for (stmt_id id : ids) {
      const stmt& s = f_.stmts[static_cast<std::size_t>(id)];
      const bool region_level = !inside && has_barrier_(id);  // an if or loop run once for the block
      if (s.kind == stmt_kind::assign) assigned(s.target, s.value, inside);
      if (s.kind == stmt_kind::for_range) {
        auto& a = assignments_[static_cast<std::size_t>(s.var)];
        if (region_level) {
          a.push_back({s.start, false});
          a.push_back({s.stop, false});
          a.push_back({s.step, false});
        } else {
          uniform_[static_cast<std::size_t>(s.var)] = false;  // each thread's own loop
          varying_target_.insert(s.var);
        }
      }
      nested(s.body, !region_level);
      nested(s.orelse, !region_level);
    }
  }
};

// The plan's walk, shared by the check and the variable census: the segments in the order
// lowering makes them, and the uniform reads between them.
struct region_walk {
  const function& f;
  const uniformity* uni = nullptr;  // when given, uniform statements stand apart (lowering runs them once)
  const std::set<stmt_id>* strided = nullptr;  // grid-stride loops, run interchanged
  bool ok = true;
  int uniform_loops = 0;
  int next_site = 0;
  // Per site (a segment or a uniform read): whether it lies inside a loop run once for the block.
  std::vector<bool> site_in_loop;
  std::vector<std::set<var_id>> site_vars;

  int site(std::set<var_id> vars) {
    site_in_loop.push_back(uniform_loops > 0);
    site_vars.push_back(std::move(vars));
    return next_site++;
  }

  void segment(const std::vector<stmt_id>& ids) {
    std::set<var_id> vars;
    for (stmt_id id : ids) {
      if (leaves_segment(f, id, 0)) ok = false;
      vars_of_stmt(f, id, vars);
    }
    site(std::move(vars));
  }

  void uniform_read(std::initializer_list<expr_id> exprs) {
    std::set<var_id> vars;
    for (expr_id e : exprs) vars_of_expr(f, e, vars);
    site(std::move(vars));
  }

  void walk(const std::vector<stmt_id>& ids) {
    std::vector<stmt_id> pending;
    auto flush = [&] {
      if (!pending.empty()) segment(pending);
      pending.clear();
    };
    for (stmt_id id : ids) {
      if (uni != nullptr && uni->uniform_statement(id)) {
        flush();
        std::set<var_id> vars;
        vars_of_stmt(f, id, vars);
        site(std::move(vars));
        continue;
      }
      if (strided != nullptr && strided->count(id) != 0) {
        // Per thread: the range read (the trip counts), then the loop variable and the body at
        // each iteration, a loop run once for the block.
        flush();
        const stmt& s = stmt_at(f, id);
        uniform_read({s.start, s.stop, s.step});
        ++uniform_loops;
        uniform_read({s.start, s.stop, s.step});
        site(std::set<var_id>{s.var});
        walk(s.body);
        --uniform_loops;
        continue;
      }
      if (!holds_barrier(f, id)) {
        pending.push_back(id);
        continue;
      }
      flush();
      const stmt& s = stmt_at(f, id);
      switch (s.kind) {
        case stmt_kind::expression: break;  // the barrier: the segments on either side are apart
        case stmt_kind::if_:
          uniform_read({s.value});
          walk(s.body);
          walk(s.orelse);
          break;
        case stmt_kind::while_:
          ++uniform_loops;
          uniform_read({s.value});
          walk(s.body);
          --uniform_loops;
          walk(s.orelse);
          break;
        case stmt_kind::for_range: {
          uniform_read({s.start, s.stop, s.step});
          ++uniform_loops;
          std::set<var_id> v{s.var};
          site(std::move(v));  // the loop variable, set in every thread each iteration
          walk(s.body);
          --uniform_loops;
          walk(s.orelse);
          break;
        }
        default: ok = false;
      }
    }
    flush();
  }
};

// Whether the body has no barrier: its regions then run a row of blocks (ctx->block_run) in each
// thread loop, blockIdx.x varying with the threads.
bool barrier_free(const function& f) {
  for (stmt_id id : f.body)
    if (holds_barrier(f, id)) return false;
  return true;
}

uniformity uniformity_of(const function& f) {
  return uniformity(f, [&f](stmt_id id) { return holds_barrier(f, id); }, barrier_free(f));
}

// The grid-stride loops of a kernel's body: top-level loops over a range whose start varies with
// the thread and whose stop and step do not, without an else, a barrier, or a break or continue
// of their own (those would need a thread's loop to end apart from the others').
std::set<stmt_id> grid_stride_loops(const function& f, const uniformity& uni) {
  std::set<stmt_id> out;
  for (stmt_id id : f.body) {
    const stmt& s = stmt_at(f, id);
    if (s.kind != stmt_kind::for_range || !s.orelse.empty() || holds_barrier(f, id)) continue;
    if (uni.uniform_expr(s.start) || !uni.uniform_expr(s.stop) || !uni.uniform_expr(s.step)) continue;
    bool leaves = false;
    for (stmt_id c : s.body) leaves = leaves || leaves_segment(f, c, 0);
    if (!leaves) out.insert(id);
  }
  return out;
}

}  // namespace

namespace {

// Which threadIdx register `e` reads (0: x, 1: y, 2: z), or -1 for any other expression.
int thread_idx_axis(const expr& e) {
  if (e.kind != expr_kind::op || e.op != op_id::intrinsic || e.attrs.empty()) return -1;
  static constexpr std::string_view names[3] = {"cuda.threadIdx.x", "cuda.threadIdx.y", "cuda.threadIdx.z"};
  const std::string_view n = entry_of(e).info.name;
  for (int d = 0; d < 3; ++d)
    if (n == names[d]) return d;
  return -1;
}

bool is_register(const function& f, expr_id id, std::string_view name) {
  if (id < 0 || static_cast<std::size_t>(id) >= f.exprs.size()) return false;
  const expr& e = f.exprs[static_cast<std::size_t>(id)];
  return e.kind == expr_kind::op && e.op == op_id::intrinsic && !e.attrs.empty() && entry_of(e).info.name == name;
}

// `id` through integer casts that keep every value of a 32-bit index: the cast nodes and what they cast.
expr_id through_casts(const function& f, expr_id id, std::vector<expr_id>& chain) {
  for (int depth = 0; depth < 8 && id >= 0 && static_cast<std::size_t>(id) < f.exprs.size(); ++depth) {
    const expr& e = f.exprs[static_cast<std::size_t>(id)];
    if (e.kind != expr_kind::cast || e.operands.size() != 1 || e.ty == nullptr || !e.ty->is_int() || e.ty->bits < 32)
      return id;
    chain.push_back(id);
    id = e.operands[0];
  }
  return id;
}

// A condition's truth where the expression alone decides it, as CPython's compiler does when it drops
// a branch: a constant, `x or c` with c true, `x and c` with c false, and `not`/casts of those.
std::optional<bool> known_truth(const function& f, expr_id id, int depth = 0) {
  if (id < 0 || static_cast<std::size_t>(id) >= f.exprs.size() || depth > 16) return std::nullopt;
  const expr& e = f.exprs[static_cast<std::size_t>(id)];
  switch (e.kind) {
    case expr_kind::constant: {
      const constant_value& v = e.value;
      switch (v.k) {
        case constant_value::kind::boolean: return v.b;
        case constant_value::kind::integer: return v.i != 0;
        case constant_value::kind::floating: return v.f != 0;
        case constant_value::kind::complex: return v.c != std::complex<double>(0, 0);
        default: return std::nullopt;
      }
    }
    case expr_kind::cast:
      return e.operands.size() == 1 ? known_truth(f, e.operands[0], depth + 1) : std::nullopt;
    case expr_kind::logical: {
      if (e.operands.size() != 2) return std::nullopt;
      const std::optional<bool> l = known_truth(f, e.operands[0], depth + 1);
      const std::optional<bool> r = known_truth(f, e.operands[1], depth + 1);
      if (l) return e.is_and ? (*l ? r : std::optional<bool>(false)) : (*l ? std::optional<bool>(true) : r);
      if (r && *r != e.is_and) return *r;  // x or <true>, x and <false>
      return std::nullopt;
    }
    case expr_kind::op:
      if (e.op == op_id::not_ && e.operands.size() == 1) {
        const std::optional<bool> v = known_truth(f, e.operands[0], depth + 1);
        return v ? std::optional<bool>(!*v) : std::nullopt;
      }
      return std::nullopt;
    default: return std::nullopt;
  }
}

bool grid_x_only_in(const function& f) {
  std::vector<std::vector<expr_id>> parents(f.exprs.size());
  std::vector<bool> seen(f.exprs.size()), by_statement(f.exprs.size());
  std::vector<expr_id> reached;
  std::function<void(expr_id)> reach = [&](expr_id e) {
    if (e < 0 || static_cast<std::size_t>(e) >= f.exprs.size() || seen[static_cast<std::size_t>(e)]) return;
    seen[static_cast<std::size_t>(e)] = true;
    reached.push_back(e);
    for (expr_id o : f.exprs[static_cast<std::size_t>(e)].operands) {
      if (o < 0 || static_cast<std::size_t>(o) >= f.exprs.size()) continue;
      parents[static_cast<std::size_t>(o)].push_back(e);
      reach(o);
    }
  };
  std::function<void(const std::vector<stmt_id>&)> walk = [&](const std::vector<stmt_id>& block) {
    for (stmt_id id : block) {
      if (id < 0 || static_cast<std::size_t>(id) >= f.stmts.size()) continue;
      const stmt& s = stmt_at(f, id);
      for (expr_id e : {s.target, s.value, s.start, s.stop, s.step}) {
        if (e < 0 || static_cast<std::size_t>(e) >= f.exprs.size()) continue;
        by_statement[static_cast<std::size_t>(e)] = true;
        reach(e);
      }
      // A branch the condition alone rules out is not walked: CPython's bytecode drops it, and the
      // two frontends must make the same code (test_bytecode_frontend.py).
      const std::optional<bool> truth =
          s.kind == stmt_kind::if_ || s.kind == stmt_kind::while_ ? known_truth(f, s.value) : std::nullopt;
      if (truth != false) walk(s.body);
      if (truth != true || s.kind == stmt_kind::while_) walk(s.orelse);
    }
  };
  walk(f.body);
  // The nodes of each blockIdx.x * blockDim.x + threadIdx.x below its sum: allowed users of the registers.
  std::set<expr_id> inside, sums;
  for (expr_id a : reached) {
    const expr& add = f.exprs[static_cast<std::size_t>(a)];
    if (add.kind != expr_kind::op || add.op != op_id::add || add.operands.size() != 2) continue;
    for (int t_side = 0; t_side < 2; ++t_side) {
      std::vector<expr_id> chain;
      const expr_id t = through_casts(f, add.operands[static_cast<std::size_t>(t_side)], chain);
      const expr_id mul = through_casts(f, add.operands[static_cast<std::size_t>(1 - t_side)], chain);
      if (!is_register(f, t, "cuda.threadIdx.x")) continue;
      const expr& mx = f.exprs[static_cast<std::size_t>(mul)];
      if (mx.kind != expr_kind::op || mx.op != op_id::mul || mx.operands.size() != 2) continue;
      std::vector<expr_id> mul_chain;
      const expr_id l = through_casts(f, mx.operands[0], mul_chain);
      const expr_id r = through_casts(f, mx.operands[1], mul_chain);
      const bool block_dim = (is_register(f, l, "cuda.blockIdx.x") && is_register(f, r, "cuda.blockDim.x")) ||
                             (is_register(f, r, "cuda.blockIdx.x") && is_register(f, l, "cuda.blockDim.x"));
      if (!block_dim) continue;
      inside.insert(chain.begin(), chain.end());
      inside.insert(mul_chain.begin(), mul_chain.end());
      for (expr_id x : {t, mul, l, r}) inside.insert(x);
      sums.insert(a);
      break;
    }
  }
  for (expr_id e : reached) {
    const bool reg = is_register(f, e, "cuda.threadIdx.x") || is_register(f, e, "cuda.blockIdx.x");
    if (is_register(f, e, "cuda.laneid")) return false;
    if (!reg && inside.count(e) == 0) continue;
    if (!reg && is_register(f, e, "cuda.blockDim.x")) continue;  // blockDim.x is read anywhere as it is
    if (inside.count(e) == 0 || by_statement[static_cast<std::size_t>(e)]) return false;
    for (expr_id p : parents[static_cast<std::size_t>(e)])
      if (inside.count(p) == 0 && sums.count(p) == 0) return false;
  }
  return true;
}

// The thread axes (bit 0: threadIdx.x, 1: y, 2: z) a value may depend on, given each variable's
// (`dep`): cuda.grid(n) for n > 1 counts as every axis.
unsigned thread_axes(const function& f, const std::vector<unsigned>& dep, expr_id id, int depth = 0) {
  if (id < 0 || static_cast<std::size_t>(id) >= f.exprs.size() || depth > 64) return 0;
  const expr& e = f.exprs[static_cast<std::size_t>(id)];
  if (e.kind == expr_kind::variable) return e.var >= 0 ? dep[static_cast<std::size_t>(e.var)] : 0;
  if (const int d = thread_idx_axis(e); d >= 0) return 1u << d;
  if (e.kind == expr_kind::op && e.op == op_id::intrinsic && !e.attrs.empty()) {
    if (entry_of(e).info.name == "cuda.grid") {
      const expr* arg = e.operands.size() == 1 && e.operands[0] >= 0 ? &f.exprs[static_cast<std::size_t>(e.operands[0])] : nullptr;
      const bool one = arg != nullptr && arg->kind == expr_kind::constant &&
                       arg->value.k == constant_value::kind::integer && arg->value.i == 1;
      return one ? 1u : 7u;
    }
  }
  unsigned m = 0;
  for (expr_id o : e.operands) m |= thread_axes(f, dep, o, depth + 1);
  return m;
}

// The thread axes each variable's value may depend on, through its assignments (a tuple target's
// variables get the whole value's). Control dependence is not followed: this only ranks the axes
// for contiguity.
std::vector<unsigned> thread_axes_of_vars(const function& f) {
  std::vector<unsigned> dep(f.vars.size(), 0);
  for (bool changed = true; changed;) {
    changed = false;
    auto add = [&](var_id v, unsigned m) {
      if (v < 0 || static_cast<std::size_t>(v) >= dep.size()) return;
      unsigned& d = dep[static_cast<std::size_t>(v)];
      if ((d | m) != d) {
        d |= m;
        changed = true;
      }
    };
    for (const stmt& st : f.stmts) {
      if (st.kind == stmt_kind::assign && st.target != no_id) {
        const expr& t = f.exprs[static_cast<std::size_t>(st.target)];
        if (t.kind == expr_kind::variable) {
          add(t.var, thread_axes(f, dep, st.value));
        } else if (t.kind == expr_kind::tuple) {
          std::set<var_id> vs;
          vars_of_expr(f, st.target, vs);
          for (var_id v : vs) add(v, thread_axes(f, dep, st.value));
        }
      } else if (st.kind == stmt_kind::for_range && st.var != no_id) {
        add(st.var, thread_axes(f, dep, st.start) | thread_axes(f, dep, st.stop) | thread_axes(f, dep, st.step));
      }
    }
  }
  return dep;
}

// 1 when the block's thread loops should walk threadIdx.y innermost, else 0 (x).
int inner_thread_axis(const function& f) {
  const std::vector<unsigned> dep = thread_axes_of_vars(f);
  auto axes = [&](expr_id id) { return thread_axes(f, dep, id); };
  // An access is contiguous along an axis when its contiguous index (the last; the first of an F
  // array) depends on that axis and no other index does.
  int score[2] = {0, 0};
  for (const expr& e : f.exprs) {
    if (e.kind != expr_kind::op || (e.op != op_id::array_load && e.op != op_id::array_store)) continue;
    const std::size_t first = e.op == op_id::array_load ? 1 : 2;
    if (e.operands.size() <= first) continue;
    const type* a = f.exprs[static_cast<std::size_t>(e.operands[0])].ty;
    const bool fortran = a != nullptr && a->layout == array_layout::f && e.operands.size() - first > 1;
    const std::size_t contiguous = fortran ? first : e.operands.size() - 1;
    unsigned others = 0;
    for (std::size_t i = first; i < e.operands.size(); ++i)
      if (i != contiguous) others |= axes(e.operands[i]);
    const unsigned along = axes(e.operands[contiguous]) & ~others;
    for (int d = 0; d < 2; ++d)
      if ((along & (1u << d)) != 0 && (along & ~(1u << d) & 3u) == 0) ++score[d];
  }
  return score[1] > score[0] ? 1 : 0;
}

}  // namespace

bool x_only_through_grid(const typed_module& m) {
  for (const typed_function& tf : m.functions)
    if (!tf.ir || !grid_x_only_in(*tf.ir)) return false;
  return true;
}

bool block_regions_fit(const typed_module& m, const compile_config& cfg) {
  if (m.functions.empty() || !m.functions[0].is_kernel) return false;
  // A barrier-free kernel runs in regions for its grid-stride loops alone.
  if (!m.functions[0].uses_barrier) {
    const function& f = *m.functions[0].ir;
    if (grid_stride_loops(f, uniformity_of(f)).empty()) return false;
  }
  if (m.functions[0].cooperative || m.may_raise() || cfg.debug() || cfg.line_tables()) return false;
  if (std::getenv("CUFORGE_CPU_FIBERS") != nullptr && std::string(std::getenv("CUFORGE_CPU_FIBERS")) == "1")
    return false;
  const function& f = *m.functions[0].ir;
  // Every barrier is a syncthreads() statement of the kernel's own body.
  std::set<expr_id> statement_barriers;
  for (const stmt& s : f.stmts)
    if (s.kind == stmt_kind::expression && is_syncthreads(f, s.value)) statement_barriers.insert(s.value);
  for (std::size_t i = 0; i < f.exprs.size(); ++i) {
    const expr& e = f.exprs[i];
    if (e.kind != expr_kind::op) continue;
    if (e.op == op_id::local_array) return false;
    if (e.op == op_id::call_device && !e.attrs.empty()) {
      const auto callee = static_cast<std::size_t>(e.attrs[0]);
      if (callee >= m.functions.size() || m.functions[callee].uses_barrier) return false;
    }
    // An intrinsic's host implementation (cuda.extending) that synchronises.
    if (e.op == op_id::call_external && e.attrs.size() > 1 && e.attrs[1] >= 0) {
      const auto host = static_cast<std::size_t>(e.attrs[1]);
      if (host >= m.functions.size() || m.functions[host].uses_barrier) return false;
    }
    if (e.op == op_id::intrinsic && !e.attrs.empty() && entry_of(e).info.cpu != cpu_needs::nothing &&
        statement_barriers.count(static_cast<expr_id>(i)) == 0)
      return false;
  }
  const std::set<stmt_id> strided = grid_stride_loops(f, uniformity_of(f));
  region_walk w{f, nullptr, &strided};
  w.walk(f.body);
  return w.ok;
}

// --- lowering -----------------------------------------------------------------------------------

struct function_lowering::region_state {
  explicit region_state(const function& f)
      : uni(uniformity_of(f)), strided(grid_stride_loops(f, uni)), runs(barrier_free(f)),
        y_inner(!runs && inner_thread_axis(f) == 1) {}
  uniformity uni;
  std::set<stmt_id> strided;         // the grid-stride loops, run interchanged
  bool runs;                         // a row of blocks along x (ctx->block_run) in each thread loop
  // The thread loops walk threadIdx.y innermost (inner_thread_axis), x outside it; the threads'
  // index t (per-thread arrays, alive flags) then counts y fastest. Never with runs.
  bool y_inner;
  llvm::Value* real_ctx = nullptr;   // the scheduler's context (a fault reads the block there)
  llvm::Value* first_block = nullptr;  // blockIdx.x of the row's first block (i32)
  llvm::Value* blocks = nullptr;     // the row's blocks (i32); 1 without runs
  llvm::Value* block_threads = nullptr;  // the threads of one block (i64)
  unsigned block_idx_offset = 0;
  bool track_alive = false;          // whether a thread may return: then each has an alive flag
  std::vector<std::pair<var_id, expr_id>> recomputed;  // computed again at each thread's turn
  llvm::Value* local_ctx = nullptr;  // the block's thread_context, its threadIdx set per thread
  llvm::Value* bx = nullptr;         // blockDim (i32)
  llvm::Value* by = nullptr;
  llvm::Value* bz = nullptr;
  llvm::Value* nthreads = nullptr;   // i64: the threads of every block of the row
  llvm::Value* alive = nullptr;      // i8 per thread
  std::vector<llvm::Value*> arrays;  // per variable: its per-thread array, or null (a scalar)
  std::vector<bool> restart;         // per variable: a scalar zeroed at each thread's turn
  llvm::BasicBlock* next_thread = nullptr;  // the thread loop's latch, while a segment is lowered
  unsigned thread_idx_offset = 0;
};

void function_lowering::emit_block_regions(const std::vector<bool>& zeroed, const target::region_context_layout& layout) {
  const unsigned thread_idx_offset = layout.thread_idx;
  const std::size_t context_bytes = layout.bytes;
  region_state rs(f);
  region_walk plan{f, &rs.uni, &rs.strided};
  plan.walk(f.body);
  regions_ = &rs;
  for (const stmt& st : f.stmts)
    if (st.kind == stmt_kind::return_) rs.track_alive = true;
  thread_vars_.assign(vars_.size(), nullptr);
  rs.thread_idx_offset = thread_idx_offset;
  llvm::Type* i64 = b.getInt64Ty();
  // The block's context, copied: its threadIdx is this function's to set.
  auto* copy = b.CreateAlloca(llvm::ArrayType::get(b.getInt8Ty(), context_bytes), nullptr, "block.ctx");
  copy->setAlignment(llvm::Align(16));
  b.CreateMemCpy(copy, llvm::Align(16), ctx, llvm::Align(8), context_bytes);
  rs.real_ctx = ctx;
  ctx = copy;
  rs.local_ctx = copy;
  rs.block_idx_offset = layout.block_idx;
  rs.bx = ms.tgt.special_register(*this, sreg::block_dim, 0);
  rs.by = ms.tgt.special_register(*this, sreg::block_dim, 1);
  rs.bz = ms.tgt.special_register(*this, sreg::block_dim, 2);
  rs.block_threads = b.CreateMul(b.CreateMul(b.CreateZExt(rs.bx, i64), b.CreateZExt(rs.by, i64)),
                                 b.CreateZExt(rs.bz, i64), "block.threads");
  if (rs.runs) {
    rs.first_block = b.CreateAlignedLoad(b.getInt32Ty(), b.CreateConstInBoundsGEP1_64(b.getInt8Ty(), copy, layout.block_idx),
                                         llvm::Align(4), "bx0");
    rs.blocks = b.CreateAlignedLoad(b.getInt32Ty(), b.CreateConstInBoundsGEP1_64(b.getInt8Ty(), copy, layout.block_run),
                                    llvm::Align(4), "blocks");
    rs.nthreads = b.CreateMul(rs.block_threads, b.CreateZExt(rs.blocks, i64), "threads");
  } else {
    rs.blocks = b.getInt32(1);
    rs.nthreads = rs.block_threads;
  }
  if (rs.track_alive) {
    rs.alive = b.CreateAlloca(b.getInt8Ty(), rs.nthreads, "alive");
    b.CreateMemSet(rs.alive, b.getInt8(1), rs.nthreads, llvm::MaybeAlign(1));
  }
  // Which variables carry values between sites: those used at two sites or more, or at one
  // inside a loop run once for the block (its next iteration reads what this one left).
  std::vector<int> sites(f.vars.size(), 0);
  std::vector<bool> in_loop(f.vars.size(), false);
  for (std::size_t s = 0; s < plan.site_vars.size(); ++s)
    for (var_id v : plan.site_vars[s]) {
      ++sites[static_cast<std::size_t>(v)];
      if (plan.site_in_loop[s]) in_loop[static_cast<std::size_t>(v)] = true;
    }
  std::set<var_id> params(f.params.begin(), f.params.end());
  rs.recomputed = rs.uni.recomputed(params, zeroed);
  std::set<var_id> recomputed;
  for (const auto& [v, _] : rs.recomputed) recomputed.insert(v);
  std::set<var_id> assigned;
  for (const stmt& s : f.stmts) {
    if (s.kind == stmt_kind::assign) vars_of_expr(f, s.target, assigned);
    if (s.kind == stmt_kind::for_range && s.var != no_id) assigned.insert(s.var);
  }
  rs.arrays.assign(f.vars.size(), nullptr);
  rs.restart.assign(f.vars.size(), false);
  for (std::size_t v = 0; v < f.vars.size(); ++v) {
    if (vars_[v] == nullptr) continue;
    const auto id = static_cast<var_id>(v);
    if (params.count(id) != 0 && assigned.count(id) == 0) continue;  // the same in every thread
    if (rs.uni.var(id)) continue;  // assigned once for the block: one scalar
    if (recomputed.count(id) != 0) continue;  // computed again in each thread's turn
    if (sites[v] <= 1 && !in_loop[v]) {
      rs.restart[v] = zeroed[v];
      continue;
    }
    llvm::Type* t = vars_[v]->getAllocatedType();
    auto* a = b.CreateAlloca(t, rs.nthreads, f.vars[v].name.empty() ? "tmp.threads" : f.vars[v].name + ".threads");
    rs.arrays[v] = a;
    const std::uint64_t size = ms.layout().getTypeAllocSize(t);
    if (params.count(id) != 0 || zeroed[v]) {
      // A parameter a thread reassigns starts as the argument in every thread; others at zero.
      llvm::Value* init = params.count(id) != 0 ? static_cast<llvm::Value*>(b.CreateLoad(t, vars_[v]))
                                                : llvm::Constant::getNullValue(t);
      if (params.count(id) == 0) {
        b.CreateMemSet(a, b.getInt8(0), b.CreateMul(rs.nthreads, b.getInt64(size)), llvm::MaybeAlign(1));
      } else {
        for_each_thread(false, [&, t](llvm::Value* t_lin) { b.CreateStore(init, b.CreateInBoundsGEP(t, a, t_lin)); });
      }
    }
  }
  region_block(f.body);
  if (!terminated()) b.CreateRetVoid();
  regions_ = nullptr;
}

// A thread's index in its block (i64) from its coordinates (i64 each), and back: the order
// for_each_thread visits them in, which per-thread arrays and alive flags are indexed by. x counts
// fastest, then y, then z; with y_inner y fastest, then x, then z.
llvm::Value* function_lowering::thread_in_block(llvm::Value* x, llvm::Value* y, llvm::Value* z) {
  const region_state& rs = *regions_;
  llvm::Type* i64 = b.getInt64Ty();
  llvm::Value* bx = b.CreateZExt(rs.bx, i64);
  llvm::Value* by = b.CreateZExt(rs.by, i64);
  return rs.y_inner ? b.CreateAdd(b.CreateMul(b.CreateAdd(b.CreateMul(z, bx), x), by), y)
                    : b.CreateAdd(b.CreateMul(b.CreateAdd(b.CreateMul(z, by), y), bx), x);
}

std::array<llvm::Value*, 3> function_lowering::thread_coordinates(llvm::Value* t) {
  const region_state& rs = *regions_;
  llvm::Type* i64 = b.getInt64Ty();
  llvm::Value* bx = b.CreateZExt(rs.bx, i64);
  llvm::Value* by = b.CreateZExt(rs.by, i64);
  llvm::Value* z = b.CreateUDiv(t, b.CreateMul(bx, by));
  if (rs.y_inner) return {b.CreateURem(b.CreateUDiv(t, by), bx), b.CreateURem(t, by), z};
  return {b.CreateURem(t, bx), b.CreateURem(b.CreateUDiv(t, bx), by), z};
}

void function_lowering::for_each_thread(bool set_coordinates, const std::function<void(llvm::Value*)>& body,
                                        llvm::Value* x_limit) {
  region_state& rs = *regions_;
  llvm::Type* i32 = b.getInt32Ty();
  llvm::Type* i64 = b.getInt64Ty();
  // Four counted loops, z outermost: then y, the row's blocks, x (innermost: it vectorises; the
  // block loop runs once without runs), t = r * block_threads + (z * by + y) * bx + x; or, with
  // y_inner, the blocks, x, y, t = r * block_threads + (z * bx + x) * by + y.
  enum axis_id { ax_z, ax_y, ax_r, ax_x };
  const axis_id order[4] = {ax_z, rs.y_inner ? ax_r : ax_y, rs.y_inner ? ax_x : ax_r, rs.y_inner ? ax_y : ax_x};
  static constexpr const char* names[4] = {"z", "y", "block", "x"};
  llvm::PHINode* iv[4] = {};
  llvm::BasicBlock* header[4] = {};
  llvm::BasicBlock* latch[4] = {};  // by level (order's index)
  auto* run = llvm::BasicBlock::Create(c_(), "thread.run", fn);
  auto* exit = llvm::BasicBlock::Create(c_(), "threads.done", fn);
  for (int l = 0; l < 4; ++l) {
    header[l] = llvm::BasicBlock::Create(c_(), std::string("thread.") + names[order[l]], fn);
    latch[l] = llvm::BasicBlock::Create(c_(), std::string("thread.next.") + names[order[l]], fn);
  }
  llvm::Value* x_end = rs.bx;
  llvm::Value* ends[4] = {rs.bz, rs.by, rs.blocks, nullptr};
  for (int l = 0; l < 4; ++l) {
    const axis_id a = order[l];
    llvm::BasicBlock* pre = b.GetInsertBlock();
    if (a == ax_x && x_limit != nullptr) {
      // No thread of this row below the limit: on to the enclosing loop's next turn.
      x_end = b.CreateBinaryIntrinsic(llvm::Intrinsic::umin, x_limit, rs.bx, nullptr, "tx.end");
      b.CreateCondBr(b.CreateICmpNE(x_end, b.getInt32(0)), header[l], latch[l - 1]);
    } else {
      b.CreateBr(header[l]);
    }
    b.SetInsertPoint(header[l]);
    iv[a] = b.CreatePHI(i32, 2, std::string("t") + names[a]);
    iv[a]->addIncoming(b.getInt32(0), pre);
    if (a == ax_r && rs.runs) {
      // The block's coordinate, in the local context and (volatile: a fault reads it) the
      // scheduler's. No no-wrap flags, so scalar evolution keeps a thread index's range bounded
      // (as the block entries' coordinate: target_host.cpp).
      llvm::Value* block = b.CreateAdd(rs.first_block, iv[a], "bx");
      b.CreateAlignedStore(block, b.CreateConstInBoundsGEP1_64(b.getInt8Ty(), rs.local_ctx, rs.block_idx_offset), llvm::Align(4));
      b.CreateAlignedStore(block, b.CreateConstInBoundsGEP1_64(b.getInt8Ty(), rs.real_ctx, rs.block_idx_offset), llvm::Align(4),
                           /*isVolatile=*/true);
    }
  }
  ends[ax_x] = x_end;
  llvm::Value* x = iv[ax_x];
  llvm::Value* y = iv[ax_y];
  llvm::Value* z = iv[ax_z];
  llvm::Value* t = b.CreateAdd(b.CreateMul(b.CreateZExt(iv[ax_r], i64), rs.block_threads),
                               thread_in_block(b.CreateZExt(x, i64), b.CreateZExt(y, i64), b.CreateZExt(z, i64)), "t",
                               true, true);
  auto* xl = latch[3];
  if (rs.track_alive) {
    llvm::Value* live = b.CreateICmpNE(b.CreateLoad(b.getInt8Ty(), b.CreateInBoundsGEP(b.getInt8Ty(), rs.alive, t)),
                                       b.getInt8(0));
    b.CreateCondBr(live, run, xl);
  } else {
    b.CreateBr(run);
  }
  b.SetInsertPoint(run);
  if (set_coordinates) {
    llvm::Value* coords[3] = {x, y, z};
    for (unsigned d = 0; d < 3; ++d)
      b.CreateAlignedStore(coords[d], b.CreateConstInBoundsGEP1_64(b.getInt8Ty(), rs.local_ctx, rs.thread_idx_offset + 4 * d),
                           llvm::Align(4));
  }
  llvm::BasicBlock* last_before = &fn->back();
  llvm::BasicBlock* outer_next = rs.next_thread;
  llvm::Value* outer_thread = current_thread_;
  rs.next_thread = xl;
  current_thread_ = t;
  body(t);
  rs.next_thread = outer_next;
  current_thread_ = outer_thread;
  if (!terminated()) b.CreateBr(xl);
  // CUDA orders no two threads that do not meet at a barrier: the innermost loop's iterations are
  // declared independent (as the block entry's are), so it vectorises without run-time checks.
  llvm::MDNode* group = llvm::MDNode::getDistinct(c_(), {});
  auto mark = [&](llvm::BasicBlock& bb) {
    for (llvm::Instruction& i : bb) {
      auto* ld = llvm::dyn_cast<llvm::LoadInst>(&i);
      auto* st = llvm::dyn_cast<llvm::StoreInst>(&i);
      if ((ld != nullptr && ld->isSimple()) || (st != nullptr && st->isSimple()))
        i.setMetadata(llvm::LLVMContext::MD_access_group, group);
    }
  };
  mark(*run);
  for (auto it = std::next(last_before->getIterator()); it != fn->end(); ++it) mark(*it);
  // The latches, innermost first: count up, go round while below the extent, else on to the
  // enclosing loop's latch (the outermost's to the exit).
  for (int l = 3; l >= 0; --l) {
    const axis_id a = order[l];
    b.SetInsertPoint(latch[l]);
    llvm::Value* next = b.CreateAdd(iv[a], b.getInt32(1), std::string("t") + names[a] + ".next", true, true);
    iv[a]->addIncoming(next, latch[l]);
    auto* br = b.CreateCondBr(b.CreateICmpULT(next, ends[a]), header[l], l > 0 ? latch[l - 1] : exit);
    if (l == 3) {
      llvm::TempMDTuple self = llvm::MDNode::getTemporary(c_(), {});
      llvm::MDNode* parallel = llvm::MDNode::get(c_(), {llvm::MDString::get(c_(), "llvm.loop.parallel_accesses"), group});
      llvm::MDNode* loop = llvm::MDNode::getDistinct(c_(), {self.get(), parallel});
      loop->replaceOperandWith(0, loop);
      br->setMetadata(llvm::LLVMContext::MD_loop, loop);
    }
  }
  b.SetInsertPoint(exit);
}

// Points the variables at thread `t`'s storage (its element of each per-thread array); the
// scalars that restart are zeroed.
void function_lowering::select_thread(llvm::Value* t) {
  region_state& rs = *regions_;
  for (std::size_t v = 0; v < vars_.size(); ++v) {
    if (rs.arrays[v] != nullptr) {
      thread_vars_[v] = b.CreateInBoundsGEP(vars_[v]->getAllocatedType(), rs.arrays[v], t);
    } else if (rs.restart[v]) {
      b.CreateStore(llvm::Constant::getNullValue(vars_[v]->getAllocatedType()), vars_[v]);
    }
  }
  for (const auto& [v, value] : rs.recomputed)
    b.CreateStore(cast(expr(value), type_of(value), f.vars[static_cast<std::size_t>(v)].ty),
                  vars_[static_cast<std::size_t>(v)]);
}

llvm::Value* function_lowering::var_address(var_id v) {
  const auto i = static_cast<std::size_t>(v);
  if (regions_ != nullptr && regions_->arrays[i] != nullptr) return thread_vars_[i];
  return vars_[i];
}

// A value read once for the block, in its first live thread (the value every thread has, where a
// barrier depends on it); false when no thread is live.
llvm::Value* function_lowering::uniform_truth(expr_id cond) {
  return uniform_values({cond}, [&](const std::vector<llvm::Value*>& v) { return truth(v[0], type_of(cond)); })[0];
}

std::vector<llvm::Value*> function_lowering::uniform_values(
    const std::vector<expr_id>& exprs,
    const std::function<llvm::Value*(const std::vector<llvm::Value*>&)>& finish) {
  region_state& rs = *regions_;
  // Only statements holding a barrier read values once for the block: a row of blocks has none.
  if (rs.runs) fail("a value read once for the block in the regions of a barrier-free kernel");
  llvm::Type* i64 = b.getInt64Ty();
  bool all_uniform = true;
  for (expr_id e : exprs) all_uniform = all_uniform && rs.uni.uniform_expr(e);
  if (all_uniform || !rs.track_alive) {
    // Read by no thread in particular (uniform values), or by thread 0, live as every thread is.
    if (!all_uniform) {
      for (unsigned d = 0; d < 3; ++d)
        b.CreateAlignedStore(b.getInt32(0), b.CreateConstInBoundsGEP1_64(b.getInt8Ty(), rs.local_ctx, rs.thread_idx_offset + 4 * d),
                             llvm::Align(4));
      select_thread(b.getInt64(0));
    }
    std::vector<llvm::Value*> values;
    for (expr_id e : exprs) values.push_back(expr(e));
    llvm::Value* r = finish(values);
    values.insert(values.begin(), r);
    return values;
  }
  // The first live thread.
  llvm::BasicBlock* pre = b.GetInsertBlock();
  auto* search = llvm::BasicBlock::Create(c_(), "first.live", fn);
  auto* found = llvm::BasicBlock::Create(c_(), "first.found", fn);
  b.CreateBr(search);
  b.SetInsertPoint(search);
  auto* t = b.CreatePHI(i64, 2, "first");
  t->addIncoming(b.getInt64(0), pre);
  llvm::Value* in_block = b.CreateICmpULT(t, rs.nthreads);
  llvm::Value* clamped = b.CreateSelect(in_block, t, b.getInt64(0));
  llvm::Value* dead = b.CreateICmpEQ(b.CreateLoad(b.getInt8Ty(), b.CreateInBoundsGEP(b.getInt8Ty(), rs.alive, clamped)),
                                     b.getInt8(0));
  llvm::Value* more = b.CreateAnd(in_block, dead);
  t->addIncoming(b.CreateAdd(t, b.getInt64(1)), search);
  b.CreateCondBr(more, search, found);
  b.SetInsertPoint(found);
  llvm::Value* any = b.CreateICmpULT(t, rs.nthreads);
  llvm::Value* first = b.CreateSelect(any, t, b.getInt64(0));
  // Its coordinates, for expressions that read threadIdx.
  const std::array<llvm::Value*, 3> coords = thread_coordinates(first);
  for (unsigned d = 0; d < 3; ++d)
    b.CreateAlignedStore(b.CreateTrunc(coords[d], b.getInt32Ty()),
                         b.CreateConstInBoundsGEP1_64(b.getInt8Ty(), rs.local_ctx, rs.thread_idx_offset + 4 * d),
                         llvm::Align(4));
  select_thread(first);
  std::vector<llvm::Value*> values;
  for (expr_id e : exprs) values.push_back(expr(e));
  llvm::Value* r = finish(values);
  if (r != nullptr && r->getType()->isIntegerTy(1)) r = b.CreateAnd(any, r);
  values.insert(values.begin(), r);
  return values;
}

void function_lowering::region_block(const std::vector<stmt_id>& ids) {
  std::vector<stmt_id> pending;
  auto flush = [&] {
    if (pending.empty()) return;
    std::vector<stmt_id> seg;
    seg.swap(pending);
    llvm::Value* x_limit = segment_x_limit(seg);
    for_each_thread(true, [&](llvm::Value* t) {
      select_thread(t);
      for (stmt_id id : seg) {
        statement(id);
        if (terminated()) break;
      }
    }, x_limit);
  };
  for (stmt_id id : ids) {
    if (terminated()) continue_in_dead_block();
    if (regions_->uni.uniform_statement(id)) {
      // An assignment of a uniform variable: once for the block, between the threads' turns.
      flush();
      statement(id);
      continue;
    }
    if (regions_->strided.count(id) != 0) {
      flush();
      grid_stride_loop(stmt_at(f, id));
      continue;
    }
    if (!holds_barrier(f, id)) {
      pending.push_back(id);
      continue;
    }
    flush();
    const stmt& s = stmt_at(f, id);
    set_location(s.loc);
    switch (s.kind) {
      case stmt_kind::expression: break;  // the barrier itself: every thread has finished the segment before
      case stmt_kind::if_: {
        llvm::Value* c = uniform_truth(s.value);
        auto* then_bb = llvm::BasicBlock::Create(c_(), "uif.then", fn);
        auto* else_bb = llvm::BasicBlock::Create(c_(), "uif.else", fn);
        auto* end = llvm::BasicBlock::Create(c_(), "uif.end", fn);
        b.CreateCondBr(c, then_bb, else_bb);
        b.SetInsertPoint(then_bb);
        region_block(s.body);
        if (!terminated()) b.CreateBr(end);
        b.SetInsertPoint(else_bb);
        region_block(s.orelse);
        if (!terminated()) b.CreateBr(end);
        b.SetInsertPoint(end);
        break;
      }
      case stmt_kind::while_: {
        auto* cond = llvm::BasicBlock::Create(c_(), "uwhile.cond", fn);
        auto* body = llvm::BasicBlock::Create(c_(), "uwhile.body", fn);
        auto* orelse = llvm::BasicBlock::Create(c_(), "uwhile.else", fn);
        auto* end = llvm::BasicBlock::Create(c_(), "uwhile.end", fn);
        b.CreateBr(cond);
        b.SetInsertPoint(cond);
        b.CreateCondBr(uniform_truth(s.value), body, orelse);
        b.SetInsertPoint(body);
        region_block(s.body);
        if (!terminated()) b.CreateBr(cond);
        b.SetInsertPoint(orelse);
        region_block(s.orelse);
        if (!terminated()) b.CreateBr(end);
        b.SetInsertPoint(end);
        break;
      }
      case stmt_kind::for_range: {
        const type* vt = f.vars[static_cast<std::size_t>(s.var)].ty;
        // range(start, stop, step) read once; the trip count as for_range computes it.
        std::vector<llvm::Value*> r = uniform_values({s.start, s.stop, s.step}, [](const std::vector<llvm::Value*>&) {
          return static_cast<llvm::Value*>(nullptr);
        });
        llvm::Value* start = cast(r[1], type_of(s.start), vt);
        llvm::Value* stop = cast(r[2], type_of(s.stop), vt);
        llvm::Value* step = cast(r[3], type_of(s.step), vt);
        llvm::Value* count = trip_count(start, stop, step, vt->is_signed);
        llvm::Type* it = start->getType();
        llvm::AllocaInst* k = entry_alloca(it, "urange.k");
        llvm::AllocaInst* iv = entry_alloca(it, "urange.i");
        b.CreateStore(llvm::ConstantInt::get(it, 0), k);
        b.CreateStore(start, iv);
        auto* cond = llvm::BasicBlock::Create(c_(), "ufor.cond", fn);
        auto* body = llvm::BasicBlock::Create(c_(), "ufor.body", fn);
        auto* orelse = llvm::BasicBlock::Create(c_(), "ufor.else", fn);
        auto* end = llvm::BasicBlock::Create(c_(), "ufor.end", fn);
        b.CreateBr(cond);
        b.SetInsertPoint(cond);
        b.CreateCondBr(b.CreateICmpULT(b.CreateLoad(it, k), count), body, orelse);
        b.SetInsertPoint(body);
        llvm::Value* value = b.CreateLoad(it, iv);
        if (regions_->uni.var(s.var)) {
          b.CreateStore(value, vars_[static_cast<std::size_t>(s.var)]);
        } else {
          for_each_thread(false, [&](llvm::Value* t) {
            select_thread(t);
            b.CreateStore(value, var_address(s.var));
          });
        }
        region_block(s.body);
        if (!terminated()) {
          b.CreateStore(b.CreateAdd(b.CreateLoad(it, iv), step), iv);
          b.CreateStore(b.CreateAdd(b.CreateLoad(it, k), llvm::ConstantInt::get(it, 1), "", true), k);
          b.CreateBr(cond);
        }
        b.SetInsertPoint(orelse);
        region_block(s.orelse);
        if (!terminated()) b.CreateBr(end);
        b.SetInsertPoint(end);
        break;
      }
      default: fail_at("a barrier in a statement the block's regions do not take", s.loc);
    }
  }
  flush();
}

// Whether `e` is the thread's threadIdx.x: the register itself, an integer cast of it wide enough
// for every index (at least 16 bits), or a variable computed again at each thread's turn from it
// (`tid = cuda.threadIdx.x`).
bool function_lowering::is_thread_x(expr_id e, int depth) const {
  if (e < 0 || static_cast<std::size_t>(e) >= f.exprs.size() || depth > 8) return false;
  const frontend::expr& x = f.at(e);
  if (x.ty == nullptr || !x.ty->is_int() || x.ty->bits < 16) return false;
  switch (x.kind) {
    case expr_kind::cast: return !x.operands.empty() && is_thread_x(x.operands[0], depth + 1);
    case expr_kind::op: return thread_idx_axis(x) == 0;
    case expr_kind::variable:
      for (const auto& [v, value] : regions_->recomputed)
        if (v == x.var) return is_thread_x(value, depth + 1);
      return false;
    default: return false;
  }
}

// A segment that is one `if threadIdx.x < n:` with n the block's (the tree of a reduction:
// `if tid < stride: s[tid] += s[tid + stride]`) runs only the threads below n: the loop over the
// block's threads stops there instead of visiting every thread to skip it. The limit (i32,
// clamped to [0, 2^31)), or null for any other segment.
llvm::Value* function_lowering::segment_x_limit(const std::vector<stmt_id>& seg) {
  if (seg.size() != 1) return nullptr;
  const stmt& s = stmt_at(f, seg[0]);
  if (s.kind != stmt_kind::if_ || !s.orelse.empty() || s.value < 0) return nullptr;
  const frontend::expr& c = f.at(s.value);
  if (c.kind != expr_kind::op || c.operands.size() != 2) return nullptr;
  bool below = false, inclusive = false;  // x < n, x <= n (either way round)
  expr_id bound = no_id;
  const bool x_left = is_thread_x(c.operands[0]), x_right = is_thread_x(c.operands[1]);
  if (x_left == x_right) return nullptr;
  bound = x_left ? c.operands[1] : c.operands[0];
  switch (c.op) {
    case op_id::lt: below = x_left; inclusive = false; break;
    case op_id::le: below = x_left; inclusive = true; break;
    case op_id::gt: below = x_right; inclusive = false; break;
    case op_id::ge: below = x_right; inclusive = true; break;
    default: return nullptr;
  }
  const type* bt = type_of(bound);
  if (!below || bt == nullptr || !bt->is_int() || !regions_->uni.uniform_expr(bound)) return nullptr;
  // The bound, clamped to [-1, blockDim.x] in 64 bits, then one more where it is inclusive.
  llvm::Type* i64 = b.getInt64Ty();
  llvm::Value* n = expr(bound);
  n = bt->is_signed ? b.CreateSExtOrTrunc(n, i64) : b.CreateZExtOrTrunc(n, i64);
  llvm::Value* bx = b.CreateZExt(regions_->bx, i64);
  n = bt->is_signed ? b.CreateBinaryIntrinsic(llvm::Intrinsic::smax,
                                              b.CreateBinaryIntrinsic(llvm::Intrinsic::smin, n, bx), b.getInt64(-1))
                    : b.CreateBinaryIntrinsic(llvm::Intrinsic::umin, n, bx);
  if (inclusive) n = b.CreateAdd(n, b.getInt64(1));
  n = b.CreateBinaryIntrinsic(llvm::Intrinsic::smax, n, b.getInt64(0));
  return b.CreateTrunc(n, b.getInt32Ty(), "tx.limit");
}

// A grid-stride loop, interchanged: the fewest and the most iterations over the live threads
// first, then the iterations every thread has, each a loop over the block's threads without a
// check (it vectorises like a one-element-per-thread kernel), then the rest, where a thread whose
// own count is reached skips its turn. A thread's value of the variable at iteration k is
// start + k * step, as its own loop would have it. Stop and step are the same for every thread
// (grid_stride_loops), and a range's trip count only falls (or only rises) as its start grows,
// so the fewest and the most are the counts of the lowest and the highest start: a pass over
// the threads finds those (no division per thread: that pass cost a one-element-per-thread
// histogram half its time).
void function_lowering::grid_stride_loop(const stmt& s) {
  set_location(s.loc);
  const type* vt = f.vars[static_cast<std::size_t>(s.var)].ty;
  if (!vt->is_int()) fail_at("for_range over a variable of type " + vt->str(), s.loc);
  const bool sgn = vt->is_signed;
  struct range {
    llvm::Value *start, *stop, *step;
  };
  auto read = [&] {
    llvm::Value* start = cast(expr(s.start), type_of(s.start), vt);
    llvm::Value* stop = cast(expr(s.stop), type_of(s.stop), vt);
    llvm::Value* step = cast(expr(s.step), type_of(s.step), vt);
    return range{start, stop, step};
  };
  llvm::Type* it = ms.value_type(vt);
  const unsigned bits = it->getIntegerBitWidth();
  llvm::AllocaInst* lowest = entry_alloca(it, "stride.lowest");
  llvm::AllocaInst* highest = entry_alloca(it, "stride.highest");
  llvm::AllocaInst* stop_at = entry_alloca(it, "stride.stop");
  llvm::AllocaInst* step_at = entry_alloca(it, "stride.step");
  llvm::AllocaInst* any = entry_alloca(b.getInt1Ty(), "stride.any");
  b.CreateStore(b.getInt(sgn ? llvm::APInt::getSignedMaxValue(bits) : llvm::APInt::getMaxValue(bits)), lowest);
  b.CreateStore(b.getInt(sgn ? llvm::APInt::getSignedMinValue(bits) : llvm::APInt::getMinValue(bits)), highest);
  b.CreateStore(llvm::ConstantInt::get(it, 0), stop_at);
  b.CreateStore(llvm::ConstantInt::get(it, 1), step_at);
  b.CreateStore(b.getFalse(), any);
  const auto lower = sgn ? llvm::Intrinsic::smin : llvm::Intrinsic::umin;
  const auto higher = sgn ? llvm::Intrinsic::smax : llvm::Intrinsic::umax;
  for_each_thread(true, [&](llvm::Value* t) {
    select_thread(t);
    range r = read();
    b.CreateStore(b.CreateBinaryIntrinsic(lower, b.CreateLoad(it, lowest), r.start), lowest);
    b.CreateStore(b.CreateBinaryIntrinsic(higher, b.CreateLoad(it, highest), r.start), highest);
    b.CreateStore(r.stop, stop_at);
    b.CreateStore(r.step, step_at);
    b.CreateStore(b.getTrue(), any);
  });
  llvm::Value* stop = b.CreateLoad(it, stop_at);
  llvm::Value* step = b.CreateLoad(it, step_at);
  llvm::Value* from_lowest = trip_count(b.CreateLoad(it, lowest), stop, step, sgn);
  llvm::Value* from_highest = trip_count(b.CreateLoad(it, highest), stop, step, sgn);
  llvm::Value* live = b.CreateLoad(b.getInt1Ty(), any);
  llvm::Value* zero = llvm::ConstantInt::get(it, 0);
  // No live thread: no iteration.
  llvm::Value* all =
      b.CreateSelect(live, b.CreateBinaryIntrinsic(llvm::Intrinsic::umin, from_lowest, from_highest), zero, "stride.all");
  llvm::Value* last =
      b.CreateSelect(live, b.CreateBinaryIntrinsic(llvm::Intrinsic::umax, from_lowest, from_highest), zero, "stride.last");
  llvm::AllocaInst* k = entry_alloca(it, "stride.k");
  b.CreateStore(llvm::ConstantInt::get(it, 0), k);
  auto iterations = [&](llvm::Value* end, bool checked) {
    auto* cond = llvm::BasicBlock::Create(c_(), checked ? "stride.tail" : "stride.full", fn);
    auto* body = llvm::BasicBlock::Create(c_(), "stride.body", fn);
    auto* done = llvm::BasicBlock::Create(c_(), "stride.done", fn);
    b.CreateBr(cond);
    b.SetInsertPoint(cond);
    llvm::Value* kv = b.CreateLoad(it, k);
    b.CreateCondBr(b.CreateICmpULT(kv, end), body, done);
    b.SetInsertPoint(body);
    for_each_thread(true, [&](llvm::Value* t) {
      select_thread(t);
      range r = read();
      if (checked) {
        auto* run = llvm::BasicBlock::Create(c_(), "stride.turn", fn);
        b.CreateCondBr(b.CreateICmpULT(kv, trip_count(r.start, r.stop, r.step, sgn)), run, regions_->next_thread);
        b.SetInsertPoint(run);
      }
      b.CreateStore(b.CreateAdd(r.start, b.CreateMul(kv, r.step)), var_address(s.var));
      for (stmt_id id : s.body) {
        statement(id);
        if (terminated()) break;
      }
    });
    if (!terminated()) {
      b.CreateStore(b.CreateAdd(b.CreateLoad(it, k), llvm::ConstantInt::get(it, 1), "", /*HasNUW=*/true), k);
      b.CreateBr(cond);
    }
    b.SetInsertPoint(done);
  };
  iterations(all, false);
  iterations(last, true);
}

bool function_lowering::end_thread_in_region() {
  if (regions_ == nullptr || regions_->next_thread == nullptr) return false;
  // The thread's turn ends and it is marked ended: later segments skip it.
  b.CreateStore(b.getInt8(0), b.CreateInBoundsGEP(b.getInt8Ty(), regions_->alive, current_thread_));
  b.CreateBr(regions_->next_thread);
  return true;
}

}  // namespace cuforge::frontend::detail
