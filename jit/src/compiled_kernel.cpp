#include <cuforge/jit/compiled_kernel.hpp>
#include <cuforge/jit/compiler.hpp>
#include <cuforge/frontend/cuda_c.hpp>
#include <cuforge/memory/current_resource.hpp>
#include <cuforge/runtime/device.hpp>
#include <cuforge/runtime/error.hpp>

#include <algorithm>

namespace cuforge::jit {

using namespace cuforge::frontend;

std::shared_ptr<compiled_kernel> compiled_kernel::compile(std::shared_ptr<const function> fn,
                                                          std::vector<const type*> arg_types, const type* return_type,
                                                          const compile_config& config, bool device,
                                                          std::vector<std::string> link, bool lto) {
  config.validate();
  std::shared_ptr<compiled_kernel> k(new compiled_kernel);
  k->config_ = config;
  k->device_ = device;
  k->lto_ = lto;
  k->arg_types_ = std::move(arg_types);
  typer_options topts;
  topts.debug = config.debug();
  topts.host_only = config.host_only;
  topts.boundscheck = config.checks_bounds();
  topts.check_divisors = config.checks_divisors();
  signature sig;
  sig.args = k->arg_types_;
  sig.ret = return_type;
  {
    std::lock_guard lock(compile_lock());
    k->module_ = infer(types(), std::move(fn), sig, !device, topts);
  }
  for (auto& f : link)  // the kernel's own files, after its declared functions'
    if (std::find(k->module_.link.begin(), k->module_.link.end(), f) == k->module_.link.end())
      k->module_.link.push_back(std::move(f));
  k->set_entry_facts();
  return k;
}

void compiled_kernel::set_entry_facts() {
  const typed_function& e = module_.functions.front();
  facts_.symbol = e.symbol;
  facts_.writes_arg = e.writes_arg;
  facts_.uses_barrier = e.uses_barrier;
  facts_.cooperative = e.cooperative;
  facts_.return_type = e.return_type;
  facts_.raise_sites = module_.raise_sites;
  layout_ = layout_of(arg_types_, facts_.may_raise());
}

std::shared_ptr<compiled_kernel> compiled_kernel::from_cache(cache_entry entry, std::vector<const type*> arg_types,
                                                             const compile_config& config) {
  config.validate();
  std::shared_ptr<compiled_kernel> k(new compiled_kernel);
  k->config_ = config;
  k->arg_types_ = std::move(arg_types);
  if (entry.facts.return_type == nullptr) throw logic_error("a cache entry without its return type");
  if (entry.facts.symbol.empty()) throw logic_error("a cache entry without its symbol");
  if (entry.facts.writes_arg.size() != k->arg_types_.size())
    throw logic_error("a cache entry whose facts do not match its argument types");
  k->facts_ = std::move(entry.facts);
  k->layout_ = layout_of(k->arg_types_, k->facts_.may_raise());
  k->types_dump_ = std::move(entry.types_dump);
  switch (entry.k) {
    case cache_entry::kind::ptx:
      if (config.target != target_kind::nvptx) throw logic_error("a PTX cache entry for a host configuration");
      if (entry.code.empty()) throw logic_error("empty PTX");
      k->ptx_ = std::move(entry.code);
      break;
    case cache_entry::kind::host_object: {
      if (config.target != target_kind::host) throw logic_error("a host-object cache entry for a GPU configuration");
      host_object o;
      o.name = std::move(entry.host_name);
      o.block_name = std::move(entry.host_block_name);
      o.static_shared_bytes = entry.static_shared_bytes;
      o.slots = entry.slots;
      o.uses_barrier = k->facts_.uses_barrier;
      o.arrays = std::move(entry.arrays);
      o.object = std::move(entry.code);
      if (o.object.empty() || o.slots != k->layout().total_slots() || o.name.empty())
        throw logic_error("a host object that does not match its argument types");
      k->host_obj_ = std::move(o);
      break;
    }
  }
  return k;
}

void compiled_kernel::ensure_module() {
  if (!module_.functions.empty()) return;
  if (!rebuild_) throw logic_error("this specialisation was loaded from the disk cache without its typed IR");
  std::shared_ptr<compiled_kernel> fresh = rebuild_();
  if (!fresh || fresh->module_.functions.empty()) throw logic_error("rebuilding a cached specialisation failed");
  module_ = fresh->module_;
}

const std::string& compiled_kernel::ptx() {
  {
    std::lock_guard lock(compile_lock());
    if (ptx_) return *ptx_;
  }
  ensure_module();  // (outside the lock: rebuilding a cached one calls back into its owner)
  std::lock_guard lock(compile_lock());
  if (!ptx_) ptx_ = compile_ptx(module_, config_.with_target(target_kind::nvptx)).ptx;
  return *ptx_;
}

std::string compiled_kernel::ltoir(bool forceinline) {
  ensure_module();
  std::lock_guard lock(compile_lock());
  return compile_ltoir(module_, config_.with_target(target_kind::nvptx), forceinline).ltoir;
}

std::string compiled_kernel::nvvm_ir(bool forceinline) {
  ensure_module();
  std::lock_guard lock(compile_lock());
  return emit_nvvm_ir(module_, config_.with_target(target_kind::nvptx), forceinline);
}

const std::string& compiled_kernel::linked_cubin() {
  {
    std::lock_guard lock(compile_lock());
    if (cubin_) return *cubin_;
  }
  // With link-time optimisation the kernel goes in as LTO-IR too, so the C/C++ it calls is
  // optimised (inlined) into it, as numba-cuda's lto=True does.
  std::string cubin = lto_ ? link_for_gpu(ltoir(false), facts_.symbol + ".ltoir", module_.link, config_.cc, true,
                                          declarations_of(module_.externals))
                           : link_for_gpu(ptx(), facts_.symbol + ".ptx", module_.link, config_.cc, false,
                                          declarations_of(module_.externals));
  std::lock_guard lock(compile_lock());
  if (!cubin_) cubin_ = std::move(cubin);
  return *cubin_;
}

const std::string& compiled_kernel::llvm_ir(target_kind t) {
  auto& slot = t == target_kind::nvptx ? llvm_gpu_ : llvm_host_;
  {
    std::lock_guard lock(compile_lock());
    if (slot) return *slot;
  }
  ensure_module();
  std::lock_guard lock(compile_lock());
  if (!slot) slot = emit_llvm_ir(module_, config_.with_target(t));
  return *slot;
}

const std::string& compiled_kernel::types_dump() {
  std::lock_guard lock(compile_lock());
  if (!types_dump_) {
    std::string s;
    for (const auto& f : module_.functions) s += f.ir->dump();
    types_dump_ = std::move(s);
  }
  return *types_dump_;
}

loaded_kernel& compiled_kernel::load(int dev) {
  // Every launch comes here: once loaded in this context, no lock.
  auto current = [&]() -> loaded_kernel* {
    if (dev < 0 || static_cast<std::size_t>(dev) >= published_size_.load(std::memory_order_acquire)) return nullptr;
    loaded_kernel* p = published_[static_cast<std::size_t>(dev)].load(std::memory_order_acquire);
    return p != nullptr && p->k->generation() == context_generation() ? p : nullptr;
  };
  if (loaded_kernel* p = current()) return *p;
  if (device_) throw type_error("a device function cannot be loaded as a kernel");
  std::lock_guard guard(load_lock_);
  if (loaded_kernel* p = current()) return *p;  // loaded by another thread meanwhile
  if (published_size_.load(std::memory_order_relaxed) == 0) {
    const auto n = static_cast<std::size_t>(std::max(device::count(), dev + 1));
    published_ = std::make_unique<std::atomic<loaded_kernel*>[]>(n);
    published_size_.store(n, std::memory_order_release);
  }
  if (dev < 0 || static_cast<std::size_t>(dev) >= published_size_.load(std::memory_order_relaxed))
    throw logic_error("no device " + std::to_string(dev) + " to load kernel '" + facts_.symbol + "' on");
  module_image image = [&] {
    if (config_.target == target_kind::nvptx) {
      if (module_.link.empty()) return module_image::from_ptx(ptx());
      const std::string& cubin = linked_cubin();  // the kernel with the C/C++ (PTX...) it calls
      const auto* p = reinterpret_cast<const std::byte*>(cubin.data());
      return module_image::from_cubin(std::vector<std::byte>(p, p + cubin.size()));
    }
    std::lock_guard lock(compile_lock());
    if (!host_) host_ = load_host();
    cpu_kernel_symbol sym;
    sym.name = host_->name;
    sym.fn = host_->fn;
    sym.block_fn = host_->block_fn;
    // A barrier-free kernel's block entry is the thread-range one, which runs rows of blocks
    // (a kernel in regions, with barriers, has a block entry of one block).
    sym.block_runs = host_->block_fn != nullptr && !host_->uses_barrier;
    sym.static_shared_bytes = host_->static_shared_bytes;
    sym.uses_barrier = host_->uses_barrier;
    sym.param_sizes = host_->param_sizes;
    sym.arrays = host_->arrays;
    return module_image::from_host({sym});
  }();
  module_options mo;
  mo.max_registers = config_.max_registers;
  mo.generate_line_info = config_.line_tables();
  mo.generate_debug_info = config_.target == target_kind::nvptx && config_.debug();
  auto mod = module::load(image, mo, dev);
  auto fresh = std::make_unique<loaded_kernel>();
  fresh->k = mod.get_kernel(config_.target == target_kind::nvptx ? facts_.symbol : host_->name);
  auto attrs = fresh->k->attributes();
  fresh->static_shared = attrs.static_shared_bytes;
  fresh->dynamic_allowed = static_cast<std::size_t>(std::max(attrs.max_dynamic_shared_bytes, 0));
  if (facts_.may_raise()) {
    fresh->error_record = memory::allocation::make(memory::mapped_resource(), sizeof(kernel_error_record));
    *static_cast<kernel_error_record*>(fresh->error_record->host_data()) = {};
  }
  loaded_kernel& made = *owned_.emplace_back(std::move(fresh));
  published_[static_cast<std::size_t>(dev)].store(&made, std::memory_order_release);
  return made;
}

host_kernel compiled_kernel::load_host() {
  if (host_obj_) return load_host_object(*host_obj_);
  // Code with debug information goes through an object, whose loader announces it to debuggers.
  if (config_.line_tables()) {
    host_obj_ = compile_host_object(module_, config_);
    return load_host_object(*host_obj_);
  }
  return compile_host(module_, config_);
}

const host_kernel& compiled_kernel::host_code() {
  if (device_) throw logic_error("a device function has no host code of its own");
  if (config_.target != target_kind::host)
    throw logic_error("'" + facts_.symbol + "' was compiled for the GPU, not for the host");
  {
    std::lock_guard lock(compile_lock());
    if (host_) return *host_;
  }
  if (!host_obj_) ensure_module();
  std::lock_guard lock(compile_lock());
  if (!host_) host_ = load_host();
  return *host_;
}

cache_entry compiled_kernel::to_cache_entry() {
  if (device_) throw type_error("device functions are not stored in the disk cache");
  cache_entry e;
  e.facts = facts_;
  e.types_dump = types_dump();
  if (config_.target == target_kind::nvptx) {
    e.k = cache_entry::kind::ptx;
    e.code = ptx();
    return e;
  }
  ensure_module();
  std::lock_guard lock(compile_lock());
  if (!host_obj_) host_obj_ = compile_host_object(module_, config_);
  if (!host_) host_ = load_host_object(*host_obj_);
  e.k = cache_entry::kind::host_object;
  e.host_name = host_obj_->name;
  e.host_block_name = host_obj_->block_name;
  e.arrays = host_obj_->arrays;
  e.static_shared_bytes = host_obj_->static_shared_bytes;
  e.slots = host_obj_->slots;
  e.code = host_obj_->object;
  return e;
}

}  // namespace cuforge::jit
