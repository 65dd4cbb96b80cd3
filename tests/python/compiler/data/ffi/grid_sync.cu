// A device function that synchronises the whole grid (cooperative groups):
// a kernel calling it must be launched cooperatively, which the declaration
// says (cuda.declare_device(..., use_cooperative=True)).
#include <cooperative_groups.h>

namespace cg = cooperative_groups;

extern "C" __device__ int rotate_after_grid_sync(int* ret, long long* a, long long n) {
  cg::grid_group grid = cg::this_grid();
  const long long i = static_cast<long long>(grid.thread_rank());
  long long v = i < n ? a[(i + 1) % n] : 0;
  grid.sync();
  if (i < n) a[i] = v;
  *ret = 0;
  return 0;
}
