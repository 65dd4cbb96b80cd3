#pragma once

// Helpers for the code generation tests: a builder of TYPED IR (what the
// typer produces: every expression typed, operations as ops.hpp's ops,
// conversions as explicit casts), the kernel's parameter slots, a runner
// that compiles a module for the active backend (host code on the cpu
// backend, PTX on the cuda backend) and launches it, and checks of the
// emitted PTX (ptxas) and LLVM IR (llvm-as, which verifies).

#include <cuforge/frontend/codegen.hpp>
#include <cuforge/frontend/intrinsics.hpp>
#include <cuforge/frontend/ir.hpp>
#include <cuforge/frontend/typer.hpp>
#include <cuforge/frontend/types.hpp>

#include "test_support.hpp"

#include <gtest/gtest.h>

#include <array>
#include <complex>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <fstream>
#include <functional>
#include <memory>
#include <string>
#include <unistd.h>
#include <vector>

#ifndef CUFORGE_TEST_PTXAS
#define CUFORGE_TEST_PTXAS "/usr/local/cuda/bin/ptxas"
#endif
#ifndef CUFORGE_TEST_LLVM_AS
#define CUFORGE_TEST_LLVM_AS "/usr/lib/llvm-19/bin/llvm-as"
#endif

namespace cuforge::testing::cg {

using namespace cuforge::frontend;

/// Builds one typed function by hand.
class typed_builder {
 public:
  typed_builder(type_context& tc, std::string name, bool kernel = true) : tc_(tc), kernel_(kernel) {
    f_ = std::make_shared<function>();
    f_->name = f_->qualname = std::move(name);
    f_->filename = "test_kernels.py";
    f_->first_line = 1;
  }

  type_context& tc() { return tc_; }
  function& fn() { return *f_; }

  var_id param(const std::string& name, const type* t) {
    var_id v = local(name, t);
    f_->params.push_back(v);
    args_.push_back(t);
    return v;
  }
  var_id local(const std::string& name, const type* t) {
    variable x;
    x.name = name;
    x.ty = t;
    f_->vars.push_back(x);
    return static_cast<var_id>(f_->vars.size() - 1);
  }

