#include "kernel_operator.h"
#define TILE \
  2048
// a comment with "quotes"
constexpr int32_t BUFFER_NUM = 2; /* block */
extern "C" __global__ __aicore__ void add_custom(GM_ADDR x, GM_ADDR y) {
    auto s = R"raw(x)")raw"; char c = '\'';
    for (uint32_t i = 0; i < 1'000; ++i) { z >>= 0x1F; }
}
