#include <cuforge/jit/dispatcher.hpp>
#include <cuforge/jit/error_record.hpp>
#include <cuforge/runtime/detail/backend.hpp>
#include <cuforge/runtime/device.hpp>
#include <cuforge/runtime/error.hpp>

#include <algorithm>
#include <array>
#include <chrono>
#include <functional>
#include <span>

namespace cuforge::jit {

using frontend::array_layout;
using frontend::type;

bool compatible(const type* have, const type* want) {
  if (have == want) return true;
  if (have->is_array() && want->is_array())
    return have->dtype == want->dtype && have->ndim == want->ndim &&
           (want->layout == array_layout::any || want->layout == have->layout) && (want->readonly || !have->readonly);
  if (have->is_scalar() && want->is_scalar()) return true;
  if (have->is_tuple() && want->is_tuple() && have->elements.size() == want->elements.size()) {
    for (std::size_t i = 0; i < have->elements.size(); ++i)
      if (!compatible(have->elements[i], want->elements[i])) return false;
    return true;
  }
  return false;
}

namespace {

// Shared memory per block: what a kernel's static arrays may take (ptxas's
// limit on a GPU) and what static + dynamic may take once opted in; read
// once per process.
struct shared_limits {
  std::size_t per_block = 0, optin = 0;
};

const shared_limits& shared_limits_of(int dev) {
  static const std::vector<shared_limits> all = [] {
    std::vector<shared_limits> v;
    for (const auto& d : device::all()) {
      auto per_block = static_cast<std::size_t>(d.attribute(device_attribute::max_shared_memory_per_block));
      auto optin = static_cast<std::size_t>(d.attribute(device_attribute::max_shared_memory_per_block_optin));
      v.push_back({per_block, std::max(per_block, optin)});
    }
    return v;
  }();
  return all.at(static_cast<std::size_t>(dev));
}

}  // namespace

void check_shared_memory(const std::string& name, loaded_kernel& k, std::size_t dynamic, int dev) {
  const auto& lim = shared_limits_of(dev);
  if (k.static_shared > lim.per_block)
    throw logic_error("kernel '" + name + "' has " + std::to_string(k.static_shared) +
                      " bytes of static shared memory (cuda.shared.array); the device allows at most " +
                      std::to_string(lim.per_block) + " per block");
  if (dynamic <= k.dynamic_allowed.load(std::memory_order_acquire)) return;
  if (k.static_shared + dynamic > lim.optin)
    throw logic_error("kernel '" + name + "': " + std::to_string(dynamic) + " bytes of dynamic shared memory requested (with " +
                      std::to_string(k.static_shared) + " static); the device has at most " + std::to_string(lim.optin) +
                      " per block");
  // Launches on several threads may opt in at once: the attribute only ever grows.
  std::lock_guard guard(k.opt_in_lock);
  if (dynamic <= k.dynamic_allowed.load(std::memory_order_relaxed)) return;
  k.k->set_max_dynamic_shared_bytes(static_cast<int>(dynamic));
  k.dynamic_allowed.store(dynamic, std::memory_order_release);
}

std::size_t dispatcher::type_vector_hash::operator()(const std::vector<const type*>& v) const noexcept {
  std::size_t h = 0;
  for (auto* t : v) h = h * 1000003u ^ std::hash<const void*>{}(t);
  return h;
}

dispatcher::dispatcher(std::string name, compile_fn compile) : name_(std::move(name)), compile_(std::move(compile)) {}

void dispatcher::add(std::shared_ptr<compiled_kernel> k) {
  specs_[k->arg_types()] = k;
  order_.push_back(std::move(k));
  last_.reset();  // an exact signature may now win over a compatible one
}

void dispatcher::set_lazy(bool lazy) {
  lazy_ = lazy;
  last_.reset();
}

std::shared_ptr<compiled_kernel> dispatcher::find(std::span<const kernel_argument> args) {
  if (last_ && last_types_.size() == args.size()) {
    bool same = true;
    for (std::size_t i = 0; same && i < args.size(); ++i) same = args[i].ty == last_types_[i];
    if (same) return last_;
  }
  std::vector<const type*> key;
  key.reserve(args.size());
  for (const auto& a : args) key.push_back(a.ty);
  last_ = find_slow(key);
  last_types_ = std::move(key);
  return last_;
}

namespace {

// "float32, array(int64, 1d, C)".
std::string joined(const std::vector<const type*>& types) {
  std::string s;
  for (auto* t : types) {
    if (!s.empty()) s += ", ";
    s += t->str();
  }
  return s;
}

}  // namespace

std::string dispatcher::signatures() const {
  std::string known;
  for (const auto& k : order_) known += "\n    (" + joined(k->arg_types()) + ")";
  return known;
}

std::shared_ptr<compiled_kernel> dispatcher::find_slow(const std::vector<const type*>& key) {
  if (auto it = specs_.find(key); it != specs_.end()) return it->second;
  // A dispatcher that may compile takes exact matches only, as Numba's: a
  // compatible one would convert (2.5 passed to an int64 specialisation is 2).
  for (const auto& k : order_) {
    if (lazy_ || k->arg_types().size() != key.size()) continue;
    bool ok = true;
    for (std::size_t i = 0; ok && i < key.size(); ++i) ok = compatible(key[i], k->arg_types()[i]);
    if (ok) {
      specs_[key] = k;
      return k;
    }
  }
  if (!lazy_)
    throw type_error("no matching definition of " + name_ + " for argument types (" + joined(key) +
                     "); its signatures are:" + signatures());
  std::shared_ptr<compiled_kernel> k = compile_(key);
  if (!k) throw logic_error("compiling " + name_ + " gave no specialisation");
  specs_[key] = k;
  order_.push_back(k);
  return k;
}

namespace {

// The slots of `args` packed as `k`'s parameters (then the error record's
// address, for a kernel that may raise), with pointers to them: on the stack
// for the usual few dozen slots, so a launch allocates nothing here.
class parameters {
 public:
  parameters(const compiled_kernel& k, const std::vector<kernel_argument>& args, const loaded_kernel& ld) {
    const std::size_t total = k.layout().total_slots();
    std::span<std::uint64_t> slots(small_slots_.data(), total);
    pointers_ = small_pointers_.data();
    if (total > inline_slots) {
      big_slots_.resize(total);
      big_pointers_.resize(total);
      slots = big_slots_;
      pointers_ = big_pointers_.data();
    }
    std::size_t n = 0;
    for (std::size_t i = 0; i < args.size(); ++i) n += pack_into(args[i], k.arg_types()[i], slots.subspan(n));
    if (k.facts().may_raise() && n < total) slots[n++] = reinterpret_cast<std::uintptr_t>(ld.error_record->data());
    if (n != total) throw logic_error("the kernel ABI: packed slots do not match the layout");
    for (std::size_t i = 0; i < n; ++i) pointers_[i] = &slots[i];
  }
  parameters(const parameters&) = delete;  // pointers_ point into this object
  parameters& operator=(const parameters&) = delete;

