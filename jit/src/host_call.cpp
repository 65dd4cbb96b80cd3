#include <cuforge/jit/error_record.hpp>
#include <cuforge/jit/host_call.hpp>
#include <cuforge/runtime/cpu_kernel.hpp>
#include <cuforge/runtime/error.hpp>

#include <algorithm>
#include <string>
#include <vector>

namespace cuforge::jit {

using namespace cuforge::frontend;

namespace {

void run_on_host(compiled_kernel& k, std::span<const std::uint64_t> slots) {
  const host_kernel& code = k.host_code();
  if (code.uses_barrier)
    throw logic_error("'" + k.facts().symbol + "' waits at a barrier (cuda.syncthreads): it runs only as a kernel");
  const kernel_layout& layout = k.layout();
  if (slots.size() != layout.argument_slots)
    throw type_error("'" + k.facts().symbol + "' takes " + std::to_string(layout.argument_slots) +
                     " argument slots, given " + std::to_string(slots.size()));
  constexpr std::size_t on_stack = 64;
  std::uint64_t local[on_stack];
  void* local_params[on_stack];
  std::vector<std::uint64_t> heap;
  std::vector<void*> heap_params;
  const std::size_t total = layout.total_slots();
  std::uint64_t* values = local;
  void** params = local_params;
  if (total > on_stack) {
    heap.resize(total);
    heap_params.resize(total);
    values = heap.data();
    params = heap_params.data();
  }
  std::copy(slots.begin(), slots.end(), values);
  kernel_error_record record{};
  if (layout.error_record) values[layout.error_record_slot()] = reinterpret_cast<std::uintptr_t>(&record);
  for (std::size_t i = 0; i < total; ++i) params[i] = &values[i];
  cpu::thread_context ctx;
  ctx.block_dim = {1, 1, 1};
  ctx.grid_dim = {1, 1, 1};
  try {
    code.fn(&ctx, params);
  } catch (const cpu::thread_exit&) {
    // it raised: the record says what
  }
  if (record.code != 0) {
    const auto& sites = k.facts().raise_sites;
    if (record.site < 0 || static_cast<std::size_t>(record.site) >= sites.size())
      throw logic_error("'" + k.facts().symbol + "' raised from an unknown site");
    throw kernel_exception(record, sites[static_cast<std::size_t>(record.site)], /*thread_prefix=*/false);
  }
}

}  // namespace

void call_on_host(compiled_kernel& k, std::span<const std::uint64_t> slots) {
  host_allocation_scope arrays;  // what the code allocated is freed on the way out
  run_on_host(k, slots);
}

host_allocations call_on_host_keeping(compiled_kernel& k, std::span<const std::uint64_t> slots) {
  host_allocation_scope arrays;
  run_on_host(k, slots);
  return arrays.take();
}

}  // namespace cuforge::jit
