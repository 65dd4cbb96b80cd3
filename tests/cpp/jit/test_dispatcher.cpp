// The jit layer without Python: compiled kernels (from IR, and from a disk
// cache entry), the dispatcher's specialisation table and matching rules,
// the kernel ABI's packing, and launches with their checks, on the active
// backend.
#include <cuforge/devicearray/device_ndarray.hpp>
#include <cuforge/jit/compiled_kernel.hpp>
#include <cuforge/jit/compiler.hpp>
#include <cuforge/jit/dispatcher.hpp>
#include <cuforge/jit/error_record.hpp>
#include <cuforge/jit/kernel_abi.hpp>
#include <cuforge/runtime/backend.hpp>
#include <cuforge/runtime/device.hpp>
#include <cuforge/runtime/error.hpp>

#include "frontend/typer_support.hpp"

#include <gtest/gtest.h>

#include <algorithm>
#include <array>
#include <cmath>
#include <cstring>
#include <filesystem>
#include <limits>
#include <span>
#include <vector>

namespace {

using namespace cuforge;
using namespace cuforge::jit;
using frontend::compile_config;
using frontend::target_kind;
using frontend::type;

const type* T(const std::string& spec) { return parse_type(spec); }

// The active backend's configuration, as the Python face makes it.
compile_config backend_config() { return compile_config{}.for_active_backend(); }

constexpr const char* scale_src =
    "def scale(a, x):\n"
    "    i = cuda.grid(1)\n"
    "    if i < a.size:\n"
    "        a[i] = a[i] * x\n";

constexpr const char* copy_src =
    "def copy(src, dst):\n"
    "    i = cuda.grid(1)\n"
    "    if i < dst.size:\n"
    "        dst[i] = src[i] + 1\n";

std::shared_ptr<compiled_kernel> compile(const char* src, const std::vector<std::string>& specs,
                                         compile_config cfg = backend_config()) {
  typer_test::env e;
  std::vector<const type*> args;
  for (const auto& s : specs) args.push_back(T(s));
  return compiled_kernel::compile(e.parse(src), args, nullptr, cfg, false);
}

kernel_argument device_arg(const device_ndarray& a, const std::string& spec) {
  kernel_argument k;
  k.k = kernel_argument::kind::device_array;
  k.borrowed = &a;
  k.ty = T(spec);
  return k;
}

kernel_argument scalar_arg(const std::string& spec, double f, std::int64_t i = 0) {
  kernel_argument k;
  k.k = kernel_argument::kind::scalar;
  k.ty = T(spec);
  k.scalar.ty = k.ty;
  k.scalar.f = f;
  k.scalar.i = i;
  return k;
}

template <class V>
device_ndarray upload(const std::vector<V>& v) {
  auto a = device_ndarray::empty({static_cast<std::int64_t>(v.size())}, dtype_of<V>());
  a.copy_from_host(host_view{const_cast<V*>(v.data()), {static_cast<std::int64_t>(v.size())},
                             {static_cast<std::int64_t>(sizeof(V))}, dtype_of<V>()},
                   stream_view::legacy_default());
  return a;
}

template <class V>
std::vector<V> download(const device_ndarray& a) {
  std::vector<V> v(static_cast<std::size_t>(a.shape()[0]));
  a.copy_to_host(host_view{v.data(), a.shape(), {static_cast<std::int64_t>(sizeof(V))}, a.type()},
                 stream_view::legacy_default());
  stream_view::legacy_default().synchronize();
  return v;
}

launch_config grid(unsigned blocks, unsigned threads) {
  launch_config c;
  c.grid = dim3(blocks);
  c.block = dim3(threads);
  c.stream = stream_view::legacy_default();
  return c;
}

TEST(Dispatcher, LaunchesACompiledSpecialisation) {
  int compiles = 0;
  dispatcher d("scale", [&](const std::vector<const type*>& types) {
    ++compiles;
    std::vector<std::string> specs;
    for (auto* t : types) specs.push_back(t->str());
    return compile(scale_src, specs);
  });
  auto a = upload(std::vector<float>{1, 2, 3, 4, 5});
  std::vector<kernel_argument> args{device_arg(a, "array(float32, 1d, C)"), scalar_arg("float64", 2.5)};
  auto k = d.find(args);
  EXPECT_EQ(compiles, 1);
  EXPECT_EQ(k->config().target, active_traits().kernel_format == module_image::format::host ? target_kind::host
                                                                                              : target_kind::nvptx);
  d.launch(*k, args, grid(1, 32));
  EXPECT_EQ(download<float>(a), (std::vector<float>{2.5f, 5, 7.5f, 10, 12.5f}));
  // The same types again: no compile, the same specialisation (the remembered last match).
  EXPECT_EQ(d.find(args), k);
  EXPECT_EQ(compiles, 1);
  // Other types: a new specialisation.
  std::vector<kernel_argument> ints{device_arg(a, "array(float32, 1d, C)"), scalar_arg("int64", 0, 3)};
  auto k2 = d.find(ints);
  EXPECT_NE(k2, k);
  EXPECT_EQ(compiles, 2);
  d.launch(*k2, ints, grid(1, 32));
  EXPECT_EQ(download<float>(a)[0], 7.5f);
  EXPECT_EQ(d.specializations().size(), 2u);
  EXPECT_EQ(k2->facts().writes_arg, (std::vector<bool>{true, false}));
}

TEST(Dispatcher, EagerSignaturesTakeCompatibleArgumentsAndRefuseOthers) {
  int compiles = 0;
  dispatcher d("scale", [&](const std::vector<const type*>&) -> std::shared_ptr<compiled_kernel> {
    ++compiles;
    return nullptr;
  });
  d.add(compile(scale_src, {"array(float32, 1d, A)", "float64"}));
  d.set_lazy(false);
  auto a = upload(std::vector<float>{1, 2});
  // A C-layout array fits an any-layout parameter; an int32 converts to float64.
  std::vector<kernel_argument> args{device_arg(a, "array(float32, 1d, C)"), scalar_arg("int32", 0, 4)};
  auto k = d.find(args);
  ASSERT_NE(k, nullptr);
  args[1].scalar.ty = k->arg_types()[1];  // the caller converts scalars to the specialisation's types
  args[1].scalar.f = 4;
  d.launch(*k, args, grid(1, 32));
  EXPECT_EQ(download<float>(a), (std::vector<float>{4, 8}));
  // Another dtype fits nothing: the error lists the signatures; nothing was compiled.
  auto b = upload(std::vector<double>{1});
  std::vector<kernel_argument> other{device_arg(b, "array(float64, 1d, C)"), scalar_arg("float64", 1)};
  try {
    d.find(other);
    ADD_FAILURE() << "matched";
  } catch (const type_error& e) {
    std::string m = e.what();
    EXPECT_NE(m.find("no matching definition of scale for argument types (array(float64, 1d, C), float64)"),
              std::string::npos) << m;
    EXPECT_NE(m.find("(array(float32, 1d, A), float64)"), std::string::npos) << m;
  }
  EXPECT_EQ(compiles, 0);
}

TEST(Dispatcher, CompatibilityRules) {
  EXPECT_TRUE(compatible(T("array(float32, 2d, C)"), T("array(float32, 2d, A)")));
  EXPECT_TRUE(compatible(T("array(float32, 2d, C)"), T("array(float32, 2d, C, readonly)")));
  EXPECT_FALSE(compatible(T("array(float32, 2d, C, readonly)"), T("array(float32, 2d, C)")));
  EXPECT_FALSE(compatible(T("array(float32, 2d, F)"), T("array(float32, 2d, C)")));
  EXPECT_FALSE(compatible(T("array(float32, 1d, C)"), T("array(float64, 1d, C)")));
  EXPECT_FALSE(compatible(T("array(float32, 1d, C)"), T("array(float32, 2d, A)")));
  EXPECT_TRUE(compatible(T("int64"), T("float32")));
  EXPECT_TRUE(compatible(T("UniTuple(int64 x 2)"), T("Tuple(int32, float64)")));
  EXPECT_FALSE(compatible(T("UniTuple(int64 x 2)"), T("UniTuple(int64 x 3)")));
  EXPECT_FALSE(compatible(T("int64"), T("array(int64, 1d, C)")));
}

TEST(Dispatcher, HostArraysAreCopiedInAndBackWhenWritten) {
  dispatcher d("copy", [&](const std::vector<const type*>&) { return compile(copy_src, {"array(int32, 1d, C)", "array(int32, 1d, C)"}); });
  std::vector<std::int32_t> src{1, 2, 3}, dst{0, 0, 0};
  auto host = [](std::vector<std::int32_t>& v) {
    kernel_argument a;
    a.k = kernel_argument::kind::host_array;
    a.ty = T("array(int32, 1d, C)");
    a.host = host_view{v.data(), {3}, {4}, dtypes::int32};
    return a;
  };
  std::vector<kernel_argument> args{host(src), host(dst)};
  auto k = d.find(args);
  EXPECT_EQ(k->facts().writes_arg, (std::vector<bool>{false, true}));
  d.launch(*k, args, grid(1, 32));
  EXPECT_EQ(dst, (std::vector<std::int32_t>{2, 3, 4}));
  EXPECT_EQ(src, (std::vector<std::int32_t>{1, 2, 3}));
}

TEST(Dispatcher, LaunchChecksComeBeforeAnythingRuns) {
  dispatcher d("scale", [&](const std::vector<const type*>&) { return compile(scale_src, {"array(float32, 1d, C)", "float64"}); });
  auto a = upload(std::vector<float>{1});
  std::vector<kernel_argument> args{device_arg(a, "array(float32, 1d, C)"), scalar_arg("float64", 3)};
  auto k = d.find(args);
  std::vector<kernel_argument> fewer{device_arg(a, "array(float32, 1d, C)")};
  EXPECT_THROW(d.launch(*k, fewer, grid(1, 1)), type_error);
  // Dynamic shared memory beyond the opt-in limit: refused, naming the Python-level function.
  launch_config big = grid(1, 1);
  big.shared_bytes = std::size_t{1} << 30;
  try {
    d.launch(*k, args, big);
    ADD_FAILURE() << "launched";
  } catch (const logic_error& e) {
    EXPECT_NE(std::string(e.what()).find("kernel 'scale'"), std::string::npos) << e.what();
  }
  // More than the default 48 KiB (and within the opt-in limit) opts the kernel in.
  launch_config optin = grid(1, 1);
  optin.shared_bytes = 100 * 1024;
  d.launch(*k, args, optin);
  EXPECT_EQ(download<float>(a)[0], 3.0f);
  // A block too large for the device: the runtime's message, with the function's name.
  try {
    d.launch(*k, args, grid(1, 4096));
    ADD_FAILURE() << "launched";
  } catch (const logic_error& e) {
    EXPECT_EQ(std::string(e.what()).find(k->facts().symbol), std::string::npos) << "the symbol is not the user's name: "
                                                                                   << e.what();
  }
}

TEST(CompiledKernel, CacheEntriesRoundTrip) {
  auto k = compile(scale_src, {"array(float32, 1d, C)", "float64"});
  cache_entry e = k->to_cache_entry();
  EXPECT_EQ(e.facts.symbol, k->facts().symbol);
  EXPECT_FALSE(e.code.empty());
  EXPECT_NE(e.types_dump.find("def scale("), std::string::npos);
  auto loaded = compiled_kernel::from_cache(e, k->arg_types(), k->config());
  EXPECT_TRUE(loaded->from_disk_cache());
  dispatcher d("scale", nullptr);
  d.add(loaded);
  d.set_lazy(false);
  auto a = upload(std::vector<float>{2});
  std::vector<kernel_argument> args{device_arg(a, "array(float32, 1d, C)"), scalar_arg("float64", 4)};
  d.launch(*d.find(args), args, grid(1, 1));
  EXPECT_EQ(download<float>(a)[0], 8.0f);
  // What a cached specialisation lacks is rebuilt through its owner's function.
  EXPECT_THROW(loaded->llvm_ir(target_kind::nvptx), logic_error);
  loaded->set_rebuild([&] { return compile(scale_src, {"array(float32, 1d, C)", "float64"}); });
  EXPECT_NE(loaded->llvm_ir(target_kind::nvptx).find("nvptx64"), std::string::npos);
  // Malformed entries are refused.
  cache_entry bad = e;
  bad.facts.writes_arg.pop_back();
  EXPECT_THROW(compiled_kernel::from_cache(bad, k->arg_types(), k->config()), logic_error);
  bad = e;
  bad.code.clear();
  EXPECT_THROW(compiled_kernel::from_cache(bad, k->arg_types(), k->config()), logic_error);
  bad = e;
  bad.k = e.k == cache_entry::kind::ptx ? cache_entry::kind::host_object : cache_entry::kind::ptx;
  EXPECT_THROW(compiled_kernel::from_cache(bad, k->arg_types(), k->config()), logic_error);
}

TEST(CompiledKernel, PtxWhateverTheBackendWithTheConfigsRegisterCap) {
  compile_config cfg = backend_config();
  cfg.max_registers = 32;
  auto k = compile(scale_src, {"array(float32, 1d, C)", "float64"}, cfg);
  const std::string& ptx = k->ptx();
  EXPECT_NE(ptx.find(".entry " + k->facts().symbol), std::string::npos);
  EXPECT_NE(ptx.find(".maxnreg 32"), std::string::npos) << ptx;
  EXPECT_EQ(&k->ptx(), &ptx) << "made once";
  EXPECT_NE(k->types_dump().find("scale"), std::string::npos);
}

TEST(KernelAbi, ScalarsArePackedAsTheirTypes) {
  std::vector<std::uint64_t> s;
  auto packed = [&](const std::string& spec, double f, std::int64_t i = 0, double im = 0) {
    s.clear();
    scalar_value v;
    v.ty = T(spec);
    v.f = f;
    v.i = i;
    v.re = f;
    v.im = im;
    pack_scalar(v, s);
    return s;
  };
  EXPECT_EQ(packed("bool", 0, 7), (std::vector<std::uint64_t>{1}));
  EXPECT_EQ(packed("int8", 0, -1), (std::vector<std::uint64_t>{0xff}));
  EXPECT_EQ(packed("int16", 0, -2), (std::vector<std::uint64_t>{0xfffe}));
  EXPECT_EQ(packed("int64", 0, -2), (std::vector<std::uint64_t>{~std::uint64_t{1}}));
  float one = 1.0f;
  std::uint32_t one_bits = 0;
  std::memcpy(&one_bits, &one, 4);
  EXPECT_EQ(packed("float32", 1.0), (std::vector<std::uint64_t>{one_bits}));
  EXPECT_EQ(packed("float16", 1.0), (std::vector<std::uint64_t>{0x3c00}));
  auto c64 = packed("complex64", 1.0, 0, 1.0);
  EXPECT_EQ(c64, (std::vector<std::uint64_t>{std::uint64_t{one_bits} << 32 | one_bits}));
  EXPECT_EQ(packed("complex128", 1.5, 0, -2).size(), 2u);
  EXPECT_THROW(packed("none", 0), type_error);
}

TEST(KernelAbi, HalfBitsRoundToNearestEven) {
  EXPECT_EQ(half_bits(1.0), 0x3c00);
  EXPECT_EQ(half_bits(-2.0), 0xc000);
  EXPECT_EQ(half_bits(65504.0), 0x7bff) << "the largest half";
  EXPECT_EQ(half_bits(65519.99), 0x7bff);
  EXPECT_EQ(half_bits(65520.0), 0x7c00) << "a tie rounds to even: the infinity";
  EXPECT_EQ(half_bits(1e300), 0x7c00);
  EXPECT_EQ(half_bits(-std::numeric_limits<double>::infinity()), 0xfc00);
  EXPECT_EQ(half_bits(std::numeric_limits<double>::quiet_NaN()) & 0x7c00, 0x7c00);
  EXPECT_NE(half_bits(std::numeric_limits<double>::quiet_NaN()) & 0x3ff, 0);
  EXPECT_EQ(half_bits(-0.0), 0x8000);
  EXPECT_EQ(half_bits(std::ldexp(1.0, -24)), 0x0001) << "the smallest subnormal";
  EXPECT_EQ(half_bits(std::ldexp(1.0, -25)), 0x0000) << "half of it ties to even: zero";
  EXPECT_EQ(half_bits(std::ldexp(3.0, -25)), 0x0002) << "1.5 of it ties to even: two";
  EXPECT_EQ(half_bits(std::ldexp(1.0, -14)), 0x0400) << "the smallest normal";
  EXPECT_EQ(half_bits(std::ldexp(1023.0, -24) + std::ldexp(1.0, -25)), 0x0400) << "a subnormal rounding up to normal";
  EXPECT_EQ(half_bits(1.0 + std::ldexp(1.0, -11)), 0x3c00) << "a tie at 1 + half an ulp: even";
  EXPECT_EQ(half_bits(1.0 + std::ldexp(3.0, -11)), 0x3c02);
  EXPECT_EQ(half_bits(0.1), 0x2e66);
}

TEST(KernelAbi, ArraysAndTuplesFollowTheLayout) {
  auto a = upload(std::vector<double>{1, 2, 3});
  kernel_argument arr = device_arg(a, "array(float64, 1d, C)");
  kernel_argument tup;
  tup.k = kernel_argument::kind::tuple;
  tup.ty = T("Tuple(array(float64, 1d, C), int64)");
  tup.elements = {arr, scalar_arg("int64", 0, 9)};
  std::vector<std::uint64_t> s;
  pack(tup, tup.ty, s);
  ASSERT_EQ(s.size(), 4u) << "data, extent, stride, then the int";
  EXPECT_EQ(s[0], reinterpret_cast<std::uintptr_t>(a.data()));
  EXPECT_EQ(s[1], 3u);
  EXPECT_EQ(s[2], 8u);
  EXPECT_EQ(s[3], 9u);
  EXPECT_EQ(frontend::layout_of({T("Tuple(array(float64, 1d, C), int64)"), T("complex128")}, false).total_slots(), 6u);
  EXPECT_EQ(frontend::layout_of({T("int64")}, true).total_slots(), 2u);
  EXPECT_EQ(frontend::layout_of({T("int64")}, true).error_record_slot(), 1u);
  // A value packed as another shape of parameter is refused.
  EXPECT_THROW(pack(arr, T("array(float64, 2d, C)"), s), type_error);
  EXPECT_THROW(pack(scalar_arg("int64", 0, 1), T("int32"), s), type_error);
  EXPECT_EQ(s.size(), 4u) << "a refused argument appends nothing";

  // The launch path's form writes the same slots into a buffer it is given, and refuses one too short.
  std::array<std::uint64_t, 6> buf{};
  ASSERT_EQ(pack_into(tup, tup.ty, buf), 4u);
  EXPECT_TRUE(std::equal(s.begin(), s.end(), buf.begin()));
  EXPECT_THROW(pack_into(tup, tup.ty, std::span<std::uint64_t>(buf).first(3)), type_error);
  EXPECT_THROW(pack_into(scalar_arg("complex128", 1.5, 0), T("complex128"), std::span<std::uint64_t>(buf).first(1)),
               type_error);
}

}  // namespace

