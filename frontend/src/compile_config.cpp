#include <cuforge/frontend/codegen.hpp>
#include <cuforge/frontend/compile_config.hpp>

#include <algorithm>
#include <cctype>
#include <cuforge/runtime/backend.hpp>
#include <cuforge/runtime/device.hpp>
#include <cuforge/runtime/error.hpp>

#include <functional>

namespace cuforge::frontend {

std::string_view to_string(target_kind t) noexcept {
  switch (t) {
    case target_kind::nvptx: return "nvptx";
    case target_kind::host: return "host";
  }
  return "?";
}

compile_config compile_config::for_target(target_kind t, compute_capability cc) {
  compile_config c;
  c.target = t;
  c.cc = cc;
  return c;
}

compile_config compile_config::with_target(target_kind t) const {
  compile_config c = *this;
  c.target = t;
  return c;
}

compile_config compile_config::for_active_backend() const {
  compile_config c = *this;
  switch (active_traits().kernel_format) {
    case module_image::format::host:
      c.target = target_kind::host;
      break;
    default:  // the driver's formats: PTX is what this compiler makes for them
      c.target = target_kind::nvptx;
      c.cc = device::current().cc();
      break;
  }
  return c;
}

void compile_config::validate() const {
  if (target != target_kind::nvptx && target != target_kind::host)
    throw logic_error("compile configuration: unknown target " + std::to_string(static_cast<int>(target)));
  if (debug_level < 0 || debug_level > 1)
    throw logic_error("compile configuration: debug level " + std::to_string(debug_level) + " (0 or 1)");
  if (max_registers < 0 || max_registers > 255)
    throw logic_error("compile configuration: max_registers " + std::to_string(max_registers) +
                      " (0 for the default, else 1 to 255)");
  if (max_threads_per_block < 0 || max_threads_per_block > 1024 || min_blocks_per_sm < 0 || max_blocks_per_cluster < 0)
    throw logic_error("compile configuration: launch bounds (" + std::to_string(max_threads_per_block) + ", " +
                      std::to_string(min_blocks_per_sm) + ", " + std::to_string(max_blocks_per_cluster) +
                      "): at most 1024 threads per block, and no negative bound");
  if (target == target_kind::nvptx && max_blocks_per_cluster > 0 && cc.major < 9)
    throw logic_error("compile configuration: a launch bound on the blocks of a cluster needs compute capability "
                      "9.0 or newer, not " + std::to_string(cc.major) + "." + std::to_string(cc.minor));
  if (!abi_name.empty() &&
      (!(std::isalpha(static_cast<unsigned char>(abi_name[0])) || abi_name[0] == '_') ||
       !std::all_of(abi_name.begin(), abi_name.end(),
                    [](char ch) { return std::isalnum(static_cast<unsigned char>(ch)) || ch == '_' || ch == '$'; })))
    throw logic_error("compile configuration: abi_name '" + abi_name + "' is not a symbol name");
  if (target == target_kind::nvptx && (cc.major < 1 || cc.minor < 0))
    throw logic_error("compile configuration: compute capability " + std::to_string(cc.major) + "." +
                      std::to_string(cc.minor));
}

std::string compile_config::key() const {
  std::string k(to_string(target));
  // The target's identity: the GPU for PTX, the CPU for host code.
  if (target == target_kind::nvptx)
    k += " sm_" + std::to_string(cc.major) + std::to_string(cc.minor);
  else
    k += " " + host_target_id();
  k += " fastmath=" + std::to_string(fastmath);
  k += " debug=" + std::to_string(debug_level);
  k += " lineinfo=" + std::to_string(lineinfo);
  if (boundscheck) k += " boundscheck=1";
  k += " opt=" + std::to_string(opt);
  k += " maxnreg=" + std::to_string(target == target_kind::nvptx ? max_registers : 0);
  if (target == target_kind::nvptx && (max_threads_per_block || min_blocks_per_sm || max_blocks_per_cluster))
    k += " bounds=" + std::to_string(max_threads_per_block) + "," + std::to_string(min_blocks_per_sm) + "," +
         std::to_string(max_blocks_per_cluster);
  if (host_only) k += " host_only=1";
  if (python_error_model) k += " error_model=python";
  if (c_abi) k += " abi=c";
  if (!abi_name.empty()) k += " abi_name=" + abi_name;
  return k;
}

std::size_t compile_config::hash() const noexcept {
  std::size_t h = std::hash<int>{}(static_cast<int>(target));
  auto mix = [&](std::size_t v) { h ^= v + 0x9e3779b97f4a7c15ull + (h << 6) + (h >> 2); };
  mix(static_cast<std::size_t>(cc.major) << 8 | static_cast<std::size_t>(cc.minor));
  mix(static_cast<std::size_t>(fastmath) | static_cast<std::size_t>(lineinfo) << 1 | static_cast<std::size_t>(opt) << 2 |
      static_cast<std::size_t>(boundscheck) << 3);
  mix(static_cast<std::size_t>(debug_level));
  mix(static_cast<std::size_t>(max_registers));
  mix(static_cast<std::size_t>(max_threads_per_block) | static_cast<std::size_t>(min_blocks_per_sm) << 16 |
      static_cast<std::size_t>(max_blocks_per_cluster) << 32);
  mix(static_cast<std::size_t>(host_only) | static_cast<std::size_t>(c_abi) << 1 |
      static_cast<std::size_t>(python_error_model) << 2);
  mix(std::hash<std::string>{}(abi_name));
  return h;
}

}  // namespace cuforge::frontend