  // --- expressions ---
  expr_id add_expr(expr e) {
    e.loc = location{line_, 4};
    f_->exprs.push_back(std::move(e));
    return static_cast<expr_id>(f_->exprs.size() - 1);
  }
  expr_id integer(std::int64_t v, const type* t) {
    expr e;
    e.kind = expr_kind::constant;
    e.value.k = constant_value::kind::integer;
    e.value.i = v;
    e.ty = t;
    return add_expr(e);
  }
  expr_id i64(std::int64_t v) { return integer(v, tc_.int64()); }
  expr_id i32(std::int64_t v) { return integer(v, tc_.int32()); }
  expr_id real(double v, const type* t) {
    expr e;
    e.kind = expr_kind::constant;
    e.value.k = constant_value::kind::floating;
    e.value.f = v;
    e.ty = t;
    return add_expr(e);
  }
  expr_id f64(double v) { return real(v, tc_.float64()); }
  expr_id f32(double v) { return real(v, tc_.float32()); }
  expr_id boolean(bool v) {
    expr e;
    e.kind = expr_kind::constant;
    e.value.k = constant_value::kind::boolean;
    e.value.b = v;
    e.ty = tc_.boolean();
    return add_expr(e);
  }
  expr_id cplx(std::complex<double> v, const type* t) {
    expr e;
    e.kind = expr_kind::constant;
    e.value.k = constant_value::kind::complex;
    e.value.c = v;
    e.ty = t;
    return add_expr(e);
  }
  expr_id v(var_id x) {
    expr e;
    e.kind = expr_kind::variable;
    e.var = x;
    e.ty = f_->vars[static_cast<std::size_t>(x)].ty;
    return add_expr(e);
  }
  expr_id op(op_id o, const type* result, std::vector<expr_id> operands, std::vector<std::int64_t> attrs = {}) {
    expr e;
    e.kind = expr_kind::op;
    e.op = o;
    e.ty = result;
    e.operands = std::move(operands);
    e.attrs = std::move(attrs);
    return add_expr(e);
  }
  expr_id cast(expr_id a, const type* to) {
    expr e;
    e.kind = expr_kind::cast;
    e.operands = {a};
    e.ty = to;
    return add_expr(e);
  }
  expr_id tuple(std::vector<expr_id> elements) {
    std::vector<const type*> ts;
    for (auto x : elements) ts.push_back(type_of(x));
    expr e;
    e.kind = expr_kind::tuple;
    e.operands = std::move(elements);
    e.ty = tc_.tuple(ts);
    return add_expr(e);
  }
  expr_id cond(expr_id c, expr_id a, expr_id b) {
    expr e;
    e.kind = expr_kind::conditional;
    e.operands = {c, a, b};
    e.ty = type_of(a);
    return add_expr(e);
  }
  expr_id logical(bool is_and, expr_id a, expr_id b) {
    expr e;
    e.kind = expr_kind::logical;
    e.is_and = is_and;
    e.operands = {a, b};
    e.ty = type_of(a);
    return add_expr(e);
  }
  /// An arithmetic op whose result has its first operand's type.
  expr_id bin(op_id o, expr_id a, expr_id b) { return op(o, type_of(a), {a, b}); }
  expr_id un(op_id o, expr_id a) { return op(o, type_of(a), {a}); }
  expr_id cmp(op_id o, expr_id a, expr_id b) { return op(o, tc_.boolean(), {a, b}); }
  expr_id load(expr_id arr, std::vector<expr_id> idx, bool wrap = false) {
    idx.insert(idx.begin(), arr);
    return op(op_id::array_load, type_of(arr)->dtype, idx, {wrap ? 1 : 0});
  }
  expr_id store(expr_id arr, expr_id value, std::vector<expr_id> idx, bool wrap = false) {
    idx.insert(idx.begin(), value);
    idx.insert(idx.begin(), arr);
    return op(op_id::array_store, tc_.none(), idx, {wrap ? 1 : 0});
  }
  /// The `intrinsic` op of the registry's entry `name` (it must exist).
  expr_id intrinsic(std::string_view name, const type* result, std::vector<expr_id> operands = {}) {
    std::int64_t index = intrinsic_index(name);
    EXPECT_GE(index, 0) << "no intrinsic " << name;
    return op(op_id::intrinsic, result, std::move(operands), {index});
  }
  expr_id coordinate(const char* reg, int d) {
    return intrinsic(std::string("cuda.") + reg + "." + static_cast<char>('x' + d), tc_.int32());
  }
  expr_id tid(int d) { return coordinate("threadIdx", d); }
  expr_id bid(int d) { return coordinate("blockIdx", d); }
  expr_id bdim(int d) { return coordinate("blockDim", d); }
  expr_id gdim(int d) { return coordinate("gridDim", d); }
  /// cuda.grid(1) along dimension d: int64(blockIdx * blockDim + threadIdx).
  expr_id grid(int d) {
    return bin(op_id::add, bin(op_id::mul, cast(bid(d), tc_.int64()), cast(bdim(d), tc_.int64())), cast(tid(d), tc_.int64()));
  }
  expr_id gridsize(int d) { return bin(op_id::mul, cast(gdim(d), tc_.int64()), cast(bdim(d), tc_.int64())); }
  expr_id shape(expr_id arr, int d) { return op(op_id::array_shape, tc_.int64(), {arr}, {d}); }
  expr_id sync() { return intrinsic("cuda.syncthreads", tc_.none()); }

