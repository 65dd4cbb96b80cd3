#pragma once

/// @file
/// Symbol visibility: libcuforge is built with hidden visibility and exports
/// exactly what is marked CUFORGE_API.

#define CUFORGE_API __attribute__((visibility("default")))
