#pragma once

// What the mock driver (libcuda_mock.so) saw, for tests to check the cuda
// backend's plumbing: which ABI it asked for, how often it switched
// contexts, what it launched. Read with dlsym("cuforge_mock_get_stats") on
// the already-loaded mock.
//
// Knobs, read from the environment:
//   CUFORGE_MOCK_DEVICE_MEMORY      device (and pinnable host) capacity in bytes, default 1 GiB
//   CUFORGE_MOCK_DRIVER_VERSION     what cuDriverGetVersion reports, default 13000
//   CUFORGE_MOCK_NO_GET_PROC_ADDRESS=1  cuGetProcAddress fails (exercises the dlsym fallback)
//   CUFORGE_MOCK_HIDE=a,b           cuGetProcAddress does not know these entry points

extern "C" {

struct cuforge_mock_stats {
  int get_proc_address_calls;
  int get_proc_address_max_version;                // the newest ABI asked for
  int newer_variants_handed_out;                   // variants newer than cuda.h's declaration
  unsigned long long get_proc_address_flags_seen;  // OR of every flags argument
  int init_calls;
  int contexts_created;
  int primary_retains;
  int primary_releases;
  int primary_resets;
  int set_current_calls;
  int live_allocations;
  unsigned long long device_bytes_in_use;
  unsigned last_host_alloc_flags;
  unsigned last_host_register_flags;
  unsigned last_managed_flags;
  unsigned last_stream_flags;
  unsigned last_event_flags;
  int host_callbacks;
  int modules_loaded;
  int last_module_format;  // 0 ptx, 1 cubin, 2 fatbin
  int jit_max_registers;
  int jit_optimization_level;
  int jit_line_info;
  int jit_debug_info;
  int pool_allocations;
  unsigned long long pool_release_threshold;
  unsigned long long pool_trim_keep;
  int pool_trim_calls;
  int launches;
  int cooperative_launches;
  char last_kernel[64];
  unsigned last_grid[3];
  unsigned last_block[3];
  unsigned last_shared;
  void* last_stream;
  void** last_params;
  int profiler_active;
  int pointer_attribute_calls;  // cuPointerGetAttributes
  int sync_copies;              // cuMemcpy (the legacy stream's synchronous copy)
  int stream_synchronizes;      // cuStreamSynchronize
  int ipc_open_handles;         // opened by cuIpcOpenMemHandle, not yet closed
  int async_copies;             // cuMemcpyAsync
};

__attribute__((visibility("default"))) void cuforge_mock_get_stats(cuforge_mock_stats* out);

}  // extern "C"