  // --- statements ---
  stmt_id add_stmt(stmt s) {
    s.loc = location{line_++, 4};
    f_->stmts.push_back(std::move(s));
    return static_cast<stmt_id>(f_->stmts.size() - 1);
  }
  stmt_id assign(var_id x, expr_id value) {
    stmt s;
    s.kind = stmt_kind::assign;
    s.target = v(x);
    s.value = value;
    return add_stmt(s);
  }
  stmt_id eval(expr_id value) {
    stmt s;
    s.kind = stmt_kind::expression;
    s.value = value;
    return add_stmt(s);
  }
  stmt_id if_(expr_id c, std::vector<stmt_id> body, std::vector<stmt_id> orelse = {}) {
    stmt s;
    s.kind = stmt_kind::if_;
    s.value = c;
    s.body = std::move(body);
    s.orelse = std::move(orelse);
    return add_stmt(s);
  }
  stmt_id while_(expr_id c, std::vector<stmt_id> body, std::vector<stmt_id> orelse = {}) {
    stmt s;
    s.kind = stmt_kind::while_;
    s.value = c;
    s.body = std::move(body);
    s.orelse = std::move(orelse);
    return add_stmt(s);
  }
  stmt_id for_range(var_id x, expr_id start, expr_id stop, expr_id step, std::vector<stmt_id> body,
                    std::vector<stmt_id> orelse = {}) {
    stmt s;
    s.kind = stmt_kind::for_range;
    s.var = x;
    s.start = start;
    s.stop = stop;
    s.step = step;
    s.body = std::move(body);
    s.orelse = std::move(orelse);
    return add_stmt(s);
  }
  stmt_id brk() {
    stmt s;
    s.kind = stmt_kind::break_;
    return add_stmt(s);
  }
  stmt_id cont() {
    stmt s;
    s.kind = stmt_kind::continue_;
    return add_stmt(s);
  }
  stmt_id ret(expr_id value = no_id) {
    stmt s;
    s.kind = stmt_kind::return_;
    s.value = value;
    return add_stmt(s);
  }
  /// A raise (a site of its own in sites(), as the typer registers them).
  stmt_id raise() {
    stmt s;
    s.kind = stmt_kind::raise_;
    s.site = add_site(kernel_error::raised, "Exception", "");
    return add_stmt(s);
  }
  stmt_id assert_(expr_id c, std::string message) {
    stmt s;
    s.kind = stmt_kind::assert_;
    s.value = c;
    s.site = add_site(kernel_error::assertion, "AssertionError", message);
    s.message = std::move(message);
    return add_stmt(s);
  }
  /// The raise sites of this function's raise and assert statements (typed_module::raise_sites).
  const std::vector<raise_site>& sites() const { return sites_; }

  const type* type_of(expr_id e) const { return f_->exprs.at(static_cast<std::size_t>(e)).ty; }

  std::int32_t add_site(kernel_error code, std::string exception, std::string message) {
    sites_.push_back({code, std::move(exception), std::move(message), f_->name, "test.py", line_});
    return static_cast<std::int32_t>(sites_.size() - 1);
  }

  /// The typed function (a kernel returns None; `ret` is a device function's return type).
  typed_function finish(std::vector<stmt_id> body, const type* ret = nullptr, bool uses_barrier = false) {
    f_->body = std::move(body);
    typed_function tf;
    tf.ir = f_;
    tf.arg_types = args_;
    tf.return_type = ret != nullptr ? ret : tc_.none();
    tf.symbol = f_->name;
    tf.is_kernel = kernel_;
    tf.uses_barrier = uses_barrier;
    tf.writes_arg.assign(args_.size(), true);
    return tf;
  }

 private:
  type_context& tc_;
  std::shared_ptr<function> f_;
  std::vector<const type*> args_;
  bool kernel_;
  std::int32_t line_ = 2;
  std::vector<raise_site> sites_;
};

inline typed_module module_of(std::vector<typed_function> fns, std::vector<raise_site> sites = {}) {
  typed_module m;
  m.functions = std::move(fns);
  m.raise_sites = std::move(sites);
  return m;
}

/// A kernel's parameter slots, in codegen.hpp's ABI.
class slots {
 public:
  template <class T>
  slots& scalar(T v) {
    static_assert(sizeof(T) <= 8);
    std::uint64_t s = 0;
    std::memcpy(&s, &v, sizeof(T));
    v_.push_back(s);
    return *this;
  }
  slots& complex128(std::complex<double> z) { return scalar(z.real()).scalar(z.imag()); }
  slots& complex64(std::complex<float> z) {
    std::uint64_t s = 0;
    std::memcpy(&s, &z, 8);
    v_.push_back(s);
    return *this;
  }
  /// An array: data, extents, byte strides (C-contiguous when strides are empty).
  slots& array(const void* data, std::vector<std::int64_t> shape, std::size_t itemsize,
               std::vector<std::int64_t> strides = {}) {
    if (strides.empty()) {
      strides.assign(shape.size(), 0);
      std::int64_t s = static_cast<std::int64_t>(itemsize);
      for (std::size_t i = shape.size(); i-- > 0;) {
        strides[i] = s;
        s *= shape[i];
      }
    }
    v_.push_back(reinterpret_cast<std::uint64_t>(data));
    for (auto d : shape) v_.push_back(static_cast<std::uint64_t>(d));
    for (auto d : strides) v_.push_back(static_cast<std::uint64_t>(d));
    return *this;
  }
  const std::vector<std::uint64_t>& values() const { return v_; }

