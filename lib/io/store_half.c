/* float16 storage of qkv_store_write_real (lib/io/store.h: qkv_store_set_float16). */
#include "lib/io/store_half.h"

#include <math.h>
#include <string.h>

uint16_t qkv_half_from_float(float f)
{
    uint32_t x;
    memcpy(&x, &f, sizeof x);
    uint16_t sign = (uint16_t)((x >> 16) & 0x8000u);
    uint32_t abs = x & 0x7fffffffu;
    if (abs >= 0x7f800000u) /* inf, nan (a quiet nan keeps a fraction bit) */
        return (uint16_t)(sign | 0x7c00u | (abs > 0x7f800000u ? 0x200u : 0u));
    if (abs >= 0x477ff000u) /* at or above 65520 = 65504 + half a step: inf */
        return (uint16_t)(sign | 0x7c00u);
    int e = (int)(abs >> 23) - 127 + 15; /* the binary16 exponent field */
    uint32_t m = (abs & 0x7fffffu) | 0x800000u; /* 24-bit significand with its leading 1 */
    int shift = 13;                              /* 23 - 10 fraction bits */
    if (e <= 0) {                                /* subnormal: the value is m * 2^(e-38) */
        if (e < -10)
            return sign; /* below 2^-25 (or exactly 0, or a float subnormal) */
        shift = 14 - e;
        e = 0;
    } else
        m &= 0x7fffffu;
    uint32_t q = m >> shift, rest = m & ((1u << shift) - 1u), halfway = 1u << (shift - 1);
    if (rest > halfway || (rest == halfway && (q & 1u)))
        q++; /* may carry into the exponent field: still the right encoding */
    return (uint16_t)(sign | (((uint32_t)e << 10) + q));
}

int64_t qkv_half_h5_type(void)
{
    hid_t t = H5Tcopy(H5T_IEEE_F32LE);
    if (t < 0)
        return -1;
    if (H5Tset_fields(t, 15, 10, 5, 0, 10) < 0 || H5Tset_size(t, 2) < 0 || H5Tset_ebias(t, 15) < 0) {
        H5Tclose(t);
        return -1;
    }
    return t;
}