namespace {

constexpr const char* assert_src =
    "def check(a):\n"
    "    i = cuda.grid(1)\n"
    "    if i < a.size:\n"
    "        assert a[i] < 3, 'value too large'\n";

}  // namespace

TEST(ErrorRecord, ARaisingThreadMakesTheLaunchThrowWhatItRecorded) {
  compile_config debug = backend_config();
  debug.debug_level = 1;
  auto k = compile(assert_src, {"array(int64, 1d, C)"}, debug);
  ASSERT_TRUE(k->facts().may_raise());
  // a[i]'s bounds check (debug=True checks indices), then the assert.
  ASSERT_EQ(k->facts().raise_sites.size(), 2u);
  EXPECT_EQ(k->facts().raise_sites[0].code, frontend::kernel_error::index);
  EXPECT_EQ(k->facts().raise_sites[1].code, frontend::kernel_error::assertion);
  EXPECT_EQ(k->layout().total_slots(), 4u) << "the array's three and the error record";
  dispatcher d("check", nullptr);
  d.add(k);
  d.set_lazy(false);
  auto a = upload(std::vector<std::int64_t>{0, 1, 2, 3, 1, 1, 1, 1});
  std::vector<kernel_argument> args{device_arg(a, "array(int64, 1d, C)")};
  try {
    d.launch(*k, args, grid(2, 4));
    ADD_FAILURE() << "nothing raised";
  } catch (const kernel_exception& e) {
    EXPECT_EQ(e.python_exception(), "AssertionError");
    EXPECT_EQ(e.code(), frontend::kernel_error::assertion);
    EXPECT_EQ(e.message(), "value too large");
    EXPECT_EQ(e.function(), "check");
    EXPECT_EQ(e.line(), 4);
    EXPECT_EQ(e.thread(), (std::array<std::uint32_t, 3>{3, 0, 0}));
    EXPECT_EQ(e.block(), (std::array<std::uint32_t, 3>{0, 0, 0}));
    // Numba's words: the file's absolute path, tid and ctaid listed z, y, x.
    EXPECT_EQ(std::string(e.what()), "In function 'check', file " + std::filesystem::absolute("test.py").string() +
                                         ", line 4, tid=[0, 0, 3] ctaid=[0, 0, 0]: value too large");
  }
  // The record is ready again, and the kernel runs on: the context is intact.
  auto ok = upload(std::vector<std::int64_t>{0, 1, 2, 2});
  std::vector<kernel_argument> fine{device_arg(ok, "array(int64, 1d, C)")};
  EXPECT_NO_THROW(d.launch(*k, fine, grid(1, 4)));
  auto bad = upload(std::vector<std::int64_t>{0, 0, 0, 0, 0, 9});
  std::vector<kernel_argument> again{device_arg(bad, "array(int64, 1d, C)")};
  try {
    d.launch(*k, again, grid(2, 4));
    ADD_FAILURE() << "nothing raised";
  } catch (const kernel_exception& e) {
    EXPECT_EQ(e.block(), (std::array<std::uint32_t, 3>{1, 0, 0}));
    EXPECT_EQ(e.thread(), (std::array<std::uint32_t, 3>{1, 0, 0}));
  }
  // Without debug the assert is gone, and with it the record.
  auto plain = compile(assert_src, {"array(int64, 1d, C)"});
  EXPECT_FALSE(plain->facts().may_raise());
  EXPECT_EQ(plain->layout().total_slots(), 3u);
}

