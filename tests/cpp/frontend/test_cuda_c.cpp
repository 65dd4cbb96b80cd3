// The CUDA C/C++ frontend (frontend/cuda_c.hpp): link inputs by extension,
// NVRTC compiling a source, nvJitLink linking PTX with it, the host's
// compiler building a library for the cpu backend, and the declaration
// checks; errors name the file.
#include <cuforge/frontend/cuda_c.hpp>
#include <cuforge/runtime/error.hpp>

#include <gtest/gtest.h>

#include <dlfcn.h>
#include <unistd.h>

#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <string>

using namespace cuforge::frontend;

namespace {

struct temp_dir {
  std::filesystem::path path;
  temp_dir() {
    char tmpl[] = "/tmp/cuforge-test-cuda-c-XXXXXX";
    path = ::mkdtemp(tmpl);
  }
  ~temp_dir() {
    std::error_code ec;
    std::filesystem::remove_all(path, ec);
  }
  std::string write(const std::string& name, const std::string& text) const {
    std::ofstream(path / name) << text;
    return (path / name).string();
  }
};

constexpr const char* mul_source = R"(
extern "C" __device__ int mul_f32_f32(float* r, float x, float y) { *r = x * y; return 0; }
)";

// A kernel calling mul_f32_f32 by Numba's ABI, as cuforge's codegen emits it.
constexpr const char* caller_ptx = R"(
.version 7.8
.target sm_90
.address_size 64
.extern .func (.param .b32 func_retval0) mul_f32_f32(.param .b64 p0, .param .b32 p1, .param .b32 p2);
.visible .entry caller(.param .u64 out) {
  .local .align 4 .b8 slot[4];
  .reg .b64 %rd<4>;
  .reg .f32 %f<2>;
  .reg .b32 %r<2>;
  mov.u64 %rd1, slot;
  cvta.local.u64 %rd2, %rd1;
  mov.f32 %f1, 0f40000000;
  {
    .param .b64 a0;
    .param .b32 a1;
    .param .b32 a2;
    .param .b32 ret;
    st.param.b64 [a0], %rd2;
    st.param.f32 [a1], %f1;
    st.param.f32 [a2], %f1;
    call.uni (ret), mul_f32_f32, (a0, a1, a2);
    ld.param.b32 %r1, [ret];
  }
  ret;
}
)";

bool have_nvrtc() { return nvrtc_version() > 0; }

}  // namespace

TEST(CudaC, LinkKindsByExtension) {
  EXPECT_EQ(link_kind_of("a/b.cu"), link_kind::cuda_source);
  EXPECT_EQ(link_kind_of("b.CPP"), link_kind::cpp_source);
  EXPECT_EQ(link_kind_of("b.c"), link_kind::c_source);
  EXPECT_EQ(link_kind_of("b.ptx"), link_kind::ptx);
  EXPECT_EQ(link_kind_of("b.ltoir"), link_kind::ltoir);
  EXPECT_EQ(link_kind_of("lib.a"), link_kind::library);
  try {
    link_kind_of("dir.v2/noext");
    FAIL() << "no extension accepted";
  } catch (const cuforge::logic_error& e) {
    EXPECT_NE(std::string(e.what()).find("dir.v2/noext"), std::string::npos) << e.what();
  }
}

TEST(CudaC, NvrtcCompilesAndNvJitLinkLinks) {
  if (!have_nvrtc()) GTEST_SKIP() << "no NVRTC";
  temp_dir d;
  const std::string cu = d.write("functions.cu", mul_source);
  nvrtc_result ptx = compile_cuda_source(mul_source, cu, {9, 0}, false, {});
  EXPECT_NE(ptx.code.find(".visible .func"), std::string::npos);
  EXPECT_NE(ptx.code.find("mul_f32_f32"), std::string::npos);
  std::string cubin = link_for_gpu(caller_ptx, "caller.ptx", {cu}, {9, 0}, false);
  ASSERT_GT(cubin.size(), 4u);
  EXPECT_EQ(cubin.substr(0, 4), "\x7f" "ELF");
  // Without the source the call is undefined, and the error says which symbol.
  try {
    link_for_gpu(caller_ptx, "caller.ptx", {}, {9, 0}, false);
    FAIL() << "linked without a definition";
  } catch (const cuforge::logic_error& e) {
    EXPECT_NE(std::string(e.what()).find("mul_f32_f32"), std::string::npos) << e.what();
  }
}

TEST(CudaC, NvrtcErrorsCarryTheLog) {
  if (!have_nvrtc()) GTEST_SKIP() << "no NVRTC";
  try {
    compile_cuda_source("extern \"C\" __device__ int f() { return nope; }", "broken.cu", {9, 0}, false, {});
    FAIL() << "compiled";
  } catch (const cuforge::logic_error& e) {
    const std::string m = e.what();
    EXPECT_NE(m.find("broken.cu"), std::string::npos) << m;
    EXPECT_NE(m.find("nope"), std::string::npos) << m;
  }
}

TEST(CudaC, HostLibraryRunsPortableCodeAndRefusesGpuOnlyInputs) {
  if (std::system("command -v c++ > /dev/null 2>&1") != 0) GTEST_SKIP() << "no host C++ compiler";
  temp_dir d;
  const std::string cu = d.write("functions.cu", mul_source);
  const std::string lib = host_library({cu});
  EXPECT_EQ(host_library({cu}), lib);  // once per process and contents
  void* h = ::dlopen(lib.c_str(), RTLD_NOW | RTLD_LOCAL);
  ASSERT_NE(h, nullptr) << ::dlerror();
  using fn = int (*)(float*, float, float);
  auto mul = reinterpret_cast<fn>(::dlsym(h, "mul_f32_f32"));
  ASSERT_NE(mul, nullptr);
  float r = 0;
  EXPECT_EQ(mul(&r, 3.0f, 0.5f), 0);
  EXPECT_EQ(r, 1.5f);
  const std::string ptx = d.write("k.ptx", caller_ptx);
  try {
    host_library({ptx});
    FAIL() << "PTX accepted on the cpu backend";
  } catch (const cuforge::logic_error& e) {
    EXPECT_NE(std::string(e.what()).find("k.ptx on the cpu backend"), std::string::npos) << e.what();
  }
}

TEST(CudaC, DeclarationsAreCheckedAgainstTheDefinition) {
  if (std::system("command -v c++ > /dev/null 2>&1") != 0) GTEST_SKIP() << "no host C++ compiler";
  temp_dir d;
  const std::string cu = d.write("functions.cu", mul_source);
  declared_function right{"mul_f32_f32", "float32(float32, float32)", {104, 204, 204, 204}, cu, true};
  EXPECT_NO_THROW(host_library({cu}, {right}));
  declared_function wrong{"mul_f32_f32", "float64(float32, float32)", {104, 208, 204, 204}, cu, true};
  try {
    host_library({cu}, {wrong});
    FAIL() << "a float64 result accepted for a float* result pointer";
  } catch (const cuforge::logic_error& e) {
    EXPECT_NE(std::string(e.what()).find("the definition of mul_f32_f32 does not match"), std::string::npos)
        << e.what();
  }
  if (!have_nvrtc()) return;
  EXPECT_THROW(link_for_gpu(caller_ptx, "caller.ptx", {cu}, {9, 0}, false, {wrong}), cuforge::logic_error);
  EXPECT_FALSE(link_for_gpu(caller_ptx, "caller.ptx", {cu}, {9, 0}, false, {right}).empty());
}