 private:
  std::vector<std::uint64_t> v_;
};

/// The default configuration for the host target (the cpu backend's).
inline compile_config host_config() { return compile_config::for_target(target_kind::host); }

/// Compiles `m` for the active backend and launches it once, waiting for it.
/// A module that may raise gets an error record (the ABI's hidden slot),
/// returned after the launch (code 0: nothing raised).
inline kernel_error_record run(const typed_module& m, dim3 grid, dim3 block, const slots& args,
                               std::size_t shared_bytes = 0, compile_config opts = {}) {
  std::vector<std::uint64_t> values = args.values();
  std::unique_ptr<device_buffer<kernel_error_record>> record;
  if (m.may_raise()) {
    record = std::make_unique<device_buffer<kernel_error_record>>(1);
    record->upload({kernel_error_record{}});
    values.push_back(reinterpret_cast<std::uintptr_t>(record->get()));
  }
  auto read_record = [&] { return record ? record->download().at(0) : kernel_error_record{}; };
  std::vector<void*> params;
  for (auto& v : values) params.push_back(&v);
  launch_config cfg{.grid = grid, .block = block, .shared_bytes = shared_bytes};
  if (active_backend() == backend_kind::cuda) {
    opts.cc = device::current().cc();
    ptx_result ptx = compile_ptx(m, opts);
    auto mod = module::load(module_image::from_ptx(ptx.ptx));
    launch(mod.get_kernel(ptx.entry), cfg, params.data());
    cuforge::synchronize();
    return read_record();
  }
  host_kernel hk = compile_host(m, opts.with_target(target_kind::host));
  cpu_kernel_symbol sym;
  sym.name = hk.name;
  sym.fn = hk.fn;
  sym.static_shared_bytes = hk.static_shared_bytes;
  sym.uses_barrier = hk.uses_barrier;
  sym.param_sizes = hk.param_sizes;
  auto mod = module::load(module_image::from_host({sym}));
  launch(mod.get_kernel(hk.name), cfg, params.data());
  cuforge::synchronize();
  return read_record();
}

/// One 1-d array of an elementwise kernel: its type and its bytes.
struct column {
  const type* dtype = nullptr;
  std::vector<unsigned char> bytes;