TEST(ErrorRecord, CacheEntriesKeepTheRaiseSites) {
  compile_config debug = backend_config();
  debug.debug_level = 1;
  auto k = compile(assert_src, {"array(int64, 1d, C)"}, debug);
  auto loaded = compiled_kernel::from_cache(k->to_cache_entry(), k->arg_types(), k->config());
  ASSERT_EQ(loaded->facts().raise_sites.size(), 2u);
  EXPECT_EQ(loaded->facts().raise_sites[0].message, "array 'a'");
  EXPECT_EQ(loaded->facts().raise_sites[1].message, "value too large");
  dispatcher d("check", nullptr);
  d.add(loaded);
  d.set_lazy(false);
  auto a = upload(std::vector<std::int64_t>{5});
  std::vector<kernel_argument> args{device_arg(a, "array(int64, 1d, C)")};
  EXPECT_THROW(d.launch(*loaded, args, grid(1, 1)), kernel_exception);
}

TEST(ErrorRecord, AnIndexErrorRecordsTheAxisTheIndexAndTheExtent) {
  compile_config checked = backend_config();
  checked.boundscheck = true;
  const char* src =
      "def put(a, i, j):\n"
      "    a[i, j] = 1.0\n";
  auto k = compile(src, {"array(float64, 2d, C)", "int64", "int64"}, checked);
  ASSERT_EQ(k->facts().raise_sites.size(), 1u);
  EXPECT_EQ(k->facts().raise_sites[0].code, frontend::kernel_error::index);
  dispatcher d("put", nullptr);
  d.add(k);
  d.set_lazy(false);
  std::vector<double> host(12, 0.0);
  const host_view view{host.data(), {3, 4}, {32, 8}, dtype_of<double>()};
  auto a = device_ndarray::empty({3, 4}, dtype_of<double>());
  a.copy_from_host(view, stream_view::legacy_default());
  auto launch = [&](std::int64_t i, std::int64_t j) {
    std::vector<kernel_argument> args{device_arg(a, "array(float64, 2d, C)"), scalar_arg("int64", 0, i),
                                      scalar_arg("int64", 0, j)};
    d.launch(*k, args, grid(1, 1));
  };
  try {
    launch(1, -5);
    ADD_FAILURE() << "nothing raised";
  } catch (const kernel_exception& e) {
    EXPECT_EQ(e.python_exception(), "IndexError");
    EXPECT_EQ(e.message(), "index -5 is out of bounds for axis 1 with size 4 (array 'a')");
  }
  EXPECT_NO_THROW(launch(-1, -4));  // wrapped: inside
  a.copy_to_host(view, stream_view::legacy_default());
  stream_view::legacy_default().synchronize();
  EXPECT_EQ(host.at(8), 1.0);
  EXPECT_EQ(std::count(host.begin(), host.end(), 1.0), 1);
  // Without the option nothing is checked, and nothing may raise.
  auto plain = compile(src, {"array(float64, 2d, C)", "int64", "int64"});
  EXPECT_FALSE(plain->facts().may_raise());
}
