#pragma once

/// @file
/// The dispatcher of a jitted function: its specialisations by argument
/// types, the rules for matching a launch's arguments to one (compiling a
/// new one through a callback), and the launch itself: the checks made
/// before anything is copied or run, host arrays copied in and back, the
/// parameters packed by the kernel ABI, the error record read after.
///
/// Matching: a lazy dispatcher (no signature given) needs an exact match of
/// the argument types, else it compiles; a dispatcher of eager signatures
/// takes arguments that convert safely to one of them (the first that
/// fits), as Numba's does, and refuses others with a type_error listing
/// its signatures.

#include <cuforge/jit/compiled_kernel.hpp>
#include <cuforge/jit/kernel_abi.hpp>
#include <cuforge/runtime/export.hpp>
#include <cuforge/runtime/launch.hpp>

#include <cstddef>
#include <functional>
#include <memory>
#include <span>
#include <string>
#include <unordered_map>
#include <vector>

namespace cuforge::jit {

/// Whether an argument of type `have` may be passed where `want` is
/// declared: the same type, an array of the same dtype and rank into an
/// any-layout (or the same-layout) one and writable into readonly, any
/// number into a number (converted by NumPy's rules), tuples element-wise.
CUFORGE_API bool compatible(const frontend::type* have, const frontend::type* want);

/// Checks a launch's shared memory before anything runs: the kernel's
/// static arrays against the per-block limit (ptxas refuses more on a GPU,
/// so the cpu backend does too), static + dynamic against the opt-in limit;
/// a launch asking for more than the default opts the kernel in.
/// @throws logic_error naming the kernel (`name`) and the sizes.
CUFORGE_API void check_shared_memory(const std::string& name, loaded_kernel& k, std::size_t dynamic_bytes, int dev);

class CUFORGE_API dispatcher {
 public:
  /// Compiles a specialisation for argument types the dispatcher has not
  /// seen (called only when the dispatcher is lazy).
  using compile_fn = std::function<std::shared_ptr<compiled_kernel>(const std::vector<const frontend::type*>&)>;

  dispatcher(std::string name, compile_fn compile);

  const std::string& name() const noexcept { return name_; }

  /// Adds a specialisation (an eager signature's, or one compiled elsewhere).
  void add(std::shared_ptr<compiled_kernel> k);
  /// Lazy: compile for new argument types. Not lazy: match the existing
  /// specialisations only (disable_compile, eager signatures).
  void set_lazy(bool lazy);
  /// Every specialisation, in the order they were made.
  const std::vector<std::shared_ptr<compiled_kernel>>& specializations() const noexcept { return order_; }

  /// The specialisation for arguments of these types (see the file comment).
  /// The last answer is remembered with its types: a loop launching with the
  /// same types skips the look-up.
  /// @throws type_error when none fits and compiling is off; whatever the
  ///         compile callback throws.
  std::shared_ptr<compiled_kernel> find(std::span<const kernel_argument> args);

  /// Launches `k` (found for `args`) with `cfg`. Scalars must already be of
  /// `k`'s argument types (the caller converts them). Host arrays are copied
  /// to the device first, and back after the launch only when the kernel may
  /// write them; then the stream is synchronised. Does not need any lock the
  /// caller holds (the Python binding releases the GIL around it).
  /// @throws type_error for the wrong number of arguments, logic_error for a
  ///         configuration or shared memory the device refuses (naming this
  ///         dispatcher's function), cuda_error when the launch fails.
  void launch(compiled_kernel& k, std::vector<kernel_argument>& args, const launch_config& cfg);

  /// bench/launch's baseline: `k` launched `n` times from a C++ loop straight
  /// through the backend, its parameters packed once (device arrays and
  /// scalars only). Returns seconds.
  double raw_launch_loop(compiled_kernel& k, std::vector<kernel_argument>& args, const launch_config& cfg,
                         std::size_t n);

 private:
  struct type_vector_hash {
    std::size_t operator()(const std::vector<const frontend::type*>& v) const noexcept;
  };
  std::shared_ptr<compiled_kernel> find_slow(const std::vector<const frontend::type*>& key);
  std::string signatures() const;

  std::string name_;
  compile_fn compile_;
  bool lazy_ = true;
  std::unordered_map<std::vector<const frontend::type*>, std::shared_ptr<compiled_kernel>, type_vector_hash> specs_;
  std::vector<std::shared_ptr<compiled_kernel>> order_;
  std::shared_ptr<compiled_kernel> last_;  // find's last answer, for the types in last_types_
  std::vector<const frontend::type*> last_types_;
};

}  // namespace cuforge::jit