  template <class T>
  static column of(const type* t, const std::vector<T>& v) {
    column c;
    c.dtype = t;
    c.bytes.resize(v.size() * sizeof(T));
    if (!v.empty()) std::memcpy(c.bytes.data(), v.data(), c.bytes.size());
    return c;
  }
  template <class T>
  static column zeros(const type* t, std::size_t n) {
    return of<T>(t, std::vector<T>(n));
  }
  template <class T>
  std::vector<T> as() const {
    std::vector<T> v(bytes.size() / sizeof(T));
    if (!v.empty()) std::memcpy(v.data(), bytes.data(), bytes.size());
    return v;
  }
};

/// kernel(in..., out...): thread i computes outs[k][i] from ins[k][i] with
/// `body`, for i < n.
inline typed_module elementwise(type_context& tc, const std::string& name, std::vector<const type*> in,
                                std::vector<const type*> out,
                                const std::function<std::vector<expr_id>(typed_builder&, std::vector<expr_id>)>& body) {
  typed_builder k(tc, name);
  std::vector<var_id> ins, outs;
  for (std::size_t j = 0; j < in.size(); ++j) ins.push_back(k.param("in" + std::to_string(j), tc.array(in[j], 1, array_layout::c)));
  for (std::size_t j = 0; j < out.size(); ++j)
    outs.push_back(k.param("out" + std::to_string(j), tc.array(out[j], 1, array_layout::c)));
  var_id i = k.local("i", tc.int64());
  std::vector<stmt_id> stmts{k.assign(i, k.grid(0))};
  std::vector<expr_id> loaded;
  for (auto a : ins) loaded.push_back(k.load(k.v(a), {k.v(i)}));
  std::vector<expr_id> results = body(k, loaded);
  std::vector<stmt_id> stores;
  for (std::size_t j = 0; j < outs.size(); ++j) stores.push_back(k.eval(k.store(k.v(outs[j]), results.at(j), {k.v(i)})));
  stmts.push_back(k.if_(k.cmp(op_id::lt, k.v(i), k.shape(k.v(outs[0]), 0)), stores));
  return module_of({k.finish(stmts)});
}

/// Runs an elementwise kernel over columns of n elements (the outputs' bytes are replaced).
inline void run_columns(const typed_module& m, std::vector<column>& cols, std::size_t n, compile_config opts = {}) {
  std::vector<std::unique_ptr<device_buffer<unsigned char>>> bufs;
  slots s;
  for (auto& c : cols) {
    auto itemsize = static_cast<std::size_t>(c.dtype->itemsize());
    bufs.push_back(std::make_unique<device_buffer<unsigned char>>(std::max<std::size_t>(c.bytes.size(), 1)));
    if (!c.bytes.empty()) bufs.back()->upload(c.bytes);
    s.array(bufs.back()->get(), {static_cast<std::int64_t>(n)}, itemsize);
  }
  auto threads = static_cast<unsigned>(std::max<std::size_t>(n, 1));
  run(m, dim3((threads + 63) / 64), dim3(64), s, 0, opts);
  for (std::size_t j = 0; j < cols.size(); ++j)
    if (!cols[j].bytes.empty()) cols[j].bytes = bufs[j]->download();
}

/// Runs `command` through the shell; returns its exit status and output.
inline std::pair<int, std::string> shell(const std::string& command) {
  std::string out;
  FILE* p = ::popen((command + " 2>&1").c_str(), "r");
  if (p == nullptr) return {-1, "popen failed"};
  std::array<char, 4096> buf{};
  std::size_t n = 0;
  while ((n = std::fread(buf.data(), 1, buf.size(), p)) > 0) out.append(buf.data(), n);
  int status = ::pclose(p);
  return {WIFEXITED(status) ? WEXITSTATUS(status) : -1, out};
}

inline std::string temp_file(const std::string& suffix, const std::string& text) {
  static int counter = 0;
  std::string path = ::testing::TempDir() + "cuforge_codegen_" + std::to_string(::getpid()) + "_" +
                     std::to_string(counter++) + suffix;
  std::ofstream(path) << text;
  return path;
}

/// compile_ptx, then ptxas for sm_90 on the result (no GPU needed).
inline ptx_result expect_ptx_assembles(const typed_module& m, compile_config opts = {}) {
  ptx_result r = compile_ptx(m, opts);
  EXPECT_NE(r.ptx.find(".target sm_"), std::string::npos);
  std::string path = temp_file(".ptx", r.ptx);
  auto [rc, out] = shell(std::string(CUFORGE_TEST_PTXAS) + " -arch=sm_90 " + path + " -o /dev/null");
  EXPECT_EQ(rc, 0) << "ptxas rejected the PTX of " << r.entry << ":\n" << out << "\n" << r.ptx;
  std::remove(path.c_str());
  return r;
}

/// emit_llvm_ir for a target, then llvm-as on it (which runs the verifier).
inline std::string expect_valid_ir(const typed_module& m, bool gpu, compile_config opts = {}) {
  std::string ir = emit_llvm_ir(m, opts.with_target(gpu ? target_kind::nvptx : target_kind::host));
  std::string path = temp_file(".ll", ir);
  auto [rc, out] = shell(std::string(CUFORGE_TEST_LLVM_AS) + " " + path + " -o /dev/null");
  EXPECT_EQ(rc, 0) << "llvm-as rejected the IR:\n" << out << "\n" << ir;
  std::remove(path.c_str());
  return ir;
}

/// Both targets: the PTX assembles and the IR of each is valid.
inline void expect_compiles(const typed_module& m, compile_config opts = {}) {
  expect_ptx_assembles(m, opts);
  expect_valid_ir(m, true, opts);
  expect_valid_ir(m, false, opts);
}

}  // namespace cuforge::testing::cg
