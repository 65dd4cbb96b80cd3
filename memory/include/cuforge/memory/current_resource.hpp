#pragma once

/// @file
/// Which resource serves each device's allocations (the pool where the
/// device has pools, else plain device memory; an external memory manager
/// plugs in with set_current_resource), and the shared host-side resources.

#include <cuforge/memory/memory_resource.hpp>
#include <cuforge/runtime/export.hpp>

#include <memory>

namespace cuforge::memory {

/// @brief The resource device allocations use on `device` (-1: current):
/// the stream-ordered pool where the device supports pools, else plain
/// device memory; CUFORGE_MEMORY_RESOURCE=device|pool overrides.
CUFORGE_API std::shared_ptr<memory_resource> current_resource(int device = -1);
/// @brief Replaces it (an external memory manager plugs in here). nullptr
/// restores the default.
CUFORGE_API void set_current_resource(std::shared_ptr<memory_resource> mr, int device = -1);

/// Shared host-side resources (device-independent).
CUFORGE_API std::shared_ptr<memory_resource> pinned_resource();
CUFORGE_API std::shared_ptr<memory_resource> mapped_resource();
/// @brief Replace the pinned or mapped host resource (an external memory
/// manager that allocates host memory too); nullptr restores the default.
/// @throws logic_error when `mr`'s kind is not the slot's.
CUFORGE_API void set_pinned_resource(std::shared_ptr<memory_resource> mr);
CUFORGE_API void set_mapped_resource(std::shared_ptr<memory_resource> mr);
/// @brief The resource cuforge uses on `device` when nothing is plugged in
/// (what CUFORGE_MEMORY_RESOURCE selects); an external manager that wants
/// cuforge's own memory underneath takes it from here.
CUFORGE_API std::shared_ptr<memory_resource> default_resource(int device = -1);
CUFORGE_API std::shared_ptr<memory_resource> managed_resource(int device = -1);

}  // namespace cuforge::memory
