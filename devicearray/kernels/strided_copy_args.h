#pragma once
// The parameter block of the strided copy kernel, shared by the kernel
// (strided_copy.inc, both backends) and the host code that fills it.

#define CUFORGE_STRIDED_MAX_NDIM 64

struct cuforge_strided_copy_args {
  char* dst;
  const char* src;  // null: fill every element with `value`
  long long count;  // elements
  int ndim;
  int itemsize;
  long long shape[CUFORGE_STRIDED_MAX_NDIM];
  long long dst_strides[CUFORGE_STRIDED_MAX_NDIM];
  long long src_strides[CUFORGE_STRIDED_MAX_NDIM];
  unsigned char value[16];
};