  void** pointers() noexcept { return pointers_; }

 private:
  static constexpr std::size_t inline_slots = 96;
  std::array<std::uint64_t, inline_slots> small_slots_;
  std::array<void*, inline_slots> small_pointers_;
  std::vector<std::uint64_t> big_slots_;
  std::vector<void*> big_pointers_;
  void** pointers_ = nullptr;
};

}  // namespace

void dispatcher::launch(compiled_kernel& k, std::vector<kernel_argument>& args, const launch_config& cfg) {
  if (args.size() != k.arg_types().size())
    throw type_error(name_ + " takes " + std::to_string(k.arg_types().size()) + " arguments, " +
                     std::to_string(args.size()) + " given");
  const int dev = device::current().ordinal();
  loaded_kernel& ld = k.load(dev);
  check_shared_memory(name_, ld, cfg.shared_bytes, dev);
  if (const int bound = k.config().max_threads_per_block; bound > 0 && cfg.block.count() > static_cast<unsigned long long>(bound))
    throw logic_error("kernel '" + name_ + "': a block of " + std::to_string(cfg.block.count()) +
                      " threads; its launch_bounds allow at most " + std::to_string(bound));

  // Host arrays go to the device first (Numba's rule), and come back after
  // only if the kernel may write them; cuda.In's only go, cuda.Out's only
  // come back. Host arrays inside tuples count as their tuple's argument.
  std::vector<std::pair<kernel_argument*, std::size_t>> hosts;
  auto collect = [&](auto& self, kernel_argument& a, std::size_t top) -> void {
    if (a.k == kernel_argument::kind::host_array) hosts.emplace_back(&a, top);
    for (auto& e : a.elements) self(self, e, top);
  };
  for (std::size_t i = 0; i < args.size(); ++i) collect(collect, args[i], i);
  for (auto [ap, top] : hosts) {
    kernel_argument& a = *ap;
    const char order = a.ty->layout == array_layout::f ? 'F' : 'C';
    a.owned = device_ndarray::empty(a.host.shape, a.host.type, order, cfg.stream);
    if (a.xfer != kernel_argument::transfer::from_device) a.owned.copy_from_host(a.host, cfg.stream);
  }

  parameters params(k, args, ld);
  // A kernel that may raise has its record to itself until the launch is
  // over and the record read (debug kernels: their launches are waited for).
  std::unique_lock<std::mutex> record_owner;
  if (k.facts().may_raise()) record_owner = std::unique_lock(ld.error_record_lock);
  // A kernel that syncs its grid (cuda.cg) is launched cooperatively: every block co-resident, and
  // a grid larger than can be is refused before it starts (runtime/launch.cpp).
  launch_config run = cfg;
  run.cooperative = cfg.cooperative || k.facts().cooperative;
  try {
    cuforge::launch(*ld.k, run, params.pointers());
  } catch (const logic_error& e) {
    // The runtime names the kernel by its symbol; the user knows its Python name.
    std::string msg = e.what();
    const std::string& symbol = ld.k->name();
    if (auto at = msg.find("'" + symbol + "'"); at != std::string::npos) msg.replace(at, symbol.size() + 2, "'" + name_ + "'");
    throw logic_error(msg);
  }
  bool copied_back = false;
  for (auto [ap, top] : hosts) {
    if (ap->xfer == kernel_argument::transfer::to_device) continue;
    if (top < k.facts().writes_arg.size() && !k.facts().writes_arg[top]) continue;
    ap->owned.copy_to_host(ap->host, cfg.stream);
    copied_back = true;
  }
  if (copied_back || k.facts().may_raise()) cfg.stream.synchronize();
  if (k.facts().may_raise()) {
    auto* record = static_cast<frontend::kernel_error_record*>(ld.error_record->host_data());
    const frontend::kernel_error_record seen = *record;
    if (seen.code == 0) return;
    *record = {};  // ready for the next launch
    const auto& sites = k.facts().raise_sites;
    if (seen.site < 0 || static_cast<std::size_t>(seen.site) >= sites.size())
      throw logic_error("kernel '" + name_ + "' raised from an unknown site " + std::to_string(seen.site));
    throw kernel_exception(seen, sites[static_cast<std::size_t>(seen.site)]);
  }
}

double dispatcher::raw_launch_loop(compiled_kernel& k, std::vector<kernel_argument>& args, const launch_config& cfg,
                                   std::size_t n) {
  for (const auto& a : args)
    if (a.k == kernel_argument::kind::host_array) throw type_error("raw_launch_loop takes device arrays");
  const int dev = device::current().ordinal();
  loaded_kernel& ld = k.load(dev);
  parameters params(k, args, ld);
  auto& backend = detail::active();
  backend.launch(ld.k->handle(), cfg, params.pointers(), dev);  // warm-up
  cfg.stream.synchronize();
  auto t0 = std::chrono::steady_clock::now();
  for (std::size_t i = 0; i < n; ++i) backend.launch(ld.k->handle(), cfg, params.pointers(), dev);
  cfg.stream.synchronize();
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
}

}  // namespace cuforge::jit
