// Numba's typing rules (frontend/src/numba_typing.hpp): the closed casting
// table against numba-cuda 0.30's (its typing context's can_convert, dumped
// once), and the resolutions the differential Python test relies on.
#include "numba_typing.hpp"

#include <gtest/gtest.h>

using namespace cuforge::frontend;
using namespace cuforge::frontend::detail;

TEST(NumbaTyping, ConversionTableIsNumbas) {
  // Rows: from; columns: to; in the order b i1 i2 i4 i8 u1 u2 u4 u8 f2 f4 f8
  // c8 c16. 1 exact, 2 promote, 3 safe, 4 unsafe, 0 none (numba-cuda's
  // `cuda_target.typing_context.can_convert`).
  const int numba[14][14] = {
      {1, 3, 3, 3, 3, 3, 3, 3, 3, 3, 3, 3, 3, 3}, {4, 1, 2, 2, 2, 4, 4, 4, 4, 3, 3, 3, 3, 3},
      {4, 4, 1, 2, 2, 4, 4, 4, 4, 4, 3, 3, 3, 3}, {4, 4, 4, 1, 2, 4, 4, 4, 4, 4, 4, 3, 4, 3},
      {4, 4, 4, 4, 1, 4, 4, 4, 4, 4, 4, 3, 4, 3}, {4, 4, 3, 3, 3, 1, 2, 2, 2, 4, 3, 3, 3, 3},
      {4, 4, 4, 3, 3, 4, 1, 2, 2, 4, 4, 3, 4, 3}, {4, 4, 4, 4, 3, 4, 4, 1, 2, 4, 4, 3, 4, 3},
      {4, 4, 4, 4, 4, 4, 4, 4, 1, 4, 4, 3, 4, 3}, {4, 4, 4, 4, 4, 4, 4, 4, 4, 1, 2, 2, 3, 3},
      {4, 4, 4, 4, 4, 4, 4, 4, 4, 4, 1, 2, 3, 3}, {4, 4, 4, 4, 4, 4, 4, 4, 4, 4, 4, 1, 4, 3},
      {0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 1, 2}, {0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 4, 1},
  };
  type_context tc;
  for (int i = 0; i < 14; ++i)
    for (int j = 0; j < 14; ++j) {
      const type* from = tc.scalar(static_cast<cuforge::scalar_id>(i));
      const type* to = tc.scalar(static_cast<cuforge::scalar_id>(j));
      conversion want = numba[i][j] == 0 ? conversion::none : static_cast<conversion>(numba[i][j]);
      EXPECT_EQ(can_convert(from, to), want) << from->str() << " -> " << to->str();
    }
}

TEST(NumbaTyping, OperatorsResolveAsNumba) {
  type_context tc;
  auto bin = [&](binop o, const type* a, const type* b) { return numba_binary(tc, o, a, b).result; };
  EXPECT_EQ(bin(binop::mul, tc.int32(), tc.int32()), tc.int64());      // widened, not wrapped
  EXPECT_EQ(bin(binop::add, tc.uint8(), tc.uint32()), tc.uint64());
  EXPECT_EQ(bin(binop::add, tc.int64(), tc.uint64()), tc.int64());
  EXPECT_EQ(bin(binop::mul, tc.float32(), tc.float64()), tc.float64());  // float32 * 0.1
  EXPECT_EQ(bin(binop::add, tc.float32(), tc.int16()), tc.float32());
  EXPECT_EQ(bin(binop::add, tc.float32(), tc.int32()), tc.float64());
  EXPECT_EQ(bin(binop::add, tc.float16(), tc.int8()), tc.float16());
  EXPECT_EQ(bin(binop::add, tc.float16(), tc.uint8()), tc.float32());
  EXPECT_EQ(bin(binop::truediv, tc.int8(), tc.int8()), tc.float64());
  EXPECT_EQ(bin(binop::floordiv, tc.float16(), tc.float16()), tc.float32());
  EXPECT_EQ(bin(binop::pow, tc.boolean(), tc.int32()), tc.float32());  // Numba's float32 ** int32 case
  EXPECT_EQ(bin(binop::pow, tc.float32(), tc.uint32()), tc.float32());
  EXPECT_EQ(bin(binop::lshift, tc.uint8(), tc.int32()), tc.uint64());
  EXPECT_EQ(bin(binop::bitand_, tc.boolean(), tc.boolean()), tc.boolean());
  EXPECT_EQ(bin(binop::mod, tc.complex64(), tc.complex64()), nullptr);
  EXPECT_EQ(bin(binop::lshift, tc.float32(), tc.int32()), nullptr);
  // int64 against uint64 compares in float64.
  resolved_op c = numba_compare(tc, cmpop::lt, tc.int64(), tc.uint64());
  ASSERT_TRUE(c);
  EXPECT_EQ(c.params[0], tc.float64());
  EXPECT_FALSE(numba_compare(tc, cmpop::lt, tc.complex64(), tc.complex64()));
  EXPECT_TRUE(numba_compare(tc, cmpop::eq, tc.complex64(), tc.complex64()));
  EXPECT_EQ(numba_unary(tc, unop::neg, tc.uint8()).result, tc.uint64());
  EXPECT_EQ(numba_unary(tc, unop::neg, tc.boolean()).result, tc.int64());
  EXPECT_EQ(numba_call(tc, "builtins.abs", {tc.int8()}).result, tc.int8());
  EXPECT_EQ(numba_call(tc, "builtins.round", {tc.int16(), tc.int64()}).result, tc.float32());
  EXPECT_EQ(numba_call(tc, "math.sin", {tc.int32()}).result, tc.float64());
  EXPECT_EQ(numba_call(tc, "math.floor", {tc.float32()}).result, tc.float32());
  EXPECT_EQ(numba_call(tc, "math.pow", {tc.int8(), tc.int8()}).result, tc.float32());
  EXPECT_FALSE(numba_call(tc, "math.sin", {tc.complex64()}));
  EXPECT_EQ(promote(tc, tc.int64(), tc.uint64()), tc.float64());  // unification
}
